"""Files git ignores are not the repository's: a clone or CI never has them.

The runtime's own ``.agent/.gitignore`` keeps ``sessions/S-*.json`` local to each
machine; a session file there must not make a colleague's committed handoff an error on
one machine and not in CI. Such files are named by ``--show-files``, never read.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES
from gitrepo import git

from agent_lint.cli import main

BROKEN = '{"decision_id": "D-999",'  # does not parse


def _shown(out: str, path: str) -> str:
    """How ``--show-files`` describes ``path``."""
    [line] = [line for line in out.splitlines() if line.split(" ", 1)[0] == path]
    return line[len(path) :].strip()


def _repository(tmp_path: Path) -> Path:
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".agent/decisions/D-999.json").write_text(BROKEN)
    return repo


def test_an_ignored_file_is_named_and_not_read(tmp_path, capsys):
    repo = _repository(tmp_path)
    assert main([str(repo), "--no-cache"]) == 1  # not ignored: its AL001
    assert "AL001" in capsys.readouterr().out
    (repo / ".agent/.gitignore").write_text("decisions/D-9*.json\n")
    assert main([str(repo), "--no-cache"]) == 0
    capsys.readouterr()
    main([str(repo), "--no-cache", "--show-files"])
    shown = _shown(capsys.readouterr().out, ".agent/decisions/D-999.json")
    assert shown == "not read: ignored by git (.gitignore), not committed"


def test_rules_from_the_top_and_info_exclude_apply_and_a_tracked_file_is_read(tmp_path, capsys):
    repo = _repository(tmp_path)
    (repo / ".git/info").mkdir(parents=True, exist_ok=True)
    (repo / ".git/info/exclude").write_text(".agent/decisions/D-999.json\n")
    assert main([str(repo), "--no-cache"]) == 0
    capsys.readouterr()
    (repo / ".git/info/exclude").write_text("")
    (repo / ".gitignore").write_text("D-999.json\n")
    assert main([str(repo), "--no-cache"]) == 0
    capsys.readouterr()
    git(repo, "add", "-f", ".agent/decisions/D-999.json")  # committed despite the rule
    assert main([str(repo), "--no-cache"]) == 1
    assert "AL001" in capsys.readouterr().out


def test_an_ignored_folder_is_not_walked(tmp_path, capsys):
    repo = _repository(tmp_path)
    (repo / ".gitignore").write_text(".agent/decisions/\n")
    git(repo, "add", "-f", ".agent/decisions/index.json")  # one tracked file stays
    main([str(repo), "--no-cache", "--show-files"])
    out = capsys.readouterr().out
    assert _shown(out, ".agent/decisions/D-999.json").startswith("not read: ignored by git")
    assert _shown(out, ".agent/decisions/index.json") == "decision index"


def test_a_state_json_kept_out_of_git_on_purpose_is_not_missing(tmp_path, capsys):
    """A team that ignores the derived state.json: a clone has none, and that is no AL502."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    git(repo, "init", "-q", "-b", "main")
    state = repo / ".agent/conversations/C-onboarding/handoffs/state.json"
    state.unlink()
    assert main([str(repo), "--no-cache"]) == 1
    assert "AL502" in capsys.readouterr().out
    (repo / ".gitignore").write_text("/.agent/conversations/*/handoffs/state.json\n")
    assert main([str(repo), "--no-cache"]) == 0
    capsys.readouterr()
    # --fix writes it all the same (a derived file, local to the machine), and it is then
    # not read: git ignores it.
    assert main([str(repo), "--no-cache", "--fix"]) == 0
    assert state.exists()


def test_notes_and_summaries_kept_out_of_git_are_judged_alike_here_and_in_a_clone(tmp_path, capsys):
    """A repository that ignores handoff notes and summaries: the work tree (where they
    are) and a clone (where they are not) get the same result, no AL408, AL302 or AL314
    for what git keeps out on purpose. Without the rule a clone would miss them."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    conversation = repo / ".agent/conversations/C-onboarding"
    (conversation / "summary.md").write_text("# C-onboarding\n")
    plan = repo / ".agent/missions/M-001/mission-plan.md"
    plan.write_text(
        plan.read_text() + "\nSee [the summary](../../conversations/C-onboarding/summary.md).\n"
    )
    (repo / ".gitignore").write_text(
        ".agent/conversations/*/summary.md\n.agent/conversations/*/handoffs/*.md\n"
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "notes stay on each machine")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert not (clone / ".agent/conversations/C-onboarding/summary.md").exists()
    for checkout in (repo, clone):
        assert main([str(checkout), "--no-cache", "--no-color"]) == 0, checkout
        out, err = capsys.readouterr()
        assert "All checks passed" in out
        # Named, never skipped silently: a change's own rule cannot hide them unseen.
        assert "git ignores (.gitignore) were not judged" in err
        assert ".agent/conversations/C-onboarding/summary.md" in err
    (clone / ".gitignore").write_text("")
    assert main([str(clone), "--no-cache", "--no-color", "--select", "AL302,AL314,AL408"]) == 1
    out = capsys.readouterr().out
    assert "AL408" in out and "AL302" in out and "AL314" in out


def test_a_path_beyond_a_link_does_not_stop_git_answering_for_the_others(tmp_path, capsys):
    """git refuses a whole check-ignore batch over one path beyond a symbolic link: such a
    path is asked alone as never ignored, and the ignored summaries stay unjudged."""
    repo = tmp_path / "work"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / ".gitignore").write_text(".agent/conversations/*/summary.md\n")
    for summary in repo.glob(".agent/conversations/*/summary.md"):
        summary.unlink()
    (repo / "docs").rename(repo / "documentation")
    os.symlink("documentation", repo / "docs")
    git(repo, "init", "-q", "-b", "main")
    assert main([str(repo), "--no-cache", "--no-color"]) == 0
    assert "All checks passed" in capsys.readouterr().out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_an_ignore_file_that_links_to_a_fifo_does_not_block_the_run(tmp_path):
    repo = _repository(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    (repo / ".agent/.gitignore").symlink_to(tmp_path / "fifo")
    done = subprocess.run(
        [sys.executable, "-m", "agent_lint", str(repo), "--no-cache"],
        stdin=subprocess.PIPE, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1 and "AL001" in done.stdout  # read on, D-999 not ignored
