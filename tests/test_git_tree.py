"""A commit's tree read from git objects lints exactly like a checkout of that commit.

``--new-only`` lints the merge-base without checking it out: any difference
from linting a checkout would hide a real new finding or report an old one.
Each repository here is linted twice, from a ``git worktree`` checkout of a
commit and from the commit's tree, and every finding, every position and the
listing of files must agree. The tree is as untrusted as the change: links
that leave the repository are never followed and nothing is read from disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES, write_tree
from gitrepo import CONV, commit_all, git, make_repo

from agent_lint import gittree
from agent_lint.config import load_config
from agent_lint.discovery import Target, find_target
from agent_lint.filesystem import Disk
from agent_lint.gitplumbing import Repository
from agent_lint.linter import LintResult, lint_target

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def tree_lint(repo: Path, commit: str, git_folder: Path | None = None) -> LintResult:
    """Lint ``commit`` of ``repo`` from git objects, with the work tree's configuration.

    ``git_folder`` is where the repository holding ``commit`` is (``repo`` by default).
    """
    target = Target(repo, repo / ".agent", load_config(repo))
    found = Repository.discover(git_folder or repo)
    assert found is not None
    session = gittree.GitSession(found, target)
    try:
        fs = gittree.base_tree(session, commit)
        history = gittree.RecordHistory(target, session=session, reference=commit)
        return lint_target(target, fs=fs, history=history)
    finally:
        session.close()


def checkout_lint(repo: Path, commit: str, where: Path) -> LintResult:
    """Lint a real checkout of ``commit`` (a linked work tree of ``repo``)."""
    git(repo, "worktree", "add", "-q", "--detach", str(where), commit)
    return lint_target(find_target(where))


def facts(result: LintResult) -> list[tuple[object, ...]]:
    return [
        (d.code, d.severity, d.path, d.line, d.column, d.end_line, d.end_column, d.message)
        for d in result.diagnostics
    ]


def assert_same(repo: Path, tmp_path: Path, commit: str = "HEAD") -> LintResult:
    sha = git(repo, "rev-parse", commit)
    checked_out = checkout_lint(repo, sha, tmp_path / f"checkout-{sha[:8]}")
    from_tree = tree_lint(repo, sha)
    assert facts(from_tree) == facts(checked_out)
    assert sorted(from_tree.files) == sorted(checked_out.files)
    assert from_tree.files_checked == checked_out.files_checked
    return from_tree


@pytest.mark.parametrize(
    "fixture",
    sorted(p.name for p in FIXTURES.iterdir() if (p / ".agent").is_dir()),
)
def test_every_fixture_lints_the_same_from_its_tree(tmp_path, fixture):
    repo = make_repo(tmp_path, fixture)
    result = assert_same(repo, tmp_path)
    assert result.files_checked > 0


def _hostile(repo: Path) -> None:
    """Links, submodules, odd names and limits: everything the walk judges."""
    agent = repo / ".agent"
    (repo / ".agent-lint.toml").write_text("[limits]\nmax-file-bytes = 4096\n")
    write_tree(
        repo,
        {
            "knowledge/MEM-010.json": "{}\n",
            "docs/guide.md": "# Guide\n\n## Set up\n\ntext\n",
            "records/D-900.json": (agent / "decisions/D-002.json").read_text(),
            ".agent/decisions/D-901.json": "{" + " " * 5000 + "}",  # over the size limit
            ".agent/decisions/D-902.json.tmp": "{}",
            ".agent/decisions/D-903:x.json": "{}",
            ".agent/.control/lock": "x",
            ".agent/tasks/T-009.json": b"\xff\xfe not utf-8",
            ".agent/conversations/C-payments-refactor/handoffs/H-001.md": (
                "# H-001\n\n[guide](../../../../docs/guide.md#set-up) "
                "[gone](../../../../docs/guide.md#tear-down) "
                "[linked](../../../../docs/current/guide.md) "
                "[folder](../../../../docs) [nowhere](../../../../docs/none.md) "
                "[out](../../../../docs/out/passwd)\n"
            ),
        },
    )
    shutil.copy(agent / "decisions/D-002.json", agent / "decisions/d-002.json")  # case twin
    links = {
        ".agent/decisions/D-900.json": "../../records/D-900.json",
        ".agent/memory/semantic-linked": "../../knowledge",
        ".agent/decisions/D-904.json": "../../../outside.json",
        ".agent/decisions/D-905.json": "/etc/hostname",
        ".agent/decisions/D-906.json": "missing-target.json",
        ".agent/tasks/T-010.json": "T-011.json",
        ".agent/tasks/T-011.json": "T-010.json",
        "docs/current": "../docs",
        "docs/out": "/etc",
    }
    for name, target in links.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, repo / name)
    waitpoint = agent / "waitpoints/WP-002.json"
    record = json.loads(waitpoint.read_text())
    record["relations"]["artifact_refs"] = [
        "docs/payments/design.md",
        "docs/current/payments/design.md",
        "docs/out/hostname",
        "docs/missing.md",
        ".agent/decisions/D-906.json",
        "knowledge",
    ]
    waitpoint.write_text(json.dumps(record, indent=2) + "\n")
    commit_all(repo, "hostile layout")
    # A submodule (gitlink) inside the agent dir: an empty folder in a checkout.
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},.agent/vendor/lib")
    git(repo, "commit", "-q", "-m", "submodule")


@pytest.mark.skipif(os.name == "nt", reason="symbolic links")
def test_links_submodules_names_and_limits_lint_the_same(tmp_path):
    repo = make_repo(tmp_path)
    _hostile(repo)
    result = assert_same(repo, tmp_path)
    codes = {d.code for d in result.diagnostics}
    # The layout exercises what it is meant to: every storage rule and both link rules.
    assert {"AL007", "AL009", "AL701", "AL702", "AL703", "AL704", "AL705"} <= codes
    assert {"AL302", "AL303", "AL314"} <= codes
    messages = "\n".join(d.message for d in result.diagnostics)
    assert "#tear-down" in messages and "#set-up" not in messages


@pytest.mark.skipif(os.name == "nt", reason="symbolic links")
def test_the_tree_is_never_read_from_disk(tmp_path, monkeypatch):
    """The work tree can be anything, even gone: the tree's findings come from git objects."""
    repo = make_repo(tmp_path)
    _hostile(repo)
    expected = facts(tree_lint(repo, "HEAD"))
    shutil.rmtree(repo / ".agent")
    shutil.rmtree(repo / "docs")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"read from disk: {args}")

    monkeypatch.setattr(Disk, "read", refuse)
    monkeypatch.setattr("agent_lint.filesystem.read_regular", refuse)
    assert facts(tree_lint(repo, git(repo, "rev-parse", "HEAD"))) == expected


@pytest.mark.skipif(os.name == "nt", reason="symbolic links")
def test_links_out_of_the_tree_are_never_followed(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "do-not-print-me"}')
    repo = make_repo(tmp_path)
    os.symlink(str(secret), repo / ".agent/decisions/D-950.json")
    os.symlink("../../../secret.json", repo / ".agent/decisions/D-951.json")
    commit_all(repo, "links out")
    result = tree_lint(repo, git(repo, "rev-parse", "HEAD"))
    found = {d.path: d for d in result.diagnostics if d.code == "AL007"}
    assert set(found) == {".agent/decisions/D-950.json", ".agent/decisions/D-951.json"}
    assert all("outside the repository" in d.message for d in found.values())
    assert "do-not-print-me" not in repr(result)


def test_only_the_blobs_needed_are_read_through_one_process(tmp_path, monkeypatch):
    """The agent dir's files and the one linked heading file; not the other 200 documents."""
    repo = make_repo(tmp_path)
    write_tree(repo, {f"docs/page-{n:03d}.md": f"# Page {n}\n" for n in range(200)})
    summary = repo / CONV / "summary.md"
    summary.write_text(summary.read_text() + "\nSee [page 7](../../../docs/page-007.md#page-7).\n")
    commit_all(repo, "documentation")
    commit = git(repo, "rev-parse", "HEAD")
    started: list[list[str]] = []
    real_popen = subprocess.Popen

    def popen(args: list[str], *rest: object, **kwargs: object) -> subprocess.Popen[bytes]:
        started.append(list(args))
        return real_popen(args, *rest, **kwargs)  # type: ignore[call-overload,no-any-return]

    monkeypatch.setattr(subprocess, "Popen", popen)
    target = Target(repo, repo / ".agent", load_config(repo))
    found = Repository.discover(repo)
    assert found is not None
    session = gittree.GitSession(found, target)
    try:
        fs = gittree.base_tree(session, commit)
        history = gittree.RecordHistory(target, session=session, reference=commit)
        result = lint_target(target, fs=fs, history=history)
        reads = session.reader.reads
    finally:
        session.close()
    assert not result.diagnostics
    batch = [a for a in started if "cat-file" in a and "--batch" in a]
    assert len(batch) == 1
    # Every record and note of the agent dir, and the one page whose heading a note
    # links to: none of the other 199 pages, and nothing twice.
    assert reads == result.files_checked + 1


def test_a_nested_agent_repository_reads_the_project_from_disk(tmp_path):
    """An agent dir that is its own repository: its tree from git, the project around it on disk."""
    project = tmp_path / "project"
    shutil.copytree(FIXTURES / "valid", project)
    agent = project / ".agent"
    git(agent, "init", "-q", "-b", "main")
    commit_all(agent, "agent state")
    result = tree_lint(project, git(agent, "rev-parse", "HEAD"), git_folder=agent)
    plain = lint_target(find_target(project))
    assert facts(result) == facts(plain)


def test_handoff_moved_files_lint_the_same_at_an_older_commit(tmp_path):
    """An older commit differs from the work tree: its own files are what is linted."""
    repo = make_repo(tmp_path)
    old = git(repo, "rev-parse", "HEAD")
    (repo / CONV / "summary.md").write_text("# Changed\n\nSee [nothing](nothing.md)\n")
    (repo / "docs/payments/design.md").unlink()
    commit_all(repo, "later")
    assert facts(tree_lint(repo, old)) == facts(checkout_lint(repo, old, tmp_path / "old"))
    assert not [d for d in tree_lint(repo, old).diagnostics if d.severity.value == "error"]
