"""Temporary git repositories for the git-gate, pre-commit and action tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from conftest import FIXTURES

from agent_lint.profiles.cortex.checksum import compute

ENV = {
    "GIT_AUTHOR_NAME": "Agent Tester",
    "GIT_AUTHOR_EMAIL": "agent@example.invalid",
    "GIT_COMMITTER_NAME": "Agent Tester",
    "GIT_COMMITTER_EMAIL": "agent@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_DATE": "2026-11-05T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-11-05T12:00:00+00:00",
    "HOME": "",
}

CONV = ".agent/conversations/C-payments-refactor"
PROJECT = ".agent/handoffs"


def git(repo: Path, *args: str, date: str | None = None) -> str:
    """Run git in ``repo`` and return its output; ``date`` dates the commits it makes."""
    env = {**os.environ, **ENV, "HOME": str(repo.parent)}
    if date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    env = {k: v for k, v in env.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.strip()


def make_repo(tmp_path: Path, fixture: str = "valid", name: str = "work") -> Path:
    """A git repository holding a copy of ``fixture``, committed on ``main``.

    Names and dates are fixed, so the commit id is the same on every run.
    """
    repo = tmp_path / name
    shutil.copytree(FIXTURES / fixture, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Agent state before the change")
    return repo


def make_linked_repo(tmp_path: Path) -> Path:
    """A repository whose agent dir is a link to ``agentstate/``, committed on ``main``."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / ".agent").rename(repo / "agentstate")
    os.symlink("agentstate", repo / ".agent")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "Agent state kept behind a link")
    return repo


def commit_all(repo: Path, message: str, date: str | None = None) -> str:
    """Stage everything and commit (dated ``date``, if given); the new commit's id."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, date=date)
    return git(repo, "rev-parse", "HEAD")


def add_conversation_handoff(repo: Path, number: int, conversation: Path | None = None) -> Path:
    """Write H-<number> (and its note) in a conversation, continuing H-003's record."""
    folder = conversation or repo / CONV
    template = json.loads((FIXTURES / "valid" / CONV / "handoffs/H-003.json").read_text())
    record = dict(template)
    record["handoff_id"] = f"H-{number:03d}"
    record["timestamp"] = f"2026-11-0{min(number, 9)}T18:00:00Z"
    record["checksum"] = compute(record)
    path = folder / f"handoffs/H-{number:03d}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    (folder / f"handoffs/H-{number:03d}.md").write_text(f"# H-{number:03d}\n")
    return path


def add_project_handoff(repo: Path, stamp: str, slug: str, folder: str = PROJECT) -> Path:
    """Write a project (or mission) handoff named by time: ``H-<stamp>-<slug>.json``."""
    source = FIXTURES / "valid" / PROJECT / "H-20261103-120000-release-prep.json"
    template = json.loads(source.read_text())
    handoff_id = f"H-{stamp}-{slug}"
    day, clock = stamp.split("-")
    template["handoff_id"] = handoff_id
    template["produced_at"] = (
        f"{day[:4]}-{day[4:6]}-{day[6:]}T{clock[:2]}:{clock[2:4]}:{clock[4:]}Z"
    )
    path = repo / folder / f"{handoff_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(template, indent=2) + "\n")
    return path


def edit(path: Path, old: str, new: str) -> None:
    """Replace text in a file (it must be there)."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def change_meeting_an_old_commit_first(origin: Path, commits: int = 40) -> tuple[str, str]:
    """On ``origin``: main adds ``C-newconv`` in Y, after an older commit X; a change based
    on Y, ``commits`` commits long, rewrites its H-001 and then merges X, so that in a
    shallow clone X is the first common commit seen. (pull request head, main) ids."""
    (origin / "x.txt").write_text("x\n")
    older = commit_all(origin, "X")
    shutil.copytree(
        origin / ".agent/conversations/C-onboarding", origin / ".agent/conversations/C-newconv"
    )
    added = commit_all(origin, "Y adds C-newconv/H-001")
    for number in range(3):
        (origin / f"m{number}.txt").write_text(f"{number}\n")
        commit_all(origin, f"main {number}")
    main = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "-b", "pr", added)
    for number in range(commits):
        (origin / "p.txt").write_text(f"{number}\n")
        commit_all(origin, f"pr {number}")
    edit(
        origin / ".agent/conversations/C-newconv/handoffs/H-001.json",
        '"session_archive"',
        '"timeout"',
    )
    commit_all(origin, "rewrite the merged H-001")
    head = git(origin, "commit-tree", "-p", "HEAD", "-p", older, "-m", "merge X", "HEAD^{tree}")
    git(origin, "update-ref", "refs/heads/pr", head)
    git(origin, "checkout", "-q", "main")
    return head, main
