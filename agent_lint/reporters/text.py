"""``text`` output: ``path:line:col: CODE message``, grouped when a file repeats a code.

Paths are shown relative to the current directory when it lies inside the
repository or the repository inside it, else relative to the repository root. When one file has more
than :data:`GROUP_AFTER` findings of one code, they are printed as a block:
a header line with the file, code, rule name and count, then one indented
``line:col message`` line per finding.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from pathlib import Path

from agent_lint.diagnostics import Diagnostic, Severity
from agent_lint.escaping.workflow import inert
from agent_lint.result import LintResult
from agent_lint.rules import rule_for

_RESET = "\033[0m"
_BOLD = "\033[1m"
_RED = "\033[31m"
_YELLOW = "\033[33m"
_CYAN = "\033[36m"
_DIM = "\033[2m"
_TONES = {Severity.ERROR: _RED, Severity.WARNING: _YELLOW, Severity.INFO: _CYAN}

#: A file with more findings of one code than this gets a grouped block.
GROUP_AFTER = 3


def display_paths(result: LintResult, cwd: Path | None = None) -> dict[str, str]:
    """How each finding's path is shown: relative to ``cwd`` when it is inside the root or
    the root inside it (``agent-lint services/pay`` run above it), else to the root."""
    here = Path(os.path.abspath(cwd or Path.cwd()))
    root = Path(os.path.abspath(result.root))
    inside = here == root or root in here.parents or here in root.parents
    shown = {}
    for d in result.diagnostics:
        if d.path not in shown:
            full = os.path.normpath(os.path.join(root, d.path))
            shown[d.path] = Path(os.path.relpath(full, here)).as_posix() if inside else d.path
    return {path: inert(text) for path, text in shown.items()}


def render(
    result: LintResult, *, color: bool = False, quiet: bool = False, cwd: Path | None = None
) -> str:
    """Render findings (grouped where a file repeats a code), then a summary unless ``quiet``.

    Paths and messages hold text from the linted repository: control
    characters are shown as escapes and nothing can read as a GitHub workflow
    command (:func:`agent_lint.escaping.workflow.inert`).
    """

    def paint(value: str, code: str) -> str:
        return f"{code}{value}{_RESET}" if color else value

    def tail(d: Diagnostic) -> str:
        level = "" if d.severity is Severity.ERROR else paint(f" [{d.severity.value}]", _DIM)
        fix = paint(" [*]", _CYAN) if d.fixable else ""
        return f"{fix}{level} {inert(d.message)}"

    paths = display_paths(result, cwd)
    counts = Counter((d.path, d.code) for d in result.diagnostics)
    blocks: dict[tuple[str, str], list[Diagnostic]] = defaultdict(list)
    lines: list[str | tuple[str, str]] = []
    for d in result.diagnostics:
        if counts[(d.path, d.code)] > GROUP_AFTER:
            block = blocks[(d.path, d.code)]
            if not block:
                lines.append((d.path, d.code))
            block.append(d)
            continue
        where = paint(f"{paths[d.path]}:{d.line}:{d.column}:", _BOLD)
        code = paint(d.code, _BOLD + _TONES[d.severity])
        lines.append(f"{where} {code}{tail(d)}")
    out: list[str] = []
    for line in lines:
        if isinstance(line, str):
            out.append(line)
            continue
        block = blocks[line]
        first = block[0]
        header = paint(f"{paths[first.path]}:", _BOLD)
        code = paint(first.code, _BOLD + _TONES[first.severity])
        out.append(f"{header} {code} {first.name} ({len(block)} findings)")
        out.extend(f"  {d.line}:{d.column}:{tail(d)}" for d in block)
    if not quiet:
        out.append(summary(result))
    return "\n".join(out) + "\n" if out else ""


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def summary(result: LintResult) -> str:
    """How many files were checked and fixed, what was found, and what a baseline or
    ``--new-only`` left out."""
    files = f"{_plural(result.files_checked, 'file')} checked"
    fixed = ""
    if result.fixed:
        paths = ", ".join(inert(path) for path in result.fixed)
        fixed = f"Fixed {_plural(len(result.fixed), 'file')}: {paths}\n"
    known = "".join(f"; {said}" for said in result.hidden)
    if not result.files_checked and not result.diagnostics and result.notices:
        return f"{fixed}Nothing checked{known}."
    if not result.errors and not result.warnings:
        infos = f"; {result.infos} info" if result.infos else ""
        return f"{fixed}All checks passed ({files}{infos}{known})."
    parts = []
    if result.errors:
        parts.append(_plural(result.errors, "error"))
    if result.warnings:
        parts.append(_plural(result.warnings, "warning"))
    if result.infos:
        parts.append(f"{result.infos} info")
    fixable = sum(1 for d in result.diagnostics if d.fixable)
    hidden = sum(1 for d in result.diagnostics if d.unsafe_fixable)
    tail = f"; {fixable} fixable with `agent-lint --fix`" if fixable else ""
    if hidden:
        tail += f"; {hidden} more with `agent-lint --fix --unsafe-fixes`"
    listed = ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else parts[0]
    return f"{fixed}Found {listed} in {files}{tail}{known}."


def notices(result: LintResult) -> str:
    """The run's notices, one ``agent-lint: notice: …`` line each (for standard error).

    Text output keeps them off standard output, beside the findings, as
    linters do with messages about the run itself.
    """
    return "".join(inert(f"agent-lint: notice: {notice}") + "\n" for notice in result.notices)


def statistics(result: LintResult) -> str:
    """Counts per code, most frequent first, with the rule name and ``[*]`` when fixable."""
    counts = Counter(d.code for d in result.diagnostics)
    fixable = {d.code for d in result.diagnostics if d.fixable}
    if not counts:
        return summary(result) + "\n"
    width = len(str(max(counts.values())))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(
        f"{count:>{width}}\t{code}\t{'[*]' if code in fixable else '[ ]'} {rule_for(code).name}\n"
        for code, count in rows
    )
