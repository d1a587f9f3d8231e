"""The vocabulary of the declarative kind registry: path pattern -> kind -> schema -> identity.

A profile (:mod:`agent_lint.profile`) declares its record kinds as a tuple of
:class:`Kind` values. Paths are matched relative to the profile's store (the
agent dir), in POSIX form; the first entry whose pattern matches wins, so more
specific entries come first. Adding a kind is adding an entry to a profile and
its schema in ``schemas/<profile>/``; no check needs to change.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from typing import NamedTuple, Protocol

from agent_lint.frozen import field, frozen

#: The id shape shared by most prefixed record ids (``D-…``, ``WP-…``, ``M-…``).
_SUFFIX = r"[A-Za-z0-9][A-Za-z0-9._-]*"


def whole(pattern: str) -> re.Pattern[str]:
    """Compile a structural pattern: ASCII classes, anchored at both ends of the string.

    ``\\Z`` and not ``$``: Python's ``$`` also matches before a final newline,
    so ``"H-004\\n"`` would pass for ``H-004``.
    """
    return re.compile(rf"^(?:{pattern})\Z", re.ASCII)


class IdPattern(Protocol):
    """What an id pattern offers: a whole-string test and its text (:func:`whole`'s
    compiled patterns, and :class:`agent_lint.schemas.LinearPattern` for user kinds)."""

    @property
    def pattern(self) -> str:
        """The pattern as :func:`whole` writes it."""

    def match(self, text: str, /) -> object:
        """Truthy when ``text`` matches."""


class PathPattern(Protocol):
    """What classification asks of a kind's path pattern: a compiled pattern of
    :func:`whole`, or :class:`agent_lint.profile.GuardedPath` for a user kind's."""

    @property
    def pattern(self) -> str:
        """The pattern as :func:`whole` writes it."""

    @property
    def flags(self) -> int:
        """Its ``re`` flags."""

    def match(self, path: str, /) -> re.Match[str] | None:
        """The match of the whole ``path``, with its groups, or None."""


def shown(pattern: IdPattern) -> str:
    """A pattern of :func:`whole` as users write it: ``^D-[A-Za-z0-9][A-Za-z0-9._-]*$``."""
    text = pattern.pattern
    if text.startswith("^(?:") and text.endswith(")\\Z"):
        return f"^{text[4:-3]}$"
    return text


def prefixed(prefix: str) -> re.Pattern[str]:
    """The id pattern ``<prefix>-`` followed by a safe name (``D-001``, ``WP-release``)."""
    return whole(f"{prefix}-{_SUFFIX}")


class NameRule(str, enum.Enum):
    """How a record's id must relate to its file or folder name."""

    NONE = "none"
    STEM = "stem"  # id == file stem
    DIR = "dir"  # id == the record's folder name
    SLUG = "slug"  # id == stem, or id + "-slug" == stem (configurable: exact|prefix)
    TURN = "turn"  # stem is a 4+ digit number and ``turn`` (if present) equals it
    TIMED = "timed"  # id == stem, or the kind's ``timed_prefix`` + a bare time-named stem


class History(str, enum.Enum):
    """What may happen to a file once a base branch has it (checked with ``--base``)."""

    FREE = "free"
    APPEND_ONLY = "append-only"  # never modified, renamed or deleted; new ones sort last
    WRITE_ONCE = "write-once"  # may go from {"file": null} to a value once, then never changes


class Format(str, enum.Enum):
    """How a file is parsed."""

    JSON = "json"
    YAML = "yaml"
    MARKDOWN = "markdown"


@frozen(repr=False)
class SubId:
    """Ids of entries nested in a record (milestones inside a mission)."""

    array: str
    id_field: str
    pattern: re.Pattern[str]
    namespace: str
    title: str


#: Wildcard step of a field spec: every item of an array.
EACH = "[]"


def spec(text: str) -> tuple[str, ...]:
    """Parse a field spec such as ``"relations.mission_ids[]"`` into its steps."""
    steps: list[str] = []
    for part in text.split("."):
        while part.endswith(EACH):
            part = part[: -len(EACH)]
            steps.extend([part, EACH] if part else [EACH])
            part = ""
        if part:
            steps.append(part)
    return tuple(steps)


class Scope(str, enum.Enum):
    """Where a referenced id must be found.

    A scope other than the repository or the record is the value of the path
    group of the same name (``conversation``: the referencing file's
    ``(?P<conversation>…)`` folder).
    """

    REPO = "repo"  # anywhere in the repository
    CONVERSATION = "conversation"  # in the referencing file's conversation
    RECORD = "record"  # inside the referencing record (milestones of a mission)


@frozen(repr=False)
class Ref:
    """A field whose values are ids of records in ``namespace``."""

    field: tuple[str, ...]
    namespace: str
    scope: Scope = Scope.REPO


def refs(namespace: str, *fields: str, scope: Scope = Scope.REPO) -> tuple[Ref, ...]:
    """Declare several reference fields that point at one namespace."""
    return tuple(Ref(spec(f), namespace, scope) for f in fields)


@frozen(repr=False)
class IndexSpec:
    """An index file: its array, the id it lists, and the fields it repeats.

    ``fields`` maps an entry field to the field spec of the same value in the
    record (``gate_action`` -> ``gate.action``). ``derived`` marks an index
    the profile's ``--fix`` regenerates from its records, so its findings are
    fixable. ``by_id`` marks an array of entries that name their record by
    id (its file or folder name) rather than by a ``path`` field; an object
    keyed by id always does.
    """

    array: str
    id_field: str
    kind: str
    fields: tuple[tuple[str, tuple[str, ...]], ...]
    maintained: bool = True
    strict_required: tuple[str, ...] = ()
    derived: bool = False
    by_id: bool = False


def index_spec(
    array: str,
    id_field: str,
    record_kind: str,
    /,
    maintained: bool = True,
    strict_required: tuple[str, ...] = (),
    derived: bool = False,
    **fields: str,
) -> IndexSpec:
    """Declare an index file; ``fields`` maps entry fields to record field specs.

    ``maintained=False`` marks an index the runtime ships empty and never
    updates: while it lists nothing, records missing from it are reported only
    with ``strict = true``. ``strict_required`` names entry fields the
    runtime's writer omits, required only with ``strict = true``. ``derived``
    marks an index ``--fix`` regenerates.
    """
    return IndexSpec(
        array,
        id_field,
        record_kind,
        tuple((k, spec(v)) for k, v in fields.items()),
        maintained,
        strict_required,
        derived,
    )


@frozen(repr=False)
class Namespace:
    """An id space: what its records are called and where they live.

    ``folder`` (relative to the store) tells whether the repository keeps
    records of the kind at all. ``within`` marks ids scoped to a part of
    the store, saying where an id was looked for (``in conversation
    {scope}``); such records are always expected to be findable.
    ``unique_within``, for ids unique only in a part of the store, names that
    part for a duplicate's message (``the same mission``). ``files``, for a
    namespace whose records are files named by their id
    (``agents/<role_id>.md``), is that name pattern: a reference to an id no
    file has then lists the ids that exist.
    """

    title: str
    folder: str
    within: str = ""
    unique_within: str = ""
    files: str = ""


@frozen(repr=False)
class Kind:
    """One kind of file in a profile's store.

    ``scope`` names the path group that scopes id uniqueness (``conversation``
    for conversation handoffs); ``None`` means the whole repository.
    ``namespace`` groups kinds that share an id space (project and mission
    handoffs). ``folder`` is the group holding the folder name for
    :attr:`NameRule.DIR`. ``example`` is the file name agents give records of
    the kind (``D-<id>.json``), used to suggest a name for a misnamed file.
    ``open_fields`` marks kinds whose runtime schema accepts extra top-level
    fields (reported only with ``strict = true``); ``strict_paths`` are fields
    that hold a repository path only sometimes (checked only when strict).
    ``order`` tells where an append-only record sorts among the records of
    its folder, from its file stem (None: never compared); ``next_name``,
    when set, names the record that continues a numbered folder (the gate
    asks new records to continue the base's numbers). ``integer_id`` marks a
    kind whose ids are integers (written in its folder name in decimal).
    ``timed_prefix`` is, for :attr:`NameRule.TIMED`, what a file named by its
    time alone prefixes to its name to make an id (Cortex: ``H-``). ``id_of``
    names the file beside it whose id a file of this kind repeats (Astrion:
    ``messages.json`` repeats ``metadata.json``'s): a folder name both disagree
    with alike is one finding, on that file alone.
    """

    name: str
    title: str
    path: PathPattern
    format: Format
    schema: str | None = None
    id_field: str | None = None
    id_pattern: IdPattern | None = None
    name_rule: NameRule = NameRule.NONE
    namespace: str | None = None
    scope: str | None = None
    folder: str | None = None
    sub_ids: tuple[SubId, ...] = field(default=())
    refs: tuple[Ref, ...] = field(default=())
    paths: tuple[tuple[str, ...], ...] = field(default=())
    index: IndexSpec | None = None
    history: History = History.FREE
    example: str = ""
    open_fields: bool = False
    strict_paths: tuple[tuple[str, ...], ...] = field(default=())
    order: Callable[[str], tuple[int, str] | None] | None = None
    integer_id: bool = False
    next_name: Callable[[int], str] | None = None
    timed_prefix: str = ""
    id_of: str = ""


def paths(*fields: str) -> tuple[tuple[str, ...], ...]:
    """Declare fields whose values are repository-root-relative paths."""
    return tuple(spec(f) for f in fields)


class Match(NamedTuple):
    """A file classified as ``kind``, with the named groups of its path."""

    kind: Kind
    groups: dict[str, str]
