"""The GitHub job summary: findings by code and file, every finding, handoff chains.

Written as Markdown to ``--summary-file`` (the action passes
``$GITHUB_STEP_SUMMARY``). Text that comes from the linted repository is
written as code spans and escaped Mermaid labels
(:mod:`agent_lint.escaping.markdown`), and the whole summary stays under
GitHub's 1 MiB limit: past it the list of findings is cut with a count of
what was left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from agent_lint.diagnostics import Diagnostic, Severity
from agent_lint.escaping.markdown import code, mermaid_label
from agent_lint.handoffs import Conversation
from agent_lint.linter import LintResult
from agent_lint.reporters.paths import workspace_path

LIMIT_BYTES = 1024 * 1024 - 16 * 1024  # GitHub's limit, less room for other steps
MAX_CHAINS = 20


def size(text: str) -> int:
    """Bytes ``text`` takes in the summary file."""
    return len(text.encode("utf-8", errors="backslashreplace"))


def chain(conversation: Conversation, broken: set[str]) -> str:
    """A Mermaid flowchart: agents as nodes, handoffs as edges, broken ones in red."""
    nodes: dict[str, str] = {}
    lines = ["```mermaid", "flowchart LR"]
    red = []

    def node(agent: object) -> str:
        name = str(agent) if agent else "(unknown)"
        if name not in nodes:
            nodes[name] = f"a{len(nodes)}"
            lines.append(f'  {nodes[name]}["{mermaid_label(name)}"]')
        return nodes[name]

    edges = 0
    previous_to = None
    for handoff in conversation.ordered():
        source = node(handoff.from_agent.get("agent_id"))
        target = node(handoff.to_agent.get("agent_id"))
        label = mermaid_label(handoff.id)
        if previous_to is not None and previous_to != handoff.from_agent.get("agent_id"):
            lines.append(f'  {node(previous_to)} -.->|"chain broken before {label}"| {source}')
            red.append(edges)
            edges += 1
        lines.append(f'  {source} -->|"{label}"| {target}')
        if handoff.path in broken:
            red.append(edges)
        edges += 1
        previous_to = handoff.to_agent.get("agent_id")
    for number in red:
        lines.append(f"  linkStyle {number} stroke:#d1242f,stroke-width:3px")
    lines.append("```")
    return "\n".join(lines)


def _conversations(result: LintResult) -> Iterable[Conversation]:
    for index in result.indexes:
        for name in sorted(index.conversations):
            conversation = index.conversations[name]
            if not conversation.handoffs:
                continue
            if result.changed is not None and not any(
                path.startswith(conversation.folder + "/") for path in result.changed
            ):
                continue
            yield conversation


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
        counts = Counter((d.code, d.name, located(d.path)) for d in result.diagnostics)
        out += ["", "| code | rule | file | findings |", "|---|---|---|---|"]
        out += [f"| {c} | {n} | {code(p)} | {k} |" for (c, n, p), k in sorted(counts.items())]
    broken = {d.path for d in result.diagnostics if d.severity is Severity.ERROR}
    chains = []
    for number, conversation in enumerate(_conversations(result)):
        if number == MAX_CHAINS:
            chains.append(f"\n({MAX_CHAINS} handoff chains shown; more conversations changed.)")
            break
        chains.append(
            f"\n### Handoff chain of {code(conversation.name)}\n\n{chain(conversation, broken)}"
        )
    head = "\n".join(out)
    tail = "\n".join(chains) + "\n"
    if not result.diagnostics:
        return head + "\n" + tail
    rows = ["", "<details><summary>Every finding</summary>", "",
            "| file | line:col | finding | message |", "|---|---|---|---|"]  # fmt: skip
    budget = LIMIT_BYTES - size(head) - size(tail) - 512
    used = sum(size(r) + 1 for r in rows)
    shown = 0
    for d in result.diagnostics:
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


def render_failure(message: str) -> str:
    """The job summary of a run that could not lint (exit code 2)."""
    return f"## agent-lint\n\nagent-lint could not run: {code(message)}\n"
