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


def whole(pattern: str) -> re.Pattern[str]:
    """Compile a structural pattern: ASCII classes, anchored at both ends of the string.

    ``\\Z`` and not ``$``: Python's ``$`` also matches before a final newline,
    so ``"H-004\\n"`` would pass for ``H-004``.
    """
    return re.compile(rf"^(?:{pattern})\Z", re.ASCII)


def shown(pattern: re.Pattern[str]) -> str:
    """A pattern of :func:`whole` as users write it: ``^D-[A-Za-z0-9][A-Za-z0-9._-]*$``."""
    text = pattern.pattern
    if text.startswith("^(?:") and text.endswith(")\\Z"):
        return f"^{text[4:-3]}$"
    return text


def _prefixed(prefix: str) -> re.Pattern[str]:
    return whole(f"{prefix}-{_SUFFIX}")


class NameRule(str, enum.Enum):
    """How a record's id must relate to its file or folder name."""

    NONE = "none"
    STEM = "stem"  # id == file stem
    DIR = "dir"  # id == the record's folder name
    SLUG = "slug"  # id == stem, or id + "-slug" == stem (configurable: exact|prefix)
    TURN = "turn"  # stem is a 4+ digit number and ``turn`` (if present) equals it
    TIMED = "timed"  # id == stem, or "H-" + stem for a bare YYYYMMDD-HHMMSS-<focus> stem


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


@dataclass(frozen=True)
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
    """Where a referenced id must be found."""

    REPO = "repo"  # anywhere in the repository
    CONVERSATION = "conversation"  # in the referencing file's conversation
    RECORD = "record"  # inside the referencing record (milestones of a mission)


@dataclass(frozen=True)
class Ref:
    """A field whose values are ids of records in ``namespace``."""

    field: tuple[str, ...]
    namespace: str
    scope: Scope = Scope.REPO


def refs(namespace: str, *fields: str, scope: Scope = Scope.REPO) -> tuple[Ref, ...]:
    """Declare several reference fields that point at one namespace."""
    return tuple(Ref(spec(f), namespace, scope) for f in fields)


@dataclass(frozen=True)
class IndexSpec:
    """An index file: its array, the id it lists, and the fields it repeats.

    ``fields`` maps an entry field to the field spec of the same value in the
    record (``gate_action`` -> ``gate.action``).
    """

    array: str
    id_field: str
    kind: str
    fields: tuple[tuple[str, tuple[str, ...]], ...]
    maintained: bool = True
    strict_required: tuple[str, ...] = ()


def index_spec(
    array: str,
    id_field: str,
    record_kind: str,
    /,
    maintained: bool = True,
    strict_required: tuple[str, ...] = (),
    **fields: str,
) -> IndexSpec:
    """Declare an index file; ``fields`` maps entry fields to record field specs.

    ``maintained=False`` marks an index the runtime ships empty and never
    updates: while it lists nothing, records missing from it are reported only
    with ``strict = true``. ``strict_required`` names entry fields the
    runtime's writer omits, required only with ``strict = true``.
    """
    return IndexSpec(
        array,
        id_field,
        record_kind,
        tuple((k, spec(v)) for k, v in fields.items()),
        maintained,
        strict_required,
    )


@dataclass(frozen=True)
class Namespace:
    """An id space: what its records are called and where they live."""

    title: str
    folder: str


#: Id spaces that references point into; ``folder`` (relative to the agent
#: dir) tells whether the repository keeps records of the kind at all.
NAMESPACES: dict[str, Namespace] = {
    "conversation": Namespace("conversation", "conversations"),
    "conversation-handoff": Namespace("conversation handoff", "conversations"),
    "handoff": Namespace("handoff", "handoffs"),
    "mission": Namespace("mission", "missions"),
    "milestone": Namespace("milestone", "missions"),
    "decision": Namespace("decision", "decisions"),
    "waitpoint": Namespace("waitpoint", "waitpoints"),
    "inbox-message": Namespace("inbox message", "inbox"),
    "memory": Namespace("memory", "memory"),
    "run": Namespace("run", "runs"),
    "session": Namespace("session", "sessions"),
    "task": Namespace("task", "tasks"),
    "agent": Namespace("agent", "agents"),
}


@dataclass(frozen=True)
class Kind:
    """One kind of file in the agent dir.

    ``scope`` names the path group that scopes id uniqueness (``conversation``
    for conversation handoffs); ``None`` means the whole repository.
    ``namespace`` groups kinds that share an id space (project and mission
    handoffs). ``folder`` is the group holding the folder name for
    :attr:`NameRule.DIR`. ``example`` is the file name agents give records of
    the kind (``D-<id>.json``), used to suggest a name for a misnamed file.
    ``open_fields`` marks kinds whose runtime schema accepts extra top-level
    fields (reported only with ``strict = true``); ``strict_paths`` are fields
    that hold a repository path only sometimes (checked only when strict).
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
    refs: tuple[Ref, ...] = field(default=())
    paths: tuple[tuple[str, ...], ...] = field(default=())
    index: IndexSpec | None = None
    history: History = History.FREE
    example: str = ""
    open_fields: bool = False
    strict_paths: tuple[tuple[str, ...], ...] = field(default=())


def _p(pattern: str) -> re.Pattern[str]:
    return whole(pattern)


def paths(*fields: str) -> tuple[tuple[str, ...], ...]:
    """Declare fields whose values are repository-root-relative paths."""
    return tuple(spec(f) for f in fields)


_RELATIONS = (
    *refs("task", "relations.task_ids[]"),
    *refs("mission", "relations.mission_ids[]"),
    *refs("run", "relations.run_ids[]"),
    *refs("session", "relations.session_ids[]"),
)
_BINDING = (*refs("task", "task_id"), *refs("mission", "mission_id"))
_HANDOFF_PATHS = paths(
    "artifacts.completed[]",
    "artifacts.context_snapshot_ref",
    "artifacts.markdown_ref",
    "artifacts.artifact_refs[]",
)

_C = r"conversations/(?P<conversation>[^/]+)"
_M = r"missions/(?P<mission>[^/]+)"
#: A runtime handoff name: ``YYYYMMDD-HHMMSS-<focus>`` (the note beside it) or
#: ``H-YYYYMMDD-HHMMSS-<focus>`` (the JSON payload).
_TIMED = r"\d{8}-\d{6}(?:-[^/]*)?"

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
        example="conversations/C-<id>/meta.json",
        refs=(
            *refs("decision", "decisions_refs[]", "state.pending_decisions[]"),
            *refs("mission", "relations.mission_ids[]", "state.active_missions[]"),
            *refs("task", "relations.task_ids[]", "state.in_flight_tasks[]"),
            *refs("conversation", "relations.conversation_ids[]"),
            *refs("session", "active_agent.session_id"),
            *refs("conversation-handoff", "handoffs[].handoff_id", scope=Scope.CONVERSATION),
        ),
        paths=paths("summary_ref", "artifact_refs[]"),
    ),
    Kind(
        "handoff-state",
        "handoff state",
        _p(rf"{_C}/handoffs/state\.json"),
        Format.JSON,
        schema="handoff-state",
        example="conversations/C-<id>/handoffs/state.json",
        refs=(
            *refs("session", "active_agent.session_id"),
            *refs("conversation-handoff", "latest_handoff_id", scope=Scope.CONVERSATION),
        ),
    ),
    Kind(
        "conversation-handoff",
        "conversation handoff",
        _p(rf"{_C}/handoffs/(?P<stem>H-[^/]*)\.json"),
        Format.JSON,
        schema="conversation-handoff",
        id_field="handoff_id",
        id_pattern=whole("H-[0-9]{3,}"),
        name_rule=NameRule.STEM,
        namespace="conversation-handoff",
        scope="conversation",
        refs=(
            *_BINDING,
            *refs("session", "from_agent.session_id", "to_agent.target_session"),
            *refs("mission", "context_pointer.active_missions[]"),
            *refs("decision", "context_pointer.pending_decisions[]"),
            *refs("task", "context_pointer.in_flight_tasks[]"),
        ),
        paths=(*_HANDOFF_PATHS, *paths("context_pointer.recent_artifacts[]")),
        history=History.APPEND_ONLY,
        example="conversations/C-<id>/handoffs/H-NNN.json",
    ),
    Kind(
        "handoff-note",
        "handoff note",
        _p(rf"(?:{_C}/|{_M}/)?handoffs/(?P<stem>H-[^/]*|{_TIMED})\.md"),
        Format.MARKDOWN,
        history=History.APPEND_ONLY,
    ),
    Kind(
        "turn",
        "turn",
        _p(rf"{_C}/turns/(?P<stem>[^/]+)\.ya?ml"),
        Format.YAML,
        schema="turn",
        id_field="turn",
        name_rule=NameRule.TURN,
        example="conversations/C-<id>/turns/NNNN.yaml",
    ),
    Kind(
        "resume-marker",
        "resume marker",
        _p(rf"{_C}/turn_resumed\.ya?ml"),
        Format.YAML,
        schema="resume-marker",
        refs=refs("session", "session_id"),
    ),
    Kind(
        "relations",
        "relations",
        _p(rf"{_C}/relations\.ya?ml"),
        Format.YAML,
        schema="relations",
        refs=(
            *refs("mission", "mission_ids[]"),
            *refs("task", "task_ids[]"),
            *refs("conversation", "conversation_ids[]"),
        ),
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
        _p(rf"handoffs/(?P<stem>H-[^/]*|{_TIMED})\.json"),
        Format.JSON,
        schema="handoff",
        id_field="handoff_id",
        id_pattern=_prefixed("H"),
        name_rule=NameRule.TIMED,
        namespace="handoff",
        refs=(*_BINDING, *refs("session", "from.session_id")),
        paths=(*_HANDOFF_PATHS, *paths("shared_context_ref", "graphify_context.subgraph_ref")),
        history=History.APPEND_ONLY,
        example="handoffs/H-YYYYMMDD-HHMMSS-<focus>.json",
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
        example="missions/M-<id>/mission.json",
        sub_ids=(SubId("milestones", "milestone_id", _prefixed("MS"), "milestone", "milestone"),),
        refs=(
            *refs("session", "coordinator_session_id"),
            *refs(
                "milestone",
                "current_milestone_id",
                "milestones[].depends_on[]",
                scope=Scope.RECORD,
            ),
        ),
        paths=paths(
            "validation_contract_ref",
            "command_log_ref",
            "milestones[].validation_contract_ref",
            "milestones[].milestone_ref",
        ),
    ),
    Kind(
        "mission-handoff",
        "mission handoff",
        _p(rf"{_M}/handoffs/(?P<stem>H-[^/]*|{_TIMED})\.json"),
        Format.JSON,
        schema="handoff",
        id_field="handoff_id",
        id_pattern=_prefixed("H"),
        name_rule=NameRule.TIMED,
        namespace="handoff",
        refs=(*_BINDING, *refs("session", "from.session_id")),
        paths=(*_HANDOFF_PATHS, *paths("shared_context_ref", "graphify_context.subgraph_ref")),
        history=History.APPEND_ONLY,
        example="missions/M-<id>/handoffs/H-YYYYMMDD-HHMMSS-<focus>.json",
    ),
    Kind(
        "validation-contract",
        "validation contract",
        _p(rf"{_M}/validation-contract\.json"),
        Format.JSON,
        schema="validation-contract",
        refs=(
            *refs("mission", "mission_id"),
            *refs("decision", "approval_decision"),
            *refs("waitpoint", "source_waitpoint"),
        ),
        paths=paths("proposal_ref", "decision_ref"),
        example="missions/M-<id>/validation-contract.json",
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
        example="decisions/index.json",
        index=index_spec(
            "decisions",
            "decision_id",
            "decision",
            type="type",
            status="status",
            gate_action="gate.action",
            resource_ref="gate.resource_ref",
            updated_at="updated_at",
        ),
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
        refs=(*_BINDING, *_RELATIONS, *refs("decision", "superseded_by_decision_id")),
        paths=paths("relations.artifact_refs[]"),
        strict_paths=paths("gate.resource_ref"),
        example="decisions/D-<id>.json",
    ),
    Kind(
        "waitpoint-index",
        "waitpoint index",
        _p(r"waitpoints/index\.json"),
        Format.JSON,
        schema="waitpoint-index",
        example="waitpoints/index.json",
        index=index_spec(
            "waitpoints",
            "waitpoint_id",
            "waitpoint",
            strict_required=("gate_action", "resource_ref"),
            status="status",
            owner_workflow="owner_workflow",
            gate_action="gate.action",
            resource_ref="gate.resource_ref",
            decision_id="decision_id",
            updated_at="updated_at",
        ),
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
        refs=(*_BINDING, *_RELATIONS, *refs("decision", "decision_id")),
        paths=paths("evidence_refs[]", "relations.artifact_refs[]"),
        strict_paths=paths("gate.resource_ref"),
        example="waitpoints/WP-<id>.json",
    ),
    Kind(
        "inbox-index",
        "inbox index",
        _p(r"inbox/index\.json"),
        Format.JSON,
        schema="inbox-index",
        example="inbox/index.json",
        index=index_spec(
            "messages",
            "message_id",
            "inbox-message",
            type="type",
            status="status",
            subject="subject",
            updated_at="updated_at",
        ),
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
        example="inbox/IM-<id>.json",
        refs=(
            *_BINDING,
            *_RELATIONS,
            *refs("decision", "related_decision_ids[]"),
            *refs("waitpoint", "related_waitpoint_ids[]"),
        ),
        paths=paths("artifact_refs[]", "relations.artifact_refs[]"),
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
        example="memory/<type>/MEM-<id>.json",
        refs=(
            *refs("conversation", "source_conversation_id"),
            *refs("decision", "source_decision_id"),
            *refs("run", "source_run_id"),
        ),
    ),
    Kind(
        "run-index",
        "run index",
        _p(r"runs/index\.json"),
        Format.JSON,
        schema="run-index",
        example="runs/index.json",
        index=index_spec(
            "runs",
            "run_id",
            "run",
            maintained=False,
            kind="kind",
            status="status",
            task_id="task_id",
            mission_id="mission_id",
            started_at="started_at",
            finished_at="finished_at",
            updated_at="updated_at",
        ),
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
        refs=_BINDING,
        open_fields=True,
        example="runs/R-<id>.json",
    ),
    Kind(
        "session-index",
        "session index",
        _p(r"sessions/index\.json"),
        Format.JSON,
        schema="session-index",
        example="sessions/index.json",
        index=index_spec(
            "sessions",
            "session_id",
            "session",
            maintained=False,
            agent_id="agent_id",
            status="status",
            updated_at="updated_at",
        ),
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
        open_fields=True,
        example="sessions/S-<id>.json",
        refs=(
            *refs("run", "current_run_id"),
            *refs("task", "current_task_id"),
            *refs("mission", "current_mission_id"),
        ),
        paths=paths("archive_path"),
    ),
    Kind(
        "task-index",
        "task index",
        _p(r"tasks/index\.json"),
        Format.JSON,
        schema="task-index",
        example="tasks/index.json",
        index=index_spec(
            "tasks",
            "task_id",
            "task",
            title="title",
            status="status",
            stage="stage",
            priority="priority",
            updated_at="updated_at",
        ),
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
        example="tasks/<task_id>.json",
        refs=refs("mission", "mission_id"),
        paths=paths("artifacts[].ref", "gates[].evidence_refs[]"),
    ),
    Kind(
        "session-ref",
        "session reference",
        _p(r"(?:[^/]+/)*session-ref\.json"),
        Format.JSON,
        schema="session-ref",
        history=History.WRITE_ONCE,
    ),
    Kind(
        "artifact-state",
        "artifact bus state",
        _p(r"artifacts/(?P<artifact>[^/]+)/state\.json"),
        Format.JSON,
        schema="artifact-state",
        id_field="task_id",
        name_rule=NameRule.DIR,
        folder="artifact",
        refs=refs("mission", "mission_id"),
        paths=paths("latest_artifact", "artifacts[].path"),
        example="artifacts/<task_id>/state.json",
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
        example="agents/<agent_id>.json",
        refs=(*_BINDING, *refs("session", "session_id")),
        paths=paths("external.config_ref"),
    ),
)

#: Top-level folders of the agent dir that hold records. Every ``.json`` or
#: ``.yaml`` file under one of them is parsed; one that matches no kind (and
#: is not a support file) is reported with the name it should have (AL205).
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

#: Files the runtime ships inside record folders that are not records, by
#: file name, with the reason shown by ``--show-files``.
SUPPORT_FILES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"[^/]*[.-]schema\.json", re.IGNORECASE), "not a record: a JSON Schema"),
    (re.compile(r"sample\.json", re.IGNORECASE), "not a record: a sample shipped by the templates"),
)

_DATA_SUFFIXES = (".json", ".yaml", ".yml")

KINDS_BY_NAME: dict[str, Kind] = {kind.name: kind for kind in KINDS}

#: Index kinds by the record kind they list.
INDEX_OF: dict[str, Kind] = {kind.index.kind: kind for kind in KINDS if kind.index}


@dataclass(frozen=True)
class Match:
    """A file classified as ``kind``, with the named groups of its path."""

    kind: Kind
    groups: dict[str, str]


def support_file(relpath: str) -> str | None:
    """Why the file at ``relpath`` is not a record although it sits among them, if it is not."""
    name = relpath.rsplit("/", 1)[-1]
    for pattern, reason in SUPPORT_FILES:
        if pattern.fullmatch(name):
            return reason
    return None


def classify(relpath: str) -> Match | None:
    """Return the kind of the file at ``relpath`` (relative to the agent dir)."""
    if relpath.endswith(".json") and support_file(relpath):
        return None
    for kind in KINDS:
        m = kind.path.match(relpath)
        if m:
            return Match(kind, {k: v for k, v in m.groupdict().items() if v is not None})
    return None


def in_record_folder(relpath: str) -> bool:
    """True when ``relpath`` lies under one of :data:`KIND_FOLDERS`."""
    return "/" in relpath and relpath.split("/", 1)[0] in KIND_FOLDERS


def is_data_file(relpath: str) -> bool:
    """True for an unclassified JSON/YAML file under a known record folder."""
    return (
        in_record_folder(relpath)
        and relpath.lower().endswith(_DATA_SUFFIXES)
        and support_file(relpath) is None
    )
