"""A profile: one layout of agent state in files, as a value the engine is given.

The engine (discovery, loading, the lint pass, the index, the gate, the
reporters) knows no layout by name. Everything that makes a layout what it is
lives in one :class:`Profile`: how its store is recognised (markers), its
record kinds and id namespaces, the folders that hold records, the checks and
fixers that apply, what the job summary shows for it, and its pre-commit
hooks. Built-in profiles are registered in :mod:`agent_lint.profiles`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_lint.config import ConfigError, UserIndex, UserKind
from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.frozen import field, frozen, replace
from agent_lint.kinds import (
    Format,
    History,
    IndexSpec,
    Kind,
    Match,
    NameRule,
    Namespace,
    PathPattern,
    Ref,
    spec,
    whole,
)
from agent_lint.schemas import LinearPattern, check_pattern, pattern_search

if TYPE_CHECKING:
    from agent_lint.fixer import Blocked, Edit
    from agent_lint.index import FileContext, RepoIndex
    from agent_lint.result import LintResult
    from agent_lint.validators import FileCheck, RepoCheck


@frozen(repr=False)
class Marker:
    """A place where a profile's store may sit, and what must be found there.

    ``store`` is the store's folder relative to the folder searched (``""``:
    that folder itself). Entries are relative to the store; a name ending in
    ``/`` is a folder, any other a file. Every ``all_of`` entry must exist, at
    least one ``any_of`` entry (when there are any), and no ``none_of`` entry.
    A marker with no entries asks only that the store folder exists.
    """

    store: str
    all_of: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    none_of: tuple[str, ...] = ()

    def holds_in(self, store: Path) -> bool:
        """Whether ``store`` (an existing folder or not) satisfies this marker."""
        return store.is_dir() and self.holds(lambda entry: _exists(store, entry))

    def holds(self, exists: Callable[[str], bool]) -> bool:
        """Whether the entries ``exists`` reports (relative to the store) satisfy this marker."""
        if not all(exists(entry) for entry in self.all_of):
            return False
        if self.any_of and not any(exists(entry) for entry in self.any_of):
            return False
        return not any(exists(entry) for entry in self.none_of)

    def describe(self) -> str:
        """The marker in words, for messages: ``.astrion/ with state.json and conversations/``."""
        where = f"{self.store}/" if self.store else "a folder"
        parts = []
        if self.all_of:
            parts.append("with " + " and ".join(self.all_of))
        if self.any_of:
            parts.append("holding one of " + ", ".join(self.any_of))
        if self.none_of:
            parts.append("without " + ", ".join(self.none_of))
        return " ".join([where, *parts])


def _exists(store: Path, entry: str) -> bool:
    if entry.endswith("/"):
        return (store / entry.rstrip("/")).is_dir()
    return (store / entry).is_file()


@frozen(repr=False)
class Hook:
    """A pre-commit hook of the profile: its id and the ``files`` pattern it runs on."""

    id: str
    files: str


class Collector(Protocol):
    """Gathers a profile's own facts in the one pass, beside the checks that use them.

    ``present`` and ``collect`` are pure: they see one file and return small
    frozen facts; ``merge`` adds a fact to the collector's typed store on the
    index (``index.store(collector.store)``), which repo-wide checks read.
    """

    @property
    def store(self) -> type[Any]:
        """The type of the store this collector fills (created empty per run)."""
        ...

    def present(self, path: str, relpath: str, match: Match, parsed: bool) -> Iterable[object]:
        """Facts from a classified file's path alone (read or not); ``relpath`` is in the store."""
        ...

    def collect(self, ctx: FileContext, clean: bool) -> Iterable[object]:
        """Facts from a parsed record; ``clean`` when it has no error of its own."""
        ...

    def merge(self, store: Any, fact: object) -> None:
        """Add one fact to the store."""
        ...


#: Plans what ``--fix`` writes for a profile: edits, and writes it cannot make.
Fixer = Callable[["RepoIndex", bool], tuple[list["Edit"], list["Blocked"]]]
#: Renders the profile's own sections of the job summary (Markdown blocks).
SummarySection = Callable[["LintResult", "RepoIndex"], Iterable[str]]
#: Whether one classified file shows that the store keeps this profile's state.
Signature = Callable[[Match, str, Any], bool]


@frozen
class AsMerged:
    """What some of a profile's checks find once the merged files a change modified,
    deleted or renamed are restored: the findings they make in ``folders`` with
    ``codes``. A finding of the change that is not among them is what its edit to merged
    history causes (see :data:`Restore`)."""

    folders: tuple[str, ...]
    codes: frozenset[str]
    findings: tuple[Diagnostic, ...]


#: Runs a profile's checks on the repository with merged files restored (their merged
#: bytes by repository path; None: a path the change renamed one to), or None when none of
#: those files is one its checks can restore.
Restore = Callable[["RepoIndex", Mapping[str, "bytes | None"]], AsMerged | None]
#: The findings of a run less those that repeat another one's fact across files the
#: profile knows to copy each other (a mirror of a record's field).
Refine = Callable[[list["Diagnostic"], "RepoIndex"], list["Diagnostic"]]


def _always(match: Match, relpath: str, data: Any) -> bool:
    return True


@frozen(repr=False)
class Profile:
    """One layout of agent state in files.

    ``kinds`` are matched in order against paths relative to the store.
    ``record_folders`` are the top-level folders of the store that hold
    records: a data file under one of them that matches no kind is reported
    (AL205), and a path under one of them names the whole store. ``named_groups``
    maps a path group to the namespace whose record its folder names (a
    mission folder names a mission even without ``mission.json``).
    ``signature`` tells whether a file shows the profile's state; a store with
    no such file is another design and gets one notice. ``rules`` are codes the
    profile defines beyond the shared families of :mod:`agent_lint.validators`.
    ``walk_folders``, when given, are the only folders of the store that are
    walked (a store that is the whole repository keeps its records in a few).
    Record folders may be nested (``.pi/pbot``). ``unread_reasons`` say why
    files under a path prefix are not read (for ``--show-files``).
    ``checksum_line``, when set, prints the checksum a record file should
    carry (``--print-checksum``). ``restore``, when set, runs the checks a
    change to merged history can set off on the repository with it undone.
    ``refine``, when set, drops the findings that restate another's fact in a file
    that copies it (one fact, one finding), after the shared passes that do so.
    """

    name: str
    title: str
    description: str
    markers: tuple[Marker, ...]
    kinds: tuple[Kind, ...]
    namespaces: Mapping[str, Namespace]
    record_folders: frozenset[str]
    schema_folder: str
    file_checks: tuple[FileCheck, ...] = ()
    repo_checks: tuple[RepoCheck, ...] = ()
    collectors: tuple[Collector, ...] = ()
    fixers: tuple[Fixer, ...] = ()
    summary: tuple[SummarySection, ...] = ()
    hooks: tuple[Hook, ...] = ()
    support_files: tuple[tuple[re.Pattern[str], str], ...] = ()
    named_groups: Mapping[str, str] = field(default_factory=dict)
    signature: Signature = _always
    rules: tuple[Rule, ...] = ()
    data_suffixes: tuple[str, ...] = (".json", ".yaml", ".yml")
    walk_folders: tuple[str, ...] = ()
    unread_reasons: tuple[tuple[str, str], ...] = ()
    checksum_line: Callable[[Path], str] | None = None
    restore: Restore | None = None
    refine: Refine | None = None

    def kind(self, name: str) -> Kind:
        """The kind called ``name`` (KeyError when the profile has none)."""
        return self._by_name[name]

    def index_of(self, record_kind: str) -> Kind | None:
        """The index kind that lists records of ``record_kind``, if any."""
        return self._indexes.get(record_kind)

    @functools.cached_property
    def _by_name(self) -> dict[str, Kind]:
        return {kind.name: kind for kind in self.kinds}

    @functools.cached_property
    def _indexes(self) -> dict[str, Kind]:
        return {kind.index.kind: kind for kind in self.kinds if kind.index is not None}

    def support_file(self, relpath: str) -> str | None:
        """Why the file at ``relpath`` is not a record although it sits among them, if so."""
        name = relpath.rsplit("/", 1)[-1]
        for pattern, reason in self.support_files:
            if pattern.fullmatch(name):
                return reason
        return None

    def classify(self, relpath: str) -> Match | None:
        """The kind of the file at ``relpath`` (relative to the store), or None."""
        if relpath.endswith(".json") and self.support_file(relpath):
            return None
        by_top, anywhere = self._kinds_by_top
        for kind in by_top.get(relpath.split("/", 1)[0], anywhere):
            m = kind.path.match(relpath)
            if m:
                groups = m.groupdict()
                if None in groups.values():
                    groups = {k: v for k, v in groups.items() if v is not None}
                return Match(kind, groups)
        return None

    @functools.cached_property
    def _kinds_by_top(self) -> tuple[dict[str, tuple[Kind, ...]], tuple[Kind, ...]]:
        """The kinds a path may be of, in order, by its first folder; and those of any path.

        A kind whose pattern is a plain sequence (no ``|``, case kept) that
        begins with a literal folder (``decisions/``) matches only paths in it;
        every other kind is tried on every path.
        """
        tops = [_literal_top(kind.path) for kind in self.kinds]
        pairs = list(zip(self.kinds, tops, strict=True))
        anywhere = tuple(kind for kind, top in pairs if top is None)
        folders = {top for top in tops if top is not None}
        by_top = {
            folder: tuple(kind for kind, top in pairs if top in (None, folder))
            for folder in folders
        }
        return by_top, anywhere

    def in_record_folder(self, relpath: str) -> bool:
        """True when ``relpath`` lies under one of the record folders."""
        if "/" not in relpath:
            return False
        if relpath.split("/", 1)[0] in self.record_folders:
            return True
        return any(relpath.startswith(f"{folder}/") for folder in self._nested_folders)

    @functools.cached_property
    def _nested_folders(self) -> tuple[str, ...]:
        return tuple(folder for folder in self.record_folders if "/" in folder)

    def is_data_file(self, relpath: str) -> bool:
        """True for an unclassified JSON/YAML file under a record folder."""
        return (
            self.in_record_folder(relpath)
            and relpath.lower().endswith(self.data_suffixes)
            and self.support_file(relpath) is None
        )

    def data_format(self, relpath: str) -> Format:
        """How an unclassified data file is parsed, by its suffix."""
        return Format.YAML if relpath.lower().endswith((".yaml", ".yml")) else Format.JSON

    def where(self) -> str:
        """Where the profile's store is looked for, in words (for messages)."""
        return "; or ".join(marker.describe() for marker in self.markers)


#: The literal first folder of a compiled path pattern (see :func:`agent_lint.kinds.whole`).
_LITERAL_TOP = re.compile(r"\^\(\?:([A-Za-z0-9_-]+)/")


def _literal_top(path: PathPattern) -> str | None:
    """The folder every path ``path`` matches starts in, when its pattern says so plainly."""
    if "|" in path.pattern or path.flags & re.IGNORECASE:
        return None
    literal = _LITERAL_TOP.match(path.pattern)
    return None if literal is None else literal.group(1)


def compile_path(pattern: str) -> re.Pattern[str] | GuardedPath:
    """A kind's path pattern as a regular expression.

    ``{name}`` captures one path segment as the group ``name``; ``*`` matches
    within a segment, ``?`` one character, ``**`` any number of folders;
    anything else is literal. A pattern with two wildcards in one name is a
    :class:`GuardedPath`.
    """
    out, linear = [], []
    guarded = False
    parts = pattern.split("/")
    for position, part in enumerate(parts):
        last = position == len(parts) - 1
        if part == "**":
            out.append("(?:[^/]+/)*" if not last else ".*")
            linear.append(out[-1])
            continue
        text = plain = ""
        tokens = re.split(r"(\{[^{}]*\}|\*|\?)", part)
        guarded = guarded or sum(t == "*" or t.startswith("{") for t in tokens if t) > 1
        for token in tokens:
            if token == "*":
                text, plain = text + "[^/]*", plain + "[^/]*"
            elif token == "?":
                text, plain = text + "[^/]", plain + "[^/]"
            elif token.startswith("{") and token.endswith("}"):
                text += f"(?P<{token[1:-1]}>[^/]+)"
                plain += "[^/]+"
            else:
                text += re.escape(token)
                plain += _LINEAR_SPECIAL.sub(r"\\\g<0>", token)
        out.append(text if last else text + "/")
        linear.append(plain if last else plain + "/")
    compiled = whole("".join(out))
    return GuardedPath(compiled, f"^(?:{''.join(linear)})$") if guarded else compiled


#: The characters a literal must escape in a pattern of the linear-time engine.
_LINEAR_SPECIAL = re.compile(r"[\\^$.|?*+()\[\]{}]")


class GuardedPath:
    """A kind's path pattern with two wildcards in one name (``{date}-{slug}.md``), which
    Python's backtracking engine may take quadratic time to reject a long name with: a path
    reaches it only once the linear-time engine of schema patterns says it matches (the
    change under review may write both the pattern and its files' names). Offers what
    classification asks of a compiled pattern: ``match``, ``pattern`` and ``flags``."""

    __slots__ = ("_compiled", "_linear", "flags", "pattern")

    def __init__(self, compiled: re.Pattern[str], linear: str) -> None:
        self._compiled, self._linear = compiled, linear
        self.pattern, self.flags = compiled.pattern, compiled.flags
        check_pattern(linear)

    def match(self, path: str) -> re.Match[str] | None:
        """The match of the whole ``path``, with its groups, or None."""
        if not pattern_search(self._linear, path):
            return None
        return self._compiled.match(path)


_HISTORY = {
    "free": History.FREE,
    "append-only": History.APPEND_ONLY,
    "write-once": History.WRITE_ONCE,
}


def extend(profile: Profile, declared: Sequence[UserKind]) -> Profile:
    """``profile`` with the kinds a configuration declares (``[[kinds]]``), matched first.

    A declared kind may not take the name of one of the profile's kinds, and
    its references must point into a namespace of the profile or of a
    declared kind; both are usage errors naming the key.
    """
    if not declared:
        return profile
    taken = {kind.name for kind in profile.kinds}
    namespaces = dict(profile.namespaces)
    for user in declared:
        if user.name in taken:
            raise ConfigError(
                f"{user.where}.name` {user.name!r} is a kind of the {profile.name} profile; "
                "give the declared kind a name of its own"
            )
        if user.namespace is not None and user.namespace not in namespaces:
            folder = user.path.split("/", 1)[0]
            namespaces[user.namespace] = Namespace(user.title, folder)
    kinds: list[Kind] = []
    folders = set(profile.record_folders)
    names = taken | {user.name for user in declared}
    for user in declared:
        if user.index is not None:
            kinds.append(_index_kind(user, user.index, names))
        for ref in user.references:
            if ref.target not in namespaces:
                known = ", ".join(sorted(namespaces))
                raise ConfigError(
                    f"{ref.where}.target` {ref.target!r} is not a namespace (known: {known})"
                )
        top = user.path.split("/", 1)[0]
        if "/" in user.path and not any(ch in top for ch in "{*?"):
            folders.add(top)
        kinds.append(
            Kind(
                user.name,
                user.title,
                compile_path(user.path),
                Format(user.format),
                schema=f"{USER_SCHEMA}{user.name}" if user.schema is not None else None,
                id_field=user.id_field,
                id_pattern=LinearPattern(user.id_pattern) if user.id_pattern else None,
                name_rule=NameRule(user.name_rule),
                namespace=user.namespace if user.id_field else None,
                scope=user.scope,
                folder="folder" if user.name_rule == "dir" else None,
                refs=tuple(Ref(spec(ref.field), ref.target) for ref in user.references),
                paths=tuple(spec(field) for field in user.paths),
                history=_HISTORY[user.history],
                example=user.path.replace("{", "<").replace("}", ">"),
            )
        )
    return replace(
        profile,
        kinds=(*kinds, *profile.kinds),
        namespaces=namespaces,
        record_folders=frozenset(folders),
    )


def _index_kind(user: UserKind, index: UserIndex, taken: set[str]) -> Kind:
    """The kind of a declared kind's index file (matched before the kind's own records)."""
    name = f"{user.name}-index"
    if name in taken:
        raise ConfigError(
            f"{user.where}.index` would be the kind {name!r}, which the profile already has; "
            "give the declared kind another name"
        )
    return Kind(
        name,
        f"{user.title} index",
        compile_path(index.path),
        Format.JSON,
        example=index.path,
        index=IndexSpec(
            index.entries,
            index.id_field,
            user.name,
            tuple((entry, spec(field)) for entry, field in index.fields),
            by_id=True,
        ),
    )


#: Schemas of declared kinds are named ``kind:<name>`` in the schema store.
USER_SCHEMA = "kind:"


def user_schemas(declared: Sequence[UserKind]) -> dict[str, Path]:
    """The schema files of declared kinds, by the name their kinds ask the store for."""
    return {f"{USER_SCHEMA}{kind.name}": kind.schema for kind in declared if kind.schema}


def rules_of(profiles: Sequence[Profile]) -> tuple[Rule, ...]:
    """Every rule the given profiles define beyond the shared families."""
    return tuple(rule for profile in profiles for rule in profile.rules)
