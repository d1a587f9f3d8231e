"""``--new-only``: report what a change adds to its merge-base, nothing that was already there."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, write_tree
from gitrepo import CONV, commit_all, edit, git, make_repo
from records import decision

from agent_lint import gittree
from agent_lint.cli import main
from agent_lint.filesystem import DISK
from agent_lint.linter import lint_paths

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def drift(tmp_path: Path) -> Path:
    """A repository with drift on main (13 findings) and a branch ``change`` off it."""
    repo = make_repo(tmp_path, "real-world")
    git(repo, "checkout", "-q", "-b", "change")
    return repo


def _add_misnamed_decision(repo: Path) -> None:
    write_tree(repo / ".agent", {"decisions/D-OPS-9.json": decision(decision_id="D-OPS-9")})
    index = repo / ".agent/decisions/index.json"
    data = json.loads(index.read_text())
    data["decisions"].append(
        {"decision_id": "D-OPS-9", "path": ".agent/decisions/D-OPS-9.json", "status": "pending"}
    )
    index.write_text(json.dumps(data, indent=2) + "\n")


def test_only_what_the_change_adds_is_reported(drift, capsys):
    plain = lint_paths([drift])
    assert len(plain.diagnostics) == 13
    decision_path = drift / ".agent/decisions/D-OPS-4.json"
    write_tree(drift / ".agent", {"decisions/D-OPS-4.json": decision(decision_id="D-OPS-04")})
    assert decision_path.is_file()
    result = lint_paths([drift], base="main", new_only=True)
    assert [(d.code, d.path) for d in result.diagnostics] == [
        ("AL202", ".agent/decisions/D-OPS-4.json"),
        ("AL306", ".agent/decisions/index.json"),
    ]
    assert result.pre_existing == 13
    assert main([str(drift), "--base", "main", "--new-only", "--no-color"]) == 1
    out = capsys.readouterr().out
    merge_base = git(drift, "rev-parse", "main")[:12]
    assert out.splitlines()[-1] == (
        "Found 2 errors in 18 files checked; 13 findings already present at the merge-base "
        f"{merge_base} of main not reported (--new-only)."
    )


def test_a_repository_with_drift_passes_until_a_change_adds_a_problem(drift, capsys):
    assert main([str(drift), "--base", "main", "--new-only", "--no-color"]) == 0
    assert "13 findings already present" in capsys.readouterr().out
    git(drift, "commit", "-q", "--allow-empty", "-m", "nothing new")
    assert main([str(drift), "--base", "main", "--new-only", "-q"]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("fmt", ["json", "github", "sarif"])
def test_every_format_says_how_many_were_left_out(drift, capsys, fmt):
    summary = drift.parent / "summary.md"
    code = main([str(drift), "--base", "main", "--new-only", "--output-format", fmt,
                 "--summary-file", str(summary)])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    said = "13 findings already present at the merge-base"
    if fmt == "json":
        assert any(said in notice for notice in json.loads(out)["notices"])
    elif fmt == "github":
        assert any(line.startswith("::notice") and said in line for line in out.splitlines())
    else:
        [run] = json.loads(out)["runs"]
        notes = run["invocations"][0]["toolExecutionNotifications"]
        assert any(said in note["message"]["text"] for note in notes)
    assert said in summary.read_text()


def test_moved_lines_and_reformatted_records_stay_known(drift):
    for path in (drift / ".agent").rglob("*.json"):
        if "/handoffs/" not in path.as_posix():  # append-only: never reformatted
            path.write_text(json.dumps(json.loads(path.read_text()), indent=4) + "\n")
    result = lint_paths([drift], base="main", new_only=True)
    assert result.diagnostics == [] and result.pre_existing == 13


def test_a_second_occurrence_of_a_known_problem_is_new(drift):
    known = lint_paths([drift])
    [missing] = [d for d in known.diagnostics if d.code == "AL302" and "D-OPS-004" in d.path]
    record = drift / missing.path
    data = json.loads(record.read_text())
    refs = data["relations"]["artifact_refs"]
    refs.append(refs[0])
    record.write_text(json.dumps(data, indent=2) + "\n")
    result = lint_paths([drift], base="main", new_only=True)
    assert [(d.code, d.path, d.pointer) for d in result.diagnostics] == [
        ("AL107", missing.path, "/relations/artifact_refs"),  # the list now repeats an item
        ("AL302", missing.path, "/relations/artifact_refs/1"),
    ]
    assert result.pre_existing == 13


def test_fixed_findings_are_not_counted(drift):
    edit(
        drift / ".agent/decisions/D-OPS-004-adopt-queue.json",
        ".agent/decisions/WP-ops-queue-shadow",
        ".agent/waitpoints/WP-ops-queue-shadow",
    )
    result = lint_paths([drift], base="main", new_only=True)
    assert result.diagnostics == []
    assert result.pre_existing == 12


def test_gate_findings_are_always_reported(tmp_path, monkeypatch):
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "-b", "change")
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    edit(repo / CONV / "meta.json", '"turn_count": 7', '"turn_count": 9')
    result = lint_paths([repo], base="main", new_only=True)
    # meta.json's entry for H-002 (AL406) is the edit's consequence, AL601 alone says it.
    assert {d.code for d in result.diagnostics} == {"AL601", "AL410"}
    # Even if the merge-base had every finding of the change, AL6xx would stay.
    monkeypatch.setattr(gittree, "base_tree", lambda session, commit: DISK)
    result = lint_paths([repo], base="main", new_only=True)
    assert {d.code for d in result.diagnostics} == {"AL601"}
    assert result.pre_existing == 1


def test_new_only_needs_a_base(drift, capsys):
    assert main([str(drift), "--new-only"]) == 2
    assert "--new-only reports what a change adds" in capsys.readouterr().err
    assert main([str(drift), "--new-only", "--base", "main", "--write-baseline", "b.json"]) == 2


def test_auto_without_a_base_reports_every_finding_and_says_so(drift, capsys):
    assert main([str(drift), "--base", "auto", "--new-only", "--no-color"]) == 1
    captured = capsys.readouterr()
    assert "--new-only found no merge-base to compare with" in captured.err
    assert "Found 9 errors and 4 warnings" in captured.out


def test_a_first_adoption_reports_everything(tmp_path):
    """The merge-base has no agent dir yet: every finding of the change is new."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("project\n")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "start")
    git(repo, "checkout", "-q", "-b", "change")
    shutil.copytree(FIXTURES / "real-world", repo, dirs_exist_ok=True)
    result = lint_paths([repo], base="main", new_only=True)
    assert len(result.diagnostics) == 13 and result.pre_existing == 0


def test_a_hostile_merge_base_is_linted_as_untrusted(tmp_path):
    """Links out, a huge file and a submodule at the merge-base: findings, never reads."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"decision_id": "D-LEAK", "token": "do-not-print"}')
    repo = make_repo(tmp_path)
    (repo / ".agent/decisions/D-777.json").symlink_to(secret)
    (repo / ".agent/decisions/D-778.json").write_text("[" * 100_000)
    commit_all(repo, "hostile")
    git(repo, "checkout", "-q", "-b", "change")
    (repo / ".agent/decisions/D-777.json").unlink()
    (repo / ".agent/decisions/D-778.json").unlink()
    result = lint_paths([repo], base="main", new_only=True)
    assert result.diagnostics == []
    assert "do-not-print" not in repr(result)
