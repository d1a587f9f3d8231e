"""Odd and hostile input: no crash, ASCII where formats are ASCII, and --fix that never lies."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, REPO, codes, write_tree
from conversation import tree
from records import decision

from agent_lint import fixer, schemas
from agent_lint.cli import main
from agent_lint.config import ConfigError, load_config
from agent_lint.kinds import Format
from agent_lint.linter import lint_paths
from agent_lint.loading import parse
from agent_lint.profiles.cortex import checksum
from agent_lint.validators.files import diagnose


def findings(loaded: Any) -> list[Any]:
    """The findings of what reading a file met."""
    return [diagnose(problem) for problem in loaded.problems]


# --- YAML keys and types JSON does not have ------------------------------------------------


@pytest.mark.parametrize("name", ["relations.yaml", "turn_resumed.yaml"])
def test_yaml_keys_that_are_not_strings_are_fields_as_written(lint_tree, name):
    text = "7: a\n~: b\ntrue: c\n1.5: d\nnested: {2: x}\n"
    if name == "turn_resumed.yaml":  # a resume marker, not a file of another shape (AL109)
        text = "handoff_id: H-002\nagent_id: a\nresumed_at: 2026-11-03T09:00:00Z\n" + text
    found = lint_tree({**tree(), f"conversations/C-1/{name}": text}).diagnostics
    unknown = sorted(d.message.split('"')[1] for d in found if d.code == "AL102")
    assert unknown == ["1.5", "7", "nested", "true", "~"]


def test_yaml_key_written_twice_as_number_and_string_is_a_duplicate():
    loaded = parse("t.yaml", Format.YAML, b'7: a\n"7": b\n')
    [d] = findings(loaded)
    assert (d.code, d.line) == ("AL003", 2)


def test_yaml_key_that_is_a_collection_is_invalid():
    loaded = parse("t.yaml", Format.YAML, b"? [a, b]\n: c\n")
    [d] = findings(loaded)
    assert d.code == "AL002" and "must be a string" in d.message


def test_yaml_tags_that_would_run_code_are_invalid(tmp_path):
    marker = tmp_path / "ran"
    text = f'turn: !!python/object/apply:os.system ["touch {marker}"]\n'
    loaded = parse("t.yaml", Format.YAML, text.encode())
    [d] = findings(loaded)
    assert d.code == "AL002" and not marker.exists()


@pytest.mark.parametrize("text", ["a: !!python/name:os.system\n", "a: !!python/none ''\n"])
def test_a_scalar_tag_outside_the_core_schema_is_named(text):
    loaded = parse("t.yaml", Format.YAML, text.encode())
    [d] = findings(loaded)
    assert d.code == "AL002" and "could not determine a constructor for the tag" in d.message


@pytest.mark.parametrize("tag", ["!!binary aGk=", "!!set {a}", "!!omap [a: 1]", "!!pairs [a: 1]"])
def test_yaml_types_without_a_json_equivalent_are_invalid(tag):
    loaded = parse("t.yaml", Format.YAML, f"value: {tag}\n".encode())
    [d] = findings(loaded)
    assert d.code == "AL002" and "no JSON equivalent" in d.message


# --- ASCII where the format is ASCII -----------------------------------------------------


@pytest.mark.parametrize(
    "stamp",
    [
        "٢٠٢٦-11-02T10:00:00Z",
        "２０２６-11-02T10:00:00Z",
        "2026-11-02T10:00:00Z\n",
        "2026-11-02T1٠:00:00Z",
    ],
)
def test_date_time_is_ascii_and_whole(lint_tree, stamp):
    result = lint_tree({"decisions/D-001.json": decision(created_at=stamp)})
    assert codes(result) == ["AL106"]


@pytest.mark.parametrize("value", ["H-004\n", "H-٠٠٤", "H-００４"])
@pytest.mark.parametrize("fast", [True, False])
def test_schema_patterns_are_ascii_and_whole_in_both_engines(value, fast):
    validator = schemas.SchemaStore(fast=fast, folder="cortex").validator("resume-marker")
    assert validator is not None
    record = {"handoff_id": value, "agent_id": "a", "resumed_at": "2026-11-02T10:00:00Z"}
    issues = list(validator.issues(record))
    assert [issue.keyword for issue in issues] == ["pattern"]


def test_patterns_keep_ecma_262_meaning():
    assert schemas.pattern_search(r"^a[$]\$$", "a$$")
    assert not schemas.pattern_search(r"^a$", "a\n")
    assert not schemas.pattern_search(r"^\d$", "٤")
    assert not schemas.pattern_search(r"^\w$", "é")
    assert schemas.pattern_search(r"^\s$", "\u00a0")  # ECMA-262's \s takes no-break space
    assert not schemas.pattern_search(r"^.$", "\n")


def test_handoff_with_arabic_indic_digits_is_not_a_numbered_handoff(lint_tree, tmp_path):
    files = tree(handoffs=3)
    third = files.pop("conversations/C-1/handoffs/H-003.json")
    files.pop("conversations/C-1/handoffs/H-003.md")
    files["conversations/C-1/handoffs/H-٠٠٣.json"] = third
    files["conversations/C-1/handoffs/state.json"]["latest_handoff_id"] = "H-002"
    result = lint_tree(files)
    found = {(d.code, d.path.rsplit("/", 1)[-1]) for d in result.diagnostics}
    assert ("AL202", "H-٠٠٣.json") in found  # its name is not a handoff id
    assert not any(code == "AL401" for code, _ in found)  # no sequence gap: H-003 never existed
    messages = " ".join(d.message for d in result.diagnostics)
    assert "the latest handoff is H-٠٠٣" not in messages
    repo = tmp_path / "repo"
    main([str(repo), "--fix"])
    state = json.loads((repo / ".agent/conversations/C-1/handoffs/state.json").read_text())
    assert state["latest_handoff_id"] != "H-٠٠٣"


def test_turn_with_arabic_indic_digits_is_not_a_turn(lint_tree):
    files = tree(turns=3)
    files["conversations/C-1/turns/٠٠٠٤.yaml"] = "turn: 4\ntimestamp: 2026-11-04T09:00:00Z\n"
    result = lint_tree(files)
    assert [d.code for d in result.diagnostics] == ["AL204"]
    assert "such as 0001.yaml" in result.diagnostics[0].message


# --- special files and --fix --------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("args", [[], ["--fix"], ["--diff"], ["--fix", "--unsafe-fixes"]])
def test_fifo_state_json_is_reported_once_and_never_opened(tmp_path, capsys, args):
    files = tree()
    del files["conversations/C-1/handoffs/state.json"]
    repo = write_tree(tmp_path / "repo" / ".agent", files).parent
    os.mkfifo(repo / ".agent/conversations/C-1/handoffs/state.json")
    main([str(repo), "--output-format", "json", *args])
    out = capsys.readouterr().out
    if "--diff" in args:
        assert out == ""
        return
    found = [(d["code"], d["fixable"]) for d in json.loads(out)["diagnostics"]]
    assert found == [("AL008", False)]


def _state_conversation(tmp_path: Path) -> Path:
    files = tree()
    files["conversations/C-1/handoffs/state.json"]["latest_turn"] = 99
    return write_tree(tmp_path / "repo" / ".agent", files).parent


def _findings(repo: Path, capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    main([str(repo), "--output-format", "json", *args])
    out = capsys.readouterr().out
    return [d for d in json.loads(out)["diagnostics"] if d["code"] in ("AL502", "AL503")]


def test_state_json_that_is_a_folder_is_not_fixable(tmp_path, capsys):
    repo = _state_conversation(tmp_path)
    state = repo / ".agent/conversations/C-1/handoffs/state.json"
    state.unlink()
    state.mkdir()
    [d] = _findings(repo, capsys)
    assert d["code"] == "AL502" and not d["fixable"]
    assert "--fix cannot write" in d["message"] and "it is a folder" in d["message"]
    assert main([str(repo), "--fix"]) == 1
    assert state.is_dir()


def test_symlinked_state_json_is_not_fixable_before_or_after_fix(tmp_path, capsys):
    repo = _state_conversation(tmp_path)
    state = repo / ".agent/conversations/C-1/handoffs/state.json"
    real = repo / "state-copy.json"
    state.rename(real)
    state.symlink_to(real)
    for args in ([], ["--fix"]):
        [d] = _findings(repo, capsys, *args)
        assert d["code"] == "AL503" and not d["fixable"]
        assert "it is a symbolic link" in d["message"]
    assert state.is_symlink() and json.loads(real.read_text())["latest_turn"] == 99


def test_read_only_folder_is_not_fixable(tmp_path, capsys, monkeypatch):
    repo = _state_conversation(tmp_path)
    monkeypatch.setattr(os, "access", lambda *args, **kwargs: False)
    [d] = _findings(repo, capsys)
    assert not d["fixable"] and "its folder is not writable" in d["message"]


def _failing_write(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    def fail(fd: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", fail)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EFBIG, errno.EACCES])
def test_failed_write_is_one_line_per_file_and_keeps_the_old_bytes(
    tmp_path, capsys, monkeypatch, code
):
    repo = _state_conversation(tmp_path)
    handoffs = repo / ".agent/conversations/C-1/handoffs"
    before = (handoffs / "state.json").read_bytes()
    listing = sorted(p.name for p in handoffs.iterdir())
    _failing_write(monkeypatch, code)
    assert main([str(repo), "--fix"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "agent-lint: error: cannot write .agent/conversations/C-1/handoffs/state.json: "
        f"{os.strerror(code)}; the file is unchanged\n"
    )
    assert (handoffs / "state.json").read_bytes() == before
    assert sorted(p.name for p in handoffs.iterdir()) == listing  # no temporary file left


def test_read_only_folder_at_write_time(tmp_path, capsys, monkeypatch):
    repo = _state_conversation(tmp_path)

    def denied(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(fixer, "create_temporary", denied)
    assert main([str(repo), "--fix"]) == 2
    assert "Permission denied; the file is unchanged" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE")
def test_file_size_limit_of_the_process(tmp_path):
    repo = _state_conversation(tmp_path)
    state = repo / ".agent/conversations/C-1/handoffs/state.json"
    state.write_text("{}")  # a small file: the regenerated one is larger than the limit
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))\n"
        "from agent_lint.cli import main\n"
        f"sys.exit(main([{str(repo)!r}, '--fix', '--quiet']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert (
        "cannot write .agent/conversations/C-1/handoffs/state.json: File too large" in done.stderr
    )
    assert "internal error" not in done.stderr
    assert state.read_text() == "{}"
    assert sorted(p.name for p in state.parent.iterdir()) == [
        "H-001.json",
        "H-001.md",
        "H-002.json",
        "H-002.md",
        "state.json",
    ]


# --- --unsafe-fixes keeps the file's format ----------------------------------------------------


def _unsafe_meta(tmp_path: Path, transform: object) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "fix" / "unsafe-meta" / "before", repo)
    meta = next(repo.glob(".agent/conversations/*/meta.json"))
    after = FIXTURES / "fix" / "unsafe-meta" / "after" / meta.relative_to(repo)
    meta.write_bytes(transform(meta.read_bytes()))  # type: ignore[operator]
    return meta, after


def test_unsafe_fix_keeps_crlf_line_endings(tmp_path):
    meta, after = _unsafe_meta(tmp_path, lambda raw: raw.replace(b"\n", b"\r\n"))
    main([str(tmp_path / "repo"), "--fix", "--unsafe-fixes", "--quiet"])
    fixed = meta.read_bytes()
    assert fixed.count(b"\n") == fixed.count(b"\r\n")  # no bare LF
    assert fixed == after.read_bytes().replace(b"\n", b"\r\n")


def test_unsafe_fix_keeps_a_byte_order_mark_and_is_fixable(tmp_path, capsys):
    meta, after = _unsafe_meta(tmp_path, lambda raw: b"\xef\xbb\xbf" + raw)
    main([str(tmp_path / "repo"), "--output-format", "json", "--unsafe-fixes"])
    fixable = {d["code"]: d["fixable"] for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    assert fixable["AL504"] and fixable["AL406"]
    main([str(tmp_path / "repo"), "--fix", "--unsafe-fixes", "--quiet"])
    assert meta.read_bytes() == b"\xef\xbb\xbf" + after.read_bytes()


def test_diff_of_a_crlf_meta_json_is_escaped_text(tmp_path, capsys):
    """--diff quotes the file: its CRs and any command text stay visible and inert."""

    def hostile(raw: bytes) -> bytes:
        data = json.loads(raw)
        data["title"] = "##[error]forged \u202e"
        return json.dumps(data, indent=2, ensure_ascii=False).encode().replace(b"\n", b"\r\n")

    _unsafe_meta(tmp_path, hostile)
    assert main([str(tmp_path / "repo"), "--diff", "--unsafe-fixes"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("--- a/") and "\\r" in out
    assert "\r" not in out and "\u202e" not in out and "##[" not in out


def test_symlinked_meta_json_is_not_fixable(tmp_path, capsys):
    meta, _ = _unsafe_meta(tmp_path, lambda raw: raw)
    real = tmp_path / "repo" / "meta-copy.json"
    meta.rename(real)
    meta.symlink_to(real)
    main([str(tmp_path / "repo"), "--output-format", "json", "--unsafe-fixes"])
    data = json.loads(capsys.readouterr().out)["diagnostics"]
    mine = [d for d in data if d["path"].endswith(meta.relative_to(tmp_path / "repo").as_posix())]
    assert {d["code"] for d in mine} >= {"AL406", "AL504", "AL705"}
    assert not any(d["fixable"] for d in mine)
    assert all("it is a symbolic link" in d["message"] for d in mine if d["code"] != "AL705")


# --- other places a hostile repository reaches ----------------------------------------------


def test_checksum_of_a_deep_value_is_an_error_not_a_crash(tmp_path, capsys):
    handoff = tree()["conversations/C-1/handoffs/H-001.json"]
    handoff["context_pointer"]["latest_turn"] = json.loads("[" * 900 + "]" * 900)
    with pytest.raises(checksum.ChecksumError, match="nested deeper than 200 levels"):
        checksum.compute(handoff)
    path = tmp_path / "H-001.json"
    path.write_text(json.dumps(handoff))
    assert main(["--print-checksum", str(path)]) == 2
    assert "nested deeper" in capsys.readouterr().err


def test_config_file_leading_outside_the_repository_is_refused(tmp_path):
    outside = tmp_path / "outside.toml"
    outside.write_text('select = ["AL"]\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".agent-lint.toml").symlink_to(outside)
    with pytest.raises(ConfigError, match="leads outside the repository"):
        load_config(repo)


def test_config_with_a_huge_integer_is_a_config_error(tmp_path):
    (tmp_path / ".agent-lint.toml").write_text("[limits]\nmax-depth = " + "9" * 5000 + "\n")
    with pytest.raises(ConfigError):
        load_config(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_schema_dir_with_a_fifo_is_a_config_error_not_a_hang(tmp_path):
    folder = tmp_path / "schemas"
    folder.mkdir()
    os.mkfifo(folder / "decision.schema.json")
    with pytest.raises(schemas.SchemaConfigError, match="not a regular file"):
        schemas.SchemaStore([folder])


def test_lint_result_of_a_hostile_repository_has_positions_inside_its_files(lint_tree):
    files = {
        **tree(),
        "conversations/C-1/relations.yaml": "7: [a\n",
        "decisions/D-001.json": '{"a": 1, "a": [' + "[" * 70 + "]" * 70 + "]}",
        "conversations/C-1/summary.md": "# a" + " " * 500 + "b\n[x](nowhere.md)\n",
    }
    result = lint_tree(files)
    assert result.diagnostics
    for d in result.diagnostics:
        text = (Path(result.root) / d.path).read_text(encoding="utf-8", errors="replace")
        lines = text.split("\n")
        assert d.line is not None and 1 <= d.line <= len(lines), d
        assert d.column is not None and 1 <= d.column <= len(lines[d.line - 1]) + 1, d


def test_lint_paths_still_finds_the_agent_dir_from_inside_it(tmp_path):
    repo = write_tree(tmp_path / "repo" / ".agent", {"decisions/D-001.json": decision()}).parent
    result = lint_paths([repo / ".agent" / "decisions"])
    assert result.diagnostics == [] and result.files_checked == 1


def test_links_that_cannot_be_resolved_never_crash_fix_or_config(tmp_path, monkeypatch):
    real = os.path.realpath

    def denied(path: object, *args: object, **kwargs: object) -> str:
        if "locked" in str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os.path, "realpath", denied)
    problem = fixer.target_problem(tmp_path, "locked/state.json")
    assert problem is not None and problem.startswith("its folder cannot be resolved")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / ".agent-lint.toml").write_text("")
    with pytest.raises(ConfigError, match="leads outside the repository"):
        load_config(tmp_path / "locked")


def test_messages_quote_huge_values_cut_short(lint_tree, tmp_path):
    """Every message that shows a value from the repository shows at most a bounded part."""
    big = "x" * 100_000
    files = dict(tree())
    state = dict(files["conversations/C-1/handoffs/state.json"])
    state["latest_handoff_id"] = "H-" + big
    files["conversations/C-1/handoffs/state.json"] = state
    files["conversations/C-1/turns/0001.yaml"] = "turn: " + "9" * 5_000 + "\n"
    files["conversations/C-1/turn_resumed.yaml"] = f"handoff_id: H-{big}\n"
    files["conversations/C-1/summary.md"] = f"# S\n[a]({big}.md) and [b](summary.md#{big})\n"
    files.update(
        {
            "decisions/D-001.json": decision(decision_id="D-001" + big, **{big: 1}),
            "decisions/D-002.json": decision(
                decision_id="D-002",
                status="approved",
                options=["a", big],
                selected_option="b" + big,
                resolved_by=None,
                superseded_by_decision_id="D-" + "0" * 100_000,
            ),
            "decisions/D-003.json": '{"' + big + '": 1, "' + big + '": 2}',
            "decisions/index.json": {"decisions": [{"decision_id": "D-9" + big, "path": big}]},
            "missions/M-1/validation-contract.json": {"mission_id": "M-" + big},
            f"memory/{big[:200]}/MEM-1.json": {"memory_id": "MEM-1", "type": big},
        }
    )
    result = lint_tree(files, strict=True)
    long = [(d.code, len(d.message)) for d in result.diagnostics if len(d.message) > 1_000]
    assert len(result.diagnostics) > 10 and long == []
    for code in ("AL003", "AL102", "AL202", "AL301", "AL304", "AL309", "AL312", "AL314", "AL415"):
        assert code in codes(result), code


def test_configuration_errors_quote_huge_values_cut_short(tmp_path):
    (tmp_path / ".agent" / "decisions").mkdir(parents=True)
    (tmp_path / ".agent-lint.toml").write_text(f'select = ["{"AL" + "9" * 100_000}x"]\n')
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path)
    assert len(str(raised.value)) < 1_000


def test_huge_integer_in_state_json_is_a_finding_not_a_crash(lint_tree):
    files = dict(tree())
    state = dict(files["conversations/C-1/handoffs/state.json"])
    text = json.dumps({**state, "latest_turn": 0})
    files["conversations/C-1/handoffs/state.json"] = text.replace(
        '"latest_turn": 0', '"latest_turn": 1' + "0" * 5000
    )
    found = [d for d in lint_tree(files).diagnostics if d.code == "AL503"]
    [d] = found
    assert d.pointer == "/latest_turn" and "…" in d.message and len(d.message) < 1_000
