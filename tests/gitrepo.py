"""Temporary git repositories for the git-gate, pre-commit and action tests."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from conftest import FIXTURES

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


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its output."""
    env = {**os.environ, **ENV, "HOME": str(repo.parent)}
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.strip()


def make_repo(tmp_path: Path, fixture: str = "valid") -> Path:
    """A git repository holding a copy of ``fixture``, committed on ``main``.

    Names and dates are fixed, so the commit id is the same on every run.
    """
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / fixture, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Agent state before the change")
    return repo
