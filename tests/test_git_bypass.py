"""The change under review cannot switch the gate off: every bypass is a finding.

Each scenario runs in both modes: the work tree, and the index (``--staged``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES
from gitrepo import CONV, ENV, add_conversation_handoff, commit_all, edit, git, make_repo

from agent_lint.cli import main

MODES = ["worktree", "staged"]
H002 = f"{CONV}/handoffs/H-002.json"


def lint(repo: Path, capsys, mode: str, *args: str) -> tuple[int, dict, str]:
    """Run the gate; exit code, the JSON report and stderr."""
    extra = ["--staged"] if mode == "staged" else []
    if mode == "staged":
        git(repo, "add", "-A")
    code = main([str(repo), "--base", "main", "--output-format", "json", *extra, *args])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def found(report: dict) -> list[tuple[str, str]]:
    """The gate's findings (other checks also see the rewritten record)."""
    return [(d["code"], d["path"]) for d in report["diagnostics"] if d["code"].startswith("AL6")]


def assert_agent_dir_removed(code: int, report: dict, says: str) -> None:
    """The run failed on the gate's AL608 for .agent alone, and its message says ``says``."""
    assert code == 1
    assert found(report) == [("AL608", ".agent")]
    [finding] = [d for d in report["diagnostics"] if d["code"] == "AL608"]
    assert says in finding["message"]


def rewrite_h002(repo: Path) -> None:
    edit(repo / H002, '"task_complete"', '"timeout"')


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "file, text",
    [
        (".agent-lint.toml", 'ignore = ["AL6"]\n'),
        (".agent-lint.toml", 'select = ["AL1"]\n'),
        ("pyproject.toml", '[tool.agent-lint.per-file-ignores]\n"*/handoffs/*" = ["AL6"]\n'),
        (".agent-lint.toml", '[severity]\nAL6 = "warning"\n'),
    ],
    ids=["ignore", "select", "per-file-ignores", "severity"],
)
def test_the_change_cannot_configure_the_gate_away(tmp_path, capsys, mode, file, text):
    repo = make_repo(tmp_path)
    (repo / file).write_text(text)
    rewrite_h002(repo)
    code, report, _ = lint(repo, capsys, mode)
    assert code == 1
    assert found(report) == [("AL601", H002)]
    assert next(d for d in report["diagnostics"] if d["code"] == "AL601")["severity"] == "error"
    [notice] = report["notices"]
    assert "the change edits agent-lint settings that decide the append-only gate" in notice


def test_the_notice_is_on_stderr_in_text_output(tmp_path, capsys):
    repo = make_repo(tmp_path)
    (repo / ".agent-lint.toml").write_text('ignore = ["AL601"]\n')
    rewrite_h002(repo)
    assert main([str(repo), "--base", "main", "--select", "AL6"]) == 1
    out, err = capsys.readouterr()
    assert "AL601" in out
    assert err.startswith("agent-lint: notice: the change edits agent-lint settings")
    assert "(ignore)" in err


def test_settings_merged_on_the_base_do_apply(tmp_path, capsys):
    repo = make_repo(tmp_path)
    (repo / ".agent-lint.toml").write_text('[severity]\nAL601 = "warning"\n')
    commit_all(repo, "handoff rewrites are warnings here")
    rewrite_h002(repo)
    code, report, _ = lint(repo, capsys, "worktree", "--select", "AL6")
    assert code == 0 and report["diagnostics"][0]["severity"] == "warning"
    assert "notices" not in report


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("store", [".pi/pbot/history", ".astrion/conversations"])
def test_replacing_the_agent_dir_by_another_layout(tmp_path, capsys, mode, store):
    """The profile the merge-base's markers show decides the gate: a change that deletes
    .agent/ and adds another layout's store does not move the gate onto that layout."""
    repo = make_repo(tmp_path)
    git(repo, "rm", "-rq", ".agent")
    layout = FIXTURES.parent / ("personal_bot" if store.startswith(".pi") else "astrion") / "valid"
    shutil.copytree(layout / store, repo / store)
    if store.startswith(".astrion"):
        shutil.copy(layout / ".astrion" / "state.json", repo / ".astrion" / "state.json")
    assert_agent_dir_removed(*lint(repo, capsys, mode)[:2], "the change's agent dir is ")


@pytest.mark.parametrize("mode", MODES)
def test_a_second_layout_beside_a_store_is_a_usage_error_with_the_gate(tmp_path, capsys, mode):
    """Markers of two profiles: the user chooses; the gate does not pick the other one."""
    repo = tmp_path / "pbot"
    shutil.copytree(FIXTURES.parent / "personal_bot" / "valid", repo)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "a Personal Bot store")
    (repo / ".agent").mkdir()
    (repo / ".agent" / "README.md").write_text("# notes\n", encoding="utf-8")
    extra = ["--staged"] if mode == "staged" else []
    if mode == "staged":
        git(repo, "add", "-A")
    assert main([str(repo), "--base", "main", *extra]) == 2
    assert "the markers of several profiles match" in capsys.readouterr().err


@pytest.mark.parametrize("mode", MODES)
def test_a_moved_agent_dir_is_one_finding(tmp_path, capsys, mode):
    """With every rule selected, as the Action runs: the gate's AL608, and no walk of a
    folder that is not there (an AL010 "cannot be read")."""
    repo = make_repo(tmp_path)
    git(repo, "mv", ".agent", "state")
    code, report, _ = lint(repo, capsys, mode)
    assert code == 1
    assert [(d["code"], d["path"]) for d in report["diagnostics"]] == [("AL608", ".agent")]


@pytest.mark.parametrize("mode", MODES)
def test_moving_the_agent_dir_with_its_configuration(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    git(repo, "mv", ".agent", "state")
    (repo / ".agent-lint.toml").write_text('agent-dir = "state"\n')
    rewrite = repo / "state/conversations/C-payments-refactor/handoffs/H-002.json"
    edit(rewrite, '"task_complete"', '"timeout"')
    assert_agent_dir_removed(*lint(repo, capsys, mode)[:2], "the change's agent dir is state")


@pytest.mark.parametrize("mode", MODES)
def test_agent_dir_moved_and_linked_back(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    git(repo, "mv", ".agent", "state")
    os.symlink("state", repo / ".agent")
    rewrite_h002(repo)  # through the link
    code, report, _ = lint(repo, capsys, mode)
    assert code == 1
    assert found(report) == [("AL607", ".agent")]
    [finding] = [d for d in report["diagnostics"] if d["code"] == "AL607"]
    assert "in the change it is a symbolic link" in finding["message"]


@pytest.mark.parametrize("mode", MODES)
def test_handoff_replaced_by_a_symlink(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    handoff = repo / H002
    copy = repo / ".agent/artifacts/H-002-copy.json"
    shutil.copy(handoff, copy)
    handoff.unlink()
    os.symlink("../../../artifacts/H-002-copy.json", handoff)
    _, report, _ = lint(repo, capsys, mode)
    assert found(report) == [("AL607", H002)]


def _submodule(repo: Path, folder: str) -> str:
    """Turn ``folder`` into a nested repository recorded as a gitlink; its commit id."""
    env = {**os.environ, **ENV, "HOME": str(repo.parent)}
    path = repo / folder
    git(repo, "rm", "-q", "-r", "--cached", folder)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=path, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "handoffs"], cwd=path, check=True, env=env)
    sha = git(path, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},{folder}")
    return sha


@pytest.mark.parametrize("mode", MODES)
def test_handoffs_folder_turned_into_a_submodule(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    folder = f"{CONV}/handoffs"
    _submodule(repo, folder)
    code, report, _ = lint(repo, capsys, mode)
    assert code == 1
    assert found(report) == [("AL607", folder)]
    [finding] = [d for d in report["diagnostics"] if d["code"] == "AL607"]
    assert "a submodule (gitlink)" in finding["message"]


@pytest.mark.parametrize("mode", MODES)
def test_bumping_a_merged_submodule_inside_the_agent_dir(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    folder = f"{CONV}/handoffs"
    _submodule(repo, folder)
    git(repo, "commit", "-q", "-m", "handoffs as a submodule (as if it had been merged)")
    nested = repo / folder
    edit(nested / "H-002.json", '"task_complete"', '"timeout"')
    git(nested, "commit", "-q", "-am", "rewrite H-002 inside the submodule")
    git(repo, "update-index", "--cacheinfo", f"160000,{git(nested, 'rev-parse', 'HEAD')},{folder}")
    code, report, _ = lint(repo, capsys, mode)
    assert code == 1
    assert found(report) == [("AL609", folder)]


@pytest.mark.parametrize("mode", MODES)
def test_any_gitlink_inside_the_agent_dir(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    vendor = repo / ".agent/artifacts/vendored"
    vendor.mkdir()
    (vendor / "README.md").write_text("vendored\n")
    git(repo, "add", "-A")
    _submodule(repo, ".agent/artifacts/vendored")
    _, report, _ = lint(repo, capsys, mode)
    assert found(report) == [("AL609", ".agent/artifacts/vendored")]


@pytest.mark.parametrize("mode", MODES)
def test_runtime_named_mission_handoffs_and_notes_are_protected(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    folder = ".agent/missions/M-001/handoffs"
    edit(repo / folder / "20261103-090000-ms-002-gateway.json", "MS-002 started", "MS-002 done")
    edit(repo / folder / "20261103-090000-ms-002-gateway.md", "started", "finished")
    edit(repo / folder / "H-20261102-143000-ms-001-done.md", "complete", "finished")
    code, report, _ = lint(repo, capsys, mode)
    assert code == 1
    assert found(report) == [
        ("AL601", f"{folder}/20261103-090000-ms-002-gateway.json"),
        ("AL601", f"{folder}/20261103-090000-ms-002-gateway.md"),
        ("AL601", f"{folder}/H-20261102-143000-ms-001-done.md"),
    ]


def _nested_project(tmp_path: Path) -> Path:
    """A project whose .agent/ is its own repository, ignored by the project's."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copytree(make_repo(tmp_path) / ".agent", project / ".agent")
    (project / ".gitignore").write_text(".agent/\n")
    (project / "README.md").write_text("project\n")
    git(project, "init", "-q", "-b", "main")
    commit_all(project, "the project")
    agent = project / ".agent"
    git(agent, "init", "-q", "-b", "main")
    commit_all(agent, "agent state")
    return project


@pytest.mark.parametrize("mode", MODES)
def test_nested_agent_repository(tmp_path, capsys, mode):
    project = _nested_project(tmp_path)
    agent = project / ".agent"
    edit(agent / "conversations/C-payments-refactor/handoffs/H-002.json", '"task_complete"',
         '"timeout"')  # fmt: skip
    add_conversation_handoff(agent.parent, 4)
    if mode == "staged":
        git(agent, "add", "-A")
    extra = ["--staged"] if mode == "staged" else []
    code = main([str(project), "--base", "main", "--select", "AL6", "--output-format", "json",
                 *extra])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert found(report) == [("AL601", H002)]
    assert "merged in" in report["diagnostics"][0]["message"]
    assert '("agent state")' in report["diagnostics"][0]["message"]


def test_nested_agent_repository_runs_the_gate_from_inside(tmp_path, capsys, monkeypatch):
    project = _nested_project(tmp_path)
    agent = project / ".agent"
    edit(agent / "handoffs/H-20261103-120000-release-prep.md", "#", "# rewritten")
    monkeypatch.chdir(agent)
    code = main(["--base", "main", "--select", "AL6", "--output-format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert found(report) == [("AL601", ".agent/handoffs/H-20261103-120000-release-prep.md")]


@pytest.mark.parametrize("mode", MODES)
def test_handoff_replaced_by_a_folder(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    handoff = repo / H002
    data = handoff.read_bytes()
    handoff.unlink()
    handoff.mkdir()
    (handoff / "H-002.json").write_bytes(data)
    code, report, _ = lint(repo, capsys, mode)
    assert code == 1
    assert found(report) == [("AL607", H002)]
    [finding] = [d for d in report["diagnostics"] if d["code"] == "AL607"]
    assert "in the change it is a folder" in finding["message"]


def _monorepo(tmp_path: Path) -> Path:
    """A repository whose store is ``services/pay/.agent``, committed on ``main``."""
    repo = tmp_path / "mono"
    shutil.copytree(FIXTURES / "valid", repo / "services" / "pay")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "a service's agent state")
    return repo


def _gate_on(repo: Path, capsys, mode: str, named: str) -> tuple[int, list[tuple[str, str]]]:
    """The gate run on the folder ``named`` as the command line names it."""
    extra = ["--staged"] if mode == "staged" else []
    if mode == "staged":
        git(repo, "add", "-A")
    code = main([str(repo / named), "--base", "main", "--output-format", "json", *extra])
    report = json.loads(capsys.readouterr().out)
    return code, found(report)


@pytest.mark.parametrize("mode", MODES)
def test_a_store_added_above_the_named_folder_does_not_move_the_gate(tmp_path, capsys, mode):
    """``agent-lint services/pay``: deleting its store and adding ``services/.agent`` lets
    discovery find the new one, but the merged store the gate protects is the one the
    merge-base holds at the named folder."""
    repo = _monorepo(tmp_path)
    git(repo, "rm", "-rq", "services/pay/.agent")
    (repo / "services/.agent/decisions").mkdir(parents=True)
    shutil.copy(FIXTURES / "valid/.agent/decisions/D-002.json", repo / "services/.agent/decisions")
    code, gate = _gate_on(repo, capsys, mode, "services/pay")
    assert code == 1 and gate == [("AL608", "pay/.agent")]
    # Moved up whole, and a merged note edited there: still the merged store's AL608.
    git(repo, "reset", "-q", "--hard")
    shutil.rmtree(repo / "services/.agent", ignore_errors=True)
    git(repo, "mv", "services/pay/.agent", "services/.agent")
    note = repo / "services/.agent/conversations/C-payments-refactor/handoffs/H-001.md"
    note.write_text(note.read_text() + "rewritten\n")
    code, gate = _gate_on(repo, capsys, mode, "services/pay")
    assert code == 1 and ("AL608", "pay/.agent") in gate


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a POSIX file system")
@pytest.mark.parametrize("mode", MODES)
def test_the_named_folder_made_a_link_to_a_decoy_is_a_finding(tmp_path, capsys, mode):
    repo = _monorepo(tmp_path)
    git(repo, "mv", "services/pay", "decoy")
    os.symlink("../decoy", repo / "services/pay")
    note = repo / "decoy/.agent/conversations/C-payments-refactor/handoffs/H-001.md"
    note.write_text(note.read_text() + "rewritten\n")
    code, gate = _gate_on(repo, capsys, mode, "services/pay")
    assert code == 1 and [c for c, _ in gate] == ["AL607"]


def test_a_store_the_change_adds_below_a_merged_one_is_not_a_removal(tmp_path, capsys):
    """The merge-base's store above the named folder is compared, and it is unchanged."""
    repo = _monorepo(tmp_path)
    shutil.copytree(FIXTURES / "valid", repo / "services/pay/api")
    code, gate = _gate_on(repo, capsys, "worktree", "services/pay/api")
    assert (code, gate) == (0, [])


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a POSIX file system")
@pytest.mark.parametrize("mode", MODES)
def test_a_folder_above_the_named_one_made_a_link_is_a_finding(tmp_path, capsys, mode):
    """``services`` made a link to a decoy copy: the named ``services/pay`` is taken as
    written, and the merged store there is gone (AL607), whatever the decoy holds."""
    repo = _monorepo(tmp_path)
    git(repo, "mv", "services", "decoy")
    os.symlink("decoy", repo / "services")
    note = repo / "decoy/pay/.agent/conversations/C-payments-refactor/handoffs/H-001.md"
    note.write_text(note.read_text() + "rewritten\n")
    code, gate = _gate_on(repo, capsys, mode, "services/pay")
    assert code == 1 and [c for c, _ in gate] == ["AL607"]


def test_the_merge_bases_agent_dir_setting_at_the_named_folder_is_followed(tmp_path, capsys):
    """The base keeps ``services/pay``'s store at ``var/.agent`` (its own configuration):
    deleting that configuration and adding a decoy ``services/.agent`` does not move the
    gate off it."""
    repo = tmp_path / "mono"
    shutil.copytree(FIXTURES / "valid", repo / "services/pay")
    (repo / "services/pay/var").mkdir()
    (repo / "services/pay/.agent").rename(repo / "services/pay/var/.agent")
    (repo / "services/pay/.agent-lint.toml").write_text('agent-dir = "var/.agent"\n')
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "a service's agent state, kept in var/")
    (repo / "services/pay/.agent-lint.toml").unlink()
    shutil.copytree(FIXTURES / "valid/.agent/decisions", repo / "services/.agent/decisions")
    rewrite = repo / "services/pay/var/.agent/conversations/C-payments-refactor/handoffs"
    edit(rewrite / "H-002.json", '"task_complete"', '"timeout"')
    code, gate = _gate_on(repo, capsys, "worktree", "services/pay")
    assert code == 1 and [c for c, _ in gate] == ["AL601"]


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a POSIX file system")
@pytest.mark.parametrize("how", ["file", "link-to-file"])
def test_the_named_folder_made_a_file_is_a_finding(tmp_path, capsys, how):
    repo = _monorepo(tmp_path)
    git(repo, "rm", "-rq", "services/pay")
    shutil.rmtree(repo / "services/pay", ignore_errors=True)
    (repo / "services").mkdir(exist_ok=True)
    if how == "file":
        (repo / "services/pay").write_text("nothing here\n")
    else:
        (repo / "README.md").write_text("hi\n")
        os.symlink("../README.md", repo / "services/pay")
        shutil.copytree(FIXTURES / "valid/.agent/decisions", repo / "services/.agent/decisions")
    code, gate = _gate_on(repo, capsys, "worktree", "services/pay")
    assert code == 1 and [c for c, _ in gate] in (["AL607"], ["AL608"])


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a POSIX file system")
def test_the_repository_reached_through_a_linked_folder_keeps_the_named_folder(tmp_path, capsys):
    """The workspace itself behind a link (``lnk -> real``): ``services`` made a link to a
    decoy is still AL607, named through the link as through the real path."""
    real = _monorepo(tmp_path)
    os.symlink(real, tmp_path / "lnk")
    git(real, "mv", "services", "decoy")
    os.symlink("decoy", real / "services")
    note = real / "decoy/pay/.agent/conversations/C-payments-refactor/handoffs/H-001.md"
    note.write_text(note.read_text() + "rewritten\n")
    code, gate = _gate_on(tmp_path / "lnk", capsys, "worktree", "services/pay")
    assert code == 1 and [c for c, _ in gate] == ["AL607"]


def test_a_store_at_the_named_folder_wins_over_an_agent_dir_setting_above(tmp_path, capsys):
    """The base's root configuration names the root project's store (``agent-dir``); the
    store at the named ``services/pay`` is nearer, and removing it is AL608."""
    repo = _monorepo(tmp_path)
    shutil.copytree(FIXTURES / "valid/.agent", repo / "state/agent")
    (repo / ".agent-lint.toml").write_text('agent-dir = "state/agent"\n')
    commit_all(repo, "the root project's store too")
    git(repo, "rm", "-rq", "services/pay/.agent")
    code, gate = _gate_on(repo, capsys, "worktree", "services/pay")
    assert code == 1 and gate == [("AL608", "services/pay/.agent")]


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a POSIX file system")
def test_a_merged_store_kept_behind_a_link_at_the_named_folder_is_protected(tmp_path, capsys):
    repo = _monorepo(tmp_path)
    pay = repo / "services/pay"
    git(repo, "mv", "services/pay/.agent", "services/pay/agentstate")
    os.symlink("agentstate", pay / ".agent")
    commit_all(repo, "the store behind a link")
    (pay / ".agent").unlink()
    shutil.copytree(FIXTURES / "valid/.agent/decisions", repo / "services/.agent/decisions")
    edit(pay / "agentstate/conversations/C-payments-refactor/handoffs/H-002.json",
         '"task_complete"', '"timeout"')  # fmt: skip
    code, gate = _gate_on(repo, capsys, "worktree", "services/pay")
    assert code == 1 and gate, gate


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a POSIX file system")
def test_removing_the_link_a_merged_store_is_kept_behind_is_a_finding_beside_a_decoy(
    tmp_path, capsys
):
    """``--staged``: the commit deletes ``services/pay/.agent`` (a link to ``agentstate``)
    while a decoy ``services/.agent`` sits in the work tree: the merged agent dir no longer
    leads to its records (AL608), whichever store discovery finds."""
    repo = _monorepo(tmp_path)
    pay = repo / "services/pay"
    git(repo, "mv", "services/pay/.agent", "services/pay/agentstate")
    os.symlink("agentstate", pay / ".agent")
    commit_all(repo, "the store behind a link")
    git(repo, "rm", "-q", "services/pay/.agent")
    shutil.copytree(FIXTURES / "valid/.agent/decisions", repo / "services/.agent/decisions")
    main([str(pay), "--base", "main", "--staged", "--output-format", "json"])
    assert [c for c, _ in found(json.loads(capsys.readouterr().out))] == ["AL608"]
