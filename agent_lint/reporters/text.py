"""``text`` output: ``path:line:col: CODE message`` and a summary line."""

from __future__ import annotations

from agent_lint.diagnostics import Fix, Severity
from agent_lint.escaping.workflow import inert
from agent_lint.linter import LintResult
from agent_lint.validators import RULES_BY_CODE

_RESET = "\033[0m"
_BOLD = "\033[1m"
_RED = "\033[31m"
_YELLOW = "\033[33m"
_CYAN = "\033[36m"
_DIM = "\033[2m"


def render(result: LintResult, *, color: bool = False, quiet: bool = False) -> str:
    """Render findings one per line, followed by a summary unless ``quiet``.

    Paths and messages hold text from the linted repository: control
    characters are shown as escapes and nothing can read as a GitHub workflow
    command (:func:`agent_lint.escaping.workflow.inert`).
    """

    def paint(value: str, code: str) -> str:
        return f"{code}{value}{_RESET}" if color else value

    lines = []
    for d in result.diagnostics:
        where = paint(f"{inert(d.path)}:{d.line}:{d.column}:", _BOLD)
        tone = _RED if d.severity is Severity.ERROR else _YELLOW
        code = paint(d.code, _BOLD + tone)
        fix = paint(" [*]", _CYAN) if d.fixable else ""
        lines.append(f"{where} {code}{fix} {inert(d.message)}")
    if not quiet or result.diagnostics:
        lines.append(summary(result))
    return "\n".join(lines) + "\n" if lines else ""


def summary(result: LintResult) -> str:
    """How many files were checked and fixed, and what was found."""
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''} checked"
    fixed = ""
    if result.fixed:
        fixed = f"Fixed {len(result.fixed)} file{'s' if len(result.fixed) != 1 else ''}: "
        fixed += ", ".join(inert(path) for path in result.fixed) + "\n"
    if not result.diagnostics:
        return f"{fixed}All checks passed ({files})."
    parts = []
    if result.errors:
        parts.append(f"{result.errors} error{'s' if result.errors != 1 else ''}")
    if result.warnings:
        parts.append(f"{result.warnings} warning{'s' if result.warnings != 1 else ''}")
    fixable = sum(1 for d in result.diagnostics if d.fixable)
    hidden = sum(
        1 for d in result.diagnostics if not d.fixable and RULES_BY_CODE[d.code].fix is Fix.UNSAFE
    )
    tail = f"; {fixable} fixable with `agent-lint --fix`" if fixable else ""
    if hidden:
        tail += f"; {hidden} more with `agent-lint --fix --unsafe-fixes`"
    return f"{fixed}Found {' and '.join(parts)} in {files}{tail}."
