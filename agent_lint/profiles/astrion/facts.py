"""The Astrion facts the store-wide checks and ``--fix`` need beyond the generic index.

Per conversation folder: its ``metadata.json`` values, its sub-agent folders,
each sub-agent's identity, queues and tool call ids, and the Team Leader's
message agent references; the global ``state.json``. The collector turns one
file into small frozen facts and merges them into :class:`AstrionFacts`, the
typed store the checks read through :func:`facts_of`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_lint.kinds import Match

if TYPE_CHECKING:
    from agent_lint.index import FileContext, RepoIndex

#: A value found in a record and the JSON pointer it sits at.
Located = tuple[str, Any]


@dataclass(frozen=True, slots=True)
class AgentFolder:
    """A file of a conversation's store, read or not: which conversation and agent folder."""

    conversation: str
    folder: str
    agent: str | None
    path: str


@dataclass(frozen=True, slots=True)
class ConversationMeta:
    """A parsed ``conversations/<id>/metadata.json``; ``clean`` when it has no error."""

    conversation: str
    path: str
    data: dict[str, Any]
    clean: bool = True


@dataclass(frozen=True, slots=True)
class AgentRecord:
    """A parsed sub-agent file: ``metadata`` or ``messages``; ``clean`` when it has no error."""

    conversation: str
    agent: str
    role: str
    path: str
    data: dict[str, Any]
    clean: bool
    tool_call_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LeaderMessages:
    """The ``metadata.agent_id`` values of a Team Leader ``messages.json``."""

    conversation: str
    path: str
    agent_refs: tuple[Located, ...]


@dataclass(frozen=True, slots=True)
class StateRecord:
    """The parsed global ``state.json``; ``clean`` when it has no error of its own."""

    path: str
    data: dict[str, Any]
    clean: bool


@dataclass(frozen=True, slots=True)
class IndexRecord:
    """The parsed ``conversations/index.json``."""

    path: str
    data: dict[str, Any]


@dataclass
class Conversation:
    """What the store holds for one conversation folder."""

    name: str
    folder: str
    meta_path: str | None = None
    meta: dict[str, Any] | None = None
    meta_clean: bool = True
    agent_folders: dict[str, str] = field(default_factory=dict)
    agents: dict[str, dict[str, AgentRecord]] = field(default_factory=dict)
    leader: LeaderMessages | None = None
    present: set[str] = field(default_factory=set)

    def agent_ids(self) -> list[int] | None:
        """``agent_ids`` of the metadata when it is a list of integers, else None."""
        ids = (self.meta or {}).get("agent_ids")
        if isinstance(ids, list) and all(_is_int(i) for i in ids):
            return ids
        return None

    def agent_names(self, renamed: Mapping[str, str] | None = None) -> dict[str, str]:
        """Each sub-agent folder's name with the agent id it stands for: its name, or the
        id its metadata carries where ``renamed`` (see
        :func:`~agent_lint.validators.identity.renamed_folders`) says the folder was
        renamed away from it (that file's AL202)."""
        renamed = renamed or {}
        return {
            name: posixpath.basename(renamed.get(path, path))
            for name, path in self.agent_folders.items()
        }

    def members(self) -> set[int]:
        """The agents of the conversation: ``agent_ids`` and the sub-agent folders (a
        folder's name is in use whatever id its metadata carries)."""
        found = set(self.agent_ids() or ())
        found.update(int(name) for name in self.agent_folders if name.isascii() and name.isdigit())
        return found


@dataclass
class AstrionFacts:
    """The Astrion facts of one run, merged from every file's facts."""

    conversations: dict[str, Conversation] = field(default_factory=dict)
    conversations_folder: str | None = None
    state: StateRecord | None = None
    index: IndexRecord | None = None

    def conversation(self, name: str, folder: str) -> Conversation:
        """The facts of conversation ``name`` (created on first use)."""
        if name not in self.conversations:
            self.conversations[name] = Conversation(name, folder)
        return self.conversations[name]


def facts_of(index: RepoIndex) -> AstrionFacts:
    """The Astrion facts of ``index`` (empty when no Astrion file was seen)."""
    return index.store(AstrionFacts)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _folder(path: str, relpath: str, name: str) -> str:
    prefix = path[: len(path) - len(relpath)]
    return f"{prefix}conversations/{name}"


def _tool_call_ids(data: dict[str, Any]) -> tuple[str, ...]:
    found: list[str] = []
    messages = data.get("messages")
    for message in messages if isinstance(messages, list) else ():
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                found.append(call["id"])
    return tuple(found)


def _agent_refs(data: dict[str, Any]) -> Iterator[Located]:
    messages = data.get("messages")
    for position, message in enumerate(messages if isinstance(messages, list) else ()):
        meta = message.get("metadata") if isinstance(message, dict) else None
        if isinstance(meta, dict) and _is_int(meta.get("agent_id")):
            yield f"/messages/{position}/metadata/agent_id", meta["agent_id"]


class AstrionCollector:
    """Collects :class:`AstrionFacts` (see :class:`agent_lint.profile.Collector`)."""

    store = AstrionFacts

    def present(self, path: str, relpath: str, match: Match, parsed: bool) -> Iterator[object]:
        """Which conversation and sub-agent folders exist, read or not."""
        name = match.groups.get("conversation")
        if name is None:
            return
        yield AgentFolder(name, _folder(path, relpath, name), match.groups.get("agent"), path)

    def collect(self, ctx: FileContext, clean: bool) -> Iterator[object]:
        """What a parsed Astrion record tells the roster, agreement, reference and state checks."""
        kind, data = ctx.kind.name, ctx.data
        if not isinstance(data, dict):
            return
        name = ctx.groups.get("conversation", "")
        if kind == "state":
            yield StateRecord(ctx.path, data, clean)
        elif kind == "conversation-index":
            yield IndexRecord(ctx.path, data)
        elif kind == "conversation":
            yield ConversationMeta(name, ctx.path, data, clean)
        elif kind == "conversation-messages":
            yield LeaderMessages(name, ctx.path, tuple(_agent_refs(data)))
        elif kind in ("sub-agent", "sub-agent-messages"):
            role = "metadata" if kind == "sub-agent" else "messages"
            calls = _tool_call_ids(data) if role == "messages" else ()
            yield AgentRecord(name, ctx.groups["agent"], role, ctx.path, data, clean, calls)

    def merge(self, store: AstrionFacts, fact: object) -> None:
        """Add one fact to the run's :class:`AstrionFacts`."""
        if isinstance(fact, AgentFolder):
            conversation = store.conversation(fact.conversation, fact.folder)
            store.conversations_folder = fact.folder.rsplit("/", 1)[0]
            conversation.present.add(fact.path)
            if fact.agent is not None:
                conversation.agent_folders[fact.agent] = f"{fact.folder}/agents/{fact.agent}"
        elif isinstance(fact, StateRecord):
            store.state = fact
        elif isinstance(fact, IndexRecord):
            store.index = fact
        elif isinstance(fact, ConversationMeta):
            conversation = store.conversations[fact.conversation]
            conversation.meta_path, conversation.meta = fact.path, fact.data
            conversation.meta_clean = fact.clean
        elif isinstance(fact, LeaderMessages):
            store.conversations[fact.conversation].leader = fact
        elif isinstance(fact, AgentRecord):
            agents = store.conversations[fact.conversation].agents
            agents.setdefault(fact.agent, {})[fact.role] = fact
