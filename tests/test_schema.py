"""AL1xx: schema violations, with messages that say what was expected."""

from __future__ import annotations

import json

import pytest
from conftest import codes
from records import conversation, decision, mission
from records import handoff as project_handoff


def test_valid_records_are_clean(lint_tree):
    result = lint_tree(
        {
            "decisions/D-001.json": decision(),
            "missions/M-001/mission.json": mission(),
            "conversations/C-1/meta.json": conversation(),
        }
    )
    assert result.diagnostics == []
    assert result.files_checked == 3


def test_missing_required_field(lint_tree):
    record = decision()
    del record["prompt"]
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL101"
    assert d.message == 'missing required field "prompt"'
    assert (d.line, d.column) == (1, 1)


def test_each_missing_field_is_reported_once(lint_tree):
    found = lint_tree({"decisions/D-001.json": {}}).diagnostics
    messages = [d.message for d in found]
    assert len(messages) == len(set(messages)) == 10
    assert {d.code for d in found} == {"AL101"}


def test_missing_nested_field_names_parent(lint_tree):
    record = decision(gate={"action": "merge"})
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.message == 'missing required field "resource_ref" in gate'
    assert d.pointer == "/gate"


def test_unknown_field_suggests_closest(lint_tree):
    record = decision(promtp="x")
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL102"
    assert 'unknown field "promtp"' in d.message and 'did you mean "prompt"' in d.message
    assert d.pointer == "/promtp"


def test_a_required_field_misspelled_is_its_unknown_field_alone(lint_tree):
    record = decision()
    record["promtp"] = record.pop("prompt")
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL102" and d.message.endswith('did you mean "prompt"?')
    # Nested, and only for the field it is close to: another missing field stands.
    record = decision(gate={"acton": "merge"})
    found = [(d.code, d.message) for d in lint_tree({"decisions/D-001.json": record}).diagnostics]
    assert found == [
        ("AL101", 'missing required field "resource_ref" in gate'),
        ("AL102", 'unknown field "acton" in gate; did you mean "action"?'),
    ]


def test_unknown_field_points_at_key(lint_tree):
    text = '{"schema_version": 1, "conversation_id": "C-1", "created_at": "2026-11-02T10:00:00Z",\n'
    text += ' "updated_at": "2026-11-02T10:00:00Z", "zzz": 1}'
    [d] = lint_tree({"conversations/C-1/meta.json": text}).diagnostics
    assert (d.code, d.line, d.column, d.end_column) == ("AL102", 2, 40, 45)


def test_unknown_field_lists_allowed_for_small_objects(lint_tree):
    record = decision(gate={"action": "merge", "resource_ref": "proposal:x", "why": "y"})
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert "allowed fields: action, resource_ref" in d.message


def test_wrong_type(lint_tree):
    record = conversation(turn_count="7")
    [d] = lint_tree({"conversations/C-1/meta.json": record}).diagnostics
    assert d.code == "AL103"
    assert d.message == '"turn_count" must be integer, got string "7"'


def test_enum_message(lint_tree):
    handoff = project_handoff("H-1", mode="AGENT")
    found = lint_tree({"handoffs/H-1.json": handoff}).diagnostics
    [d] = [d for d in found if d.code.startswith("AL1")]
    assert d.code == "AL104"
    assert d.message == '"mode" must be one of HUMAN_RESUME, AGENT_RESUME, got "AGENT"'


def test_const(lint_tree):
    [d] = lint_tree({"decisions/D-001.json": decision(schema_version=2)}).diagnostics
    assert (d.code, d.message) == ("AL104", '"schema_version" must be 1, got 2')


def test_pattern(lint_tree):
    record = conversation(decisions_refs=["decision-1"])
    [d] = lint_tree({"conversations/C-1/meta.json": record}).diagnostics
    assert d.code == "AL105"
    assert '"decisions_refs[0]"' in d.message and "^D-" in d.message
    assert d.pointer == "/decisions_refs/0"


def test_date_time_format(lint_tree):
    for bad in ("2026-11-02 10:00", "2026-11-02T10:00:00", "2026-02-30T10:00:00Z", "yesterday"):
        [d] = lint_tree({"decisions/D-001.json": decision(created_at=bad)}).diagnostics
        assert d.code == "AL106", bad
    for good in ("2026-11-02T10:00:00Z", "2026-11-02T10:00:00.123+08:00", "2026-11-02t10:00:00z"):
        assert lint_tree({"decisions/D-001.json": decision(created_at=good)}).diagnostics == []


def test_date_format(lint_tree):
    memory = {
        "schema_version": 1,
        "memory_id": "MEM-1",
        "type": "semantic",
        "content": "x",
        "expires_at": "2026-13-01",
        "created_at": "2026-11-02T10:00:00Z",
    }
    [d] = lint_tree({"memory/semantic/MEM-1.json": memory}).diagnostics
    assert d.code == "AL106" and "RFC 3339 date " in d.message


def test_out_of_range(lint_tree):
    [d] = lint_tree({"decisions/D-001.json": decision(options=["only"])}).diagnostics
    assert (d.code, d.message) == ("AL107", '"options" must have at least 2 item(s), got 1')
    [d] = lint_tree({"decisions/D-001.json": decision(options=["a", "a"])}).diagnostics
    assert d.code == "AL107" and '"a" appears twice' in d.message
    [d] = lint_tree({"decisions/D-001.json": decision(prompt="")}).diagnostics
    assert d.message == '"prompt" must not be empty'


def test_conditional_requirement_explains_condition(lint_tree):
    record = decision(status="approved")
    found = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert codes_set(found) == {"AL103"}
    assert all('when "status" is one of approved' in d.message for d in found)


def test_superseded_needs_successor(lint_tree):
    record = decision(status="superseded", resolved_by="me", resolved_at="2026-11-02T10:00:00Z")
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL101" and "superseded_by_decision_id" in d.message
    assert 'when "status" is "superseded"' in d.message


def test_non_object_record(lint_tree):
    [d] = lint_tree({"decisions/D-001.json": [1, 2]}).diagnostics
    assert (d.code, d.message) == ("AL103", "the record must be object, got array [1, 2]")


def test_union_of_generations_accepts_runtime_fields(lint_tree):
    relations = {
        key: []
        for key in (
            "task_ids",
            "mission_ids",
            "run_ids",
            "queue_ids",
            "session_ids",
            "artifact_refs",
            "worktree_paths",
        )
    }
    record = decision(relations=relations, type="lifestyle")
    assert lint_tree({"decisions/D-001.json": record}).diagnostics == []


def test_yaml_schema_positions(lint_tree):
    text = "handoff_id: H-001\nagent_id: a\nresumed_at: soon\n"
    found = lint_tree({"conversations/C-1/turn_resumed.yaml": text}).diagnostics
    [d] = [d for d in found if d.code.startswith("AL1")]
    assert (d.code, d.line, d.column) == ("AL106", 3, 13)


def test_other_keyword_falls_back_to_schema_violation(lint_tree, tmp_path):
    schema_dir = tmp_path / "repo" / "schemas"
    schema_dir.mkdir(parents=True)
    (schema_dir / "decision.schema.json").write_text(
        '{"$schema": "https://json-schema.org/draft/2020-12/schema",'
        ' "allOf": [{"$ref": "urn:agent-lint:decision"}],'
        ' "not": {"required": ["task_id"]}}'
    )
    result = lint_tree(
        {"decisions/D-001.json": decision(task_id="T-1")},
        config='schema-dirs = ["schemas"]\n',
    )
    assert codes(result) == ["AL108"]


@pytest.mark.parametrize(
    ("value", "multiple"),
    [
        ("7" * 4000, False),
        ("3" * 4000, True),
        ("3" * 100_000, False),  # past 4300 digits: too long to divide (quadratic), a finding
        ("1e400", False),
        ("1.5", True),
        ("1.25", False),
    ],
)
def test_multiple_of_judges_numbers_of_any_size(lint_tree, tmp_path, value, multiple):
    """An integer of thousands of digits, or a number past a float's range, is a finding
    or none, never an internal error (jsonschema's own keyword cannot divide them)."""
    schema_dir = tmp_path / "repo" / "schemas"
    schema_dir.mkdir(parents=True)
    divisor = "0.5" if "." in value or "e" in value else "3"
    (schema_dir / "decision.schema.json").write_text(
        '{"$schema": "https://json-schema.org/draft/2020-12/schema",'
        ' "allOf": [{"$ref": "urn:agent-lint:decision"}],'
        f' "properties": {{"weight": {{"multipleOf": {divisor}}}}}}}'
    )
    text = json.dumps(decision(weight=0), indent=2).replace('"weight": 0', f'"weight": {value}')
    result = lint_tree({"decisions/D-001.json": text}, config='schema-dirs = ["schemas"]\n')
    # "weight" is a field the decision schema does not know (AL102): the one beside the point.
    assert [c for c in codes(result) if c != "AL102"] == ([] if multiple else ["AL108"])


def codes_set(found):
    return {d.code for d in found}


def test_the_fields_one_condition_requires_left_null_are_one_finding(lint_tree):
    """A decision set to approved with the runtime's null placeholders left in: one finding
    naming each field the status requires, not one per field."""
    record = decision(status="approved", selected_option=None, resolved_by=None, resolved_at=None)
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert (d.code, d.pointer) == ("AL103", "/selected_option")
    assert d.message == (
        '"selected_option" must be string when "status" is one of approved, rejected, '
        'revision_requested, got null; "resolved_by" must be string, got null; '
        '"resolved_at" must be string, got null'
    )
