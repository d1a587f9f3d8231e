"""Injected defects: each is one everyday mistake that produces exactly one finding.

A :class:`Cluster` holds one cluster's files before they are written; a
:class:`Variant` edits it and names the finding agent-lint must report.
:func:`plan_defects` spreads the requested defects over the clusters so that no
two of them touch the same record, index entry or conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

FAMILIES = ("schema", "identity", "references", "ordering", "agreement")
AGENT = ".agent"


@dataclass(frozen=True)
class Defect:
    """One injected mistake: the finding (code, repository-relative file) it must produce."""

    family: str
    code: str
    path: str
    what: str


@dataclass
class Cluster:
    """The files of one cluster before they are written (paths relative to the agent dir)."""

    files: dict[str, Any]
    entries: dict[str, list[dict[str, Any]]]
    conversations: list[str]
    decisions: list[str]
    decision_ids: list[str]
    memories: list[str]
    tasks: list[str]
    sessions: list[str]
    mission: str
    inbox: str


def repo_path(path: str) -> str:
    """Repository-relative form of an agent-dir path."""
    return f"{AGENT}/{path}"


def _json(cluster: Cluster, path: str) -> dict[str, Any]:
    value = cluster.files[path]
    assert isinstance(value, dict)
    return value


def _conv(cluster: Cluster, slot: int, name: str) -> str:
    return f"conversations/{cluster.conversations[slot]}/{name}"


def _schema_unknown_field(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.decisions[3]
    record = _json(c, path)
    record["promt"] = record.pop("rationale")
    return path, 'a misspelt field "promt" (AL102)'


def _schema_missing_field(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.memories[1]
    del _json(c, path)["content"]
    return path, 'a memory without its required "content" (AL101)'


def _schema_wrong_type(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.tasks[1]
    _json(c, path)["acceptance_criteria"] = "tests pass"
    return path, "a string where a list belongs (AL103)"


def _schema_invalid_value(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.sessions[1]
    _json(c, path)["mode"] = "chat"
    return path, 'a session "mode" outside its enum (AL104)'


def _schema_invalid_date_time(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.inbox
    _json(c, path)["read_at"] = "yesterday"
    return path, "a timestamp that is not RFC 3339 (AL106)"


def _schema_pattern(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.memories[2]
    _json(c, path)["tags"] = ["Release Notes"]
    return path, "a tag that does not match its pattern (AL105)"


def _identity_turn_number(c: Cluster, slot: int) -> tuple[str, str]:
    path = _conv(c, slot, "turns/0002.yaml")
    c.files[path] = c.files[path].replace("turn: 2\n", "turn: 3\n", 1)
    return path, "turn file 0002.yaml that says turn 3 (AL202)"


def _identity_decision_id(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.decisions[0]
    record = _json(c, path)
    record["decision_id"] = record["decision_id"] + "a"
    return path, "a decision id that differs from its file name (AL202)"


def _identity_duplicate(c: Cluster, slot: int) -> tuple[str, str]:
    original = c.memories[0]
    copy = original.replace(".json", "-copy.json")
    c.files[copy] = dict(_json(c, original))
    # Reported on the copy: the original is the file named by its id.
    return copy, "a memory copied under a second file name (AL203)"


def _references_dangling(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.decisions[2]
    _json(c, path)["mission_id"] = "M-999999"
    return path, "a decision naming a mission that does not exist (AL301)"


def _references_not_indexed(c: Cluster, slot: int) -> tuple[str, str]:
    del c.entries["decisions"][1]
    return "decisions/index.json", "a decision missing from decisions/index.json (AL306)"


def _references_missing_path(c: Cluster, slot: int) -> tuple[str, str]:
    path = c.tasks[0]
    _json(c, path)["artifacts"][0]["ref"] = repo_path(f"{c.mission}/missing-plan.md")
    return path, "a task artifact that does not exist (AL302)"


def _references_broken_link(c: Cluster, slot: int) -> tuple[str, str]:
    path = f"{c.mission}/milestones/MS-001.md"
    c.files[path] = c.files[path].replace("../../../runs/", "../../runs/")
    return path, "a milestone note linking a run one folder too shallow (AL314)"


def _references_unknown_id(c: Cluster, slot: int) -> tuple[str, str]:
    path = f"{c.mission}/command-log.md"
    c.files[path] += "- decided in D-999999\n"
    return path, "a note citing a decision that does not exist (AL315)"


def _references_index_field(c: Cluster, slot: int) -> tuple[str, str]:
    c.entries["runs"][0]["status"] = "running"
    return "runs/index.json", "a run index entry with a stale status (AL305)"


def _ordering_missing_note(c: Cluster, slot: int) -> tuple[str, str]:
    del c.files[_conv(c, slot, "handoffs/H-002.md")]
    return _conv(c, slot, "handoffs/H-002.json"), "a handoff without its note (AL408)"


def _ordering_turn_time(c: Cluster, slot: int) -> tuple[str, str]:
    path = _conv(c, slot, "turns/0003.yaml")
    lines = c.files[path].split("\n")
    stamp = datetime.strptime(lines[1], "timestamp: %Y-%m-%dT%H:%M:%SZ")
    lines[1] = f"timestamp: {stamp - timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}"
    c.files[path] = "\n".join(lines)
    return path, "a turn dated before the previous turn (AL411)"


def _ordering_chain(c: Cluster, slot: int) -> tuple[str, str]:
    path = _conv(c, slot, "handoffs/H-002.json")
    record = _json(c, path)
    stranger = "codey-main"
    record["from_agent"]["agent_id"] = stranger
    _json(c, _conv(c, slot, "meta.json"))["handoffs"][1]["from_agent"] = stranger
    return path, "a handoff from an agent the previous one did not hand to (AL404)"


def _ordering_time(c: Cluster, slot: int) -> tuple[str, str]:
    path = _conv(c, slot, "handoffs/H-002.json")
    record = _json(c, path)
    first = _json(c, _conv(c, slot, "handoffs/H-001.json"))
    record["timestamp"] = first["timestamp"]
    _json(c, _conv(c, slot, "meta.json"))["handoffs"][1]["timestamp"] = first["timestamp"]
    return path, "a handoff no later than the one before (AL402)"


def _ordering_stale_resume(c: Cluster, slot: int) -> tuple[str, str]:
    path = _conv(c, slot, "turn_resumed.yaml")
    c.files[path] = c.files[path].replace("handoff_id: H-003", "handoff_id: H-002", 1)
    return path, "a resume marker naming an older handoff (AL412, a warning)"


def _agreement_stale_state(c: Cluster, slot: int) -> tuple[str, str]:
    path = _conv(c, slot, "handoffs/state.json")
    _json(c, path)["latest_turn"] -= 1
    return path, "a state.json written before the last turn (AL503)"


def _agreement_checksum(c: Cluster, slot: int) -> tuple[str, str]:
    path = _conv(c, slot, "handoffs/H-001.json")
    pointer = _json(c, path)["context_pointer"]
    pointer["pending_decisions"] = [*pointer["pending_decisions"], c.decision_ids[3]]
    return path, "a handoff edited after its checksum was computed (AL501)"


def _agreement_missing_state(c: Cluster, slot: int) -> tuple[str, str]:
    del c.files[_conv(c, slot, "handoffs/state.json")]
    return _conv(c, slot, "handoffs/H-003.json"), "a conversation without state.json (AL502)"


def _agreement_meta_checksum(c: Cluster, slot: int) -> tuple[str, str]:
    path = _conv(c, slot, "meta.json")
    meta = _json(c, path)
    meta["state"]["checksum"] = meta["handoffs"][1]["checksum"]
    return path, "meta.json state.checksum of an older handoff (AL504)"


@dataclass(frozen=True)
class Variant:
    """A kind of defect: its family, the code it produces, what it needs of a cluster."""

    family: str
    code: str
    #: Parts of a cluster it edits; ``conversation`` takes any free one of the two.
    needs: tuple[str, ...]
    apply: Callable[[Cluster, int], tuple[str, str]]


#: Per family, the defects injected in turn (the first ones are the everyday mistakes).
VARIANTS: dict[str, tuple[Variant, ...]] = {
    "schema": (
        Variant("schema", "AL102", ("decision3",), _schema_unknown_field),
        Variant("schema", "AL101", ("memory1",), _schema_missing_field),
        Variant("schema", "AL103", ("task1",), _schema_wrong_type),
        Variant("schema", "AL104", ("session1",), _schema_invalid_value),
        Variant("schema", "AL106", ("inbox",), _schema_invalid_date_time),
        Variant("schema", "AL105", ("memory2",), _schema_pattern),
    ),
    "identity": (
        Variant("identity", "AL202", ("conversation",), _identity_turn_number),
        Variant("identity", "AL202", ("decision0",), _identity_decision_id),
        Variant("identity", "AL203", ("memory0",), _identity_duplicate),
    ),
    "references": (
        Variant("references", "AL306", ("decision-entry1",), _references_not_indexed),
        Variant("references", "AL301", ("decision2",), _references_dangling),
        Variant("references", "AL302", ("task0",), _references_missing_path),
        Variant("references", "AL314", ("milestone-note",), _references_broken_link),
        Variant("references", "AL315", ("command-log",), _references_unknown_id),
        Variant("references", "AL305", ("run-entry",), _references_index_field),
    ),
    "ordering": (
        Variant("ordering", "AL408", ("conversation",), _ordering_missing_note),
        Variant("ordering", "AL411", ("conversation",), _ordering_turn_time),
        Variant("ordering", "AL404", ("conversation",), _ordering_chain),
        Variant("ordering", "AL402", ("conversation",), _ordering_time),
        Variant("ordering", "AL412", ("conversation",), _ordering_stale_resume),
    ),
    "agreement": (
        Variant("agreement", "AL503", ("conversation",), _agreement_stale_state),
        Variant("agreement", "AL501", ("conversation",), _agreement_checksum),
        Variant("agreement", "AL502", ("conversation",), _agreement_missing_state),
        Variant("agreement", "AL504", ("conversation",), _agreement_meta_checksum),
    ),
}


def plan_defects(counts: Mapping[str, int], clusters: int) -> dict[int, list[tuple[Variant, int]]]:
    """Place the defects: cluster number -> [(variant, conversation slot)].

    Families take turns; each defect goes to the next cluster (round robin)
    where the parts it edits are still untouched, so no two defects meet in
    one file or one conversation, and each produces exactly its one finding.
    """
    unknown = set(counts) - set(FAMILIES)
    if unknown:
        raise ValueError(f"unknown defect families: {', '.join(sorted(unknown))}")
    queue: list[Variant] = []
    for round_ in range(max(counts.values(), default=0)):
        for family in FAMILIES:
            if round_ < counts.get(family, 0):
                variants = VARIANTS[family]
                queue.append(variants[round_ % len(variants)])
    used: dict[int, set[str]] = {n: set() for n in range(clusters)}
    placed: dict[int, list[tuple[Variant, int]]] = {}
    cursor = 0
    for variant in queue:
        for step in range(clusters):
            number = (cursor + step) % clusters
            taken = used[number]
            slot = 0
            if "conversation" in variant.needs:
                free = [s for s in (0, 1) if f"conversation{s}" not in taken]
                if not free:
                    continue
                slot = free[0]
            needs = {f"conversation{slot}" if n == "conversation" else n for n in variant.needs}
            if needs & taken:
                continue
            taken.update(needs)
            placed.setdefault(number, []).append((variant, slot))
            cursor = number + 1
            break
        else:
            raise ValueError(
                f"too many defects for {clusters} clusters: no room left for {variant.code}"
            )
    return placed
