"""The GitHub job summary: findings by code and file, every finding, the profile's sections.

Written as Markdown to ``--summary-file`` (the action passes
``$GITHUB_STEP_SUMMARY``). Text that comes from the linted repository is
written as code spans and escaped Mermaid labels
(:mod:`agent_lint.escaping.markdown`), and the whole summary stays under
GitHub's 1 MiB limit: the table by file keeps to a quarter of it, the profile's
sections to another (else they are left out, said so), and the list of findings
is cut at the rest, each with a count of what was left out. The gate's findings
(AL6xx) lead the table and the list.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from agent_lint.diagnostics import Diagnostic, change_cannot_waive
from agent_lint.escaping.markdown import code
from agent_lint.reporters.paths import workspace_path
from agent_lint.result import LintResult
from agent_lint.selection import RANK

LIMIT_BYTES = 1024 * 1024 - 16 * 1024  # GitHub's limit, less room for other steps


def size(text: str) -> int:
    """Bytes ``text`` takes in the summary file."""
    return len(text.encode("utf-8", errors="backslashreplace"))


def _finding_row(d: Diagnostic, path: str) -> str:
    level = d.severity.value
    return f"| {code(path)} | {d.line}:{d.column} | {d.code} {level} | {code(d.message)} |"


def render(result: LintResult, annotated: int | None = None, workspace: Path | None = None) -> str:
    """The Markdown job summary of ``result`` (paths relative to ``workspace`` when given)."""

    def located(path: str) -> str:
        return workspace_path(path, result.root, workspace)

    out = ["## agent-lint", ""]
    errors, warnings = result.errors, result.warnings
    if not result.files_checked and not result.diagnostics and result.notices:
        out.append("Nothing checked.")
    elif not result.diagnostics:
        out.append(f"All checks passed ({result.files_checked} files checked).")
    else:
        out.append(
            f"**{errors} error{'s' if errors != 1 else ''}, {warnings} "
            f"warning{'s' if warnings != 1 else ''}** in {result.files_checked} files checked."
        )
    if annotated is not None and annotated < len(result.diagnostics):
        out.append("")
        out.append(
            f"GitHub shows at most 10 error and 10 warning annotations per step: "
            f"{len(result.diagnostics) - annotated} of {len(result.diagnostics)} findings are "
            "not annotated on the diff, and all of them are listed below."
        )
    for notice in result.all_notices:
        out += ["", f"Notice: {code(notice)}"]
    if result.fixed:
        out += ["", "Fixed: " + ", ".join(code(located(p)) for p in result.fixed)]
    if result.diagnostics:
        # Errors first, the gate's (AL6xx, AL707) leading them, then warnings and info: what
        # fails the run leads the table, which keeps to a quarter of the summary.
        counts = Counter(
            (-RANK[d.severity], not change_cannot_waive(d.code), d.code, d.name,
             d.severity.value, located(d.path))
            for d in result.diagnostics
        )  # fmt: skip
        out += ["", "| code | rule | file | findings |", "|---|---|---|---|"]
        table = [
            f"| {c} | {n}{'' if s == 'error' else f' ({s})'} | {code(p)} | {k} |"
            for (_, _, c, n, s, p), k in sorted(counts.items())
        ]
        out += _cut(table, LIMIT_BYTES // 4, "rows of this table")
    sections = [
        block
        for index in result.indexes
        if index.profile is not None
        for section in index.profile.summary
        for block in section(result, index)
    ]
    if size("\n".join(sections)) > LIMIT_BYTES // 4:
        sections = ["", f"The {len(sections)} blocks of the profile's sections are left out: "
                    "together they pass a quarter of the 1 MiB summary."]  # fmt: skip
    head = "\n".join(out)
    tail = "\n".join(sections) + "\n"
    if not result.diagnostics:
        return head + "\n" + tail
    rows = ["", "<details><summary>Every finding</summary>", "",
            "| file | line:col | finding | message |", "|---|---|---|---|"]  # fmt: skip
    budget = LIMIT_BYTES - size(head) - size(tail) - 512
    used = sum(size(r) + 1 for r in rows)
    shown = 0
    # The gate's findings first: a change to merged history is what a reviewer must see.
    listed = sorted(result.diagnostics, key=lambda d: not change_cannot_waive(d.code))
    for d in listed:
        row = _finding_row(d, located(d.path))
        if used + size(row) + 1 > budget:
            break
        rows.append(row)
        used += size(row) + 1
        shown += 1
    if shown < len(result.diagnostics):
        rows.append("")
        rows.append(
            f"{len(result.diagnostics) - shown} more findings are not listed: the summary "
            "is limited to 1 MiB. Run `agent-lint` locally to see them all."
        )
    rows += ["", "</details>"]
    return head + "\n" + "\n".join(rows) + "\n" + tail


def _cut(rows: list[str], budget: int, what: str) -> list[str]:
    """``rows`` that fit in ``budget`` bytes, and a line counting the rest when cut."""
    kept: list[str] = []
    used = 0
    for row in rows:
        if used + size(row) + 1 > budget:
            left = len(rows) - len(kept)
            return [*kept, "", f"{left} more {what} are not shown: the summary is limited "
                    "to 1 MiB."]  # fmt: skip
        kept.append(row)
        used += size(row) + 1
    return kept


def render_failure(message: str) -> str:
    """The job summary of a run that could not lint (exit code 2)."""
    return f"## agent-lint\n\nagent-lint could not run: {code(message)}\n"
