"""The Personal Bot profile value: markers, kinds and schemas of Pi Personal Bot storage.

The repository is a workspace: the history archive sits at
``.pi/pbot/history/``; the per-agent control records and teams sit in a Pi
agent dir's ``pbot/``, kept at ``.pi/agent/pbot/`` or at the repository root.
Each part may be absent. The shared checks apply, with the schema findings of
``session-ref.json`` and history records explained (:mod:`.records`); the
profile adds its de-duplication keys (:mod:`.dedup`), and ``session-ref.json``
is write-once for the gate. The format's rules and their codes are listed in
``docs/profiles.md``.
"""

from __future__ import annotations

from agent_lint.kinds import Format, History, Kind, whole
from agent_lint.profile import Hook, Profile
from agent_lint.profiles.personal_bot import MARKERS, RECORD_FOLDERS, TITLE, dedup, records
from agent_lint.validators import SHARED_FILE_CHECKS, SHARED_REPO_CHECKS, Check, schema

_PBOT = r"(?:\.pi/agent/)?pbot"
_AGENT = rf"{_PBOT}/subagents/(?P<agent>[^/.][^/]*)"


def _control(name: str, title: str, history: History = History.FREE) -> Kind:
    """A control record of one sub-agent: ``<pbot>/subagents/<agentId>/<name>.json``."""
    return Kind(
        name,
        title,
        whole(rf"{_AGENT}/{name}\.json"),
        Format.JSON,
        schema=name,
        history=history,
        example=f"pbot/subagents/<agentId>/{name}.json",
    )


KINDS: tuple[Kind, ...] = (
    _control("descriptor", "descriptor"),
    _control("launch", "launch record"),
    _control("inbox", "inbox"),
    _control("status", "status"),
    _control("completions", "completions"),
    _control("session-ref", "session reference", History.WRITE_ONCE),
    _control("team-ready", "team-ready marker"),
    Kind(
        "team",
        "team",
        whole(rf"{_PBOT}/teams/(?P<team>[^/]+)/team\.json"),
        Format.JSON,
        schema="team",
        example="pbot/teams/<teamId>/team.json",
    ),
    Kind(
        "history",
        "history record",
        whole(r"\.pi/pbot/history/(?:[^/]+/)*[^/]+\.json"),
        Format.JSON,
        schema="history",
        example=".pi/pbot/history/<record>.json",
    ),
)

PROFILE = Profile(
    name="personal_bot",
    title=TITLE,
    description="Pi Personal Bot storage: per-agent control records, teams, the workspace's "
    "history archive",
    markers=MARKERS,
    kinds=KINDS,
    namespaces={},
    record_folders=RECORD_FOLDERS,
    schema_folder="personal_bot",
    file_checks=(
        Check(records.check_records, frozenset(rule.code for rule in schema.RULES)),
        *SHARED_FILE_CHECKS[1:],
        Check(dedup.check_unique_keys, frozenset(rule.code for rule in dedup.RULES)),
    ),
    repo_checks=SHARED_REPO_CHECKS,
    hooks=(Hook("agent-lint-personal-bot", r"^(\.pi/pbot/|\.pi/agent/pbot/|pbot/)"),),
    rules=dedup.RULES,
    walk_folders=(".pi/pbot", ".pi/agent/pbot", "pbot"),
)
