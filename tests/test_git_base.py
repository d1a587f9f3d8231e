"""Choosing the base: ``--base auto``, and usage errors that say what to do."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES
from gitrepo import CONV, add_conversation_handoff, commit_all, edit, git, make_repo

from agent_lint import gitgate
from agent_lint.cli import main
from agent_lint.config import ConfigError
from agent_lint.discovery import find_target


def gate(repo: Path, capsys, *args: str) -> tuple[int, list[tuple[str, str]], str]:
    """Run the gate in text mode: exit code, (code, message) of each finding, stderr."""
    code = main([str(repo), "--select", "AL6", "--output-format", "json", *args])
    out, err = capsys.readouterr()
    report = json.loads(out)
    return code, [(d["code"], d["message"]) for d in report["diagnostics"]], err


def rewrite(repo: Path) -> None:
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')


def _clone(tmp_path: Path) -> tuple[Path, Path]:
    origin = make_repo(tmp_path, name="origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return origin, clone


def test_auto_uses_the_upstream_of_the_current_branch(tmp_path, capsys):
    origin, clone = _clone(tmp_path)
    git(origin, "checkout", "-q", "-b", "dev")
    git(origin, "rm", "-q", f"{CONV}/handoffs/H-003.json", f"{CONV}/handoffs/H-003.md")
    commit_all(origin, "dev ends at H-002")
    git(clone, "fetch", "-q", "origin")
    git(clone, "checkout", "-q", "-b", "feature", "--track", "origin/dev")
    add_conversation_handoff(clone, 4)
    code, found, _ = gate(clone, capsys, "--base", "auto")
    assert code == 1
    assert found == [("AL605", "new conversation handoff H-004.json does not continue the "
                               "numbering of origin/dev: the next one is H-003")]  # fmt: skip


@pytest.mark.parametrize("remote", ["origin", "upstream"])
def test_auto_does_not_take_a_pushed_branch_for_its_base(tmp_path, capsys, remote):
    """A branch pushed with ``-u`` tracks its own copy: what it pushed there is not merged,
    so a handoff it added may still change; the remote's default branch is the base."""
    origin, _ = _clone(tmp_path)
    work = tmp_path / "work2"
    git(tmp_path, "clone", "-q", "-o", remote, str(origin), str(work))
    git(work, "checkout", "-q", "-b", "review")
    add_conversation_handoff(work, 4)
    commit_all(work, "H-004 for review")
    git(work, "push", "-q", "-u", remote, "review")
    assert git(work, "rev-parse", "--abbrev-ref", "@{upstream}") == f"{remote}/review"
    edit(work / CONV / "handoffs/H-004.md", "", "Reworded after review.\n")
    code, found, _ = gate(work, capsys, "--base", "auto")
    assert (code, found) == (0, [])
    rewrite(work)  # a handoff of the default branch is merged: the gate holds
    code, found, _ = gate(work, capsys, "--base", "auto")
    assert code == 1 and [c for c, _ in found] == ["AL601"]
    assert "merged in" in found[0][1]


@pytest.mark.parametrize("remote_ref", ["main", "master"])
def test_auto_falls_back_to_the_remote_default_branch(tmp_path, capsys, remote_ref):
    repo = make_repo(tmp_path)
    git(repo, "update-ref", f"refs/remotes/origin/{remote_ref}", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")  # no upstream
    rewrite(repo)
    code, found, _ = gate(repo, capsys, "--base", "auto")
    assert code == 1 and [c for c, _ in found] == ["AL601"]


def test_auto_prefers_origin_head(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "update-ref", "refs/remotes/origin/trunk", "HEAD")
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "rm", "-q", f"{CONV}/handoffs/H-001.md")
    _, found, _ = gate(repo, capsys, "--base", "auto")
    assert found[0][0] == "AL602" and "merged in" in found[0][1]


def test_auto_without_any_base_passes_with_one_notice(tmp_path, capsys):
    repo = make_repo(tmp_path)  # no remote at all
    rewrite(repo)
    assert main([str(repo), "--select", "AL6", "--base", "auto"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("All checks passed")
    assert err.count("\n") == 1 and err.startswith("agent-lint: notice: no base branch")


def test_first_commit_passes_with_one_notice(tmp_path, capsys):
    repo = tmp_path / "new"
    shutil.copytree(FIXTURES / "valid", repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    assert main([str(repo), "--select", "AL6", "--staged", "--base", "auto"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("agent-lint: notice: ")
    # An explicit base still has to exist; the hint says what to do instead.
    assert main([str(repo), "--select", "AL6", "--staged", "--base", "main"]) == 2
    assert "There is no commit yet; with `--base auto`" in capsys.readouterr().err


def test_auto_outside_a_repository_is_a_notice(tmp_path, capsys):
    shutil.copytree(FIXTURES / "valid", tmp_path / "plain")
    (tmp_path / "plain" / ".git").mkdir()  # an empty .git stops the search for a parent
    assert main([str(tmp_path / "plain"), "--select", "AL6", "--base", "auto"]) == 0
    assert "not in a git repository" in capsys.readouterr().err


def test_unknown_base_without_a_remote(tmp_path, capsys):
    repo = make_repo(tmp_path)
    assert main([str(repo), "--base", "origin/main"]) == 2
    err = capsys.readouterr().err
    assert "'origin/main' is not a commit" in err
    assert "no remote to fetch it from" in err and "git fetch" not in err


def test_unknown_base_with_a_remote_says_how_to_fetch_it(tmp_path, capsys):
    _, clone = _clone(tmp_path)
    assert main([str(clone), "--base", "origin/release"]) == 2
    hint = "Fetch it first: `git fetch origin release:refs/remotes/origin/release`."
    assert hint in capsys.readouterr().err
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert main([str(clone), "--base", sha]) == 2
    assert f"`git fetch origin {sha}`" in capsys.readouterr().err


def test_the_hint_for_a_single_branch_shallow_clone_works_as_given(tmp_path, capsys):
    """``git clone --depth 1 -b feature`` has no origin/main; the command the hint gives
    makes it, and the gate then runs."""
    origin = make_repo(tmp_path, name="origin")
    git(origin, "checkout", "-q", "-b", "feature")
    add_conversation_handoff(origin, 4)
    commit_all(origin, "H-004")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "-b", "feature", f"file://{origin}", str(clone))
    assert main([str(clone), "--base", "origin/main"]) == 2
    err = capsys.readouterr().err
    fetch = "git fetch --unshallow origin main:refs/remotes/origin/main"
    assert f"(`{fetch}`)" in err
    git(clone, *fetch.split()[1:])
    assert main([str(clone), "--base", "origin/main", "--select", "AL6"]) == 0


def test_a_base_that_looks_like_an_option_is_not_one(tmp_path, capsys):
    repo = make_repo(tmp_path)
    assert main([str(repo), "--base=--output=/tmp/x"]) == 2
    assert "is not a commit" in capsys.readouterr().err


def test_unrelated_history(tmp_path, capsys):
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "--orphan", "other")
    commit_all(repo, "unrelated")
    assert main([str(repo), "--select", "AL6", "--base", "main"]) == 2
    assert "share no history" in capsys.readouterr().err


def _reference_located(repo: Path, head: str, base: str) -> tuple[str, str] | None:
    """The merge-base as ``git merge-base`` names it, and the fork point found by walking the
    change's own commits (``rev-list --parents``); None when they share no history."""
    try:
        merge_base = git(repo, "merge-base", head, base)
    except subprocess.CalledProcessError:
        return None
    graph = {}
    for line in git(repo, "rev-list", "--parents", head, "--not", base, "--").splitlines():
        commit, *parents = line.split()
        graph[commit] = parents
    commit = head
    while commit in graph:
        parents = graph.pop(commit)
        if not parents:
            return merge_base, merge_base
        own = [p for p in parents if p in graph]
        commit = own[0] if own else parents[0]
    return merge_base, commit


def _empty_commit(repo: Path, message: str) -> str:
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def test_the_merge_base_from_the_walk_is_the_one_git_names(tmp_path):
    """HEAD behind, ahead of, level with, diverged from, merged with and unrelated to its base."""
    repo = make_repo(tmp_path)
    target = find_target(repo)
    git(repo, "branch", "start")
    _empty_commit(repo, "main 1")
    _empty_commit(repo, "main 2")
    git(repo, "checkout", "-q", "-b", "side", "start")
    _empty_commit(repo, "side 1")
    git(repo, "merge", "-q", "--no-edit", "main")  # the base merged into the branch
    _empty_commit(repo, "side 2")
    git(repo, "checkout", "-q", "-b", "cross", "main")
    git(repo, "merge", "-q", "--no-edit", "side~2")  # a criss-cross: two best common ancestors
    git(repo, "checkout", "-q", "--orphan", "alone")
    _empty_commit(repo, "unrelated")
    bases = ["start", "main", "main~1", "side", "side~1", "side~2", "cross", "alone"]
    for head in ["main", "start", "side", "side~2", "cross", "alone"]:
        git(repo, "checkout", "-q", "--detach", head)
        for base in [*bases, "HEAD"]:
            head_id = git(repo, "rev-parse", "HEAD")
            expected = _reference_located(repo, head_id, git(repo, "rev-parse", base))
            if expected is None:
                with pytest.raises(ConfigError, match="share no history"):
                    gitgate.locate(target, base)
                continue
            found = gitgate.locate(target, base)
            assert isinstance(found, gitgate.Located), (head, base)
            assert (found.merge_base, found.fork) == expected, (head, base)
            assert found.head == head_id


def test_finding_the_repository_tells_the_commit_head_names(tmp_path):
    from agent_lint.gitplumbing import Repository

    folder = tmp_path / "new"
    shutil.copytree(FIXTURES / "valid", folder)
    git(folder, "init", "-q", "-b", "main")
    unborn = Repository.discover(folder / ".agent")
    assert unborn is not None and unborn.found_head is None and unborn.head() is None
    head = commit_all(folder, "first")
    found = Repository.discover(folder / ".agent")
    assert found is not None and found.found_head == head == found.head()
    assert found == unborn  # the same repository, whatever HEAD named when it was found
