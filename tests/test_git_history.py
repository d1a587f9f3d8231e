"""Merge-base semantics: ordinary branch work passes the gate with zero findings.

A history with two branches that each add handoffs while the other lands on
``main``: a branch behind ``main``, branches merged in either order, a
merge of ``main`` into a branch, GitHub's test merge of a pull request, a
rebase. Every state is checked in the work tree and the index.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import (
    CONV,
    PROJECT,
    add_conversation_handoff,
    add_project_handoff,
    commit_all,
    edit,
    git,
    make_repo,
)

from agent_lint.cli import main

ONBOARDING = ".agent/conversations/C-onboarding"


def gate(repo: Path, capsys, base: str) -> list[tuple[str, str]]:
    """AL6xx findings of the work tree and, once it is staged, of the index (both agree)."""
    found = []
    for extra in ([], ["--staged"]):
        if extra:
            git(repo, "add", "-A")
        code = main([str(repo), "--select", "AL6", "--base", base, "--output-format", "json",
                     *extra])  # fmt: skip
        data = json.loads(capsys.readouterr().out)
        found.append([(d["code"], d["path"]) for d in data["diagnostics"]])
        assert code == (1 if data["diagnostics"] else 0)
    assert found[0] == found[1]
    return found[0]


def branch_a(repo: Path) -> None:
    """Branch a: a newer project handoff and H-004 in C-payments-refactor."""
    git(repo, "checkout", "-q", "-b", "a", "main")
    add_project_handoff(repo, "20261106-100000", "release")
    add_conversation_handoff(repo, 4)
    commit_all(repo, "a: release handoff and H-004")


def branch_b(repo: Path) -> None:
    """Branch b: an older project handoff (written in parallel) and H-002 in C-onboarding."""
    git(repo, "checkout", "-q", "-b", "b", "main")
    add_project_handoff(repo, "20261105-090000", "docs")
    add_conversation_handoff(repo, 2, conversation=repo / ONBOARDING)
    commit_all(repo, "b: docs handoff and C-onboarding H-002")


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """main with the valid fixture; branches a and b forked from it."""
    repo = make_repo(tmp_path)
    branch_a(repo)
    branch_b(repo)
    git(repo, "checkout", "-q", "main")
    return repo


def merge(repo: Path, branch: str) -> None:
    git(repo, "merge", "-q", "--no-ff", "--no-edit", branch)


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")], ids=["a-then-b", "b-then-a"])
def test_two_branches_merged_in_either_order(history, capsys, order):
    first, second = order
    git(history, "checkout", "-q", first)
    assert gate(history, capsys, "main") == []
    git(history, "checkout", "-q", "main")
    merge(history, first)
    # The second branch is now behind main, which gained the first one's handoffs.
    git(history, "checkout", "-q", second)
    assert gate(history, capsys, "main") == []
    # GitHub tests a pull request on a merge of it into the base (base is the first parent).
    base = git(history, "rev-parse", "main")
    git(history, "checkout", "-q", "--detach", "main")
    merge(history, second)
    assert gate(history, capsys, base) == []
    # The branch brings main in with a merge commit (main is the second parent).
    git(history, "checkout", "-q", second)
    merge(history, "main")
    assert gate(history, capsys, "main") == []
    git(history, "checkout", "-q", "main")
    merge(history, second)
    assert gate(history, capsys, "main") == []


def test_branch_behind_main(history, capsys):
    git(history, "checkout", "-q", "main")
    merge(history, "a")
    git(history, "checkout", "-q", "b")
    add_conversation_handoff(history, 3, conversation=history / ONBOARDING)  # uncommitted work
    assert gate(history, capsys, "main") == []


def test_rebased_branch(history, capsys):
    git(history, "checkout", "-q", "main")
    merge(history, "b")
    git(history, "checkout", "-q", "a")
    git(history, "rebase", "-q", "main")
    assert gate(history, capsys, "main") == []


def test_a_rewrite_on_a_branch_behind_main_is_still_caught(history, capsys):
    git(history, "checkout", "-q", "main")
    merge(history, "a")
    git(history, "checkout", "-q", "b")
    edit(history / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    assert gate(history, capsys, "main") == [("AL601", f"{CONV}/handoffs/H-002.json")]


def test_a_merge_that_rewrites_a_handoff_is_caught(history, capsys):
    git(history, "checkout", "-q", "b")
    merge(history, "main")
    edit(history / CONV / "handoffs/H-001.md", "# ", "# rewritten ")
    git(history, "commit", "-q", "-am", "evil merge follow-up")
    assert gate(history, capsys, "main") == [("AL601", f"{CONV}/handoffs/H-001.md")]


def test_backdating_on_the_branch_is_still_caught(history, capsys):
    git(history, "checkout", "-q", "b")
    add_project_handoff(history, "20261102-000000", "backdated")
    assert gate(history, capsys, "main") == [
        ("AL604", f"{PROJECT}/H-20261102-000000-backdated.json")
    ]
