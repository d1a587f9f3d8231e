"""--fix, --unsafe-fixes and --diff: exact results, idempotence, safety."""

from __future__ import annotations

import difflib
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES
from conversation import tree

from agent_lint import fixer
from agent_lint.cli import main

CASES = {"stale-state": [], "unsafe-meta": ["--unsafe-fixes"]}


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def copy_of(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "repo"
    shutil.copytree(source, target, symlinks=True)
    return target


@pytest.mark.parametrize("case", sorted(CASES))
def test_fix_turns_before_into_after(case, tmp_path, capsys):
    repo = copy_of(FIXTURES / "fix" / case / "before", tmp_path)
    main([str(repo), "--fix", "--no-color", *CASES[case]])
    out = capsys.readouterr().out
    assert "\nFixed " in "\n" + out
    assert snapshot(repo) == snapshot(FIXTURES / "fix" / case / "after")


@pytest.mark.parametrize("case", sorted(CASES))
def test_second_fix_is_a_no_op(case, tmp_path, capsys):
    repo = copy_of(FIXTURES / "fix" / case / "after", tmp_path)
    before = snapshot(repo)
    main([str(repo), "--fix", *CASES[case]])
    assert "Fixed" not in capsys.readouterr().out
    assert snapshot(repo) == before


@pytest.mark.parametrize("case", sorted(CASES))
def test_diff_shows_exactly_what_fix_writes(case, tmp_path, capsys):
    before_root = FIXTURES / "fix" / case / "before"
    after_root = FIXTURES / "fix" / case / "after"
    repo = copy_of(before_root, tmp_path)
    untouched = snapshot(repo)
    assert main([str(repo), "--diff", *CASES[case]]) == 1
    shown = capsys.readouterr().out
    assert snapshot(repo) == untouched  # --diff writes nothing
    before, after = snapshot(before_root), snapshot(after_root)
    expected = []
    for path in sorted(after):
        if before.get(path) == after[path]:
            continue
        old = before[path].decode() if path in before else ""
        for line in difflib.unified_diff(
            old.splitlines(keepends=True),
            after[path].decode().splitlines(keepends=True),
            fromfile=f"a/{path}" if path in before else "/dev/null",
            tofile=f"b/{path}",
        ):
            expected.append(
                line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            )
    assert shown == "".join(expected)
    assert main([str(copy_of(after_root, tmp_path / "again")), "--diff", *CASES[case]]) == 0


def test_fix_never_rewrites_a_handoff_with_a_wrong_checksum(tmp_path, capsys):
    repo = copy_of(FIXTURES / "fix" / "stale-state" / "before", tmp_path)
    handoff = repo / ".agent/conversations/C-payments-refactor/handoffs/H-002.json"
    original = handoff.read_bytes()
    assert main([str(repo), "--fix", "--unsafe-fixes", "--no-color"]) == 1
    assert handoff.read_bytes() == original
    assert "AL501" in capsys.readouterr().out


FIXTURE_REPOS = sorted(
    p.name for p in FIXTURES.iterdir() if p.name == "valid" or p.name.startswith("broken-")
)


@pytest.mark.parametrize("name", FIXTURE_REPOS)
@pytest.mark.parametrize("unsafe", [False, True])
def test_fix_is_idempotent_on_every_fixture(name, unsafe, tmp_path, capsys):
    repo = copy_of(FIXTURES / name, tmp_path)
    flags = ["--fix", "--quiet", "--exit-zero"] + (["--unsafe-fixes"] if unsafe else [])
    main([str(repo), *flags])
    once = snapshot(repo)
    capsys.readouterr()
    main([str(repo), *flags])
    assert snapshot(repo) == once
    assert "Fixed" not in capsys.readouterr().out


def _crlf(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))


def test_a_current_state_json_in_a_crlf_checkout_is_left_alone(tmp_path, capsys):
    # core.autocrlf=true checks every text file out with CRLF: the state agrees, so the
    # fixing pre-commit hook must not rewrite it and fail the commit.
    repo = copy_of(FIXTURES / "valid", tmp_path)
    for state in repo.rglob("handoffs/state.json"):
        _crlf(state)
    before = snapshot(repo)
    assert main([str(repo), "--fix", "--exit-non-zero-on-fix"]) == 0
    assert "Fixed" not in capsys.readouterr().out
    assert snapshot(repo) == before


def test_a_stale_state_json_in_a_crlf_checkout_is_rewritten_with_crlf(tmp_path, capsys):
    repo = copy_of(FIXTURES / "fix" / "stale-state" / "before", tmp_path)
    expected = snapshot(FIXTURES / "fix" / "stale-state" / "after")
    states = sorted(repo.rglob("handoffs/state.json"))
    for state in states:  # the stale state, as a writer on Windows leaves it
        state.write_bytes(json.dumps(json.loads(state.read_bytes()), indent=2).encode())
        _crlf(state)
    main([str(repo), "--fix"])
    assert "Fixed" in capsys.readouterr().out
    for state in states:
        name = state.relative_to(repo).as_posix()
        assert state.read_bytes() == expected[name].replace(b"\n", b"\r\n")
    main([str(repo), "--fix"])
    assert "Fixed" not in capsys.readouterr().out


def test_a_state_json_formatted_by_another_writer_is_not_rewritten(lint_tree, tmp_path, capsys):
    lint_tree(tree())
    state = next((tmp_path / "repo").rglob("handoffs/state.json"))
    data = json.loads(state.read_text(encoding="utf-8"))
    state.write_text(json.dumps(dict(reversed(data.items())), indent=4), encoding="utf-8")
    before = state.read_bytes()
    assert main([str(tmp_path / "repo"), "--fix", "--exit-non-zero-on-fix"]) == 0
    assert "Fixed" not in capsys.readouterr().out
    assert state.read_bytes() == before


@pytest.mark.parametrize(
    ("content", "code"),
    [(b'{"conversation_id": "C-1",', "AL001"), (b"\n", "AL006"), (b"\xff\xfe", "AL004")],
)
def test_a_state_json_that_does_not_parse_is_fixable_as_fix_writes_it_anew(
    lint_tree, tmp_path, capsys, content, code
):
    lint_tree(tree())
    repo = tmp_path / "repo"
    state = repo / ".agent/conversations/C-1/handoffs/state.json"
    current = state.read_bytes()
    state.write_bytes(content)
    assert main([str(repo), "--no-cache", "--output-format", "json"]) == 1
    [finding] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert finding["code"] == code and finding["fixable"]
    assert main([str(repo), "--no-cache", "--fix"]) == 0
    assert state.read_bytes() == current


def test_a_record_that_does_not_parse_is_not_fixable(lint_tree, tmp_path, capsys):
    # Not derived: nothing writes it anew, and the state.json it feeds cannot be written.
    lint_tree(tree())
    repo = tmp_path / "repo"
    (repo / ".agent/conversations/C-1/handoffs/H-002.json").write_bytes(b"{")
    assert main([str(repo), "--no-cache", "--output-format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [(d["code"], d["fixable"]) for d in found if d["code"] == "AL001"] == [("AL001", False)]


def test_unsafe_fixes_bring_the_turn_counters_of_meta_json_to_the_latest_turn(
    lint_tree, tmp_path, capsys
):
    """One AL410 for both counters, fixed in place: nothing else of meta.json changes."""
    files = tree(turns=4)
    meta = files["conversations/C-1/meta.json"]
    meta["turn_count"], meta["state"]["latest_turn"] = 3, 5
    lint_tree(files)
    repo = tmp_path / "repo"
    path = repo / ".agent/conversations/C-1/meta.json"
    before = path.read_text(encoding="utf-8")
    assert main([str(repo), "--no-cache", "--fix"]) == 1  # a hint, without --unsafe-fixes
    assert path.read_text(encoding="utf-8") == before
    out = capsys.readouterr().out
    assert out.count("AL410") == 1 and "1 more with `agent-lint --fix --unsafe-fixes`" in out
    assert main([str(repo), "--no-cache", "--fix", "--unsafe-fixes"]) == 0
    assert "Fixed 1 file: .agent/conversations/C-1/meta.json" in capsys.readouterr().out
    after = path.read_text(encoding="utf-8")
    assert json.loads(after) == {
        **meta,
        "turn_count": 4,
        "state": {**meta["state"], "latest_turn": 4},
    }
    assert after == before.replace('"turn_count": 3', '"turn_count": 4').replace(
        '"latest_turn": 5', '"latest_turn": 4'
    )
    assert main([str(repo), "--no-cache", "--fix", "--unsafe-fixes"]) == 0
    assert "Fixed" not in capsys.readouterr().out


def test_fix_only_touches_derived_files(lint_tree, tmp_path):
    files = tree()
    files["conversations/C-1/handoffs/state.json"]["latest_turn"] = 1
    lint_tree(files)
    repo = tmp_path / "repo"
    before = snapshot(repo)
    main([str(repo), "--fix"])
    after = snapshot(repo)
    changed = {p for p in after if before.get(p) != after[p]}
    assert changed == {".agent/conversations/C-1/handoffs/state.json"}


def test_fix_does_not_write_through_a_symlink(lint_tree, tmp_path):
    files = tree()
    del files["conversations/C-1/handoffs/state.json"]
    lint_tree(files)
    repo = tmp_path / "repo"
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    os.symlink(outside, repo / ".agent/conversations/C-1/handoffs/state.json")
    main([str(repo), "--fix"])
    assert outside.read_text() == "{}"
    assert (repo / ".agent/conversations/C-1/handoffs/state.json").is_symlink()


def test_atomic_write_leaves_no_temporary_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "state.json"
    target.write_text("old")

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        fixer.write_atomically(target, b"new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_atomic_write_refuses_symlinks(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("x")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with pytest.raises(fixer.FixError):
        fixer.write_atomically(link, b"y")
    assert real.read_text() == "x"


def test_temporary_file_never_opens_a_name_that_exists(tmp_path, monkeypatch):
    """A planted file or link at the temporary name is left alone: another name is taken."""
    outside = tmp_path / "outside.json"
    outside.write_text("theirs")
    folder = tmp_path / "repo"
    folder.mkdir()
    names = iter([b"\x00" * 6, b"\x00" * 6, b"\x01" * 6])
    monkeypatch.setattr(os, "urandom", lambda size: next(names))
    planted = folder / ".state.json.000000000000.tmp"
    planted.symlink_to(outside)
    fd, temporary = fixer.create_temporary(folder, "state.json")
    os.close(fd)
    assert temporary == str(folder / ".state.json.010101010101.tmp")
    assert (os.stat(temporary).st_mode & 0o777) == 0o600
    assert planted.is_symlink() and outside.read_text() == "theirs"
    target = folder / "state.json"
    monkeypatch.setattr(os, "urandom", lambda size: b"\x00" * 6)  # every name taken
    with pytest.raises(FileExistsError):
        fixer.write_atomically(target, b"new")
    assert not target.exists() and outside.read_text() == "theirs"


def test_atomic_write_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    target = tmp_path / "state.json"
    target.write_text("old")
    target.chmod(0o640)
    fixer.write_atomically(target, b"new")
    assert target.read_bytes() == b"new"
    assert (target.stat().st_mode & 0o777) == 0o640
    fresh = tmp_path / "new.json"
    fixer.write_atomically(fresh, b"{}")
    assert (fresh.stat().st_mode & 0o777) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json", "state.json"]


def test_fixable_marks_in_json_and_sarif(capsys):
    import json

    repo = FIXTURES / "fix" / "unsafe-meta" / "before"
    main([str(repo), "--output-format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert {d["code"]: d["fixable"] for d in data["diagnostics"]} == {
        "AL406": False,
        "AL407": False,
        "AL504": False,
    }
    main([str(repo), "--output-format", "json", "--unsafe-fixes"])
    data = json.loads(capsys.readouterr().out)
    assert all(d["fixable"] for d in data["diagnostics"])
    main([str(repo), "--output-format", "sarif", "--unsafe-fixes"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert results and all(r["properties"]["fixable"] for r in results)
    main([str(repo), "--output-format", "github", "--unsafe-fixes"])
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.endswith("[fixable with agent-lint --fix]") for line in lines)


def _footer(capsys) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1]


def test_the_footer_promises_unsafe_fixes_only_where_a_write_is_planned(tmp_path, capsys):
    repo = copy_of(FIXTURES / "fix" / "unsafe-meta" / "before", tmp_path)
    main([str(repo), "--no-color"])
    assert _footer(capsys).endswith("; 4 more with `agent-lint --fix --unsafe-fixes`.")
    main([str(repo), "--no-color", "--unsafe-fixes"])
    assert _footer(capsys).endswith("; 4 fixable with `agent-lint --fix`.")
    # One meta.json as a link: --fix never writes through it, so its 3 findings get no
    # promise, with or without --unsafe-fixes; the other conversation's finding keeps it.
    meta = repo / ".agent/conversations/C-payments-refactor/meta.json"
    meta.rename(meta.with_name("meta.real"))
    meta.symlink_to("meta.real")
    main([str(repo), "--no-color"])
    out = capsys.readouterr().out
    assert out.count("(--fix cannot write .agent/conversations/C-payments-refactor/meta.json") == 3
    assert out.splitlines()[-1].endswith("; 1 more with `agent-lint --fix --unsafe-fixes`.")
    main([str(repo), "--no-color", "--unsafe-fixes"])
    out = capsys.readouterr().out
    assert out.count("(--fix cannot write .agent/conversations/C-payments-refactor/meta.json") == 3
    assert out.splitlines()[-1].endswith("; 1 fixable with `agent-lint --fix`.")


def _typo(record: dict) -> str:
    record["checksum"] = "sha256:0" + record["checksum"][8:]
    return record["checksum"]


def test_fix_never_copies_a_mistyped_checksum_into_the_mirrors(lint_tree, tmp_path, capsys):
    files = tree()
    handoff = files["conversations/C-1/handoffs/H-002.json"]
    computed = handoff["checksum"]
    _typo(handoff)
    files["conversations/C-1/handoffs/state.json"]["checksum"] = "sha256:" + "7" * 64
    files["conversations/C-1/meta.json"]["state"]["checksum"] = None
    lint_tree(files)
    repo = tmp_path / "repo"
    state = repo / ".agent/conversations/C-1/handoffs/state.json"
    meta = repo / ".agent/conversations/C-1/meta.json"
    assert main([str(repo), "--fix", "--unsafe-fixes"]) == 1  # AL501 stays: a handoff
    assert json.loads(state.read_text())["checksum"] == computed
    assert json.loads(meta.read_text())["state"]["checksum"] == computed
    out = capsys.readouterr().out
    assert "AL501" in out and "AL503" not in out and "AL504" not in out
    once = snapshot(repo)
    main([str(repo), "--fix", "--unsafe-fixes"])
    assert snapshot(repo) == once


def test_fix_leaves_mirrors_that_copied_a_mistyped_checksum(lint_tree, tmp_path, capsys):
    files = tree()
    typo = _typo(files["conversations/C-1/handoffs/H-002.json"])
    files["conversations/C-1/handoffs/state.json"]["checksum"] = typo
    lint_tree(files)
    repo = tmp_path / "repo"
    before = snapshot(repo)
    assert main([str(repo), "--fix", "--unsafe-fixes"]) == 1
    assert snapshot(repo) == before
    assert "Fixed" not in capsys.readouterr().out
