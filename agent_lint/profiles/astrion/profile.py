"""The Astrion profile value: markers, kinds and schemas of the multi-agent store.

Roles are ``agents/<role_id>.md`` with YAML front matter; each conversation
folder holds ``metadata.json`` and ``messages.json`` and one folder per
sub-agent (``agents/<agent_id>/``, integer ids); ``conversations/index.json``
is an object keyed by conversation id; ``state.json`` sits at the top. The
shared checks (schemas, ids against names, references, the index) apply; the
format's own rules are listed in ``docs/profiles.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lint.diagnostics import Rule
from agent_lint.kinds import Format, Kind, NameRule, Namespace, index_spec, refs, whole
from agent_lint.profile import Hook, Profile
from agent_lint.profiles.astrion import MARKERS, RECORD_FOLDERS, TITLE, checks
from agent_lint.profiles.astrion.facts import AstrionCollector
from agent_lint.validators import SHARED_FILE_CHECKS, SHARED_REPO_CHECKS, Check

if TYPE_CHECKING:
    from agent_lint.fixer import Blocked, Edit
    from agent_lint.index import RepoIndex


def plan_derived_files(index: RepoIndex, unsafe: bool = False) -> tuple[list[Edit], list[Blocked]]:
    """The derived files to rewrite (:mod:`~agent_lint.profiles.astrion.fixes`, loaded to plan)."""
    from agent_lint.profiles.astrion import fixes

    return fixes.plan_derived_files(index, unsafe)


_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_C = r"conversations/(?P<conversation>[^/]+)"
_A = rf"{_C}/agents/(?P<agent>[^/]+)"

KINDS: tuple[Kind, ...] = (
    Kind(
        "role",
        "role",
        whole(r"agents/(?P<stem>[^/]+)\.md"),
        Format.MARKDOWN,
        schema="role",
        id_field="id",
        id_pattern=whole(_NAME),
        name_rule=NameRule.STEM,
        namespace="role",
        example="agents/<role_id>.md",
    ),
    Kind("state", "global state", whole(r"state\.json"), Format.JSON, schema="state"),
    Kind(
        "conversation-index",
        "conversation index",
        whole(r"conversations/index\.json"),
        Format.JSON,
        schema="conversation-index",
        example="conversations/index.json",
        index=index_spec(
            "",
            "id",
            "conversation",
            derived=True,
            title="title",
            created_at="created_at",
            updated_at="updated_at",
            agent_count="agent_count",
        ),
    ),
    Kind(
        "conversation",
        "conversation",
        whole(rf"{_C}/metadata\.json"),
        Format.JSON,
        schema="conversation",
        id_field="id",
        name_rule=NameRule.DIR,
        namespace="conversation",
        folder="conversation",
        example="conversations/<id>/metadata.json",
    ),
    Kind(
        "conversation-messages",
        "Team Leader messages",
        whole(rf"{_C}/messages\.json"),
        Format.JSON,
        schema="conversation-messages",
        id_field="id",
        name_rule=NameRule.DIR,
        folder="conversation",
        example="conversations/<id>/messages.json",
        id_of="metadata.json",
    ),
    Kind(
        "sub-agent",
        "sub-agent",
        whole(rf"{_A}/metadata\.json"),
        Format.JSON,
        schema="sub-agent",
        id_field="agent_id",
        name_rule=NameRule.DIR,
        namespace="sub-agent",
        scope="conversation",
        folder="agent",
        integer_id=True,
        refs=refs("role", "role_id"),
        example="conversations/<id>/agents/<agent_id>/metadata.json",
    ),
    Kind(
        "sub-agent-messages",
        "sub-agent messages",
        whole(rf"{_A}/messages\.json"),
        Format.JSON,
        schema="sub-agent-messages",
        id_field="agent_id",
        name_rule=NameRule.DIR,
        folder="agent",
        integer_id=True,
        example="conversations/<id>/agents/<agent_id>/messages.json",
        id_of="metadata.json",
    ),
)


def _codes(*rules: Rule) -> frozenset[str]:
    return frozenset(rule.code for rule in rules)


PROFILE = Profile(
    name="astrion",
    title=TITLE,
    description="the Astrion multi-agent store: roles, conversations with a Team Leader and "
    "numbered sub-agents, a global state.json",
    markers=MARKERS,
    kinds=KINDS,
    namespaces={
        "role": Namespace("role", "agents", files="agents/<role_id>.md"),
        "conversation": Namespace("conversation", "conversations"),
        "sub-agent": Namespace("sub-agent", "conversations"),
    },
    record_folders=RECORD_FOLDERS,
    schema_folder="astrion",
    file_checks=(
        *SHARED_FILE_CHECKS,
        Check(checks.check_message_ids, _codes(checks.DUPLICATE_MESSAGE_ID)),
    ),
    repo_checks=(
        *SHARED_REPO_CHECKS,
        Check(
            checks.check_rosters,
            _codes(checks.AGENT_COUNT_MISMATCH, checks.AGENT_FOLDER_MISMATCH),
        ),
        Check(checks.check_sub_agent_files, _codes(checks.SUB_AGENT_FILES_DISAGREE)),
        Check(checks.check_metadata_files, _codes(checks.MISSING_METADATA)),
        Check(
            checks.check_agent_references,
            _codes(checks.UNKNOWN_AGENT, checks.UNKNOWN_TOOL_CALL),
        ),
        Check(
            checks.check_state,
            _codes(checks.COUNTER_BEHIND, checks.MISSING_LAST_CONVERSATION),
        ),
    ),
    collectors=(AstrionCollector(),),
    fixers=(plan_derived_files,),
    refine=checks.counts_once,
    rules=checks.RULES,
    hooks=(Hook("agent-lint-astrion", r"^\.astrion/"),),
)
