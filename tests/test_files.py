"""AL0xx: reading and parsing files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import codes
from records import decision


def test_invalid_json_reports_position(lint_tree):
    result = lint_tree({"decisions/D-001.json": '{\n  "decision_id": "D-001",\n}\n'})
    [d] = result.diagnostics
    assert (d.code, d.line, d.column) == ("AL001", 2, 25)  # at the comma to remove
    assert "trailing comma before '}'" in d.message


def test_nan_is_invalid_json(lint_tree):
    result = lint_tree({"decisions/D-001.json": '{"a": NaN}'})
    [d] = result.diagnostics
    assert (d.code, d.line, d.column) == ("AL001", 1, 7)
    assert "NaN" in d.message


def test_trailing_comma_in_array(lint_tree):
    result = lint_tree({"decisions/D-001.json": '{"options": [1, 2, ]}'})
    [d] = result.diagnostics
    assert d.code == "AL001" and "trailing comma before ']'" in d.message
    assert (d.line, d.column) == (1, 18)


def test_invalid_yaml(lint_tree):
    result = lint_tree({"conversations/C-1/turns/0001.yaml": "turn: 1\nrole: [user\n"})
    [d] = [d for d in result.diagnostics if d.code != "AL206"]
    assert d.code == "AL002"
    assert d.line == 3


def test_yaml_front_matter_error_is_offset(lint_tree):
    note = "---\ntitle: ok\nbad: [\n---\n# Note\n"
    result = lint_tree({"conversations/C-1/summary.md": note})
    [d] = result.diagnostics
    assert d.code == "AL002"
    assert d.line >= 3


def test_duplicate_key_json_points_at_second_key(lint_tree):
    text = '{\n  "status": "open",\n  "status": "approved"\n}\n'
    result = lint_tree({"decisions/D-001.json": text})
    [d] = result.diagnostics
    assert (d.code, d.line, d.column) == ("AL003", 3, 3)
    assert '"status"' in d.message


def test_duplicate_key_nested(lint_tree):
    text = '{"gate": {"action": "merge", "action": "release"}}'
    [d] = lint_tree({"decisions/D-001.json": text}).diagnostics
    assert d.code == "AL003" and d.pointer == "/gate/action" and "/gate" in d.message


def test_duplicate_key_yaml(lint_tree):
    result = lint_tree({"conversations/C-1/turns/0001.yaml": "turn: 1\nrole: user\nturn: 2\n"})
    [d] = [d for d in result.diagnostics if d.code != "AL206"]
    assert (d.code, d.line, d.column) == ("AL003", 3, 1)


def test_invalid_utf8(lint_tree):
    result = lint_tree({"decisions/D-001.json": b'{\n  "prompt": "caf\xe9"\n}'})
    [d] = result.diagnostics
    assert (d.code, d.line, d.column) == ("AL004", 2, 17)
    assert "0xe9" in d.message


def test_bom_is_a_warning_and_file_still_checked(lint_tree):
    import json

    raw = b"\xef\xbb\xbf" + json.dumps(decision(status="bogus")).encode()
    result = lint_tree({"decisions/D-001.json": raw})
    assert codes(result) == ["AL005", "AL104"]
    assert result.diagnostics[0].severity.value == "warning"


def test_empty_file(lint_tree):
    result = lint_tree({"decisions/D-001.json": "  \n"})
    assert codes(result) == ["AL006"]


def test_empty_markdown_note_is_fine(lint_tree):
    assert lint_tree({"conversations/C-1/summary.md": ""}).diagnostics == []


def test_unknown_json_under_record_folder_is_parsed(lint_tree):
    result = lint_tree({"missions/M-1/notes.json": "{oops}", "missions/M-1/mission-plan.md": ""})
    assert sorted(codes(result)) == ["AL001", "AL205"]


def test_files_outside_record_folders_are_ignored(lint_tree):
    result = lint_tree({"plans/draft.json": "{oops}", "skills/x.yaml": "[", "README.md": "x"})
    assert result.diagnostics == []
    assert result.files_checked == 0


def test_symlink_leaving_repository_is_not_followed(lint_tree, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "do-not-print"}')
    (tmp_path / "repo" / ".agent" / "decisions").mkdir(parents=True)
    os.symlink(secret, tmp_path / "repo" / ".agent" / "decisions" / "D-001.json")
    result = lint_tree({})
    [d] = result.diagnostics
    assert d.code == "AL007" and "outside the repository" in d.message
    assert "do-not-print" not in d.message and str(secret) not in d.message


def test_symlinked_folder_leaving_repository(lint_tree, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "D-001.json").write_text("{broken")
    (tmp_path / "repo" / ".agent").mkdir(parents=True)
    os.symlink(outside, tmp_path / "repo" / ".agent" / "decisions")
    assert codes(lint_tree({})) == ["AL007"]


def test_dangling_symlink(lint_tree, tmp_path):
    (tmp_path / "repo" / ".agent" / "decisions").mkdir(parents=True)
    os.symlink(tmp_path / "repo" / "missing", tmp_path / "repo" / ".agent/decisions/D-001.json")
    [d] = lint_tree({}).diagnostics
    assert d.code == "AL007" and "does not exist" in d.message


def test_link_outside_never_tells_whether_its_target_exists(lint_tree, tmp_path):
    (tmp_path / "repo" / ".agent" / "decisions").mkdir(parents=True)
    (tmp_path / "present.json").write_text("{}")
    os.symlink(tmp_path / "present.json", tmp_path / "repo" / ".agent/decisions/D-001.json")
    os.symlink(tmp_path / "absent.json", tmp_path / "repo" / ".agent/decisions/D-002.json")
    messages = {d.message for d in lint_tree({}).diagnostics}
    assert messages == {"symbolic link leads outside the repository; not followed"}


def test_symlink_inside_repository_is_read(lint_tree, tmp_path):
    import json

    target = tmp_path / "repo" / "shared" / "D-001.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(decision()))
    (tmp_path / "repo" / ".agent" / "decisions").mkdir(parents=True)
    os.symlink(target, tmp_path / "repo" / ".agent" / "decisions" / "D-001.json")
    result = lint_tree({})
    assert codes(result) == ["AL705"] and result.files_checked == 1
    assert "symbolic link to shared/D-001.json" in result.diagnostics[0].message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_reported_not_read(lint_tree, tmp_path):
    folder = tmp_path / "repo" / ".agent" / "decisions"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "D-001.json")
    assert codes(lint_tree({})) == ["AL008"]


def test_large_file_is_not_parsed(lint_tree):
    config = "[limits]\nmax-file-bytes = 10\n"
    result = lint_tree({"decisions/D-001.json": '{"decision_id": "D-001"}'}, config=config)
    assert codes(result) == ["AL009"]
    assert "`max-file-bytes`" in result.diagnostics[0].message


def test_deeply_nested_json_is_a_finding_not_a_crash(lint_tree):
    result = lint_tree({"decisions/D-001.json": "[" * 100000 + "]" * 100000})
    assert codes(result) == ["AL011"]


def test_git_folder_is_skipped(lint_tree, tmp_path: Path):
    result = lint_tree({"decisions/.git/D-001.json": "{broken"})
    assert result.diagnostics == []
