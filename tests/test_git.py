"""AL6xx: the append-only gate against a git base."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES
from gitrepo import git, make_repo

from agent_lint.checksum import compute
from agent_lint.cli import main

CONV = ".agent/conversations/C-payments-refactor"


def run(repo: Path, capsys, *args: str) -> tuple[int, list[dict]]:
    code = main([str(repo), "--output-format", "json", "--select", "AL6", *args])
    data = json.loads(capsys.readouterr().out)
    return code, data["diagnostics"]


def add_handoff(repo: Path, number: int, base: dict | None = None) -> Path:
    """Write H-<number> continuing H-003's chain, with a correct checksum."""
    template = json.loads((FIXTURES / "valid" / CONV / "handoffs/H-003.json").read_text())
    record = dict(base or template)
    record["handoff_id"] = f"H-{number:03d}"
    record["timestamp"] = f"2026-11-0{min(number, 9)}T18:00:00Z"
    record["checksum"] = compute(record)
    path = repo / CONV / f"handoffs/H-{number:03d}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    (repo / CONV / f"handoffs/H-{number:03d}.md").write_text("# note\n")
    return path


def test_modified_handoff_names_the_merging_commit(tmp_path, capsys):
    repo = make_repo(tmp_path)
    sha = git(repo, "rev-parse", "--short", "HEAD")
    path = repo / CONV / "handoffs/H-002.json"
    path.write_text(path.read_text().replace('"task_complete"', '"timeout"'))
    code, found = run(repo, capsys, "--base", "main")
    assert code == 1
    [d] = found
    assert d["code"] == "AL601" and d["path"] == f"{CONV}/handoffs/H-002.json"
    assert f'merged in {sha} ("Agent state before the change")' in d["message"]
    assert d["line"] == 17  # the first line that differs


def test_deleted_and_renamed_handoffs(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-001.md")
    git(repo, "mv", f"{CONV}/handoffs/H-002.json", f"{CONV}/handoffs/H-009.json")
    _, found = run(repo, capsys, "--base", "main")
    codes = {(d["code"], d["path"].rsplit("/", 1)[1]) for d in found}
    assert ("AL602", "H-001.md") in codes
    assert ("AL603", "H-002.json") in codes
    renamed = next(d for d in found if d["code"] == "AL603")
    assert renamed["message"].endswith(f"renamed to {CONV}/handoffs/H-009.json")


def test_appending_a_correct_handoff_passes(tmp_path, capsys):
    repo = make_repo(tmp_path)
    add_handoff(repo, 4)
    code, found = run(repo, capsys, "--base", "main")
    assert (code, found) == (0, [])


def test_backdated_and_misnumbered_handoffs(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-003.json", f"{CONV}/handoffs/H-003.md")
    git(repo, "commit", "-q", "-m", "drop H-003 on a branch")
    git(repo, "tag", "base")
    # The base now ends at H-002; add H-004 (skips H-003).
    add_handoff(repo, 4)
    _, found = run(repo, capsys, "--base", "base")
    assert [(d["code"], d["message"]) for d in found] == [
        (
            "AL605",
            "new handoff H-004.json does not continue the numbering of base: "
            "the next handoff is H-003",
        )
    ]


def test_inserted_handoff_sorts_before_base(tmp_path, capsys):
    repo = make_repo(tmp_path)
    project = repo / ".agent/handoffs"
    old = json.loads((project / "H-20261103-120000-release-prep.json").read_text())
    old["handoff_id"] = "H-20261101-090000-early"
    old["produced_at"] = "2026-11-01T09:00:00Z"
    (project / "H-20261101-090000-early.json").write_text(json.dumps(old, indent=2))
    _, found = run(repo, capsys, "--base", "main")
    [d] = found
    assert (
        d["code"] == "AL604" and "sorts before H-20261103-120000-release-prep.json" in d["message"]
    )


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
    assert run(repo, capsys, "--base", "main", "--staged") == (0, [])
    git(repo, "add", str(path))
    path.write_text((FIXTURES / "valid" / CONV / "handoffs/H-001.md").read_text())
    _, found = run(repo, capsys, "--base", "main", "--staged")
    assert [d["code"] for d in found] == ["AL601"]


def test_unknown_base_is_a_usage_error_with_a_hint(tmp_path, capsys):
    repo = make_repo(tmp_path)
    assert main([str(repo), "--base", "origin/main"]) == 2
    err = capsys.readouterr().err
    assert "'origin/main' is not a commit" in err and "fetch-depth: 0" in err


def test_shallow_clone_fails_clearly(tmp_path, capsys):
    repo = make_repo(tmp_path)
    add_handoff(repo, 4)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "H-004")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    assert main([str(clone), "--base", "HEAD~1"]) == 2
    assert "The clone is shallow" in capsys.readouterr().err
    (clone / CONV / "handoffs/H-004.md").write_text("changed\n")
    _, found = run(clone, capsys, "--base", "HEAD")
    [d] = found
    assert "or earlier (the clone is shallow" in d["message"]


def test_not_a_git_repository(tmp_path, capsys):
    import shutil

    shutil.copytree(FIXTURES / "valid", tmp_path / "plain")
    (tmp_path / "plain" / ".git").mkdir()  # stops the search for a parent repository
    assert main([str(tmp_path / "plain"), "--base", "main"]) == 2
    assert "needs a git repository" in capsys.readouterr().err


def test_repository_hooks_filters_and_fsmonitor_never_run(tmp_path, capsys):
    repo = make_repo(tmp_path)
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    script.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(script))
    git(repo, "config", "filter.evil.smudge", str(script))
    git(repo, "config", "filter.evil.clean", str(script))
    git(repo, "config", "diff.evil.textconv", str(script))
    (repo / ".gitattributes").write_text("*.json filter=evil diff=evil\n")
    for hook in ("post-checkout", "pre-commit", "post-merge", "reference-transaction"):
        hook_path = repo / ".git" / "hooks" / hook
        hook_path.write_text(f"#!/bin/sh\ntouch {marker}\n")
        hook_path.chmod(0o755)
    path = repo / CONV / "handoffs/H-002.json"
    path.write_text(path.read_text().replace('"task_complete"', '"timeout"'))
    _, found = run(repo, capsys, "--base", "main")
    assert [d["code"] for d in found] == ["AL601"]
    _, found = run(repo, capsys, "--base", "main", "--staged")
    assert not marker.exists()


@pytest.mark.parametrize("flag", ["--base", "--staged"])
def test_config_base(tmp_path, capsys, flag):
    repo = make_repo(tmp_path)
    (repo / ".agent-lint.toml").write_text('base = "main"\n')
    path = repo / CONV / "handoffs/H-002.json"
    path.write_text(path.read_text().replace('"task_complete"', '"timeout"'))
    args = ["--staged"] if flag == "--staged" else []
    if flag == "--staged":
        git(repo, "add", "-A")
    _, found = run(repo, capsys, *args)
    assert [d["code"] for d in found] == ["AL601"]
