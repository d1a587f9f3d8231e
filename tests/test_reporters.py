"""Output formats: the JSON contract, GitHub workflow commands, SARIF 2.1.0."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import CACHE, FIXTURES, provisioned

from agent_lint.cli import main
from agent_lint.diagnostics import Diagnostic, Severity
from agent_lint.linter import LintResult
from agent_lint.reporters import github, sarif

BROKEN = FIXTURES / "broken-schema"
SARIF_SCHEMA_ENV = "AGENT_LINT_SARIF_SCHEMA"


def run_json(capsys, *args: str) -> dict:
    main([*args, "--output-format", "json"])
    return json.loads(capsys.readouterr().out)


def test_json_contract(capsys):
    data = run_json(capsys, str(BROKEN))
    assert list(data) == ["version", "root", "files_checked", "diagnostics", "summary"]
    assert data["version"] == 1
    assert data["root"] == str(BROKEN.resolve())
    assert data["files_checked"] == 64
    assert data["summary"] == {"errors": 9, "warnings": 0}
    first = data["diagnostics"][0]
    assert list(first) == [
        "code",
        "name",
        "severity",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "message",
        "pointer",
        "fixable",
    ]
    assert first == {
        "code": "AL104",
        "name": "invalid-value",
        "severity": "error",
        "path": ".agent/conversations/C-payments-refactor/handoffs/H-002.json",
        "line": 17,
        "column": 13,
        "end_line": 17,
        "end_column": 20,
        "message": '"reason" must be one of user_switched_tool, task_complete, timeout, '
        'explicit, session_archive, got "AGENT"',
        "pointer": "/reason",
        "fixable": False,
    }
    keys = [(d["path"], d["line"], d["column"], d["code"]) for d in data["diagnostics"]]
    assert keys == sorted(keys)


def _result(*diagnostics: Diagnostic) -> LintResult:
    return LintResult(root=Path("/repo"), files_checked=1, diagnostics=list(diagnostics))


def _diag(**kw: object) -> Diagnostic:
    base = dict(
        code="AL101",
        name="missing-required-field",
        severity=Severity.ERROR,
        message="m",
        path="a.json",
        line=2,
        column=3,
        end_line=2,
        end_column=9,
    )
    base.update(kw)
    return Diagnostic(**base)  # type: ignore[arg-type]


def test_github_escaping_and_columns():
    out = github.render(
        _result(
            _diag(path="dir,x/a:b.json", message="100% broken\nnext line"),
            _diag(code="AL005", name="byte-order-mark", severity=Severity.WARNING, end_line=4),
        )
    )
    first, second = out.splitlines()
    assert first == (
        "::error file=dir%2Cx/a%3Ab.json,line=2,endLine=2,col=3,endColumn=9,title=AL101"
        "::100%25 broken\\nnext line (missing-required-field)"
    )
    # Spans over several lines carry no columns, as GitHub requires.
    assert second.startswith("::warning file=a.json,line=2,endLine=4,title=AL005::")
    assert "col=" not in second


def test_sarif_structure(capsys):
    main([str(BROKEN), "--output-format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert len({r["id"] for r in rules}) == len(rules)
    assert all(r["help"]["text"] for r in rules)
    result = run["results"][0]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].startswith(".agent/")
    assert location["region"]["startLine"] >= 1


def test_sarif_fingerprints_are_stable_across_line_moves():
    a = _diag(line=2)
    b = _diag(line=40, end_line=40)
    assert sarif.fingerprint(a) == sarif.fingerprint(b)
    assert sarif.fingerprint(a) != sarif.fingerprint(_diag(message="other"))


def _sarif_schema() -> dict:
    path = provisioned(SARIF_SCHEMA_ENV, CACHE / "sarif-schema-2.1.0.json")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("fixture", ["valid", "broken-schema", "broken-files", "broken-identity"])
def test_sarif_validates_against_the_sarif_schema(capsys, fixture):
    schema = _sarif_schema()
    main([str(FIXTURES / fixture), "--output-format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    validator_class = jsonschema.validators.validator_for(schema)
    errors = list(validator_class(schema).iter_errors(log))
    assert errors == [], [e.message for e in errors[:5]]


def test_github_annotations_are_capped_most_severe_first():
    errors = [_diag(path=f"e{i:02d}.json") for i in range(12)]
    warnings = [
        _diag(code="AL005", name="byte-order-mark", severity=Severity.WARNING, path=f"w{i}.json")
        for i in range(3)
    ]
    result = _result(*warnings, *errors)
    lines = github.render(result).splitlines()
    assert len(lines) == 10 + 3 + 1
    assert all(line.startswith("::error ") for line in lines[:10])
    assert all(line.startswith("::warning ") for line in lines[10:13])
    assert lines[-1].startswith("::notice title=agent-lint::2 more findings not annotated")


def test_github_annotations_show_the_gate_whatever_the_change_adds_before_it():
    """Ten errors the change adds in files sorting first do not push the gate's AL601 or
    an AL707 off the diff: those the change cannot waive are annotated first."""
    junk = [_diag(path=f".agent/agents/a{i:02d}.json") for i in range(12)]
    gate = _diag(code="AL601", name="handoff-modified", path=".agent/z/H-001.json")
    link = _diag(code="AL707", name="linked-folder-in-agent-dir", path=".agent/zz")
    lines = github.render(_result(*junk, gate, link)).splitlines()
    titles = [line.split("title=")[1].split("::")[0] for line in lines if "title=AL" in line]
    assert titles[:2] == ["AL601", "AL707"] and len(titles) == 10
    assert lines[-1].startswith("::notice title=agent-lint::4 more findings not annotated")


def test_summary_lists_everything_within_the_size_limit(monkeypatch):
    from agent_lint.reporters import summary

    many = [_diag(path=f"f{i:04d}.json", message="x" * 200) for i in range(50)]
    text = summary.render(_result(*many), annotated=20)
    assert "30 of 50 findings are not annotated" in text
    assert text.count("| `f0") == 50 * 2  # once in the table by file, once in the list
    monkeypatch.setattr(summary, "LIMIT_BYTES", 8000)
    cut = summary.render(_result(*many), annotated=20)
    assert len(cut.encode()) < 8000
    assert "more findings are not listed: the summary is limited to 1 MiB" in cut


def test_summary_keeps_to_the_limit_with_a_long_table_and_puts_the_gate_first(monkeypatch):
    """A change with thousands of findings in thousands of files: the table by file is cut
    too, and the gate's finding leads the table and the list."""
    from agent_lint.reporters import summary

    many = [_diag(path=f"records/f{i:05d}-{'x' * 60}.json") for i in range(3000)]
    gate = _diag(code="AL601", name="handoff-modified", path="zz/H-001.json")
    monkeypatch.setattr(summary, "LIMIT_BYTES", 64_000)
    text = summary.render(_result(*many, gate))
    assert len(text.encode()) < 64_000
    assert "more rows of this table are not shown" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[1].startswith("| AL601 |")  # after the header row
    listed = [line for line in text.split("Every finding", 1)[1].splitlines() if "| " in line]
    assert "AL601 error" in listed[1]  # after the header row


def test_summary_escapes_repository_text():
    from agent_lint.reporters import summary

    text = summary.render(_result(_diag(message="a | b <script>", path="x|y.json")))
    # Repository text is a code span: GitHub shows it literally, never as HTML or a link.
    assert "| `a \\| b <script>` |" in text
    assert "`x\\|y.json`" in text


def test_summary_table_puts_errors_first_and_marks_the_rest():
    from agent_lint.reporters import summary

    text = summary.render(
        _result(
            _diag(code="AL412", name="stale-resume-marker", severity=Severity.WARNING),
            _diag(code="AL601", name="handoff-modified"),
        )
    )
    rows = [line for line in text.splitlines() if line.startswith("| AL")]
    assert rows[:2] == [
        "| AL601 | handoff-modified | `a.json` | 1 |",
        "| AL412 | stale-resume-marker (warning) | `a.json` | 1 |",
    ]
