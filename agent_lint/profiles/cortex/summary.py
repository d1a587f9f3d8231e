"""The Cortex section of the job summary: each changed conversation's handoff chain.

A Mermaid flowchart per conversation: agents as nodes, handoffs as edges,
broken ones in red. Labels come from the repository, so they are escaped
(:mod:`agent_lint.escaping.markdown`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from agent_lint.diagnostics import Severity
from agent_lint.escaping.markdown import code, mermaid_label
from agent_lint.index import RepoIndex
from agent_lint.profiles.cortex.facts import facts_of
from agent_lint.profiles.cortex.handoffs import Conversation
from agent_lint.result import LintResult

MAX_CHAINS = 20


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


def _conversations(result: LintResult, index: RepoIndex) -> Iterable[Conversation]:
    conversations = facts_of(index).conversations
    for name in sorted(conversations):
        conversation = conversations[name]
        if not conversation.handoffs:
            continue
        if result.changed is not None and not any(
            path.startswith(conversation.folder + "/") for path in result.changed
        ):
            continue
        yield conversation


def handoff_chains(result: LintResult, index: RepoIndex) -> Iterator[str]:
    """The handoff chain of each conversation with handoffs (only changed ones with ``--base``)."""
    broken = {d.path for d in result.diagnostics if d.severity is Severity.ERROR}
    for number, conversation in enumerate(_conversations(result, index)):
        if number == MAX_CHAINS:
            yield f"\n({MAX_CHAINS} handoff chains shown; more conversations changed.)"
            return
        yield f"\n### Handoff chain of {code(conversation.name)}\n\n{chain(conversation, broken)}"
