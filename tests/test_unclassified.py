"""Every file in a record folder is read as a kind or reported (AL205, AL206, --show-files)."""

from __future__ import annotations

import pytest
from conftest import codes
from records import decision

from agent_lint.cli import main

ANCHOR = {"decisions/D-000.json": decision(decision_id="D-000")}


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("decisions/d-foo.json", decision(decision_id="D-foo"), ".agent/decisions/D-foo.json"),
        ("decisions/D-foo.JSON", decision(decision_id="D-foo"), ".agent/decisions/D-foo.json"),
        ("memory/episodic/mem-x.json", {}, ".agent/memory/episodic/MEM-x.json"),
        ("handoffs/h-004.json", {}, ".agent/handoffs/H-004.json"),
        (
            "conversations/C-1/turns/0013.json",
            {"turn": 13},
            ".agent/conversations/C-1/turns/0013.yaml",
        ),
        ("decisions/sub/D-001.json", decision(), ".agent/decisions/D-001.json"),
        ("decisions/storage.json", decision(decision_id="D-007"), ".agent/decisions/D-007.json"),
        (
            "memory/MEM-004.json",
            {"memory_id": "MEM-004", "type": "semantic"},
            ".agent/memory/semantic/MEM-004.json",
        ),
    ],
)
def test_misnamed_record_says_what_it_should_be_called(lint_tree, name, content, expected):
    result = lint_tree({**ANCHOR, name: content, "conversations/C-1/meta.json": _meta()})
    [d] = [d for d in result.diagnostics if d.code == "AL205"]
    assert d.path == f".agent/{name}" and (d.line, d.column) == (1, 1)
    assert d.message.endswith(f"rename it to {expected}")
    assert "matches no record kind, so it is not checked; it looks like a" in d.message


def test_a_rename_onto_an_existing_record_is_said_as_the_clash_it_is(lint_tree):
    files = {**ANCHOR, "decisions/sub/D-000.json": decision(decision_id="D-000")}
    [d] = [d for d in lint_tree(files).diagnostics if d.code == "AL205"]
    assert "rename it to" not in d.message
    assert d.message.endswith(
        "its name would be .agent/decisions/D-000.json, which exists already: merge the two "
        "records, or give this one an id of its own"
    )


def _meta() -> dict[str, object]:
    return {
        "schema_version": 1,
        "conversation_id": "C-1",
        "created_at": "2026-11-02T10:00:00Z",
        "updated_at": "2026-11-02T10:00:00Z",
    }


def test_unrecognisable_data_file_names_the_folder_layout(lint_tree):
    [d] = lint_tree({**ANCHOR, "decisions/notes.yaml": "a: 1\n"}).diagnostics
    assert d.code == "AL205"
    assert d.message == (
        "notes.yaml matches no record kind, so it is not checked; .agent/decisions/ holds "
        ".agent/decisions/D-<id>.json, .agent/decisions/index.json"
    )


def test_files_outside_record_folders_and_notes_are_not_findings(lint_tree):
    files = {
        **ANCHOR,
        "plans/p.json": {"x": 1},
        "references/r.md": "# r\n",
        "skills/s/SKILL.md": "# s\n",
        "decisions/README.md": "# decisions\n",
        "memory/.gitkeep": "",
    }
    result = lint_tree(files)
    assert result.diagnostics == []
    shown = dict(result.files)
    assert shown[".agent/plans/p.json"] == "not read: outside the record folders"
    assert (
        shown[".agent/decisions/README.md"] == "not read: a Markdown file that is not a note kind"
    )
    assert shown[".agent/memory/.gitkeep"] == "not read: not a record or note file"
    assert shown[".agent/decisions/D-000.json"] == "decision"


def test_conversation_without_meta(lint_tree):
    files = {**ANCHOR, "conversations/C-7/handoffs/H-001.json": {"handoff_id": "H-001"}}
    found = [d for d in lint_tree(files).diagnostics if d.code == "AL206"]
    [d] = found
    assert d.path == ".agent/conversations/C-7/handoffs/H-001.json"
    assert "expected .agent/conversations/C-7/meta.json" in d.message
    files["conversations/C-7/meta.json"] = {**_meta(), "conversation_id": "C-7"}
    assert "AL206" not in codes(lint_tree(files))


def test_show_files_lists_every_file(tmp_path, capsys):
    from conftest import write_tree

    write_tree(
        tmp_path / ".agent",
        {**ANCHOR, "decisions/d-x.json": "{}", "tasks/task.schema.json": "{}", "plans/a.md": ""},
    )
    assert main([str(tmp_path), "--show-files"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [
        ".agent/decisions/D-000.json",
        ".agent/decisions/d-x.json",
        ".agent/plans/a.md",
        ".agent/tasks/task.schema.json",
    ]
    assert lines[1].endswith("unclassified: a data file that matches no kind")
    assert lines[3].endswith("not a record: a JSON Schema")


def test_show_files_lists_a_file_with_a_name_finding_once_as_what_was_read(tmp_path, capsys):
    """A name Windows refuses is a finding (AL704) about a file read all the same: listed
    once, as read, not also as "not read"."""
    from conftest import write_tree

    write_tree(
        tmp_path / ".agent", {**ANCHOR, "decisions/D-a:b.json": decision(decision_id="D-a:b")}
    )
    main([str(tmp_path), "--no-cache", "--show-files"])
    lines = [line for line in capsys.readouterr().out.splitlines() if "D-a:b" in line]
    assert len(lines) == 1 and "not read" not in lines[0], lines


def test_a_store_of_misnamed_records_only_is_reported_not_taken_for_another_design(lint_tree):
    """Files that look like Cortex records (named for one, or holding one's id) show Cortex
    state: each is its AL205, never "no agent state found; nothing checked"."""
    result = lint_tree(
        {
            "decisions/d-001.json": decision(),
            "memory/MEM-004.json": {"memory_id": "MEM-004", "type": "semantic"},
        }
    )
    assert [(d.code, d.path) for d in result.diagnostics] == [
        ("AL205", ".agent/decisions/d-001.json"),
        ("AL205", ".agent/memory/MEM-004.json"),
    ]
    assert not result.notices
