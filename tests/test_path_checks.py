"""Path references: the run's fast path agrees with checking each reference alone.

The run maps each distinct value once and trusts the files its walk already
found; the reference path checks every reference on its own, asking the file
system for each. On generated repositories with injected defects, plus links,
special files and odd spellings, both report the same findings in the same
order.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agent_lint.diagnostics import Diagnostic
from agent_lint.discovery import find_target
from agent_lint.frozen import replace
from agent_lint.index import PathReference, RepoIndex
from agent_lint.linter import lint_target
from agent_lint.validators.references import PathChecker, check_paths

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.generate import generate  # noqa: E402

#: Values written in records beside the generated ones, each a case the walk alone cannot settle.
ODD_VALUES = (
    ".agent",
    ".agent/",
    "./.agent/decisions",
    ".agent//decisions/",
    ".agent/decisions/../decisions",
    ".agent/linked",
    ".agent/linked/inside.md",
    ".agent/out-link.md",
    ".agent/out-folder/secret.txt",
    ".agent/pipe.json",
    ".agent/.git/config",
    ".agent/DECISIONS",
    "docs",
    "docs/guide.md",
    "docs/missing.md",
    "/etc/passwd",
    "../outside.md",
    ".agent/{decisions,missions,nothing}",
    "outside-link/anything.md",
    "C:\\Windows\\win.ini",
    ".agent\\decisions",
)


def _repository(tmp_path: Path) -> Path:
    repo = generate(tmp_path / "repo", 400, 2, seed=3)
    agent = repo.agent_dir
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not ours\n")
    (tmp_path / "outside.md").write_text("beside the repository\n")
    (repo.root / "docs").mkdir(exist_ok=True)
    (repo.root / "docs" / "guide.md").write_text("# Guide\n")
    shared = repo.root / "shared"
    shared.mkdir()
    (shared / "inside.md").write_text("# Inside\n")
    os.symlink(shared, agent / "linked")
    os.symlink(outside / "secret.txt", agent / "out-link.md")
    os.symlink(outside, agent / "out-folder")
    os.symlink(outside, repo.root / "outside-link")
    (agent / ".git").mkdir()
    (agent / ".git" / "config").write_text("[core]\n")
    if hasattr(os, "mkfifo"):
        os.mkfifo(agent / "pipe.json")
    return repo.root


def _index(root: Path) -> RepoIndex:
    result = lint_target(find_target(root))
    index = result.indexes[0]
    assert index.walked, "the walk recorded the files it found"
    record = index.paths[0]
    index.paths.extend(
        PathReference(value, record.path, f"/odd/{n}", "odd_ref")
        for n, value in enumerate(ODD_VALUES)
    )
    return index


def _one_by_one(index: RepoIndex) -> list[Diagnostic]:
    """The reference path: each reference alone, nothing trusted, nothing shared."""
    found: list[Diagnostic] = []
    for ref in index.paths:
        alone = replace(index, paths=[ref], walked=set(), stores={})
        checker = PathChecker(alone)
        assert not checker.seen
        found.extend(check_paths(alone))
    return found


@pytest.mark.parametrize("strict", [False, True])
def test_fast_path_checks_report_what_each_reference_alone_reports(
    tmp_path: Path, strict: bool
) -> None:
    index = _index(_repository(tmp_path))
    if strict:
        index = replace(index, config=replace(index.config, strict=True))
    fast = list(check_paths(replace(index, stores={})))
    assert fast == _one_by_one(index)
    codes = {d.code for d in fast}
    assert {"AL302", "AL303"} <= codes


def test_the_walk_is_trusted_for_files_and_the_folders_it_entered(tmp_path: Path) -> None:
    index = _index(_repository(tmp_path))
    checker = PathChecker(index)
    assert ".agent" in checker.seen
    assert ".agent/decisions" in checker.seen
    assert any(p.startswith(".agent/decisions/") for p in checker.seen)
    # Never a link, what lies behind one, a special file, or anything outside the agent dir.
    for untrusted in (
        ".agent/linked",
        ".agent/linked/inside.md",
        ".agent/out-link.md",
        ".agent/out-folder",
        ".agent/pipe.json",
        ".agent/.git/config",
        "docs/guide.md",
        "",
    ):
        assert untrusted not in checker.seen
    assert checker.problem(".agent/out-link.md") == "symlink"
    assert checker.problem(".agent/linked/inside.md") is None


def test_another_file_system_trusts_nothing_of_this_walk(tmp_path: Path) -> None:
    index = _index(_repository(tmp_path))

    class Elsewhere:
        """A file system other than the run's (as a merged record's commit is)."""

        def __getattr__(self, name: str) -> object:
            return getattr(os.path, name)

    other = PathChecker(index).on(Elsewhere())  # type: ignore[arg-type]
    assert not other.seen
