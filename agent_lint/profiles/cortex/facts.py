"""The Cortex facts repo-wide checks need beyond the generic index.

Conversations with their handoff chains, turns, ``meta.json`` and
``handoffs/state.json``; project and mission handoffs; mission bindings;
decision supersession; the two sides of a conversation's relations. The
collector turns one file into small frozen facts (a pure step) and merges
them into :class:`CortexFacts`, the typed store the checks read through
:func:`facts_of`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from agent_lint.frozen import field, record
from agent_lint.kinds import Match
from agent_lint.profiles.cortex.handoffs import (
    Conversation,
    Handoff,
    TimedHandoff,
    Turn,
    handoff_from,
    handoff_number,
    note_ref,
    turn_number,
)

if TYPE_CHECKING:
    from agent_lint.index import FileContext, RepoIndex


class ConversationFile(NamedTuple):
    """A file of a conversation folder, parsed or not: what it is and where.

    ``role`` is ``handoff``, ``note``, ``turn``, ``state``, ``meta`` or
    ``resume``; ``number`` the handoff or turn number its name carries;
    ``stem`` the note's stem.
    """

    conversation: str
    folder: str
    role: str
    path: str
    number: int | None = None
    stem: str = ""
    parsed: bool = True


class ConversationRecord(NamedTuple):
    """What a parsed conversation file says: a handoff, a turn, meta, state or resume marker."""

    conversation: str
    folder: str
    handoff: Handoff | None = None
    turn: Turn | None = None
    meta: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    resume: tuple[Any] | None = None


class MissionBinding(NamedTuple):
    """A validation contract's ``mission_id`` and the mission folder it is stored in."""

    path: str
    mission: str
    mission_id: Any


class Successor(NamedTuple):
    """A decision superseded by another (``superseded_by_decision_id``)."""

    decision: str
    successor: str
    path: str


class RelationsSide(NamedTuple):
    """One side of a conversation's relations: ``relations.yaml`` or ``meta.json``."""

    conversation: str
    side: str
    path: str
    relations: dict[str, Any]


@record
class CortexFacts:
    """The Cortex facts of one run, merged from every file's facts."""

    conversations: dict[str, Conversation] = field(default_factory=dict)
    timed_handoffs: list[TimedHandoff] = field(default_factory=list)
    mission_bindings: list[tuple[str, str, Any]] = field(default_factory=list)
    successors: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    relations: dict[str, dict[str, tuple[str, dict[str, Any]]]] = field(
        default_factory=lambda: defaultdict(dict)
    )

    def conversation(self, name: str, folder: str) -> Conversation:
        """The facts of conversation ``name`` (created on first use)."""
        if name not in self.conversations:
            self.conversations[name] = Conversation(name, folder)
        return self.conversations[name]


def facts_of(index: RepoIndex) -> CortexFacts:
    """The Cortex facts of ``index`` (empty when no Cortex file was seen)."""
    return index.store(CortexFacts)


def _folder(path: str, relpath: str, name: str) -> str:
    """The repository path of conversation ``name``'s folder, from one of its files."""
    prefix = path[: len(path) - len(relpath)]
    return f"{prefix}conversations/{name}"


_ROLES = {
    "conversation-handoff": "handoff",
    "handoff-note": "note",
    "turn": "turn",
    "handoff-state": "state",
    "conversation": "meta",
    "resume-marker": "resume",
}


class CortexCollector:
    """Collects :class:`CortexFacts` (see :class:`agent_lint.profile.Collector`)."""

    store = CortexFacts

    def present(self, path: str, relpath: str, match: Match, parsed: bool) -> Iterator[object]:
        """Which conversation files exist, read or not."""
        name = match.groups.get("conversation")
        role = _ROLES.get(match.kind.name)
        if name is None or role is None:
            return
        folder = _folder(path, relpath, name)
        stem = match.groups.get("stem", "")
        number = None
        if role == "handoff":
            number = handoff_number(stem)
        elif role == "turn":
            number = turn_number(stem)
            if number is None:
                return
        yield ConversationFile(name, folder, role, path, number, stem, parsed)

    def collect(self, ctx: FileContext, clean: bool) -> Iterator[object]:
        """What a parsed Cortex record tells the ordering, agreement and relation checks."""
        kind, data, groups = ctx.kind.name, ctx.data, ctx.groups
        if not isinstance(data, dict):
            return
        if kind == "validation-contract":
            yield MissionBinding(ctx.path, groups["mission"], data.get("mission_id"))
            return
        if kind in ("project-handoff", "mission-handoff"):
            folder = ctx.path.rsplit("/", 1)[0]
            handoff_id = data.get("handoff_id")
            yield TimedHandoff(
                folder,
                handoff_id if isinstance(handoff_id, str) else groups["stem"],
                ctx.path,
                data.get("produced_at"),
                groups.get("mission"),
                data.get("mission_id"),
                note_ref(data),
            )
            return
        if kind == "decision":
            successor, own = data.get("superseded_by_decision_id"), data.get("decision_id")
            if isinstance(successor, str) and isinstance(own, str):
                yield Successor(own, successor, ctx.path)
            return
        name = groups.get("conversation")
        if name is None:
            return
        folder = _folder(ctx.path, ctx.relpath, name)
        if kind == "relations":
            yield RelationsSide(name, "yaml", ctx.path, data)
        elif kind == "conversation-handoff":
            yield ConversationRecord(
                name, folder, handoff=handoff_from(ctx.path, groups["stem"], data, clean)
            )
        elif kind == "turn" and (number := turn_number(groups["stem"])) is not None:
            yield ConversationRecord(
                name, folder, turn=Turn(number, ctx.path, data.get("timestamp"), _integer(data))
            )
        elif kind == "conversation":
            meta = {
                key: data[key]
                for key in (
                    "handoffs",
                    "active_agent",
                    "turn_count",
                    "state",
                    "created_at",
                    "updated_at",
                )
                if key in data
            }
            yield ConversationRecord(name, folder, meta=meta)
            relations = data.get("relations")
            yield RelationsSide(
                name, "meta", ctx.path, relations if isinstance(relations, dict) else {}
            )
        elif kind == "handoff-state":
            yield ConversationRecord(name, folder, state=data)
        elif kind == "resume-marker":
            yield ConversationRecord(name, folder, resume=(data.get("handoff_id"),))

    def merge(self, store: CortexFacts, fact: object) -> None:
        """Add one fact to the run's :class:`CortexFacts`."""
        if isinstance(fact, ConversationFile):
            _merge_file(store.conversation(fact.conversation, fact.folder), fact)
        elif isinstance(fact, ConversationRecord):
            _merge_record(store.conversation(fact.conversation, fact.folder), fact)
        elif isinstance(fact, TimedHandoff):
            store.timed_handoffs.append(fact)
        elif isinstance(fact, MissionBinding):
            store.mission_bindings.append((fact.path, fact.mission, fact.mission_id))
        elif isinstance(fact, Successor):
            store.successors[fact.decision] = (
                fact.successor,
                fact.path,
                "/superseded_by_decision_id",
            )
        elif isinstance(fact, RelationsSide):
            store.relations[fact.conversation][fact.side] = (fact.path, fact.relations)


def _integer(turn: dict[str, Any]) -> int | None:
    """The ``turn`` a turn file records, when it is an integer."""
    value = turn.get("turn")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _merge_file(conversation: Conversation, fact: ConversationFile) -> None:
    if fact.role == "handoff":
        conversation.handoff_files.append((fact.number, fact.path))
        if not fact.parsed:
            conversation.broken.add(fact.path)
    elif fact.role == "note":
        conversation.notes.add(fact.stem)
    elif fact.role == "turn":
        assert fact.number is not None
        conversation.turn_files.append((fact.number, fact.path))
    elif fact.role == "state":
        conversation.state_path = fact.path
        conversation.state_exists = True
    elif fact.role == "meta":
        conversation.meta_path = fact.path
    elif fact.role == "resume":
        conversation.resume_path = fact.path


def _merge_record(conversation: Conversation, fact: ConversationRecord) -> None:
    if fact.handoff is not None:
        conversation.handoffs.append(fact.handoff)
        if not fact.handoff.clean:
            conversation.broken.add(fact.handoff.path)
    elif fact.turn is not None:
        conversation.turns.append(fact.turn)
    elif fact.meta is not None:
        conversation.meta = fact.meta
    elif fact.state is not None:
        conversation.state = fact.state
    elif fact.resume is not None:
        conversation.resume_handoff = fact.resume[0]
