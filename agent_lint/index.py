"""The compact repository index built during the one pass over files.

Per-file checks see a file's parsed data; repo-wide checks see only this
index: identities, references with their positions, index entries, the few
record fields index files repeat, and what Markdown notes link to. Parsed
documents are dropped as soon as their file has been checked.
"""

from __future__ import annotations

import functools
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from agent_lint.config import Config
from agent_lint.frozen import field, record
from agent_lint.jsontext import escape_token
from agent_lint.kinds import EACH, Format, History, Kind, Match, NameRule, Namespace, Scope
from agent_lint.markdown import Note, scan
from agent_lint.schemas import SchemaStore

if TYPE_CHECKING:
    from agent_lint.filesystem import FileSystem, Origins
    from agent_lint.gitignored import GitIgnores
    from agent_lint.profile import Profile


def walk_field(data: Any, steps: tuple[str, ...], pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Yield ``(pointer, value)`` for every value a field spec reaches in ``data``.

    The reference form of :func:`field_values`, which the per-file step uses.
    """
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


@functools.cache
def _field_plan(steps: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    """Each step of a field spec with its pointer token (None for an array's items)."""
    return tuple((step, None if step == EACH else f"/{escape_token(step)}") for step in steps)


def field_values(data: Any, steps: tuple[str, ...]) -> list[tuple[str, Any]]:
    """``(pointer, value)`` of every value a field spec reaches in ``data``, in document order.

    The same values as :func:`walk_field`, found level by level with plain
    loops: each level keeps its nodes in order, so the last level lists the
    values in the order a depth-first walk yields them.
    """
    level: list[tuple[str, Any]] = [("", data)]
    for step, token in _field_plan(steps):
        reached: list[tuple[str, Any]] = []
        if token is None:
            for pointer, node in level:
                if isinstance(node, list):
                    reached.extend((f"{pointer}/{n}", item) for n, item in enumerate(node))
        else:
            for pointer, node in level:
                if isinstance(node, dict) and step in node:
                    reached.append((pointer + token, node[step]))
        if not reached:
            return reached
        level = reached
    return level


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


@functools.cache
def field_text(steps: tuple[str, ...]) -> str:
    """A field spec as written in messages: ``milestones[].depends_on[]`` (one string per spec)."""
    return ".".join(steps).replace(f".{EACH}", EACH)


class Identity(NamedTuple):
    """One record id: which namespace and scope it lives in, and where it is written."""

    namespace: str
    scope: str
    id: str
    path: str
    pointer: str
    title: str


class Reference(NamedTuple):
    """An id written in a reference field, to be resolved in ``namespace``/``scope``."""

    namespace: str
    scope: str
    value: str
    path: str
    pointer: str
    field: str


class PathReference(NamedTuple):
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


class IndexEntry(NamedTuple):
    """One entry of an index file, with the fields it repeats from its record."""

    record_kind: str
    id: str | None
    record_path: str | None
    path: str
    pointer: str
    fields: tuple[tuple[str, Any], ...]
    missing: tuple[str, ...] = ()


class ListedRecord(NamedTuple):
    """A record of a kind that has an index, with the values its index repeats."""

    kind: str
    id: str | None
    path: str
    values: tuple[tuple[str, Any], ...]
    stem: str = ""
    clean: bool = True


class NoteFacts(NamedTuple):
    """A Markdown note's links and id mentions; ``conversation`` scopes ``H-`` ids."""

    path: str
    conversation: str
    note: Note
    append_only: bool = False


class FileContext(NamedTuple):
    """What a per-file check sees: one parsed file and the run's settings.

    ``path`` is relative to the repository root, ``relpath`` to the store.
    """

    path: str
    kind: Kind
    groups: dict[str, str]
    data: Any
    config: Config
    schemas: SchemaStore
    text: str | None = None
    relpath: str = ""
    profile: Profile | None = None


class FileFacts(NamedTuple):
    """Everything the repo-wide checks learn from one file: small frozen values.

    Built by :func:`present_facts` and :func:`file_facts`, which read nothing
    but their arguments, and merged into a :class:`RepoIndex` by
    :meth:`RepoIndex.add`. ``extra`` holds the facts of the profile's
    collectors. A named tuple: immutable, picklable, and cheap to build once
    per file.
    """

    path: str
    names: tuple[tuple[str, str, str], ...] = ()
    parsed: bool = True
    note_folder: str | None = None
    identities: tuple[Identity, ...] = ()
    references: tuple[Reference, ...] = ()
    paths: tuple[PathReference, ...] = ()
    index_file: tuple[str, str] | None = None
    index_size: int | None = None
    index_entries: tuple[IndexEntry, ...] = ()
    listed: ListedRecord | None = None
    note: NoteFacts | None = None
    extra: tuple[object, ...] = ()


_MISSING = object()
intern = sys.intern


def _shared(value: Any) -> Any:
    """``value``, a string interned: an index repeats its records' values, kept once."""
    return intern(value) if type(value) is str else value


def _value_at(data: Any, steps: tuple[str, ...]) -> Any:
    for step in steps:
        if not isinstance(data, dict) or step not in data:
            return _MISSING
        data = data[step]
    return data


def _names(profile: Profile, match: Match) -> Iterator[tuple[str, str, str]]:
    """The ids a record's file or folder name stands for (see :meth:`RepoIndex.add`).

    References resolve against names as well as ids, so a record whose id is
    wrong or that does not parse is reported once, not again by every
    reference to it. ``D-001-storage.json`` stands for ``D-001-storage`` and
    ``D-001``; a folder group the profile names (a mission folder) stands for
    its record even without the record file.
    """
    kind, groups = match.kind, match.groups
    for group, namespace in profile.named_groups.items():
        value = groups.get(group)
        if value is not None:
            yield (namespace, "", value)
    name = groups.get(kind.folder or "stem")
    if kind.namespace is None or not name:
        return
    scope = groups.get(kind.scope, "") if kind.scope else ""
    yield (kind.namespace, scope, name)
    if kind.name_rule is NameRule.TIMED and not name.startswith(kind.timed_prefix):
        yield (kind.namespace, scope, kind.timed_prefix + name)
    if kind.name_rule is NameRule.SLUG:
        for stem in slug_stems(name):
            yield (kind.namespace, scope, stem)


def _path_facts(
    profile: Profile, path: str, relpath: str, match: Match, parsed: bool
) -> tuple[tuple[tuple[str, str, str], ...], str | None, list[object]]:
    """The names, note folder and collectors' facts of a file's path (:func:`present_facts`)."""
    extra: list[object] = []
    for collector in profile.collectors:
        extra.extend(collector.present(path, relpath, match, parsed))
    folder = path.removesuffix(".md") if match.kind.format is Format.MARKDOWN else None
    return tuple(_names(profile, match)), folder, extra


def present_facts(
    profile: Profile, path: str, relpath: str, match: Match, parsed: bool
) -> FileFacts:
    """What a classified file tells by its path alone, read or not (a pure step)."""
    names, folder, extra = _path_facts(profile, path, relpath, match, parsed)
    return FileFacts(path, names, parsed, folder, extra=tuple(extra))


def file_facts(profile: Profile, ctx: FileContext, clean: bool = True) -> FileFacts:
    """What the repo-wide checks need from one parsed file (a pure step).

    ``clean`` tells whether the file had error findings of its own; facts of
    an unclean record are not used to judge other files. The facts of its
    path (:func:`present_facts`) are part of them: one file, one set of facts.
    """
    kind, data, path = ctx.kind, ctx.data, ctx.path
    names, folder, extra = _path_facts(profile, path, ctx.relpath, Match(kind, ctx.groups), True)
    note = _note(ctx) if kind.format is Format.MARKDOWN else None
    if not isinstance(data, dict):
        return FileFacts(path, names, True, folder, note=note, extra=tuple(extra))
    references = []
    for ref in kind.refs:
        steps = ref.field
        if not steps or steps[0] not in data:  # absent: nothing to walk
            continue
        scope, text = _scope(ref.scope, ctx), ""
        for pointer, value in field_values(data, steps):
            if isinstance(value, str) and value:
                text = text or field_text(steps)
                # Interned: the same ids and pointers recur in thousands of files.
                references.append(
                    Reference(ref.namespace, scope, intern(value), path, intern(pointer), text)
                )
    append_only = kind.history is History.APPEND_ONLY
    paths = []
    for fields, strict_only in ((kind.paths, False), (kind.strict_paths, True)):
        for steps in fields:
            if not steps or steps[0] not in data:
                continue
            text = ""
            for pointer, value in field_values(data, steps):
                if isinstance(value, str) and value:
                    text = text or field_text(steps)
                    paths.append(
                        PathReference(
                            intern(value), path, intern(pointer), text, append_only, strict_only
                        )
                    )
    index_file, index_size, entries = _index(ctx) if kind.index is not None else (None, None, ())
    for collector in profile.collectors:
        extra.extend(collector.collect(ctx, clean))
    return FileFacts(
        path,
        names,
        True,
        folder,
        tuple(_identities(ctx)) if kind.namespace or kind.sub_ids else (),
        tuple(references),
        tuple(paths),
        index_file,
        index_size,
        entries,
        _listed(profile, ctx, clean),
        note,
        tuple(extra),
    )


def _scope(scope: Scope, ctx: FileContext) -> str:
    """The scope value of a reference: none, the record itself, or a path group's value."""
    if scope is Scope.REPO:
        return ""
    if scope is Scope.RECORD:
        return ctx.path
    return ctx.groups.get(scope.value, "")


def _identities(ctx: FileContext) -> Iterator[Identity]:
    kind, data = ctx.kind, ctx.data
    if kind.id_field and kind.namespace:
        value = data.get(kind.id_field)
        if _is_id(value, kind):
            scope = ctx.groups.get(kind.scope, "") if kind.scope else ""
            yield Identity(
                kind.namespace, scope, str(value), ctx.path, f"/{kind.id_field}", kind.title
            )
    for sub in kind.sub_ids:
        entries = data.get(sub.array)
        if not isinstance(entries, list):
            continue
        for position, entry in enumerate(entries):
            if isinstance(entry, dict) and isinstance(entry.get(sub.id_field), str):
                yield Identity(
                    sub.namespace,
                    ctx.path,
                    entry[sub.id_field],
                    ctx.path,
                    f"/{sub.array}/{position}/{sub.id_field}",
                    sub.title,
                )


def _is_id(value: Any, kind: Kind) -> bool:
    """A string id, or an integer one for a kind with integer ids (``true`` is not one)."""
    if isinstance(value, str):
        return True
    return kind.integer_id and isinstance(value, int) and not isinstance(value, bool)


def _index(
    ctx: FileContext,
) -> tuple[tuple[str, str] | None, int | None, tuple[IndexEntry, ...]]:
    """An index file's entries: an array of entries, or an object keyed by id.

    Its size is None when it is no listing to judge omissions by: the array is
    missing or not one, or an entry names neither an id nor a path (which record
    it meant is unknown; its own findings say what is wrong).
    """
    spec = ctx.kind.index
    if spec is None:
        return None, None, ()
    owner = (spec.kind, ctx.path)
    entries: Any = ctx.data.get(spec.array) if spec.array else ctx.data
    if isinstance(entries, dict) and not spec.array:
        items = [(f"/{escape_token(key)}", key, entry) for key, entry in entries.items()]
    elif isinstance(entries, list):
        array = escape_token(spec.array)
        items = [(f"/{array}/{position}", None, entry) for position, entry in enumerate(entries)]
    else:
        return owner, None, ()
    found = []
    readable = True
    for pointer, key, entry in items:
        if not isinstance(entry, dict):
            readable = False
            continue
        record_id = key if key is not None else entry.get(spec.id_field)
        record_path = entry.get("path")
        readable = readable and (isinstance(record_id, str) or isinstance(record_path, str))
        repeated = tuple((name, _shared(entry[name])) for name, _ in spec.fields if name in entry)
        found.append(
            IndexEntry(
                spec.kind,
                record_id if isinstance(record_id, str) else None,
                record_path if isinstance(record_path, str) else None,
                ctx.path,
                pointer,
                repeated,
                tuple(name for name in spec.strict_required if name not in entry),
            )
        )
    return owner, len(items) if readable else None, tuple(found)


def _listed(profile: Profile, ctx: FileContext, clean: bool) -> ListedRecord | None:
    """A record of a kind some index lists, with the values that index repeats."""
    kind, data = ctx.kind, ctx.data
    listing = profile.index_of(kind.name)
    if listing is None or listing.index is None:
        return None
    record_id = data.get(kind.id_field) if kind.id_field else None
    values = tuple(
        (name, _shared(value))
        for name, steps in listing.index.fields
        if (value := _value_at(data, steps)) is not _MISSING
    )
    return ListedRecord(
        kind.name,
        str(record_id) if _is_id(record_id, kind) else None,
        ctx.path,
        values,
        ctx.groups.get(kind.folder or "stem", ""),
        clean,
    )


def _note(ctx: FileContext) -> NoteFacts | None:
    if ctx.text is None:
        return None
    return NoteFacts(
        ctx.path,
        ctx.groups.get(Scope.CONVERSATION.value, ""),
        scan(ctx.text),
        ctx.kind.history is History.APPEND_ONLY,
    )


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


S = TypeVar("S")


@record
class RepoIndex:
    """Facts from every file, for the repo-wide checks.

    ``fs`` is where the files were read (None: the disk), which path checks
    ask too; ``history`` tells where the paths of append-only records are
    checked (None: no git). Generic facts are fields; a profile's own facts
    live in typed stores its collectors fill (:meth:`store`).
    """

    root: Path = field(default_factory=lambda: Path("."))
    agent_prefix: str = ""
    config: Config = field(default_factory=Config)
    fs: FileSystem | None = None
    history: Origins | None = None
    profile: Profile | None = None
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
    names: set[tuple[str, str, str]] = field(default_factory=set)
    unparsed_paths: set[str] = field(default_factory=set)
    unclassified_paths: set[str] = field(default_factory=set)
    #: Records kept under a name no kind matches, by the name their AL205 gives them: each
    #: stands for that record (see :func:`agent_lint.linter._stand_ins`).
    stand_ins: dict[str, str] = field(default_factory=dict)
    file_names: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    walked: set[str] = field(default_factory=set)  # files the walk found safe to read
    notes_by_folder: set[str] = field(default_factory=set)
    lookups: int = 0
    stores: dict[type, object] = field(default_factory=dict, repr=False)
    unlisted: set[str] = field(default_factory=set)  # folders that could not be listed
    #: Merged append-only files the change under ``--base`` modified, deleted or renamed:
    #: ``--fix`` derives nothing from what they hold now.
    history_edited: set[str] = field(default_factory=set)
    #: Whether git's ignore rules exclude a path of the root (None: no rule applies).
    git_ignores: GitIgnores | None = field(default=None, repr=False)
    #: Files records or notes name that git ignores, left unjudged (a notice counts them).
    ignored_targets: set[str] = field(default_factory=set, repr=False)

    def in_repository(self, path: str) -> str:
        """``path``, a path a record names, as this repository holds it.

        Writers name files from the root of the repository that holds ``.agent/``
        (``.agent/decisions/D-1.json``). A store committed as its own repository (the
        agent dir is the root; one with a ``.agent/`` folder would have been its agent
        dir) holds that file at ``decisions/D-1.json``; a store kept deeper by the
        ``agent-dir`` setting (``services/pay/.agent``) holds it at
        ``services/pay/.agent/decisions/D-1.json``.
        """
        if not path.startswith(".agent/"):
            return path
        if not self.agent_prefix:
            return path[len(".agent/") :]
        if self.agent_prefix.endswith("/.agent"):
            # ``agent-dir = "services/pay/.agent"``: its writers name files from the folder
            # that holds it, as a run on ``services/pay`` reads them.
            return f"{self.agent_prefix}/{path[len('.agent/') :]}"
        return path

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
            for kind in self.profile.kinds if self.profile is not None else ():
                if kind.namespace != namespace:
                    continue
                layout = kind.example.split("/")[:-1]
                if _may_hold(parts, layout, scope):
                    return True
        return False

    def store(self, kind: type[S]) -> S:
        """The run's store of type ``kind`` (created empty on first use)."""
        found = self.stores.get(kind)
        if found is None:
            found = self.stores[kind] = kind()
        return found  # type: ignore[return-value]

    @property
    def namespaces(self) -> Mapping[str, Namespace]:
        """The id namespaces of the run's profile."""
        return self.profile.namespaces if self.profile is not None else {}

    def add(self, facts: FileFacts) -> None:
        """Merge one file's facts (from :func:`present_facts` or :func:`file_facts`)."""
        self.names.update(facts.names)
        if not facts.parsed:
            self.unparsed_paths.add(facts.path)
        if facts.note_folder is not None:
            self.notes_by_folder.add(facts.note_folder)
        self.identities.extend(facts.identities)
        self.references.extend(facts.references)
        self.paths.extend(facts.paths)
        if facts.index_file is not None:
            self.index_files[facts.index_file[0]] = facts.index_file[1]
            if facts.index_size is not None:
                self.index_sizes[facts.path] = facts.index_size
        self.index_entries.extend(facts.index_entries)
        if facts.listed is not None:
            self.listed.append(facts.listed)
        if facts.note is not None:
            self.anchors[facts.path] = facts.note.note.anchors
            self.notes.append(facts.note)
        if facts.extra and self.profile is not None:
            for collector in self.profile.collectors:
                store = self.store(collector.store)
                for fact in facts.extra:
                    collector.merge(store, fact)
