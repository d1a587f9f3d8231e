"""AL308-AL313: state machines and timestamps of records."""

from __future__ import annotations

from collections.abc import Iterator

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.index import FileContext, RepoIndex
from agent_lint.jsontext import clip, quote
from agent_lint.profiles.cortex.facts import facts_of

UNRESOLVED_DECISION = Rule(
    "AL308",
    "unresolved-decision",
    "A resolved decision lacks its resolution",
    "Reports a decision whose status is `approved`, `rejected` or `revision_requested` but "
    "that has no `selected_option`, `resolved_by` or `resolved_at`. A resolution without "
    "the chosen option, its author and its time cannot be audited or acted on.",
    '{"status": "approved", "options": ["ship", "hold"]}',
    '{"status": "approved", "options": ["ship", "hold"], "selected_option": "ship", '
    '"resolved_by": "interactive-user", "resolved_at": "2026-11-02T10:00:00Z"}',
)
INVALID_SELECTED_OPTION = Rule(
    "AL309",
    "invalid-selected-option",
    "A decision selected an option it did not offer",
    "Reports a decision whose `selected_option` is not one of its `options`. Agents branch "
    "on the selected option; an unknown one matches no branch.",
    '{"options": ["approve", "reject"], "selected_option": "aprove"}',
    '{"options": ["approve", "reject"], "selected_option": "approve"}',
)
SUPERSESSION_CYCLE = Rule(
    "AL310",
    "supersession-cycle",
    "Decisions supersede each other in a cycle",
    "Reports decisions whose `superseded_by_decision_id` links form a cycle "
    "(D-1 superseded by D-2, D-2 superseded by D-1). There is no current decision to follow.",
    "D-001 superseded_by D-002, D-002 superseded_by D-001",
    "D-001 superseded_by D-002; D-002 is not superseded",
)
MILESTONE_CYCLE = Rule(
    "AL311",
    "milestone-cycle",
    "Milestones depend on each other in a cycle",
    "Reports milestones of a mission whose `depends_on` lists form a cycle, including a "
    "milestone that depends on itself. No milestone of the cycle can ever start.",
    "MS-001 depends_on [MS-002]; MS-002 depends_on [MS-001]",
    "MS-002 depends_on [MS-001]; MS-001 depends on nothing",
)
MEMORY_FOLDER_MISMATCH = Rule(
    "AL312",
    "memory-folder-mismatch",
    "A memory record is not in the folder of its type",
    "Reports a memory record whose `type` (episodic, semantic, procedural) differs from the "
    "folder it is stored in. Memory recall reads one folder per type and misses it.",
    'memory/episodic/MEM-001.json with "type": "semantic"',
    'memory/semantic/MEM-001.json with "type": "semantic"',
)
RULES = (
    UNRESOLVED_DECISION,
    INVALID_SELECTED_OPTION,
    SUPERSESSION_CYCLE,
    MILESTONE_CYCLE,
    MEMORY_FOLDER_MISMATCH,
)

_RESOLVED = ("approved", "rejected", "revision_requested")
_RESOLUTION = ("selected_option", "resolved_by", "resolved_at")


def _decision(ctx: FileContext) -> Iterator[Diagnostic]:
    data = ctx.data
    status = data.get("status")
    if status in _RESOLVED:
        missing = [name for name in _RESOLUTION if name not in data]
        if missing:
            fields = ", ".join(f'"{name}"' for name in missing)
            yield UNRESOLVED_DECISION.at(
                ctx.path,
                f"decision is {quote(status)} but has no {fields}; a resolved decision records "
                "the selected option, who resolved it and when",
                pointer="/status",
            )
    options, selected = data.get("options"), data.get("selected_option")
    if not isinstance(selected, str) or not isinstance(options, list):
        return
    # An option written as {"id": …, "label": …} (the schema's AL103) is chosen by its id,
    # as the runtime resolves it; an option of no readable name leaves the choice unjudged.
    named = [o.get("id") if isinstance(o, dict) else o for o in options]
    choices = [c for c in named if isinstance(c, str)]
    if selected not in choices and len(choices) == len(named) and choices:
        import difflib  # loaded for a suggestion only

        close = difflib.get_close_matches(selected, choices, n=1)
        hint = f'; did you mean "{clip(close[0])}"?' if close else ""
        listed = clip(", ".join(choices))
        yield INVALID_SELECTED_OPTION.at(
            ctx.path,
            f"selected_option {quote(selected)} is not one of the options {listed}{hint}",
            pointer="/selected_option",
        )


def _milestones(ctx: FileContext) -> Iterator[Diagnostic]:
    milestones = ctx.data.get("milestones")
    if not isinstance(milestones, list):
        return
    edges: dict[str, list[str]] = {}
    position: dict[str, int] = {}
    for number, milestone in enumerate(milestones):
        if not isinstance(milestone, dict) or not isinstance(milestone.get("milestone_id"), str):
            continue
        name = milestone["milestone_id"]
        if name in edges:
            continue  # a repeated id is its AL203; the first milestone of that id stands
        depends = milestone.get("depends_on")
        edges[name] = (
            [d for d in depends if isinstance(d, str)] if isinstance(depends, list) else []
        )
        position[name] = number
    for cycle in find_cycles(edges):
        first = cycle[0]
        yield MILESTONE_CYCLE.at(
            ctx.path,
            "milestone dependency cycle: " + " -> ".join([*cycle, first]),
            pointer=f"/milestones/{position[first]}/depends_on",
        )


def find_cycles(edges: dict[str, list[str]]) -> list[list[str]]:
    """One cycle per strongly connected component, starting at its smallest node.

    Tarjan's algorithm (iterative, linear in nodes and edges) finds the
    components; a cycle inside each is then traced by following edges that
    stay in the component. Overlapping cycles are one problem, reported once.
    """
    number: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    for root in sorted(edges):
        if root in number:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(edges[root]))]
        number[root] = low[root] = len(number)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in number:
                    number[child] = low[child] = len(number)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], number[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == number[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    components.append(component)
    cycles = []
    for component in components:
        start = min(component)
        path, seen = [start], {start}
        while True:
            following = min(n for n in edges[path[-1]] if n in component)
            if following in seen:
                cycles.append(path[path.index(following) :])
                break
            path.append(following)
            seen.add(following)
    for cycle in cycles:
        smallest = cycle.index(min(cycle))
        cycle[:] = cycle[smallest:] + cycle[:smallest]
    return sorted(cycles)


def check_states(ctx: FileContext) -> Iterator[Diagnostic]:
    """Decision resolution, milestone cycles and memory folders."""
    if not isinstance(ctx.data, dict):
        return
    if ctx.kind.name == "decision":
        yield from _decision(ctx)
    elif ctx.kind.name == "mission":
        yield from _milestones(ctx)
    elif ctx.kind.name == "memory":
        kind = ctx.data.get("type")
        folder = ctx.groups.get("subdir")
        if isinstance(kind, str) and folder and kind != folder:
            yield MEMORY_FOLDER_MISMATCH.at(
                ctx.path,
                f"memory type {quote(kind)} but the record is in memory/{folder}/ "
                f"(expected memory/{clip(kind)}/)",
                pointer="/type",
            )


def check_supersession(index: RepoIndex) -> Iterator[Diagnostic]:
    """Supersession links between decisions have no cycle (AL310)."""
    successors = facts_of(index).successors
    edges = {own: [successor] for own, (successor, _, _) in successors.items()}
    for cycle in find_cycles(edges):
        _, path, pointer = successors[cycle[0]]
        yield SUPERSESSION_CYCLE.at(
            path,
            "supersession cycle: " + " -> ".join([*cycle, cycle[0]]),
            pointer=pointer,
        )
