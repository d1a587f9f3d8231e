"""Paths in merged append-only records are checked against the commit that added them.

A handoff cannot be edited once merged, so a file renamed later must not
make it an error. With git, a merged handoff's paths and links are checked in
the tree of the commit that added it: fine there, no finding; broken there
already, a warning saying so. A handoff not merged yet can still be fixed and
is judged like any record. Without git they stay warnings.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES
from gitrepo import CONV, add_conversation_handoff, commit_all, git, make_repo

from agent_lint.cli import main
from agent_lint.diagnostics import Severity
from agent_lint.linter import LintResult, lint_paths

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

DESIGN = "docs/payments/design.md"


def findings(repo: Path, *args: str, base: str | None = None) -> LintResult:
    return lint_paths([repo], base=base, strict="--strict" in args)


def about(result: LintResult, needle: str) -> list[tuple[str, str, Severity, str]]:
    return [
        (d.code, d.path, d.severity, d.message) for d in result.diagnostics if needle in d.message
    ]


def _handoff_completing(repo: Path, completed: str) -> Path:
    """A new handoff H-004 that lists ``completed`` among its completed artifacts."""
    path = add_conversation_handoff(repo, 4)
    record = json.loads(path.read_text())
    record["artifacts"]["completed"] = [completed]
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def _rename_design(repo: Path) -> None:
    """Rename the design document and update every record that may be edited."""
    git(repo, "mv", DESIGN, "docs/payments/design-v2.md")
    for path in (repo / ".agent").rglob("*"):
        if path.is_file() and "/handoffs/" not in path.as_posix() and path.suffix != ".yaml":
            text = path.read_text()
            if DESIGN in text or "payments/design.md" in text:
                path.write_text(text.replace("design.md", "design-v2.md"))
    commit_all(repo, "rename the design document")


@pytest.mark.parametrize("base", [None, "main"])
def test_a_rename_never_forces_a_rewrite_of_history(tmp_path, base):
    """H-001…H-003 point at docs/payments/design.md; a later commit renames it."""
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "-b", "change")
    _rename_design(repo)
    result = findings(repo, base=base)
    assert about(result, "design.md") == []
    assert result.errors == 0 and result.warnings == 0


def test_a_handoff_note_keeps_its_link_after_the_heading_moves(tmp_path):
    repo = make_repo(tmp_path)
    note = repo / CONV / "handoffs/H-003.md"
    assert "summary.md#current-state" in note.read_text()
    summary = repo / CONV / "summary.md"
    summary.write_text(summary.read_text().replace("## Current state", "## State of play"))
    commit_all(repo, "rename a heading")
    assert about(findings(repo), "current-state") == []


def test_a_path_already_missing_when_the_handoff_was_added_is_a_warning_saying_so(tmp_path):
    repo = make_repo(tmp_path)
    _handoff_completing(repo, "docs/never-written.md")
    commit = commit_all(repo, "H-004")[:7]
    found = about(findings(repo), "never-written.md")
    assert found == [
        (
            "AL302",
            f"{CONV}/handoffs/H-004.json",
            Severity.WARNING,
            'artifacts.completed[] "docs/never-written.md" does not exist '
            f"(also in {commit}, the commit that added H-004.json)",
        )
    ]


def test_a_handoff_not_merged_yet_is_an_error_until_its_path_is_fixed(tmp_path):
    repo = make_repo(tmp_path)
    _handoff_completing(repo, "docs/payments/desing.md")
    [(code, _, severity, message)] = about(findings(repo), "desing.md")
    assert (code, severity) == ("AL302", Severity.ERROR)
    assert "also in" not in message
    # Committed on a branch, it is still not merged into the base: still an error there.
    git(repo, "checkout", "-q", "-b", "change")
    commit_all(repo, "H-004")
    [(_, _, severity, _)] = about(findings(repo, base="main"), "desing.md")
    assert severity is Severity.ERROR


def test_a_merged_handoff_that_was_modified_is_judged_now(tmp_path):
    repo = make_repo(tmp_path)
    handoff = repo / CONV / "handoffs/H-002.json"
    handoff.write_text(handoff.read_text().replace(DESIGN, "docs/payments/gone.md"))
    [(code, _, severity, _)] = about(findings(repo), "gone.md")
    assert (code, severity) == ("AL302", Severity.ERROR)


def test_without_git_merged_paths_stay_warnings(tmp_path):
    repo = tmp_path / "plain"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / DESIGN).unlink()
    found = about(findings(repo), "design.md")
    handoffs = [f for f in found if "/handoffs/" in f[1]]
    assert handoffs and all(severity is Severity.WARNING for _, _, severity, _ in handoffs)
    assert all("also in" not in message for *_, message in handoffs)


def test_strict_checks_every_handoff_against_the_current_tree(tmp_path):
    repo = make_repo(tmp_path)
    _rename_design(repo)
    found = about(findings(repo, "--strict"), "design.md")
    assert found and all(severity is Severity.ERROR for _, _, severity, _ in found)


def test_a_shallow_clone_that_lacks_the_adding_commit_keeps_warnings(tmp_path):
    origin = make_repo(tmp_path, name="origin")
    (origin / "log.txt").write_text("later\n")
    commit_all(origin, "later")
    (origin / DESIGN).unlink()
    commit_all(origin, "remove the design")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth=1", origin.as_uri(), str(clone)],
        check=True,
        capture_output=True,
    )
    found = [f for f in about(findings(clone), "design.md") if "/handoffs/" in f[1]]
    assert found and all(severity is Severity.WARNING for _, _, severity, _ in found)
    assert all("also in" not in message for *_, message in found)


def test_the_command_line_reports_a_rename_clean(tmp_path, capsys, monkeypatch):
    repo = make_repo(tmp_path)
    _rename_design(repo)
    monkeypatch.chdir(repo)
    assert main(["--no-color"]) == 0
    assert "design" not in capsys.readouterr().out


def test_the_real_world_layout_with_its_history_has_no_warning_about_the_renamed_file(tmp_path):
    """docs/real-world.md: the merged handoff cites docs/queue-design.md, renamed later."""
    repo = tmp_path / "real-world"
    shutil.copytree(FIXTURES / "real-world", repo)
    git(repo, "init", "-q", "-b", "main")
    (repo / "docs/queue.md").rename(repo / "docs/queue-design.md")
    commit_all(repo, "the handoff, when docs/queue-design.md existed")
    git(repo, "mv", "docs/queue-design.md", "docs/queue.md")
    commit_all(repo, "rename the design document")
    without = lint_paths([FIXTURES / "real-world"])
    result = lint_paths([repo])
    assert about(without, "queue-design.md") and about(result, "queue-design.md") == []
    shown = [(d.code, d.path, d.message) for d in result.diagnostics]
    expected = [
        (d.code, d.path, d.message)
        for d in without.diagnostics
        if "queue-design.md" not in d.message
    ]
    assert shown == expected and (result.errors, result.warnings) == (9, 2)
