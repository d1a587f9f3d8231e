"""Adoption: --write-baseline records today's findings, --baseline reports only new ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree
from records import decision

from agent_lint import baseline
from agent_lint.cli import main
from agent_lint.diagnostics import Diagnostic, Severity
from agent_lint.linter import lint_paths


def _drifted() -> dict[str, object]:
    return {
        "decisions/D-001.json": decision(status="bogus", decison="typo"),
        "decisions/D-002.json": decision(decision_id="D-002", superseded_by_decision_id="D-404"),
        "decisions/D-003.json": decision(decision_id="D-003", superseded_by_decision_id="D-404"),
        "missions/M-001/mission-plan.md": "Waits for D-009.\n",
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(tmp_path / "repo" / ".agent", _drifted())
    return tmp_path / "repo"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main([*args, "--no-color"])
    return code, capsys.readouterr().out


def test_baseline_hides_known_findings_and_reports_new_ones(repo, tmp_path, capsys):
    known = tmp_path / "agent-lint-baseline.json"
    assert main([str(repo), "--write-baseline", str(known)]) == 0
    document = json.loads(known.read_text(encoding="utf-8"))
    assert document["version"] == 1 and len(document["findings"]) == 5
    assert {entry["code"] for entry in document["findings"]} == {"AL102", "AL104", "AL301", "AL315"}

    code, out = _run([str(repo), "--baseline", str(known)], capsys)
    assert code == 0
    assert out == "All checks passed (4 files checked; 5 known findings hidden by the baseline).\n"

    write_tree(repo / ".agent", {"decisions/D-004.json": decision(decision_id="D-04")})
    code, out = _run([str(repo), "--baseline", str(known)], capsys)
    assert code == 1
    assert out.splitlines()[0].startswith(".agent/decisions/D-004.json:3:18: AL202")


def test_fingerprints_survive_line_moves_and_unrelated_edits(repo, tmp_path, capsys):
    known = tmp_path / "baseline.json"
    main([str(repo), "--write-baseline", str(known)])
    # Reformat every record (all lines move), add records and a note line before the mention.
    for path in (repo / ".agent" / "decisions").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps({"$note": None, **data}, indent=4).replace('"$note": null,', ""))
    write_tree(
        repo / ".agent",
        {
            "decisions/D-000.json": decision(decision_id="D-000"),
            "decisions/D-404.json": decision(decision_id="D-404"),
            "missions/M-001/mission-plan.md": "# Plan\n\nIntro.\n\nWaits for D-009.\n",
        },
    )
    code, out = _run([str(repo), "--baseline", str(known)], capsys)
    assert code == 0, out
    assert "2 baseline entries no longer found" in out  # D-404 now exists


def test_each_baseline_entry_hides_one_finding(repo, tmp_path, capsys):
    known = tmp_path / "baseline.json"
    main([str(repo), "--write-baseline", str(known)])
    write_tree(
        repo / ".agent",
        {"decisions/D-005.json": decision(decision_id="D-005", superseded_by_decision_id="D-404")},
    )
    code, out = _run([str(repo), "--baseline", str(known)], capsys)
    assert code == 1
    [finding] = [line for line in out.splitlines() if "AL301" in line]
    assert finding.startswith(".agent/decisions/D-005.json")


def test_fingerprint_ignores_positions_and_suggestions():
    first = Diagnostic(
        "AL101",
        "missing-required-field",
        Severity.ERROR,
        'missing required field "updated_at" in decisions[3]; did you mean "x"?',
        ".agent/decisions/index.json",
        pointer="/decisions/3",
        line=12,
        column=5,
    )
    moved = Diagnostic(
        "AL101",
        "missing-required-field",
        Severity.ERROR,
        'missing required field "updated_at" in decisions[4]; did you mean "y"?',
        ".agent/decisions/index.json",
        pointer="/decisions/4",
        line=40,
        column=7,
    )
    assert baseline.fingerprint(first) == baseline.fingerprint(moved)
    other = Diagnostic(**{**moved._asdict(), "message": 'missing required field "status"'})
    assert baseline.fingerprint(other) != baseline.fingerprint(first)


def test_grouped_findings_keep_their_fingerprint_when_the_count_changes(tmp_path):
    write_tree(tmp_path / ".agent", {"missions/M-001/mission-plan.md": "D-009 D-009\n"})
    write_tree(tmp_path / ".agent", {"decisions/D-001.json": decision()})
    [before] = lint_paths([tmp_path]).diagnostics
    write_tree(tmp_path / ".agent", {"missions/M-001/mission-plan.md": "D-009 D-009 D-009\n"})
    [after] = lint_paths([tmp_path]).diagnostics
    assert before.message != after.message
    assert baseline.fingerprint(before) == baseline.fingerprint(after)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "baseline not found"),
        ("{", "cannot read the baseline"),
        ('{"version": 7, "findings": []}', "not an agent-lint baseline"),
        ('{"version": 1, "findings": [{}]}', "needs a fingerprint"),
    ],
)
def test_bad_baseline_is_a_usage_error(repo, tmp_path, capsys, content, message):
    known = tmp_path / "baseline.json"
    if content is not None:
        known.write_text(content, encoding="utf-8")
    assert main([str(repo), "--baseline", str(known)]) == 2
    assert message in capsys.readouterr().err


def test_a_blocked_fix_keeps_the_findings_fingerprint(tmp_path):
    """The reason --fix cannot write a file is said, and is no part of the fingerprint."""
    from conversation import tree

    files = tree()
    files["conversations/C-1/handoffs/state.json"]["latest_turn"] = 99
    repo = write_tree(tmp_path / "repo" / ".agent", files).parent
    [plain] = [d for d in lint_paths([repo]).diagnostics if d.code == "AL503"]
    state = repo / ".agent/conversations/C-1/handoffs/state.json"
    real = repo / "state-copy.json"
    state.rename(real)
    state.symlink_to(real)
    [blocked] = [d for d in lint_paths([repo]).diagnostics if d.code == "AL503"]
    assert plain.fixable and not blocked.fixable and blocked.message != plain.message
    assert baseline.fingerprint(blocked) == baseline.fingerprint(plain)
