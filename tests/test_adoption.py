"""The README's adoption steps and partial-snapshot example work as written."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO, write_tree
from records import decision

from agent_lint.cli import main

README = (REPO / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"\n{title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def _block(section: str, language: str, number: int = 1) -> str:
    found = re.findall(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert len(found) >= number, f"no {language} block {number}"
    return str(found[number - 1])


def _commands(text: str) -> list[list[str]]:
    return [shlex.split(line.split("#", 1)[0]) for line in text.strip().splitlines()]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_adoption_section_works_when_copied(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "real-world", repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    section = _section("## Adopting agent-lint on an existing repository")
    commands = _commands(_block(section, "sh", 2))
    assert [command[0] for command in commands] == ["agent-lint", "git", "agent-lint"]
    assert main(commands[0][1:]) == 0
    assert "recorded 13 findings" in capsys.readouterr().err
    subprocess.run(commands[1], check=True)
    assert main(commands[2][1:]) == 0
    assert "13 known findings hidden by the baseline" in capsys.readouterr().out
    write_tree(repo / ".agent", {"decisions/D-OPS-009.json": decision(decision_id="D-OPS-9")})
    assert main(commands[2][1:]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(".agent/decisions/D-OPS-009.json:3:18: AL202")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_new_only_route_works_when_copied(tmp_path, monkeypatch, capsys):
    """A repository with drift; a pull request adds one problem: exactly that one is reported."""
    origin = tmp_path / "origin"
    shutil.copytree(FIXTURES / "real-world", origin)
    subprocess.run(["git", "init", "-q", "-b", "main", str(origin)], check=True)
    _git(origin, "add", "-A")
    _git(origin, "commit", "-q", "-m", "agent state with drift")
    repo = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(origin), str(repo))
    _git(repo, "checkout", "-q", "-b", "link-the-runbook")
    monkeypatch.chdir(repo)
    section = _section("## Adopting agent-lint on an existing repository")
    [command] = _commands(_block(section, "sh"))
    assert command[0] == "agent-lint"
    assert main([*command[1:], "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "13 findings already present at the merge-base" in out
    plan = repo / ".agent/missions/M-007/mission-plan.md"
    plan.write_text(plan.read_text() + "\nRunbook: [rollout](../../../docs/rollout.md)\n")
    _git(repo, "commit", "-q", "-am", "link the runbook")
    assert main([*command[1:], "--no-color"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(".agent/missions/M-007/mission-plan.md:")
    assert ' AL314 link target "../../../docs/rollout.md" does not exist' in lines[0]
    assert lines[1].startswith("Found 1 error in 17 files checked; 13 findings already present")


def _git(repo: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@example.invalid",
        GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@example.invalid", HOME=str(repo),
        GIT_CONFIG_NOSYSTEM="1",
    )  # fmt: skip
    subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)


def test_partial_snapshot_example_is_real_output(capsys, monkeypatch):
    example = _block(_section("### Partial snapshots"), "text").splitlines()
    command = shlex.split(example[0].removeprefix("$ "))
    monkeypatch.chdir(REPO)
    main([*command[1:], "--no-color"])
    out = capsys.readouterr().out.splitlines()
    shown = [line for line in example[1:] if line != "…"]
    assert shown and all(line in out for line in shown)
    assert out[-1] == example[-1]


def test_foreign_layout_notice_is_real_output(tmp_path: Path, capsys):
    command, *shown = _block(_section("### Layouts that are not this one"), "text").splitlines()
    assert command == "$ agent-lint"
    write_tree(tmp_path / ".agent", {"memory/notes.md": "# notes\n"})
    assert main([str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert (err + out).splitlines() == shown
