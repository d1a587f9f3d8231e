"""Partial snapshots: absent records are summed up; wrong paths and present records are not."""

from __future__ import annotations

from conftest import codes
from records import decision, waitpoint

from agent_lint.diagnostics import Severity


def _tree() -> dict[str, object]:
    return {
        "decisions/D-001.json": decision(status="bogus"),
        "waitpoints/WP-001.json": waitpoint(decision_id="D-020"),
        "waitpoints/WP-002.json": waitpoint(waitpoint_id="WP-002", decision_id="D-021"),
        "waitpoints/WP-003.json": waitpoint(
            waitpoint_id="WP-003",
            evidence_refs=[".agent/decisions/WP-001.json", ".agent/decisions/D-030.json"],
        ),
        "decisions/index.json": {
            "decisions": [
                {
                    "decision_id": f"D-0{n}",
                    "path": f".agent/decisions/D-0{n}.json",
                    "type": "architecture",
                    "status": "open",
                    "gate_action": "architecture",
                    "resource_ref": "proposal:docs/design.md",
                    "updated_at": "2026-11-02T10:00:00Z",
                }
                for n in (40, 41, 42)
            ]
        },
        "missions/M-001/mission-plan.md": (
            "Follows M-002 and M-002 again. [old plan](../M-002/mission-plan.md)\n"
        ),
    }


def test_complete_repository_reports_each_absent_record(lint_tree):
    result = lint_tree(_tree())
    assert sorted(codes(result)) == [
        "AL104",
        "AL301",
        "AL301",
        "AL302",
        "AL302",
        "AL304",
        "AL304",
        "AL304",
        "AL306",
        "AL314",
        "AL315",
    ]


def test_partial_snapshot_sums_up_absent_records_per_folder(lint_tree):
    result = lint_tree(_tree(), config='completeness = "partial"\n')
    found = {(d.code, d.severity): d for d in result.diagnostics}
    assert sorted((d.code, d.severity.value) for d in result.diagnostics) == [
        ("AL104", "error"),  # present records are checked in full
        ("AL301", "info"),
        ("AL302", "error"),  # a file of that name exists in another folder
        ("AL302", "info"),
        ("AL304", "info"),
        ("AL306", "error"),
        ("AL314", "warning"),  # people reading the repository follow links
        ("AL315", "info"),
    ]
    dangling = found[("AL301", Severity.INFO)]
    assert dangling.message.startswith(
        "partial snapshot: 2 references to 2 names absent from .agent/decisions/ (D-020, D-021)"
    )
    assert dangling.path == ".agent/waitpoints/WP-001.json"
    entries = found[("AL304", Severity.INFO)]
    assert "3 references to 3 names absent from .agent/decisions/" in entries.message
    wrong = found[("AL302", Severity.ERROR)]
    assert wrong.message.endswith('did you mean ".agent/waitpoints/WP-001.json"?')
    note = found[("AL315", Severity.INFO)]
    assert "2 references to 1 name absent from .agent/missions/ (M-002)" in note.message
    assert result.errors == 3


def test_partial_flag_equals_the_configuration(lint_tree):
    by_flag = lint_tree(_tree(), partial=True)
    by_config = lint_tree(_tree(), config='completeness = "partial"\n')
    assert [(d.code, d.severity, d.message) for d in by_flag.diagnostics] == [
        (d.code, d.severity, d.message) for d in by_config.diagnostics
    ]


def test_info_findings_never_fail_the_run(tmp_path, capsys):
    from conftest import write_tree

    from agent_lint.cli import main

    write_tree(tmp_path / ".agent", {"waitpoints/WP-001.json": waitpoint(decision_id="D-9")})
    write_tree(tmp_path / ".agent", {"decisions/D-001.json": decision()})
    assert main([str(tmp_path), "--partial", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "AL301 [info] partial snapshot: 1 reference to 1 name" in out
    assert out.endswith("All checks passed (2 files checked; 1 info).\n")
    assert main([str(tmp_path), "--no-color"]) == 1


def test_json_output_counts_info_findings(tmp_path, capsys):
    import json

    from conftest import write_tree

    from agent_lint.cli import main

    write_tree(tmp_path / ".agent", {"waitpoints/WP-001.json": waitpoint(decision_id="D-9")})
    write_tree(tmp_path / ".agent", {"decisions/D-001.json": decision()})
    assert main([str(tmp_path), "--partial", "--output-format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["summary"] == {"errors": 0, "warnings": 0, "infos": 1}
    assert document["diagnostics"][0]["severity"] == "info"
    assert main([str(tmp_path), "--partial", "--output-format", "sarif"]) == 0
    [result] = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["level"] == "note"
