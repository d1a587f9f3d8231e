"""Agent dirs of another design get one notice and exit 0, not errors about files we do not know."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree

from agent_lint.cli import main

FOREIGN = {
    # Claude-style memory notes and a handoff README.
    "memory-notes": {
        "memory/MEMORY.md": "# Memory\n\n- [user](user.md)\n",
        "memory/user.md": "---\nname: user\ntype: user\n---\nPrefers small PRs.\n",
        "handoffs/README.md": "# Handoffs\n\nWrite one file per session.\n",
        "handoffs/2026-05-01-session.md": "# Session\n\nDid D-1 and M-2.\n",
    },
    # A task manifest of its own format, and its tasks.
    "task-manifest": {
        "tasks/manifest.json": {"version": 2, "tasks": [{"id": "T-1", "title": "x"}]},
        "tasks/T-1.json": {"id": "T-1", "title": "x", "state": "todo"},
        "tasks/notes/T-1.md": "notes\n",
    },
    # An agent store with its own conversation files.
    "conversation-store": {
        "conversations/index.json": {"conversations": ["abc"]},
        "conversations/abc/metadata.json": {"id": "abc", "agent_count": 1},
        "conversations/abc/messages.json": [{"role": "user", "content": "hi"}],
        "state.json": {"active": "abc"},
    },
}


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_foreign_layout_gets_one_notice(tmp_path: Path, capsys, name):
    write_tree(tmp_path / ".agent", FOREIGN[name])
    assert main([str(tmp_path), "--no-color"]) == 0
    out, err = capsys.readouterr()
    assert out == "Nothing checked.\n"
    assert err == "agent-lint: notice: no Cortex agent state found in .agent/; nothing checked\n"
    assert main([str(tmp_path), "--output-format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["diagnostics"] == [] and document["files_checked"] == 0
    assert document["notices"] == ["no Cortex agent state found in .agent/; nothing checked"]
    assert main([str(tmp_path), "--output-format", "github"]) == 0
    assert capsys.readouterr().out.startswith("::notice title=agent-lint::no Cortex agent state")


def test_cortex_record_makes_it_a_cortex_agent_dir(tmp_path: Path, capsys):
    write_tree(tmp_path / ".agent", {**FOREIGN["task-manifest"], "decisions/D-1.json": "{"})
    assert main([str(tmp_path), "--no-color"]) == 1
    assert "AL001" in capsys.readouterr().out


def test_turning_the_agent_dir_foreign_does_not_turn_the_gate_off(tmp_path: Path, capsys):
    """A change that deletes every record still meets the append-only gate."""
    import shutil

    from gitrepo import make_repo

    repo = make_repo(tmp_path)
    shutil.rmtree(repo / ".agent")
    write_tree(repo / ".agent", FOREIGN["memory-notes"])
    assert main([str(repo), "--base", "main", "--no-color"]) == 1
    out, err = capsys.readouterr()
    assert "AL602" in out
    assert "no Cortex agent state found in .agent/; nothing checked; the append-only gate" in err


def test_every_format_shows_every_notice(tmp_path: Path, capsys):
    """The run's notices are one list, and every reporter shows all of it."""
    repo = tmp_path / "plain"
    write_tree(repo / ".agent", FOREIGN["memory-notes"])
    (repo / ".git").mkdir()  # an empty .git: no repository, so the gate is skipped
    expected = ["no Cortex agent state found in .agent/", "is not in a git repository"]
    sarif_file, summary_file = tmp_path / "out.sarif", tmp_path / "summary.md"
    base = [str(repo), "--base", "auto", "--no-color"]
    assert main([*base, "--sarif-file", str(sarif_file), "--summary-file", str(summary_file)]) == 0
    out, err = capsys.readouterr()
    assert out == "Nothing checked.\n" and all(text in err for text in expected)
    assert main([*base, "--output-format", "json"]) == 0
    notices = json.loads(capsys.readouterr().out)["notices"]
    assert len(notices) == 2 and all(any(t in n for n in notices) for t in expected)
    assert main([*base, "--output-format", "github"]) == 0
    commands = capsys.readouterr().out.splitlines()
    assert len(commands) == 2 and all(c.startswith("::notice title=agent-lint::") for c in commands)
    log = json.loads(sarif_file.read_text(encoding="utf-8"))
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert all(any(t in n["message"]["text"] for n in notes) for t in expected)
    summary = summary_file.read_text(encoding="utf-8")
    assert "Nothing checked." in summary and all(t in summary for t in expected)


def test_the_notice_does_not_name_a_folder_that_is_not_there(tmp_path: Path, capsys):
    """A change that removed the store, gated: the notice says there is no .agent/ folder."""
    from gitrepo import git, make_repo

    repo = make_repo(tmp_path)
    git(repo, "rm", "-rq", ".agent")
    main([str(repo), "--base", "main", "--no-color"])
    err = capsys.readouterr().err
    assert "no Cortex agent state found here (no .agent/ folder); nothing checked" in err


def test_a_linked_folder_named_like_a_record_folder_outside_a_store_is_no_state(
    tmp_path: Path, capsys
):
    """A plugin repository's top (``agents -> templates/agents``, no ``.agent/``) is taken
    for a store only by its folder names: a link there shows no agent state. In ``.agent/``
    the same link is its AL707, which no foreign-layout notice hides."""
    import os

    write_tree(tmp_path, {"templates/agents/reviewer.md": "# reviewer\n", "commands/do.md": "x"})
    os.symlink("templates/agents", tmp_path / "agents")
    assert main([str(tmp_path), "--no-cache", "--no-color"]) == 0
    out, err = capsys.readouterr()
    assert out == "Nothing checked.\n" and "no Cortex agent state found" in err
    (tmp_path / ".agent").mkdir()
    os.symlink("../templates/agents", tmp_path / ".agent/agents")
    assert main([str(tmp_path), "--no-cache", "--no-color"]) == 1
    assert "AL707" in capsys.readouterr().out


def test_no_store_and_no_base_found_does_not_say_the_gate_ran(tmp_path: Path, capsys):
    """`--base auto` (the handoffs hook) in a repository with no store and no base branch:
    one notice says the gate was skipped, none that it ran."""
    from gitrepo import git

    repo = tmp_path / "repo"
    write_tree(repo, {"README.md": "# project\n"})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    assert main([str(repo), "--base", "auto", "--no-cache", "--output-format", "json"]) == 0
    notices = json.loads(capsys.readouterr().out)["notices"]
    assert not any("still ran" in notice for notice in notices), notices
    assert any("the append-only gate (AL6xx) was skipped" in notice for notice in notices)
