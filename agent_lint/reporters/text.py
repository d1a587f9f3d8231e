"""``text`` output: ``path:line:col: CODE message`` and a summary line."""

from __future__ import annotations

from agent_lint.diagnostics import Severity
from agent_lint.linter import LintResult

_RESET = "\033[0m"
_BOLD = "\033[1m"
_RED = "\033[31m"
_YELLOW = "\033[33m"
_CYAN = "\033[36m"
_DIM = "\033[2m"


def render(result: LintResult, *, color: bool = False, quiet: bool = False) -> str:
    """Render findings one per line, followed by a summary unless ``quiet``."""

    def paint(value: str, code: str) -> str:
        return f"{code}{value}{_RESET}" if color else value

    lines = []
    for d in result.diagnostics:
        where = paint(f"{d.path}:{d.line}:{d.column}:", _BOLD)
        tone = _RED if d.severity is Severity.ERROR else _YELLOW
        code = paint(d.code, _BOLD + tone)
        fix = paint(" [*]", _CYAN) if d.fixable else ""
        lines.append(f"{where} {code}{fix} {d.message}")
    if not quiet or result.diagnostics:
        lines.append(summary(result, paint))
    return "\n".join(lines) + "\n" if lines else ""


def summary(result: LintResult, paint: object = None) -> str:
    """One line: how many files were checked and what was found."""
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''} checked"
    if not result.diagnostics:
        return f"All checks passed ({files})."
    parts = []
    if result.errors:
        parts.append(f"{result.errors} error{'s' if result.errors != 1 else ''}")
    if result.warnings:
        parts.append(f"{result.warnings} warning{'s' if result.warnings != 1 else ''}")
    fixable = sum(1 for d in result.diagnostics if d.fixable)
    tail = f"; {fixable} fixable with `agent-lint --fix`" if fixable else ""
    return f"Found {' and '.join(parts)} in {files}{tail}."
