"""The compact repository index built during the one pass over files.

Per-file checks see a file's parsed data; repo-wide checks see only this
index: identities, references with their positions, index entries, the few
record fields index files repeat, and what Markdown notes link to. Parsed
documents are dropped as soon as their file has been checked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lint.config import Config
from agent_lint.handoffs import (
    Conversation,
    TimedHandoff,
    Turn,
    handoff_from,
    handoff_number,
    turn_number,
)
from agent_lint.kinds import EACH, INDEX_OF, KINDS, Format, History, Kind, NameRule, Scope
from agent_lint.markdown import Note, scan
from agent_lint.positions import escape_token
from agent_lint.schemas import SchemaStore

if TYPE_CHECKING:
    from agent_lint.filesystem import FileSystem, Origins


def walk_field(data: Any, steps: tuple[str, ...], pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Yield ``(pointer, value)`` for every value a field spec reaches in ``data``."""
    if not steps:
        yield pointer, data
        return
    step, rest = steps[0], steps[1:]
    if step == EACH:
        if isinstance(data, list):
            for position, item in enumerate(data):
                yield from walk_field(item, rest, f"{pointer}/{position}")
    elif isinstance(data, dict) and step in data:
        yield from walk_field(data[step], rest, f"{pointer}/{escape_token(step)}")


def slug_stems(name: str) -> list[str]:
    """The ids a slugged name may stand for: ``D-001-storage-x`` -> ``D-001-storage``, ``D-001``.

    Trailing segments are dropped one at a time until the name ends in a
    segment with a digit, so ``D-TCP-004-add-dsh-host`` stands for ``D-TCP-004``
    but never for ``D-TCP``.
    """
    stems = []
    first = name.find("-")
    cut = name.rfind("-")
    while cut > first + 1 and not any("0" <= ch <= "9" for ch in name[cut + 1 :]):
        name = name[:cut]
        stems.append(name)
        cut = name.rfind("-")
    return stems


def field_text(steps: tuple[str, ...]) -> str:
    """A field spec as written in messages: ``milestones[].depends_on[]``."""
    return ".".join(steps).replace(f".{EACH}", EACH)


@dataclass(frozen=True)
class Identity:
    """One record id: which namespace and scope it lives in, and where it is written."""

    namespace: str
    scope: str
    id: str
    path: str
    pointer: str
    title: str


@dataclass(frozen=True)
class Reference:
    """An id written in a reference field, to be resolved in ``namespace``/``scope``."""

    namespace: str
    scope: str
    value: str
    path: str
    pointer: str
    field: str


@dataclass(frozen=True)
class PathReference:
    """A repository path written in a record.

    ``append_only`` marks a record that may never be edited once merged (a
    handoff); ``strict_only`` a field that holds a path only sometimes
    (checked only with ``strict = true``).
    """

    value: str
    path: str
    pointer: str
    field: str
    append_only: bool = False
    strict_only: bool = False


@dataclass(frozen=True)
class IndexEntry:
    """One entry of an index file, with the fields it repeats from its record."""

    record_kind: str
    id: str | None
    record_path: str | None
    path: str
    pointer: str
    fields: tuple[tuple[str, Any], ...]
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListedRecord:
    """A record of a kind that has an index, with the values its index repeats."""

    kind: str
    id: str | None
    path: str
    values: tuple[tuple[str, Any], ...]
    stem: str = ""
    clean: bool = True


@dataclass(frozen=True)
class NoteFacts:
    """A Markdown note's links and id mentions; ``conversation`` scopes ``H-`` ids."""

    path: str
    conversation: str
    note: Note
    append_only: bool = False


@dataclass(frozen=True)
class FileContext:
    """What a per-file check sees: one parsed file and the run's settings."""

    path: str
    kind: Kind
    groups: dict[str, str]
    data: Any
    config: Config
    schemas: SchemaStore
    text: str | None = None


_MISSING = object()


def _value_at(data: Any, steps: tuple[str, ...]) -> Any:
    for step in steps:
        if not isinstance(data, dict) or step not in data:
            return _MISSING
        data = data[step]
    return data


def _may_hold(folder: list[str], layout: list[str], scope: str) -> bool:
    """Whether ``folder`` (path parts) may hold a record kept in folders like ``layout``."""
    for position, part in enumerate(folder):
        if position >= len(layout):
            return False
        expected = layout[position]
        if position == 1 and scope and "<" in expected:
            if part != scope:
                return False
        elif "<" not in expected and part != expected:
            return False
    return True


@dataclass
class RepoIndex:
    """Facts from every file, for the repo-wide checks.

    ``fs`` is where the files were read (None: the disk), which path checks
    ask too; ``history`` tells where the paths of append-only records are
    checked (None: no git).
    """

    root: Path = field(default_factory=lambda: Path("."))
    agent_prefix: str = ""
    config: Config = field(default_factory=Config)
    fs: FileSystem | None = None
    history: Origins | None = None
    folders: set[str] = field(default_factory=set)
    identities: list[Identity] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    paths: list[PathReference] = field(default_factory=list)
    index_entries: list[IndexEntry] = field(default_factory=list)
    index_files: dict[str, str] = field(default_factory=dict)
    index_sizes: dict[str, int] = field(default_factory=dict)
    listed: list[ListedRecord] = field(default_factory=list)
    notes: list[NoteFacts] = field(default_factory=list)
    anchors: dict[str, set[str]] = field(default_factory=dict)
    successors: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    relations: dict[str, dict[str, tuple[str, dict[str, Any]]]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    names: set[tuple[str, str, str]] = field(default_factory=set)
    conversations: dict[str, Conversation] = field(default_factory=dict)
    timed_handoffs: list[TimedHandoff] = field(default_factory=list)
    mission_bindings: list[tuple[str, str, Any]] = field(default_factory=list)
    unparsed_paths: set[str] = field(default_factory=set)
    unclassified_paths: set[str] = field(default_factory=set)
    file_names: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    walked: set[str] = field(default_factory=set)  # files the walk found safe to read
    notes_by_folder: set[str] = field(default_factory=set)
    lookups: int = 0
    shared: dict[str, Any] = field(default_factory=dict)  # helpers the repo checks share
    unlisted: set[str] = field(default_factory=set)  # folders that could not be listed

    def hides(self, path: str) -> bool:
        """Whether the repository path ``path`` lies in a folder that could not be listed."""
        return any(path == folder or path.startswith(f"{folder}/") for folder in self.unlisted)

    def partly_unknown(self, folder: str) -> bool:
        """Whether ``folder``, a folder above it or one inside it could not be listed."""
        return self.hides(folder) or any(f.startswith(f"{folder}/") for f in self.unlisted)

    def may_hide(self, namespace: str, scope: str = "") -> bool:
        """Whether a folder that could not be listed may hold records of ``namespace``.

        Compared with where the kinds of that namespace keep their records
        (their example path): the top folder, the scope folder (a conversation
        or mission) and any fixed folder below it. Nothing is concluded missing
        that such a folder may hold.
        """
        if not self.unlisted:
            return False
        prefix = f"{self.agent_prefix}/" if self.agent_prefix else ""
        for folder in self.unlisted:
            inner = folder.removeprefix(prefix) if folder != self.agent_prefix else ""
            parts = inner.split("/") if inner else []
            for kind in KINDS:
                if kind.namespace != namespace:
                    continue
                layout = kind.example.split("/")[:-1]
                if _may_hold(parts, layout, scope):
                    return True
        return False

    def conversation(self, name: str) -> Conversation:
        """The facts of conversation ``name`` (created on first use)."""
        if name not in self.conversations:
            prefix = f"{self.agent_prefix}/" if self.agent_prefix else ""
            self.conversations[name] = Conversation(name, f"{prefix}conversations/{name}")
        return self.conversations[name]

    def add_present(self, path: str, kind: Kind, groups: dict[str, str], parsed: bool) -> None:
        """Note a classified file, parsed or not: names, and which conversation files exist."""
        self.add_name(kind, groups)
        if not parsed:
            self.unparsed_paths.add(path)
        if kind.format is Format.MARKDOWN:
            self.notes_by_folder.add(path.removesuffix(".md"))
        mission = groups.get("mission")
        if mission is not None:
            # Mission Lite: the folder is the mission, with or without mission.json.
            self.names.add(("mission", "", mission))
        name = groups.get("conversation")
        if name is None:
            return
        conversation = self.conversation(name)
        if kind.name == "conversation-handoff":
            conversation.handoff_files.append((handoff_number(groups["stem"]), path))
            if not parsed:
                conversation.broken.add(path)
        elif kind.name == "handoff-note":
            conversation.notes.add(groups["stem"])
        elif kind.name == "turn" and (number := turn_number(groups["stem"])) is not None:
            conversation.turn_files.append((number, path))
        elif kind.name == "handoff-state":
            conversation.state_path = path
            conversation.state_exists = True
        elif kind.name == "conversation":
            conversation.meta_path = path
        elif kind.name == "resume-marker":
            conversation.resume_path = path

    def _add_conversation_facts(self, ctx: FileContext, clean: bool) -> None:
        kind, data, groups = ctx.kind, ctx.data, ctx.groups
        if kind.name == "validation-contract":
            self.mission_bindings.append((ctx.path, groups["mission"], data.get("mission_id")))
            return
        if kind.name in ("project-handoff", "mission-handoff"):
            folder = ctx.path.rsplit("/", 1)[0]
            handoff_id = data.get("handoff_id")
            self.timed_handoffs.append(
                TimedHandoff(
                    folder,
                    handoff_id if isinstance(handoff_id, str) else groups["stem"],
                    ctx.path,
                    data.get("produced_at"),
                    groups.get("mission"),
                    data.get("mission_id"),
                )
            )
            return
        name = groups.get("conversation")
        if name is None:
            return
        conversation = self.conversation(name)
        if kind.name == "conversation-handoff":
            conversation.handoffs.append(handoff_from(ctx.path, groups["stem"], data, clean))
            if not clean:
                conversation.broken.add(ctx.path)
        elif kind.name == "turn" and (number := turn_number(groups["stem"])) is not None:
            conversation.turns.append(Turn(number, ctx.path, data.get("timestamp")))
        elif kind.name == "conversation":
            conversation.meta = {
                key: data[key]
                for key in ("handoffs", "active_agent", "turn_count", "state")
                if key in data
            }
        elif kind.name == "handoff-state":
            conversation.state = data
        elif kind.name == "resume-marker":
            conversation.resume_handoff = data.get("handoff_id")

    def add_name(self, kind: Kind, groups: dict[str, str]) -> None:
        """Register the id a record's file or folder name stands for.

        References resolve against names as well as ids, so a record whose id is
        wrong or that does not parse is reported once, not again by every
        reference to it. ``D-001-storage.json`` stands for ``D-001-storage`` and
        ``D-001``.
        """
        name = groups.get(kind.folder or "stem")
        if kind.namespace is None or not name:
            return
        scope = groups.get(kind.scope, "") if kind.scope else ""
        self.names.add((kind.namespace, scope, name))
        if kind.name_rule is NameRule.TIMED and not name.startswith("H-"):
            self.names.add((kind.namespace, scope, f"H-{name}"))
        if kind.name_rule is NameRule.SLUG:
            for stem in slug_stems(name):
                self.names.add((kind.namespace, scope, stem))

    def add_file(self, ctx: FileContext, clean: bool = True) -> None:
        """Record what the repo-wide checks need from one parsed file.

        ``clean`` tells whether the file had error findings of its own; facts
        of an unclean handoff are not used to judge other files.
        """
        kind, data = ctx.kind, ctx.data
        if kind.format is Format.MARKDOWN:
            self._add_note(ctx)
            return
        if not isinstance(data, dict):
            return
        self._add_identities(ctx)
        self._add_conversation_facts(ctx, clean)
        conversation = ctx.groups.get("conversation", "")
        for ref in kind.refs:
            scope = {Scope.REPO: "", Scope.CONVERSATION: conversation, Scope.RECORD: ctx.path}[
                ref.scope
            ]
            for pointer, value in walk_field(data, ref.field):
                if isinstance(value, str) and value:
                    self.references.append(
                        Reference(
                            ref.namespace, scope, value, ctx.path, pointer, field_text(ref.field)
                        )
                    )
        append_only = kind.history is History.APPEND_ONLY
        for fields, strict_only in ((kind.paths, False), (kind.strict_paths, True)):
            for steps in fields:
                for pointer, value in walk_field(data, steps):
                    if isinstance(value, str) and value:
                        self.paths.append(
                            PathReference(
                                value,
                                ctx.path,
                                pointer,
                                field_text(steps),
                                append_only,
                                strict_only,
                            )
                        )
        if kind.index is not None:
            self._add_index(ctx)
        listing = INDEX_OF.get(kind.name)
        if listing is not None and listing.index is not None:
            record_id = data.get(kind.id_field) if kind.id_field else None
            values = tuple(
                (name, value)
                for name, steps in listing.index.fields
                if (value := _value_at(data, steps)) is not _MISSING
            )
            self.listed.append(
                ListedRecord(
                    kind.name,
                    record_id if isinstance(record_id, str) else None,
                    ctx.path,
                    values,
                    ctx.groups.get("stem", ""),
                    clean,
                )
            )
        if kind.name == "decision":
            successor = data.get("superseded_by_decision_id")
            own = data.get("decision_id")
            if isinstance(successor, str) and isinstance(own, str):
                self.successors[own] = (successor, ctx.path, "/superseded_by_decision_id")
        if kind.name == "relations":
            self.relations[conversation]["yaml"] = (ctx.path, data)
        elif kind.name == "conversation":
            relations = data.get("relations")
            self.relations[conversation]["meta"] = (
                ctx.path,
                relations if isinstance(relations, dict) else {},
            )

    def _add_identities(self, ctx: FileContext) -> None:
        kind, data = ctx.kind, ctx.data
        if kind.id_field and kind.namespace:
            value = data.get(kind.id_field)
            if isinstance(value, str):
                scope = ctx.groups.get(kind.scope, "") if kind.scope else ""
                self.identities.append(
                    Identity(
                        kind.namespace, scope, value, ctx.path, f"/{kind.id_field}", kind.title
                    )
                )
        for sub in kind.sub_ids:
            entries = data.get(sub.array)
            if not isinstance(entries, list):
                continue
            for position, entry in enumerate(entries):
                if isinstance(entry, dict) and isinstance(entry.get(sub.id_field), str):
                    self.identities.append(
                        Identity(
                            sub.namespace,
                            ctx.path,
                            entry[sub.id_field],
                            ctx.path,
                            f"/{sub.array}/{position}/{sub.id_field}",
                            sub.title,
                        )
                    )

    def _add_index(self, ctx: FileContext) -> None:
        spec = ctx.kind.index
        assert spec is not None
        self.index_files[spec.kind] = ctx.path
        entries = ctx.data.get(spec.array)
        if not isinstance(entries, list):
            return
        self.index_sizes[ctx.path] = len(entries)
        for position, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            record_id = entry.get(spec.id_field)
            record_path = entry.get("path")
            repeated = tuple((name, entry[name]) for name, _ in spec.fields if name in entry)
            self.index_entries.append(
                IndexEntry(
                    spec.kind,
                    record_id if isinstance(record_id, str) else None,
                    record_path if isinstance(record_path, str) else None,
                    ctx.path,
                    f"/{spec.array}/{position}",
                    repeated,
                    tuple(name for name in spec.strict_required if name not in entry),
                )
            )

    def _add_note(self, ctx: FileContext) -> None:
        if ctx.text is None:
            return
        note = scan(ctx.text)
        self.anchors[ctx.path] = note.anchors
        conversation = ctx.groups.get("conversation", "")
        self.notes.append(
            NoteFacts(ctx.path, conversation, note, ctx.kind.history is History.APPEND_ONLY)
        )
