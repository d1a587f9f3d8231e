"""``github`` output: workflow commands that become annotations on a pull request."""

from __future__ import annotations

from agent_lint.diagnostics import Severity
from agent_lint.linter import LintResult


def escape_data(value: str) -> str:
    """Escape a workflow command's message (``%``, CR, LF)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a workflow command property value (also ``:`` and ``,``)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render(result: LintResult) -> str:
    """One ``::error``/``::warning`` command per finding.

    Columns are given only when the finding starts and ends on one line, as
    GitHub requires for annotations.
    """
    lines = []
    for d in result.diagnostics:
        level = "error" if d.severity is Severity.ERROR else "warning"
        props = [f"file={escape_property(d.path)}", f"line={d.line}"]
        if d.end_line is not None:
            props.append(f"endLine={d.end_line}")
        if d.end_line in (None, d.line):
            props.append(f"col={d.column}")
            if d.end_column is not None:
                props.append(f"endColumn={d.end_column}")
        props.append(f"title={escape_property(d.code)}")
        fix = " [fixable with agent-lint --fix]" if d.fixable else ""
        text = escape_data(f"{d.message} ({d.name}){fix}")
        lines.append(f"::{level} {','.join(props)}::{text}")
    return "\n".join(lines) + "\n" if lines else ""
