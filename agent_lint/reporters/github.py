"""``github`` output: workflow commands that become annotations on a pull request."""

from __future__ import annotations

from pathlib import Path

from agent_lint.diagnostics import Diagnostic, Severity, change_cannot_waive
from agent_lint.escaping import workflow
from agent_lint.escaping.terminal import visible
from agent_lint.reporters.paths import workspace_path
from agent_lint.result import LintResult

#: GitHub shows at most this many error and this many warning annotations per step.
PER_LEVEL_LIMIT = 10


def selected(result: LintResult) -> list[Diagnostic]:
    """The findings to annotate: errors first, at most 10 of each level, in each level
    the gate's first (those the change cannot waive: no pile of other findings the change
    adds pushes them off the diff)."""
    listed = sorted(result.diagnostics, key=lambda d: not change_cannot_waive(d.code))
    errors = [d for d in listed if d.severity is Severity.ERROR]
    warnings = [d for d in listed if d.severity is not Severity.ERROR]
    return errors[:PER_LEVEL_LIMIT] + warnings[:PER_LEVEL_LIMIT]


def render(result: LintResult, workspace: Path | None = None) -> str:
    """One ``::error``/``::warning`` command per shown finding, most severe first.

    Columns are given only when the finding starts and ends on one line, as
    GitHub requires. Findings past GitHub's per-step limits are counted in a
    closing ``::notice`` so nothing disappears silently. Paths are relative to
    ``workspace`` (the checkout) when given. Notices of the run come first.
    """
    lines = [f"::notice title=agent-lint::{workflow.message(n)}" for n in result.all_notices]
    if result.fixed:
        paths = ", ".join(workspace_path(p, result.root, workspace) for p in result.fixed)
        fixed = (
            f"fixed {len(result.fixed)} stale derived file(s) in this checkout only: {paths}; "
            "commit the output of `agent-lint --fix`"
        )
        lines.append(f"::notice title=agent-lint --fix::{workflow.message(fixed)}")
    shown = selected(result)
    for d in shown:
        level = {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(d.severity, "notice")
        path = workspace_path(d.path, result.root, workspace)
        props = [f"file={workflow.prop(visible(path))}", f"line={d.line}"]
        if d.end_line is not None:
            props.append(f"endLine={d.end_line}")
        if d.end_line in (None, d.line):
            props.append(f"col={d.column}")
            if d.end_column is not None:
                props.append(f"endColumn={d.end_column}")
        props.append(f"title={workflow.prop(d.code)}")
        fix = " [fixable with agent-lint --fix]" if d.fixable else ""
        text = workflow.message(f"{d.message} ({d.name}){fix}")
        lines.append(f"::{level} {','.join(props)}::{text}")
    left_out = len(result.diagnostics) - len(shown)
    if left_out:
        lines.append(
            f"::notice title=agent-lint::{left_out} more finding{'s' if left_out != 1 else ''} "
            f"not annotated (GitHub shows {PER_LEVEL_LIMIT} errors and {PER_LEVEL_LIMIT} "
            "warnings per step); every finding is in the job summary and the text output"
        )
    return "\n".join(lines) + "\n" if lines else ""
