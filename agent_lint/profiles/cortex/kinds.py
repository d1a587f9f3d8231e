"""The Cortex record kinds: the ``.agent/`` layout as one declarative registry.

Every record kind of the layout is one :class:`~agent_lint.kinds.Kind` entry in
:data:`KINDS`; the first entry whose path pattern matches wins, so more
specific entries come first. Adding a kind is adding an entry here and its
schema in ``schemas/cortex/``; no check needs to change.
"""

from __future__ import annotations

import re

from agent_lint.kinds import (
    Format,
    History,
    Kind,
    NameRule,
    Namespace,
    Scope,
    SubId,
    index_spec,
    paths,
    prefixed,
    refs,
    whole,
)
from agent_lint.profiles.cortex.handoffs import embedded_time, handoff_number

#: Id spaces that references point into.
NAMESPACES: dict[str, Namespace] = {
    "conversation": Namespace("conversation", "conversations"),
    "conversation-handoff": Namespace(
        "conversation handoff", "conversations", "in conversation {scope}"
    ),
    "handoff": Namespace("handoff", "handoffs"),
    "mission": Namespace("mission", "missions"),
    "milestone": Namespace(
        "milestone", "missions", "in this mission", unique_within="the same mission"
    ),
    "decision": Namespace("decision", "decisions"),
    "waitpoint": Namespace("waitpoint", "waitpoints"),
    "inbox-message": Namespace("inbox message", "inbox"),
    "memory": Namespace("memory", "memory"),
    "run": Namespace("run", "runs"),
    "session": Namespace("session", "sessions"),
    "task": Namespace("task", "tasks"),
    "agent": Namespace("agent", "agents"),
}


def _p(pattern: str) -> re.Pattern[str]:
    return whole(pattern)


def _numbered(stem: str) -> tuple[int, str] | None:
    """A conversation handoff sorts by its number (``H-007`` -> 7)."""
    number = handoff_number(stem)
    return (number, stem) if number is not None else None


def _timed(stem: str) -> tuple[int, str] | None:
    """A project or mission handoff sorts by the time in its name."""
    time = embedded_time(stem)
    return (int(time.replace("-", "")), stem) if time else None


def _next_handoff(number: int) -> str:
    return f"H-{number:03d}"


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
        id_pattern=prefixed("C"),
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
        order=_numbered,
        next_name=_next_handoff,
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
        id_pattern=prefixed("H"),
        name_rule=NameRule.TIMED,
        timed_prefix="H-",
        namespace="handoff",
        refs=(*_BINDING, *refs("session", "from.session_id")),
        paths=(*_HANDOFF_PATHS, *paths("shared_context_ref", "graphify_context.subgraph_ref")),
        history=History.APPEND_ONLY,
        example="handoffs/H-YYYYMMDD-HHMMSS-<focus>.json",
        order=_timed,
    ),
    Kind(
        "mission",
        "mission",
        _p(rf"{_M}/mission\.json"),
        Format.JSON,
        schema="mission",
        id_field="mission_id",
        id_pattern=prefixed("M"),
        name_rule=NameRule.DIR,
        namespace="mission",
        folder="mission",
        example="missions/M-<id>/mission.json",
        sub_ids=(SubId("milestones", "milestone_id", prefixed("MS"), "milestone", "milestone"),),
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
        id_pattern=prefixed("H"),
        name_rule=NameRule.TIMED,
        timed_prefix="H-",
        namespace="handoff",
        refs=(*_BINDING, *refs("session", "from.session_id")),
        paths=(*_HANDOFF_PATHS, *paths("shared_context_ref", "graphify_context.subgraph_ref")),
        history=History.APPEND_ONLY,
        example="missions/M-<id>/handoffs/H-YYYYMMDD-HHMMSS-<focus>.json",
        order=_timed,
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
        id_pattern=prefixed("D"),
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
        id_pattern=prefixed("WP"),
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
        id_pattern=prefixed("IM"),
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
        id_pattern=prefixed("MEM"),
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
        id_pattern=prefixed("R"),
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
        id_pattern=prefixed("S"),
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


#: Files the runtime ships inside record folders that are not records, by
#: file name, with the reason shown by ``--show-files``.
SUPPORT_FILES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"[^/]*[.-]schema\.json", re.IGNORECASE), "not a record: a JSON Schema"),
    (re.compile(r"sample\.json", re.IGNORECASE), "not a record: a sample shipped by the templates"),
)

KINDS_BY_NAME: dict[str, Kind] = {kind.name: kind for kind in KINDS}
