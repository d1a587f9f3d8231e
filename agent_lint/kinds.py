"""The declarative kind registry: path pattern -> kind -> schema -> identity.

Every record kind agent-lint knows is one :class:`Kind` entry in :data:`KINDS`.
Paths are matched relative to the agent dir, in POSIX form; the first entry
whose pattern matches wins, so more specific entries come first. Adding a kind
is adding an entry here and its schema in ``schemas/``; no check needs to
change.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

#: The id shape shared by most prefixed record ids (``D-…``, ``WP-…``, ``M-…``).
_SUFFIX = r"[A-Za-z0-9][A-Za-z0-9._-]*"


def _prefixed(prefix: str) -> re.Pattern[str]:
    return re.compile(rf"^{prefix}-{_SUFFIX}$")


class NameRule(str, enum.Enum):
    """How a record's id must relate to its file or folder name."""

    NONE = "none"
    STEM = "stem"  # id == file stem
    DIR = "dir"  # id == the record's folder name
    SLUG = "slug"  # id == stem, or id + "-slug" == stem (configurable: exact|prefix)
    TURN = "turn"  # stem is a 4+ digit number and ``turn`` (if present) equals it


class Format(str, enum.Enum):
    """How a file is parsed."""

    JSON = "json"
    YAML = "yaml"
    MARKDOWN = "markdown"


@dataclass(frozen=True)
class SubId:
    """Ids of entries nested in a record (milestones inside a mission)."""

    array: str
    id_field: str
    pattern: re.Pattern[str]
    namespace: str
    title: str


@dataclass(frozen=True)
class Kind:
    """One kind of file in the agent dir.

    ``scope`` names the path group that scopes id uniqueness (``conversation``
    for conversation handoffs); ``None`` means the whole repository.
    ``namespace`` groups kinds that share an id space (project and mission
    handoffs). ``folder`` is the group holding the folder name for
    :attr:`NameRule.DIR`.
    """

    name: str
    title: str
    path: re.Pattern[str]
    format: Format
    schema: str | None = None
    id_field: str | None = None
    id_pattern: re.Pattern[str] | None = None
    name_rule: NameRule = NameRule.NONE
    namespace: str | None = None
    scope: str | None = None
    folder: str | None = None
    sub_ids: tuple[SubId, ...] = field(default=())


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"^{pattern}$")


_C = r"conversations/(?P<conversation>[^/]+)"
_M = r"missions/(?P<mission>[^/]+)"

KINDS: tuple[Kind, ...] = (
    Kind(
        "conversation",
        "conversation",
        _p(rf"{_C}/meta\.json"),
        Format.JSON,
        schema="conversation",
        id_field="conversation_id",
        id_pattern=_prefixed("C"),
        name_rule=NameRule.DIR,
        namespace="conversation",
        folder="conversation",
    ),
    Kind(
        "handoff-state",
        "handoff state",
        _p(rf"{_C}/handoffs/state\.json"),
        Format.JSON,
        schema="handoff-state",
    ),
    Kind(
        "conversation-handoff",
        "conversation handoff",
        _p(rf"{_C}/handoffs/(?P<stem>H-[^/]*)\.json"),
        Format.JSON,
        schema="conversation-handoff",
        id_field="handoff_id",
        id_pattern=re.compile(r"^H-\d{3,}$"),
        name_rule=NameRule.STEM,
        namespace="conversation-handoff",
        scope="conversation",
    ),
    Kind(
        "handoff-note",
        "handoff note",
        _p(rf"(?:{_C}/|{_M}/)?handoffs/(?P<stem>H-[^/]*)\.md"),
        Format.MARKDOWN,
    ),
    Kind(
        "turn",
        "turn",
        _p(rf"{_C}/turns/(?P<stem>[^/]+)\.ya?ml"),
        Format.YAML,
        schema="turn",
        id_field="turn",
        name_rule=NameRule.TURN,
    ),
    Kind(
        "resume-marker",
        "resume marker",
        _p(rf"{_C}/turn_resumed\.ya?ml"),
        Format.YAML,
        schema="resume-marker",
    ),
    Kind(
        "relations",
        "relations",
        _p(rf"{_C}/relations\.ya?ml"),
        Format.YAML,
        schema="relations",
    ),
    Kind(
        "conversation-note",
        "conversation note",
        _p(rf"{_C}/(?:summary|decisions|artifacts)\.md"),
        Format.MARKDOWN,
    ),
    Kind(
        "project-handoff",
        "project handoff",
        _p(r"handoffs/(?P<stem>H-[^/]*)\.json"),
        Format.JSON,
        schema="handoff",
        id_field="handoff_id",
        id_pattern=_prefixed("H"),
        name_rule=NameRule.STEM,
        namespace="handoff",
    ),
    Kind(
        "mission",
        "mission",
        _p(rf"{_M}/mission\.json"),
        Format.JSON,
        schema="mission",
        id_field="mission_id",
        id_pattern=_prefixed("M"),
        name_rule=NameRule.DIR,
        namespace="mission",
        folder="mission",
        sub_ids=(SubId("milestones", "milestone_id", _prefixed("MS"), "milestone", "milestone"),),
    ),
    Kind(
        "mission-handoff",
        "mission handoff",
        _p(rf"{_M}/handoffs/(?P<stem>H-[^/]*)\.json"),
        Format.JSON,
        schema="handoff",
        id_field="handoff_id",
        id_pattern=_prefixed("H"),
        name_rule=NameRule.STEM,
        namespace="handoff",
    ),
    Kind(
        "mission-note",
        "mission note",
        _p(rf"{_M}/(?:[^/]+/)*[^/]+\.md"),
        Format.MARKDOWN,
    ),
    Kind(
        "decision-index",
        "decision index",
        _p(r"decisions/index\.json"),
        Format.JSON,
        schema="decision-index",
    ),
    Kind(
        "decision",
        "decision",
        _p(r"decisions/(?P<stem>D-[^/]*)\.json"),
        Format.JSON,
        schema="decision",
        id_field="decision_id",
        id_pattern=_prefixed("D"),
        name_rule=NameRule.SLUG,
        namespace="decision",
    ),
    Kind(
        "waitpoint-index",
        "waitpoint index",
        _p(r"waitpoints/index\.json"),
        Format.JSON,
        schema="waitpoint-index",
    ),
    Kind(
        "waitpoint",
        "waitpoint",
        _p(r"waitpoints/(?P<stem>WP-[^/]*)\.json"),
        Format.JSON,
        schema="waitpoint",
        id_field="waitpoint_id",
        id_pattern=_prefixed("WP"),
        name_rule=NameRule.SLUG,
        namespace="waitpoint",
    ),
    Kind(
        "inbox-index",
        "inbox index",
        _p(r"inbox/index\.json"),
        Format.JSON,
        schema="inbox-index",
    ),
    Kind(
        "inbox-message",
        "inbox message",
        _p(r"inbox/(?P<stem>IM-[^/]*)\.json"),
        Format.JSON,
        schema="inbox-message",
        id_field="message_id",
        id_pattern=_prefixed("IM"),
        name_rule=NameRule.SLUG,
        namespace="inbox-message",
    ),
    Kind(
        "memory",
        "memory",
        _p(r"memory/(?P<subdir>[^/]+)/(?P<stem>MEM-[^/]*)\.json"),
        Format.JSON,
        schema="memory",
        id_field="memory_id",
        id_pattern=_prefixed("MEM"),
        name_rule=NameRule.SLUG,
        namespace="memory",
    ),
    Kind(
        "run-index",
        "run index",
        _p(r"runs/index\.json"),
        Format.JSON,
        schema="run-index",
    ),
    Kind(
        "run",
        "run",
        _p(r"runs/(?P<stem>R-[^/]*)\.json"),
        Format.JSON,
        schema="run",
        id_field="run_id",
        id_pattern=_prefixed("R"),
        name_rule=NameRule.SLUG,
        namespace="run",
    ),
    Kind(
        "session-index",
        "session index",
        _p(r"sessions/index\.json"),
        Format.JSON,
        schema="session-index",
    ),
    Kind(
        "session",
        "session",
        _p(r"sessions/(?P<stem>S-[^/]*)\.json"),
        Format.JSON,
        schema="session",
        id_field="session_id",
        id_pattern=_prefixed("S"),
        name_rule=NameRule.SLUG,
        namespace="session",
    ),
    Kind(
        "task-index",
        "task index",
        _p(r"tasks/index\.json"),
        Format.JSON,
        schema="task-index",
    ),
    Kind(
        "task",
        "task",
        _p(r"tasks/(?P<stem>[^/]+)\.json"),
        Format.JSON,
        schema="task",
        id_field="task_id",
        name_rule=NameRule.STEM,
        namespace="task",
    ),
    Kind(
        "agent",
        "agent",
        _p(r"agents/(?P<stem>[^/]+)\.json"),
        Format.JSON,
        schema="agent",
        id_field="agent_id",
        name_rule=NameRule.STEM,
        namespace="agent",
    ),
)

#: Top-level folders of the agent dir that hold records. A ``.json`` or
#: ``.yaml`` file under one of them that matches no kind is still parsed, so a
#: syntax error there is reported.
KIND_FOLDERS: frozenset[str] = frozenset(
    {
        "agents",
        "conversations",
        "decisions",
        "handoffs",
        "inbox",
        "memory",
        "missions",
        "runs",
        "sessions",
        "tasks",
        "waitpoints",
    }
)

KINDS_BY_NAME: dict[str, Kind] = {kind.name: kind for kind in KINDS}


@dataclass(frozen=True)
class Match:
    """A file classified as ``kind``, with the named groups of its path."""

    kind: Kind
    groups: dict[str, str]


def classify(relpath: str) -> Match | None:
    """Return the kind of the file at ``relpath`` (relative to the agent dir)."""
    for kind in KINDS:
        m = kind.path.match(relpath)
        if m:
            return Match(kind, {k: v for k, v in m.groupdict().items() if v is not None})
    return None


def is_data_file(relpath: str) -> bool:
    """True for an unclassified JSON/YAML file under a known record folder."""
    top = relpath.split("/", 1)[0]
    return top in KIND_FOLDERS and relpath.endswith((".json", ".yaml", ".yml"))
