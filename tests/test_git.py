"""AL6xx: the append-only gate against a git base, read through git's plumbing."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import FIXTURES
from gitrepo import (
    CONV,
    PROJECT,
    add_conversation_handoff,
    change_meeting_an_old_commit_first,
    commit_all,
    edit,
    git,
    make_linked_repo,
    make_repo,
)

from agent_lint.cli import main
from agent_lint.linter import lint_paths
from agent_lint.profiles.cortex.checksum import compute

MODES = ["worktree", "staged"]


def run(repo: Path, capsys, *args: str, mode: str = "worktree") -> tuple[int, list[dict]]:
    """Lint ``repo`` with only the gate selected; the exit code and findings."""
    if mode == "staged":
        git(repo, "add", "-A")
        args = (*args, "--staged")
    code = main([str(repo), "--output-format", "json", "--select", "AL6", *args])
    data = json.loads(capsys.readouterr().out)
    return code, data["diagnostics"]


def codes(found: list[dict]) -> list[tuple[str, str]]:
    return [(d["code"], d["path"]) for d in found]


def test_modified_handoff_names_the_merging_commit(tmp_path, capsys):
    repo = make_repo(tmp_path)
    sha = git(repo, "rev-parse", "--short", "HEAD")
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    code, found = run(repo, capsys, "--base", "main")
    assert code == 1
    [d] = found
    assert d["code"] == "AL601" and d["path"] == f"{CONV}/handoffs/H-002.json"
    assert f'merged in {sha} ("Agent state before the change")' in d["message"]
    assert d["line"] == 17  # the first line that differs


def test_staged_finding_points_at_the_first_changed_line(tmp_path, capsys):
    repo = make_repo(tmp_path)
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    _, found = run(repo, capsys, "--base", "main", mode="staged")
    [d] = found
    assert (d["code"], d["line"]) == ("AL601", 17)


def test_deleted_and_renamed_handoffs(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-001.md")
    git(repo, "mv", f"{CONV}/handoffs/H-002.json", f"{CONV}/handoffs/H-009.json")
    _, found = run(repo, capsys, "--base", "main")
    found_codes = {(d["code"], d["path"].rsplit("/", 1)[1]) for d in found}
    assert ("AL602", "H-001.md") in found_codes
    assert ("AL603", "H-002.json") in found_codes
    renamed = next(d for d in found if d["code"] == "AL603")
    assert renamed["message"].endswith(f"renamed to {CONV}/handoffs/H-009.json")
    assert not any(d["path"].endswith("H-009.json") for d in found)  # one fact, one finding


@pytest.mark.parametrize("mode", MODES)
def test_appending_a_correct_handoff_passes(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    add_conversation_handoff(repo, 4)
    assert run(repo, capsys, "--base", "main", mode=mode) == (0, [])


def test_backdated_and_misnumbered_handoffs(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-003.json", f"{CONV}/handoffs/H-003.md")
    git(repo, "commit", "-q", "-m", "drop H-003 on a branch")
    git(repo, "tag", "base")
    # The base now ends at H-002; add H-004 (skips H-003).
    add_conversation_handoff(repo, 4)
    _, found = run(repo, capsys, "--base", "base")
    assert [(d["code"], d["message"]) for d in found] == [
        (
            "AL605",
            "new conversation handoff H-004.json does not continue the numbering of base: "
            "the next one is H-003",
        )
    ]


def test_a_gap_the_gate_reports_is_one_finding(tmp_path, capsys):
    """With every rule selected: the gate's AL605 says the gap, not also AL401."""
    repo = make_repo(tmp_path)
    add_conversation_handoff(repo, 5)
    assert main([str(repo), "--base", "main", "--output-format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    gap = [d["code"] for d in found if d["code"] in ("AL401", "AL605")]
    assert gap == ["AL605"]
    assert main([str(repo), "--output-format", "json"]) == 1  # without the gate: AL401
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [d["code"] for d in found if d["code"] in ("AL401", "AL605")] == ["AL401"]


def _placed_findings(
    repo: Path, capsys, *args: str, ignore: str = "AL404"
) -> list[tuple[str, str, int | None]]:
    """Code, file name and line of each finding (the added handoff's chain aside: AL404)."""
    main([str(repo), "--output-format", "json", "--ignore", ignore, *args])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    return [(d["code"], d["path"].rsplit("/", 1)[-1], d["line"]) for d in found]


def test_a_new_handoff_misnamed_is_its_numbering_finding_alone(tmp_path, capsys):
    """H-005.json holding H-004 after merged H-003: one wrong name, said once (AL605 at the
    id it holds), not also its AL202, and turn_resumed.yaml naming H-004 is no AL416."""
    repo = make_repo(tmp_path)
    path = add_conversation_handoff(repo, 4)
    path.rename(path.with_name("H-005.json"))
    path.with_suffix(".md").rename(path.with_name("H-005.md"))
    edit(repo / CONV / "turn_resumed.yaml", "H-003", "H-004")
    assert _placed_findings(repo, capsys) == [("AL202", "H-005.json", 3)]
    assert _placed_findings(repo, capsys, "--base", "main") == [("AL605", "H-005.json", 3)]
    main([str(repo), "--base", "main", "--output-format", "json", "--select", "AL6"])
    (finding,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert finding["message"].endswith(
        "the next one is H-004, the handoff_id it holds: rename it to H-004.json"
    )
    # Another id than the next one: two facts, the name and the id, each its finding.
    edit(repo / CONV / "handoffs/H-005.json", '"H-004"', '"H-007"')
    found = _placed_findings(repo, capsys, "--base", "main", "--select", "AL2,AL6")
    assert found == [("AL605", "H-005.json", 1), ("AL202", "H-005.json", 3)]
    # With AL202 off, a misnamed file that holds H-004 names no handoff to resume from.
    edit(repo / CONV / "handoffs/H-005.json", '"H-007"', '"H-004"')
    found = _placed_findings(repo, capsys, ignore="AL202,AL404,AL5")
    assert {"AL401", "AL416"} <= {code for code, _, _ in found}


def test_inserted_handoff_sorts_before_base(tmp_path, capsys):
    repo = make_repo(tmp_path)
    project = repo / PROJECT
    old = json.loads((project / "H-20261103-120000-release-prep.json").read_text())
    old["handoff_id"] = "H-20261101-090000-early"
    old["produced_at"] = "2026-11-01T09:00:00Z"
    (project / "H-20261101-090000-early.json").write_text(json.dumps(old, indent=2))
    _, found = run(repo, capsys, "--base", "main")
    [d] = found
    assert d["code"] == "AL604"
    assert "sorts before H-20261103-120000-release-prep.json" in d["message"]


def test_runtime_named_mission_handoffs_are_ordered_by_their_time(tmp_path, capsys):
    repo = make_repo(tmp_path)
    folder = repo / ".agent/missions/M-001/handoffs"
    shutil.copy(folder / "20261103-090000-ms-002-gateway.json", folder / "20261102-080000-x.json")
    shutil.copy(folder / "20261103-090000-ms-002-gateway.json", folder / "20261104-080000-y.json")
    _, found = run(repo, capsys, "--base", "main")
    # H-… and runtime names in one folder are compared by their time, not as text.
    assert codes(found) == [("AL604", ".agent/missions/M-001/handoffs/20261102-080000-x.json")]


def test_write_once_session_ref(tmp_path, capsys):
    repo = make_repo(tmp_path)
    unset = repo / ".agent/subagents/claude-code-main/session-ref.json"
    unset.write_text('{"file": "/home/agent/sessions/claude.jsonl"}\n')
    assert run(repo, capsys, "--base", "main") == (0, [])
    pinned = repo / ".agent/subagents/codex-main/session-ref.json"
    pinned.write_text('{"file": "/home/agent/sessions/other.jsonl"}\n')
    _, found = run(repo, capsys, "--base", "main")
    [d] = found
    assert d["code"] == "AL606" and "is write-once; it was changed" in d["message"]


def test_staged_compares_the_index(tmp_path, capsys):
    repo = make_repo(tmp_path)
    path = repo / CONV / "handoffs/H-001.md"
    path.write_text("rewritten\n")
    assert main([str(repo), "--select", "AL6", "--base", "main", "--staged"]) == 0
    capsys.readouterr()
    git(repo, "add", str(path))
    path.write_text((FIXTURES / "valid" / CONV / "handoffs/H-001.md").read_text())
    assert main([str(repo), "--select", "AL6", "--base", "main", "--staged"]) == 1
    assert "AL601" in capsys.readouterr().out


def test_shallow_clone_fails_clearly(tmp_path, capsys):
    repo = make_repo(tmp_path)
    add_conversation_handoff(repo, 4)
    commit_all(repo, "H-004")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    assert main([str(clone), "--base", "HEAD~1"]) == 2
    assert "The clone is shallow" in capsys.readouterr().err
    (clone / CONV / "handoffs/H-004.md").write_text("changed\n")
    _, found = run(clone, capsys, "--base", "HEAD")
    [d] = found
    assert "or earlier (the clone is shallow" in d["message"]


def test_a_shallow_merge_base_that_may_not_be_the_best_is_refused(tmp_path, capsys):
    """In a shallow clone the first common commit seen can be an old one (the change merged
    it on purpose): past the boundary a later one may hold the handoffs it rewrites."""
    origin = make_repo(tmp_path, name="origin")
    head, main_tip = change_meeting_an_old_commit_first(origin)
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "32", "--no-single-branch", origin.as_uri(), str(clone))
    git(clone, "checkout", "-q", "--detach", head)
    assert main([str(clone), "--base", "origin/main", "--select", "AL6"]) == 2
    err = capsys.readouterr().err
    assert "in this shallow clone, but HEAD's history stops at the shallow boundary" in err
    git(clone, "fetch", "-q", "--unshallow")
    assert main([str(clone), "--base", main_tip, "--select", "AL6", "-q"]) == 1
    assert "AL601" in capsys.readouterr().out


def test_not_a_git_repository(tmp_path, capsys):
    shutil.copytree(FIXTURES / "valid", tmp_path / "plain")
    (tmp_path / "plain" / ".git").mkdir()  # stops the search for a parent repository
    assert main([str(tmp_path / "plain"), "--base", "main"]) == 2
    assert "needs a git repository" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--base", "--staged"])
def test_config_base(tmp_path, capsys, flag, monkeypatch):
    _no_ci(monkeypatch)
    repo = make_repo(tmp_path)
    (repo / ".agent-lint.toml").write_text('base = "main"\n')
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    _, found = run(repo, capsys, mode="staged" if flag == "--staged" else "worktree")
    assert [d["code"] for d in found] == ["AL601"]


def _no_ci(monkeypatch) -> None:
    """An environment that shows no CI service (the tests' own CI may set some)."""
    for name in list(os.environ):
        if name in ("CI", "TEAMCITY_VERSION", "CODEBUILD_BUILD_ID", "DRONE", "JENKINS_URL",
                    "JENKINS_HOME", "BUILD_TAG", "CHANGE_ID", "TF_BUILD", "BUILDKITE",
                    "CIRCLECI", "TRAVIS", "APPVEYOR", "GITLAB_CI",
                    "BITBUCKET_BUILD_NUMBER") or name.startswith("GITHUB_"):  # fmt: skip
            monkeypatch.delenv(name)


PULL_REQUESTS = [
    {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"},
    {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request_target"},
    {"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "12"},
    {"TF_BUILD": "True", "BUILD_REASON": "PullRequest"},
    {"JENKINS_URL": "https://ci.example/", "CHANGE_ID": "7"},
    {"JENKINS_URL": "https://ci.example/", "ghprbPullId": "7"},
    {"JENKINS_URL": "https://ci.example/"},  # a freestyle job: which kind is not told
    {"BUILD_TAG": "jenkins-pay-7", "CHANGE_ID": "7"},
    {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "issue_comment"},
    {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_run"},
    {"CI": "true"},  # a service whose runs cannot be told apart
]


@pytest.mark.parametrize("env", PULL_REQUESTS, ids=lambda env: "+".join(env))
def test_on_a_pull_request_a_base_the_change_can_set_is_refused(tmp_path, capsys, monkeypatch, env):
    """On a pull request a `base` read from inside the checkout is the change's own:
    `base = "HEAD"` would compare the change with itself. Refused, also when the lint
    path is a folder of the checkout; the command line's --base or a configuration kept
    outside the checkout still work."""
    _no_ci(monkeypatch)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    repo = make_repo(tmp_path)
    (repo / "ci").mkdir()
    (repo / "ci/agent-lint.toml").write_text('base = "HEAD"\n')
    (repo / ".agent-lint.toml").write_text('base = "HEAD"\n')
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    commit_all(repo, "rewrite H-002 and compare with itself")
    config = ["--config", str(repo / "ci/agent-lint.toml")]
    for args in ([str(repo)], [str(repo), *config], [str(repo / ".agent/conversations"), *config]):
        assert main([*args, "--no-cache"]) == 2, args
        err = capsys.readouterr().err
        assert "is read from the change under review" in err
        assert "--base origin/main" in err
    outside = tmp_path / "ci-config.toml"
    outside.write_text('base = "main~1"\n')
    assert main([str(repo), "--no-cache", "--config", str(outside), "-q"]) == 1
    assert "AL601" in capsys.readouterr().out
    assert main([str(repo), "--no-cache", "--base", "main~1", "-q"]) == 1
    assert "AL601" in capsys.readouterr().out


def test_a_monorepo_store_does_not_make_the_checkout_s_configuration_trusted(
    tmp_path, capsys, monkeypatch
):
    """`agent-lint services/pay --config ci/agent-lint.toml` on a pull request: the store's
    folder is not the checkout; the configuration is inside the checkout all the same."""
    _no_ci(monkeypatch)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    repo = tmp_path / "mono"
    shutil.copytree(FIXTURES / "valid", repo / "services/pay")
    (repo / "ci").mkdir()
    (repo / "ci/agent-lint.toml").write_text('base = "HEAD"\n')
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "a monorepo")
    config = str(repo / "ci/agent-lint.toml")
    assert main([str(repo / "services/pay"), "--no-cache", "--config", config]) == 2
    assert "`base` in ci/agent-lint.toml is read from the change" in capsys.readouterr().err


@pytest.mark.parametrize(
    "env",
    [{}, {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push"},
     {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule"}, {"GITLAB_CI": "true"},
     {"JENKINS_URL": "https://ci.example/", "BRANCH_NAME": "main"}, {"CI": "false"}],
    ids=["local", "github-push", "github-schedule", "gitlab-branch", "jenkins-branch",
         "ci-false"],
)  # fmt: skip
def test_locally_and_on_a_push_build_the_base_setting_is_used(tmp_path, capsys, monkeypatch, env):
    """A run that judges no change (the user's own, or a push build of a known service)
    takes `base` from the checkout's configuration, as before."""
    _no_ci(monkeypatch)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    repo = make_repo(tmp_path)
    (repo / ".agent-lint.toml").write_text('base = "main"\n')
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    assert main([str(repo), "--no-cache", "--select", "AL6", "-q"]) == 1
    assert "AL601" in capsys.readouterr().out


# --- Git objects, not checkout bytes ------------------------------------------------


def _crlf_clone(tmp_path: Path, *config: str) -> Path:
    origin = make_repo(tmp_path, name="origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", *config, str(origin), str(clone))
    return clone


@pytest.mark.parametrize("mode", MODES)
def test_autocrlf_checkout_of_untouched_handoffs_passes(tmp_path, capsys, mode):
    clone = _crlf_clone(tmp_path, "-c", "core.autocrlf=true")
    handoff = clone / CONV / "handoffs/H-002.json"
    assert b"\r\n" in handoff.read_bytes()  # the checkout converted line endings
    assert run(clone, capsys, "--base", "origin/main", mode=mode) == (0, [])


def test_touched_crlf_files_are_compared_as_git_would_store_them(tmp_path, capsys):
    clone = _crlf_clone(tmp_path, "-c", "core.autocrlf=true")
    handoff = clone / CONV / "handoffs/H-002.json"
    later = time.time() + 5
    os.utime(handoff, (later, later))  # stat no longer matches the index
    assert run(clone, capsys, "--base", "origin/main") == (0, [])
    handoff.write_bytes(handoff.read_bytes().replace(b'"task_complete"', b'"timeout"'))
    _, found = run(clone, capsys, "--base", "origin/main")
    assert [(d["code"], d["line"]) for d in found] == [("AL601", 17)]


def test_eol_crlf_attribute_checkout_passes(tmp_path, capsys):
    origin = make_repo(tmp_path, name="origin")
    (origin / ".gitattributes").write_text("*.json text eol=crlf\n*.md text eol=crlf\n")
    commit_all(origin, "line endings")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    handoff = clone / CONV / "handoffs/H-001.json"
    assert b"\r\n" in handoff.read_bytes()
    assert run(clone, capsys, "--base", "origin/main") == (0, [])
    later = time.time() + 5
    os.utime(handoff, (later, later))
    assert run(clone, capsys, "--base", "origin/main") == (0, [])


def test_crlf_written_where_git_converts_nothing_is_a_modification(tmp_path, capsys):
    repo = make_repo(tmp_path)
    (repo / ".gitattributes").write_text("*.json -text\n")
    handoff = repo / CONV / "handoffs/H-002.json"
    handoff.write_bytes(handoff.read_bytes().replace(b"\n", b"\r\n"))
    _, found = run(repo, capsys, "--base", "main")
    assert [d["code"] for d in found] == ["AL601"]
    # Nothing else changed: the finding says so (a Windows editor shows no edit).
    assert "it was modified in its line endings only" in found[0]["message"]
    handoff.write_bytes(handoff.read_bytes().replace(b'"task_complete"', b'"timeout"'))
    _, found = run(repo, capsys, "--base", "main")
    assert "it was modified: restore it (git checkout main -- " in found[0]["message"]


# --- Every index format and file name ----------------------------------------------


def _rewrite_h002(repo: Path) -> None:
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')


@pytest.mark.parametrize(
    "setup",
    [
        ["update-index", "--index-version", "4"],
        ["-c", "core.splitIndex=true", "update-index", "--split-index"],
    ],
    ids=["index-v4", "split-index"],
)
def test_staged_reads_every_index_format(tmp_path, capsys, setup):
    repo = make_repo(tmp_path)
    _rewrite_h002(repo)
    git(repo, "add", "-A")
    git(repo, *setup)
    code, found = run(repo, capsys, "--base", "main", "--staged")
    assert code == 1 and [d["code"] for d in found] == ["AL601"]


def test_staged_reads_a_sparse_index(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "sparse-checkout", "init", "--cone", "--sparse-index")
    git(repo, "sparse-checkout", "set", ".agent/conversations")
    assert not (repo / PROJECT).exists()  # outside the sparse checkout
    _rewrite_h002(repo)
    git(repo, "add", "-A")
    _, found = run(repo, capsys, "--base", "main", "--staged")
    assert [d["code"] for d in found] == ["AL601"]
    # Files outside the sparse checkout are as the index has them, not deleted.
    _, found = run(repo, capsys, "--base", "main")
    assert [d["code"] for d in found] == ["AL601"]


@pytest.mark.parametrize("mode", MODES)
def test_file_names_that_are_not_utf8(tmp_path, capsys, mode):
    repo = make_repo(tmp_path)
    odd = os.fsencode(repo / ".agent/notes") + b"/caf\xe9 \xff.md"
    os.makedirs(os.path.dirname(odd), exist_ok=True)
    with open(odd, "wb") as handle:
        handle.write(b"note\n")
    commit_all(repo, "a note with a Latin-1 name")
    git(repo, "branch", "base")
    _rewrite_h002(repo)
    _, found = run(repo, capsys, "--base", "base", mode=mode)
    assert [d["code"] for d in found] == ["AL601"]


def test_partial_commit_index_from_the_hook_environment(tmp_path, capsys, monkeypatch):
    """`git commit --only` hands hooks a temporary index through GIT_INDEX_FILE."""
    repo = make_repo(tmp_path)
    _rewrite_h002(repo)
    temporary = repo / ".git" / "next-index-1.lock"
    git(repo, "read-tree", "HEAD")
    shutil.copy(repo / ".git" / "index", temporary)
    env_git = {**os.environ, "GIT_INDEX_FILE": str(temporary)}
    import subprocess

    subprocess.run(["git", "add", f"{CONV}/handoffs/H-002.json"], cwd=repo, env=env_git, check=True)
    assert run(repo, capsys, "--base", "main", "--staged")[1] == []  # the real index
    monkeypatch.setenv("GIT_INDEX_FILE", str(temporary))
    assert [d["code"] for d in run(repo, capsys, "--base", "main", "--staged")[1]] == ["AL601"]
    # An index file outside this repository's git directory is never read.
    outside = tmp_path / "elsewhere.index"
    shutil.copy(temporary, outside)
    monkeypatch.setenv("GIT_INDEX_FILE", str(outside))
    assert run(repo, capsys, "--base", "main", "--staged")[1] == []


# --- What is protected --------------------------------------------------------------


def _example(pattern: str) -> str:
    """A concrete path for a documented pattern."""
    return (
        pattern.replace("**/", "subagents/x/")
        .replace("<C>", "C-1")
        .replace("<M>", "M-1")
        .replace("H-NNN", "H-001")
        .replace("H-*", "H-20261101-090000-x")
        .replace("YYYYMMDD-HHMMSS-<focus>", "20261101-090000-x")
    )


def test_documented_patterns_are_the_registry_policy():
    from agent_lint.kinds import History
    from agent_lint.profiles import get as get_profile
    from agent_lint.profiles.cortex.kinds import KINDS

    classify = get_profile("cortex").classify
    from agent_lint.validators.history import PROTECTED_PATTERNS, WRITE_ONCE_PATTERNS

    covered = set()
    for patterns, history in ((PROTECTED_PATTERNS, History.APPEND_ONLY),
                              (WRITE_ONCE_PATTERNS, History.WRITE_ONCE)):  # fmt: skip
        for pattern, _ in patterns:
            match = classify(_example(pattern))
            assert match is not None and match.kind.history is history, pattern
            covered.add(match.kind.name)
    assert covered == {k.name for k in KINDS if k.history is not History.FREE}


def test_explain_lists_the_protected_patterns(capsys):
    from agent_lint.validators.history import PROTECTED_PATTERNS

    assert main(["--explain", "AL601"]) == 0
    page = capsys.readouterr().out
    for pattern, _ in PROTECTED_PATTERNS:
        assert f"`{pattern}`" in page
    assert "missions/<M>/handoffs/YYYYMMDD-HHMMSS-<focus>.json" in page


def test_check_in_conversions():
    from agent_lint.gitgate.snapshots import crlf_action, to_git

    def staged() -> bytes:
        return b"a\nb\n"

    crlf = b"a\r\nb\r\n"
    assert to_git(crlf, {}, "true", staged) == b"a\nb\n"
    assert to_git(crlf, {}, "false", staged) == crlf
    assert to_git(crlf, {"text": "unset"}, "true", staged) == crlf
    assert to_git(crlf, {"eol": "crlf"}, "false", staged) == b"a\nb\n"
    assert to_git(crlf, {"text": "auto"}, "false", lambda: b"a\r\nb\r\n") == crlf  # CR indexed
    assert to_git(b"\0binary\r\n", {}, "true", staged) == b"\0binary\r\n"
    assert to_git(b"$Id: 123 $\n", {"ident": "set"}, "false", staged) == b"$Id$\n"
    text = "caf\u00e9\n"
    assert to_git(text.encode("utf-16"), {"working-tree-encoding": "UTF-16"}, "false", staged) == (
        text.encode()
    )
    assert crlf_action({"crlf": "input"}, "false") == "text"
    assert crlf_action({}, "input") == "auto"


def _all_findings(repo: Path, capsys) -> list[tuple[str, str]]:
    """Every finding of a ``--base main`` run (not only the gate's): code and file name."""
    main([str(repo), "--output-format", "json", "--base", "main"])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    return sorted((d["code"], d["path"].rsplit("/", 1)[-1]) for d in found)


def test_a_deleted_merged_handoff_is_the_gate_finding_alone(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-003.json", f"{CONV}/handoffs/H-003.md")
    # Not state.json and meta.json naming it (AL503, AL406, AL407, AL504), whose fixes
    # would accept the deletion, nor turn_resumed.yaml resuming from it (AL416).
    assert _all_findings(repo, capsys) == [("AL602", "H-003.json"), ("AL602", "H-003.md")]


def test_a_renamed_or_modified_merged_handoff_is_the_gate_finding_alone(tmp_path, capsys):
    repo = make_repo(tmp_path)
    handoffs = repo / CONV / "handoffs"
    git(repo, "mv", f"{CONV}/handoffs/H-003.json", f"{CONV}/handoffs/H-004.json")
    git(repo, "mv", f"{CONV}/handoffs/H-003.md", f"{CONV}/handoffs/H-004.md")
    assert _all_findings(repo, capsys) == [("AL603", "H-003.json"), ("AL603", "H-003.md")]
    git(repo, "reset", "-q", "--hard")
    edit(handoffs / "H-003.json", '"latest_turn": 6', '"latest_turn": 5')  # checksum now wrong
    assert _all_findings(repo, capsys) == [("AL601", "H-003.json")]


@pytest.mark.parametrize("mode", MODES)
def test_a_renamed_conversation_folder_is_one_finding(tmp_path, capsys, mode):
    """One ``git mv`` of a conversation folder: one AL603 at the folder, not one per merged
    file, nor the moved meta.json's AL202 (its id names the folder it was merged in); and
    --fix derives nothing in the renamed folder."""
    repo = make_repo(tmp_path)
    renamed = CONV.replace("C-payments-refactor", "C-payments")
    git(repo, "mv", CONV, renamed)
    state = repo / renamed / "handoffs/state.json"
    state.unlink()  # would be derived from the moved handoffs
    code, found = run(repo, capsys, "--base", "main", mode=mode)
    assert code == 1
    assert [(d["code"], d["path"]) for d in found] == [("AL603", CONV)]
    assert found[0]["message"].startswith(
        f"{CONV} holds 6 append-only files merged on main (such as H-001.json, merged in "
    )
    assert found[0]["message"].endswith(
        f"the change renamed it to {renamed}. Merged files "
        "stay at the paths they were merged at: rename it back"
    )
    if mode == "worktree":
        assert _all_findings(repo, capsys) == [("AL603", "C-payments-refactor")]
        main([str(repo), "--base", "main", "--fix"])
        capsys.readouterr()
        assert not state.exists()


def test_a_renamed_folder_s_edited_files_keep_their_findings(tmp_path, capsys):
    """Only a folder renamed and nothing else has its files' findings folded into the rename."""
    repo = make_repo(tmp_path)
    renamed = CONV.replace("C-payments-refactor", "C-payments")
    git(repo, "mv", CONV, renamed)
    edit(repo / renamed / "meta.json", '"D-001"', '"D-999"')
    found = _all_findings(repo, capsys)
    assert ("AL603", "C-payments-refactor") in found and ("AL301", "meta.json") in found


def test_merged_files_moved_into_a_folder_that_stays_are_each_file_s_rename(tmp_path, capsys):
    """Handoffs moved from one conversation into another that the base has: no folder was
    renamed, so each is its own AL603, and the target's own findings stand."""
    repo = make_repo(tmp_path)
    other = CONV.replace("C-payments-refactor", "C-onboarding")
    for name in ("H-002.json", "H-002.md", "H-003.json", "H-003.md"):
        git(
            repo,
            "mv",
            f"{CONV}/handoffs/{name}",
            f"{other}/handoffs/{name.replace('H-00', 'H-10')}",
        )
    code, found = run(repo, capsys, "--base", "main")
    assert code == 1
    assert not any(d["path"] == CONV for d in found)
    assert sum(d["code"] == "AL603" for d in found) == 4


def test_a_folder_of_which_one_handoff_was_renamed_is_that_file_s_finding(tmp_path, capsys):
    repo = make_repo(tmp_path)
    elsewhere = CONV.replace("C-payments-refactor", "C-other")
    (repo / elsewhere / "handoffs").mkdir(parents=True)
    git(repo, "mv", f"{CONV}/handoffs/H-001.json", f"{elsewhere}/handoffs/H-001.json")
    code, found = run(repo, capsys, "--base", "main")
    assert code == 1
    assert ("AL603", f"{CONV}/handoffs/H-001.json") in [(d["code"], d["path"]) for d in found]


def test_what_a_change_to_a_merged_handoff_does_not_cause_is_still_reported(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-003.json", f"{CONV}/handoffs/H-003.md")
    edit(repo / CONV / "meta.json", '"turn_count": 7', '"turn_count": 9')
    found = _all_findings(repo, capsys)
    assert ("AL410", "meta.json") in found and ("AL503", "state.json") not in found


def test_a_change_the_gate_only_warns_of_leaves_its_consequences_reported(tmp_path, capsys):
    repo = make_repo(tmp_path)
    (repo / ".agent-lint.toml").write_text('[severity]\nAL6 = "warning"\n')
    commit_all(repo, "the gate warns")
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-003.json", f"{CONV}/handoffs/H-003.md")
    # The change is allowed: the mirrors are to be updated, and their findings stand.
    assert ("AL503", "state.json") in _all_findings(repo, capsys)


def test_fix_derives_nothing_from_a_merged_handoff_the_change_edited(tmp_path, capsys):
    """``--fix --base``: the edit is refused (AL601), so no mirror is made to follow it."""
    repo = make_repo(tmp_path)
    derived = [repo / CONV / "meta.json", repo / CONV / "handoffs/state.json"]
    before = [path.read_bytes() for path in derived]
    edit(repo / CONV / "handoffs/H-003.json", '"explicit"', '"timeout"')
    edit(repo / CONV / "handoffs/H-003.json", '"latest_turn": 6', '"latest_turn": 5')
    assert main([str(repo), "--base", "main", "--fix", "--unsafe-fixes"]) == 1
    assert "AL601" in capsys.readouterr().out
    assert [path.read_bytes() for path in derived] == before
    # A new handoff that continues the chain is what --fix follows.
    git(repo, "checkout", "-q", ".")
    added = add_conversation_handoff(repo, 4)
    record = json.loads(added.read_text())
    handed_to = json.loads((repo / CONV / "handoffs/H-003.json").read_text())["to_agent"]
    record["from_agent"] = {**record["from_agent"], "agent_id": handed_to["agent_id"]}
    record["checksum"] = compute(record)
    added.write_text(json.dumps(record, indent=2) + "\n")
    main([str(repo), "--base", "main", "--fix", "--unsafe-fixes"])
    capsys.readouterr()
    assert json.loads(derived[1].read_text())["latest_handoff_id"] == "H-004"
    assert '"H-004"' in derived[0].read_text()


def test_fix_follows_an_edit_the_base_lets_the_change_make(tmp_path, capsys):
    repo = make_repo(tmp_path)
    (repo / ".agent-lint.toml").write_text('[severity]\nAL6 = "warning"\n')
    commit_all(repo, "the gate warns")
    edit(repo / CONV / "handoffs/H-003.json", '"explicit"', '"timeout"')
    main([str(repo), "--base", "main", "--fix", "--unsafe-fixes"])
    assert "Fixed 1 file" in capsys.readouterr().out
    assert '"timeout"' in (repo / CONV / "meta.json").read_text()


def test_a_mirror_that_disagrees_with_the_merged_handoff_too_is_said_as_merged(tmp_path):
    repo = make_repo(tmp_path)
    state = repo / CONV / "handoffs/state.json"
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-003.json", f"{CONV}/handoffs/H-003.md")
    data = json.loads(state.read_text())
    data["checksum"] = "sha256:" + "9" * 64  # wrong for H-003 and for H-002 alike
    state.write_text(json.dumps(data, indent=2) + "\n")
    result = lint_paths([repo], base="main")
    [kept] = [d for d in result.diagnostics if not d.code.startswith("AL6")]
    # What to restore to: the merged H-003, not the H-002 the deletion leaves latest.
    assert kept.code == "AL503" and kept.pointer == "/checksum"
    assert "but H-003.json has sha256:" in kept.message and not kept.fixable


def test_a_handoff_edit_that_breaks_its_own_checksum_is_the_gate_finding_alone(tmp_path):
    repo = make_repo(tmp_path)
    edit(repo / CONV / "handoffs/H-003.json", '"latest_turn": 6', '"latest_turn": 5')
    assert [d.code for d in lint_paths([repo]).diagnostics] == ["AL501"]  # without --base
    assert [d.code for d in lint_paths([repo], base="main").diagnostics] == ["AL601"]


def test_a_new_handoff_after_an_edited_merged_one_is_still_judged(tmp_path):
    repo = make_repo(tmp_path)
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    add_conversation_handoff(repo, 4)  # state.json still names H-003: stale
    found = {(d.code, d.pointer) for d in lint_paths([repo], base="main").diagnostics}
    assert ("AL601", "") in found and ("AL503", "/latest_handoff_id") in found


def test_drift_inside_a_list_the_merged_conversation_reports_whole_is_still_reported(tmp_path):
    repo = make_repo(tmp_path)
    meta = repo / CONV / "meta.json"
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-002.json", f"{CONV}/handoffs/H-002.md")
    data = json.loads(meta.read_text())
    del data["handoffs"][1]  # follows the deletion: as merged, handoffs[] is wrong whole
    data["handoffs"][0]["reason"] = "timeout"  # drift in H-001's entry, which nothing touched
    meta.write_text(json.dumps(data, indent=2) + "\n")
    found = {(d.code, d.pointer) for d in lint_paths([repo], base="main").diagnostics}
    assert ("AL406", "/handoffs/0/reason") in found


def test_a_merged_handoff_that_did_not_parse_leaves_the_conversation_judged(tmp_path):
    repo = make_repo(tmp_path)
    handoff = repo / CONV / "handoffs/H-003.json"
    good = handoff.read_text()
    handoff.write_text('{"handoff_id": "H-003",\n')
    commit_all(repo, "a broken handoff is merged")
    handoff.write_text(good)  # the change repairs it: AL601
    edit(repo / CONV / "handoffs/state.json", '"latest_turn": 7', '"latest_turn": 99')
    found = {(d.code, d.pointer) for d in lint_paths([repo], base="main").diagnostics}
    assert ("AL601", "") in found and ("AL503", "/latest_turn") in found


@pytest.mark.skipif(os.name == "nt", reason="needs symbolic links")
@pytest.mark.parametrize("mode", ["worktree", "staged"])
def test_a_merged_agent_dir_kept_as_a_link_is_compared_where_it_leads(tmp_path, capsys, mode):
    repo = make_linked_repo(tmp_path)
    handoff = "agentstate/conversations/C-payments-refactor/handoffs/H-002.json"
    assert run(repo, capsys, "--base", "main", mode=mode) == (0, [])  # nothing changed
    edit(repo / handoff, '"task_complete"', '"timeout"')
    code, found = run(repo, capsys, "--base", "main", mode=mode)
    assert code == 1 and codes(found) == [("AL601", handoff)]


def _relinked_to_another_folder(repo: Path) -> None:
    shutil.copytree(repo / "agentstate", repo / "agentstate2")
    (repo / ".agent").unlink()
    os.symlink("agentstate2", repo / ".agent")


def _made_a_folder_of_its_own(repo: Path) -> None:
    (repo / ".agent").unlink()
    shutil.copytree(repo / "agentstate", repo / ".agent")


def _link_removed(repo: Path) -> None:
    (repo / ".agent").unlink()


@pytest.mark.skipif(os.name == "nt", reason="needs symbolic links")
@pytest.mark.parametrize("mode", ["worktree", "staged"])
@pytest.mark.parametrize(
    ("change", "now"),
    [
        (_relinked_to_another_folder, "leads to agentstate2"),
        (_made_a_folder_of_its_own, "is a folder of its own"),
        (_link_removed, "is gone or leads to no folder of the repository"),
    ],
    ids=["relinked", "folder", "removed"],
)
def test_a_merged_agent_dir_link_led_elsewhere_is_the_agent_dir_moved(
    tmp_path, capsys, mode, change, now
):
    """The merged records stay untouched where the link led, but the agent dir agents read
    is now another folder, whose history the gate cannot compare: AL608, on the link."""
    repo = make_linked_repo(tmp_path)
    change(repo)
    for rewritten in repo.glob("*/conversations/C-onboarding/handoffs/H-001.md"):
        if "agentstate/" not in rewritten.as_posix():
            rewritten.write_text("rewritten history\n", encoding="utf-8")
    code, found = run(repo, capsys, "--base", "main", mode=mode)
    assert code == 1 and codes(found) == [("AL608", ".agent")]
    assert "is a symbolic link to agentstate on main" in found[0]["message"]
    assert f"in the change it {now}, so those records" in found[0]["message"]


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        (b"a\nb\nc\n", b"a\nx\nc\n", 2),
        (b"a\nb\n", b"a\nb\nc\n", 3),  # added at the end: the first added line
        (b"a\nb\nc\n", b"a\nb\n", 2),  # removed at the end: the last line left, not past it
        (b"a\nb\n", b"a\r\nb\r\n", 1),  # only line endings: the whole file, from line 1
        (b"a\n", b"", 1),
    ],
)
def test_the_first_changed_line_is_a_line_of_the_file(old, new, line):
    from agent_lint.gitgate.checks import _first_difference

    assert _first_difference(old, new) == line


def test_a_mirror_of_a_handoff_edited_since_its_commit_says_how_to_restore_it(
    tmp_path, capsys, monkeypatch
):
    """No --base (the plain hook): a committed handoff edited in the work tree makes its
    meta.json mirror disagree. The edit may be the mistake (a merged handoff): the
    finding says how to restore it, not only how to copy the edit into the mirror."""
    _no_ci(monkeypatch)
    from agent_lint import gitplumbing

    def no_history_walk(*_: object) -> None:
        raise AssertionError("telling an edit walks no history: one tree entry, one hash")

    monkeypatch.setattr(gitplumbing.Repository, "additions", no_history_walk)
    repo = make_repo(tmp_path)
    edit(repo / CONV / "handoffs/H-001.json", '"user_switched_tool"', '"timeout"')
    main([str(repo), "--no-cache", "--select", "AL406", "--output-format", "json"])
    [finding] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert finding["message"].endswith(
        "; H-001.json differs from its last commit: if that is merged, restore it (git "
        f"checkout HEAD -- :/{CONV}/handoffs/H-001.json) rather than copy its edit here"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the edit, committed")
    main([str(repo), "--no-cache", "--select", "AL406", "--output-format", "json"])
    [finding] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert "differs from its last commit" not in finding["message"]
