"""The example repositories: the valid one is clean, each broken one matches its golden file."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from agent_lint.cli import main

BROKEN = sorted(p.name for p in FIXTURES.iterdir() if p.name.startswith("broken-"))


def test_valid_fixture_is_clean(capsys):
    assert main([str(FIXTURES / "valid"), "--no-color"]) == 0
    assert capsys.readouterr().out.startswith("All checks passed")


def test_valid_fixture_uses_every_kind():
    from agent_lint.profiles import get as get_profile
    from agent_lint.profiles.cortex.kinds import KINDS

    classify = get_profile("cortex").classify

    agent = FIXTURES / "valid" / ".agent"
    seen = set()
    for path in agent.rglob("*"):
        match = classify(path.relative_to(agent).as_posix()) if path.is_file() else None
        if match:
            seen.add(match.kind.name)
    assert seen == {kind.name for kind in KINDS}


@pytest.mark.parametrize("name", BROKEN)
def test_broken_fixture_matches_golden(name, capsys, update_goldens, monkeypatch):
    fixture = FIXTURES / name
    monkeypatch.chdir(fixture)  # paths as shown from the fixture's own root
    golden = fixture / "expected.txt"
    code = main([str(fixture), "--no-color"])
    out = capsys.readouterr().out
    if update_goldens:
        golden.write_text(out, encoding="utf-8")
    assert code == 1
    assert out == golden.read_text(encoding="utf-8")


def test_each_check_family_has_a_broken_fixture():
    assert {"broken-files", "broken-schema", "broken-identity"} <= set(BROKEN)


def test_valid_fixture_exercises_every_reference_field():
    """Each declared id and path reference field holds a value somewhere in valid/."""
    from agent_lint.index import field_text, walk_field
    from agent_lint.profiles import get as get_profile
    from agent_lint.profiles.cortex.kinds import KINDS

    classify = get_profile("cortex").classify
    from agent_lint.loading import parse

    agent = FIXTURES / "valid" / ".agent"
    used: set[tuple[str, str]] = set()
    for path in agent.rglob("*"):
        match = classify(path.relative_to(agent).as_posix()) if path.is_file() else None
        if match is None:
            continue
        data = parse(path.name, match.kind.format, path.read_bytes()).data
        for steps in (*(ref.field for ref in match.kind.refs), *match.kind.paths):
            if any(isinstance(v, str) and v for _, v in walk_field(data, steps)):
                used.add((match.kind.name, field_text(steps)))
    declared = {
        (kind.name, field_text(steps))
        for kind in KINDS
        for steps in (*(ref.field for ref in kind.refs), *kind.paths)
    }
    assert declared - used == set()


def test_git_history_fixture_matches_golden(tmp_path, capsys, update_goldens):
    """The append-only gate on a change against a committed base (fixture git-history/)."""
    import shutil

    from gitrepo import git, make_repo

    fixture = FIXTURES / "git-history"
    repo = make_repo(tmp_path, "git-history/base")
    shutil.rmtree(repo / ".agent")
    shutil.copytree(fixture / "change" / ".agent", repo / ".agent")
    assert git(repo, "rev-parse", "--short", "HEAD")
    code = main([str(repo), "--base", "main", "--select", "AL6", "--no-color"])
    out = capsys.readouterr().out
    golden = fixture / "expected.txt"
    if update_goldens:
        golden.write_text(out, encoding="utf-8")
    assert code == 1
    assert out == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("options", "golden"), [([], "expected.txt"), (["--partial"], "expected-partial.txt")]
)
def test_real_world_fixture_matches_goldens(options, golden, capsys, update_goldens, monkeypatch):
    """A repository built from the patterns of a real one; docs/real-world.md defends each line."""
    fixture = FIXTURES / "real-world"
    monkeypatch.chdir(fixture)  # paths as shown from the fixture's own root
    code = main([str(fixture), "--no-color", *options])
    out = capsys.readouterr().out
    if update_goldens:
        (fixture / golden).write_text(out, encoding="utf-8")
    assert code == 1
    assert out == (fixture / golden).read_text(encoding="utf-8")


def test_real_world_fixture_reads_or_names_every_file(capsys):
    fixture = FIXTURES / "real-world"
    assert main([str(fixture), "--show-files"]) == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
    on_disk = {
        p.relative_to(fixture).as_posix() for p in (fixture / ".agent").rglob("*") if p.is_file()
    }
    assert listed == on_disk
