"""``json`` output: the stable, versioned machine-readable contract."""

from __future__ import annotations

from typing import Any

from agent_lint.escaping import workflow
from agent_lint.linter import LintResult

SCHEMA_VERSION = 1


def as_dict(result: LintResult) -> dict[str, Any]:
    """The JSON document as a Python mapping (version 1 of the contract).

    ``notices`` (run-level messages, such as a skipped append-only gate, and
    how many findings a baseline or ``--new-only`` left out) appears only when
    there are some.
    """
    document: dict[str, Any] = {
        "version": SCHEMA_VERSION,
        "root": str(result.root.resolve()),
        "files_checked": result.files_checked,
        "diagnostics": [
            {
                "code": d.code,
                "name": d.name,
                "severity": d.severity.value,
                "path": d.path,
                "line": d.line,
                "column": d.column,
                "end_line": d.end_line,
                "end_column": d.end_column,
                "message": d.message,
                "pointer": d.pointer,
                "fixable": d.fixable,
            }
            for d in result.diagnostics
        ],
        "summary": {"errors": result.errors, "warnings": result.warnings},
    }
    if result.infos:
        document["summary"]["infos"] = result.infos
    if result.all_notices:
        document["notices"] = result.all_notices
    return document


def render(result: LintResult) -> str:
    """Render the result as indented JSON with a final newline (safe in a CI log)."""
    return workflow.dumps(as_dict(result)) + "\n"
