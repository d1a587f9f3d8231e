"""Readable output at scale: --statistics, grouped findings, paths relative to here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, write_tree
from records import decision

from agent_lint.cli import main


@pytest.fixture
def noisy(tmp_path: Path) -> Path:
    record = decision(a=1, b=2, c=3, d=4, status="bogus")
    write_tree(tmp_path / ".agent", {"decisions/D-001.json": record})
    return tmp_path


#: The fields a decision may hold, as AL102 names them (the schema is inside the package).
DECISION_FIELDS = (
    "schema_version, decision_id, type, status, requested_by, prompt, options, "
    "selected_option, resolved_by, resolved_at, rationale, gate, task_id, mission_id, "
    "relations, superseded_by_decision_id, created_at, updated_at, workflow_gate"
)


def test_statistics_like_ruff(noisy, capsys):
    assert main([str(noisy), "--statistics"]) == 1
    assert capsys.readouterr().out == "4\tAL102\t[ ] unknown-field\n1\tAL104\t[ ] invalid-value\n"
    assert main([str(noisy), "--statistics", "--output-format", "json"]) == 1
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == {"code": "AL102", "name": "unknown-field", "count": 4, "fixable": False}
    assert main([str(FIXTURES / "broken-agreement"), "--statistics"]) == 1
    assert "1\tAL502\t[*] missing-handoff-state\n" in capsys.readouterr().out
    assert main([str(FIXTURES / "valid"), "--statistics"]) == 0
    assert capsys.readouterr().out.startswith("All checks passed")


def test_many_findings_of_one_code_in_a_file_are_grouped(noisy, capsys):
    assert main([str(noisy), "--no-color"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        '.agent/decisions/D-001.json:5:13: AL104 "status" must be one of open, approved, '
        'rejected, revision_requested, canceled, superseded, got "bogus"',
        ".agent/decisions/D-001.json: AL102 unknown-field (4 findings)",
        *(
            f'  {line}:3: unknown field "{key}"; allowed fields: {DECISION_FIELDS}'
            for line, key in ((21, "a"), (22, "b"), (23, "c"), (24, "d"))
        ),
        "Found 5 errors in 1 file checked.",
    ]


def test_paths_are_relative_to_the_current_directory_inside_the_repository(
    noisy, capsys, monkeypatch
):
    monkeypatch.chdir(noisy / ".agent" / "decisions")
    main(["--no-color", "--select", "AL104"])
    assert capsys.readouterr().out.startswith("D-001.json:5:13: AL104")
    main([str(noisy), "--no-color", "--select", "AL104", "--output-format", "json"])
    assert json.loads(capsys.readouterr().out)["diagnostics"][0]["path"] == (
        ".agent/decisions/D-001.json"
    )


def test_paths_are_relative_to_the_current_directory_above_the_repository(
    noisy, capsys, monkeypatch
):
    """``agent-lint services/pay`` run at the top: paths that open from where it ran."""
    monkeypatch.chdir(noisy.parent)
    main([noisy.name, "--no-color", "--select", "AL104"])
    assert capsys.readouterr().out.startswith(f"{noisy.name}/.agent/decisions/D-001.json:5:13:")


def test_quiet_prints_findings_only(noisy, capsys):
    assert main([str(noisy), "--no-color", "-q", "--select", "AL104"]) == 1
    assert capsys.readouterr().out.count("\n") == 1
    assert main([str(FIXTURES / "valid"), "-q"]) == 0
    assert capsys.readouterr().out == ""


def test_no_message_renders_a_python_repr(capsys):
    for fixture in sorted(FIXTURES.glob("broken-*")):
        main([str(fixture), "--output-format", "json"])
        for finding in json.loads(capsys.readouterr().out)["diagnostics"]:
            assert "{'" not in finding["message"] and "None" not in finding["message"], finding
