"""The README's adoption steps and partial-snapshot example work as written."""

from __future__ import annotations

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


def _block(section: str, language: str) -> str:
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert match, f"no {language} block"
    return match.group(1)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_adoption_section_works_when_copied(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "real-world", repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    commands = [
        shlex.split(line.split("#", 1)[0])
        for line in _block(_section("## Adopting agent-lint on an existing repository"), "sh")
        .strip()
        .splitlines()
    ]
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
