"""The Cortex profile value: markers, kinds, checks, collectors, fixer, summary and hooks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_lint.kinds import Match
from agent_lint.profile import AsMerged, Hook, Profile
from agent_lint.profiles.cortex import (
    MARKERS,
    RECORD_FOLDERS,
    TITLE,
    agreement,
    conversations,
    notes,
    ordering,
    states,
)
from agent_lint.profiles.cortex.checksum import checksum_line
from agent_lint.profiles.cortex.facts import CortexCollector
from agent_lint.profiles.cortex.kinds import (
    KINDS,
    KINDS_BY_NAME,
    NAMESPACES,
    SUPPORT_FILES,
)
from agent_lint.profiles.cortex.summary import handoff_chains
from agent_lint.validators import SHARED_FILE_CHECKS, SHARED_REPO_CHECKS, Check, references

if TYPE_CHECKING:
    from agent_lint.fixer import Blocked, Edit
    from agent_lint.index import RepoIndex

_CONVERSATION = KINDS_BY_NAME["conversation"].id_pattern
_MISSION = KINDS_BY_NAME["mission"].id_pattern


def holds_cortex_state(match: Match, relpath: str, data: Any) -> bool:
    """Whether a file shows that the agent dir keeps Cortex agent state.

    A record named with its kind's id prefix (``D-…``, ``WP-…``, a ``C-…``
    conversation folder), a parsed record that carries its kind's id field or
    index array, or a Mission Lite plan in an ``M-…`` folder.
    """
    assert _CONVERSATION is not None and _MISSION is not None
    kind = match.kind
    name = match.groups.get(kind.folder or "stem", "")
    if kind.id_pattern is not None and kind.id_pattern.match(name):
        return True
    if _CONVERSATION.match(match.groups.get("conversation", "")):
        return True
    if kind.name == "mission-note":
        mission = match.groups.get("mission", "")
        return _MISSION.match(mission) is not None and relpath.endswith(
            f"/{mission}/mission-plan.md"
        )
    if not isinstance(data, dict):
        return False
    keys = (kind.id_field, kind.index.array if kind.index else None)
    return any(key in data for key in keys if key)


def plan_state_files(index: RepoIndex, unsafe: bool = False) -> tuple[list[Edit], list[Blocked]]:
    """State files to regenerate (:mod:`~agent_lint.profiles.cortex.fixes`, loaded to plan)."""
    from agent_lint.profiles.cortex import fixes

    return fixes.plan_state_files(index, unsafe)


def _codes(*rules: Any) -> frozenset[str]:
    return frozenset(rule.code for rule in rules)


def restore(index: RepoIndex, merged: Mapping[str, bytes | None]) -> AsMerged | None:
    """The conversation checks on the conversations as merged (:mod:`.merged`, loaded then)."""
    from agent_lint.profiles.cortex import merged as as_merged

    return as_merged.restore(index, merged, (_CONVERSATION_CHECK, _AGREEMENT_CHECK))


_CONVERSATION_CHECK = Check(
    ordering.check_conversations,
    _codes(*ordering.RULES)
    - _codes(
        ordering.HANDOFF_TIME_MISMATCH, ordering.DUPLICATE_HANDOFF_TIME, ordering.MISSION_MISMATCH
    ),
)
_AGREEMENT_CHECK = Check(agreement.check_agreement, _codes(*agreement.RULES))

PROFILE = Profile(
    name="cortex",
    title=TITLE,
    description="the .agent/ directory of Cortex-style agents: conversations, handoffs, "
    "decisions, missions, …",
    markers=MARKERS,
    kinds=KINDS,
    namespaces=NAMESPACES,
    record_folders=RECORD_FOLDERS,
    schema_folder="cortex",
    file_checks=(
        *SHARED_FILE_CHECKS,
        Check(
            states.check_states,
            _codes(
                states.UNRESOLVED_DECISION,
                states.INVALID_SELECTED_OPTION,
                states.MILESTONE_CYCLE,
                states.MEMORY_FOLDER_MISMATCH,
            ),
        ),
    ),
    repo_checks=(
        SHARED_REPO_CHECKS[0],
        Check(conversations.check_conversation_folders, _codes(conversations.MISSING_META)),
        *SHARED_REPO_CHECKS[1:3],
        Check(conversations.check_relations, _codes(conversations.RELATIONS_MISMATCH)),
        SHARED_REPO_CHECKS[3],
        Check(states.check_supersession, _codes(states.SUPERSESSION_CYCLE)),
        Check(notes.check_notes, _codes(*notes.RULES, references.UNSAFE_PATH)),
        _CONVERSATION_CHECK,
        Check(
            ordering.check_timed_handoffs,
            _codes(
                ordering.HANDOFF_TIME_MISMATCH,
                ordering.DUPLICATE_HANDOFF_TIME,
                ordering.MISSION_MISMATCH,
                ordering.MISSING_NOTE,
            ),
        ),
        _AGREEMENT_CHECK,
    ),
    collectors=(CortexCollector(),),
    fixers=(plan_state_files,),
    summary=(handoff_chains,),
    checksum_line=checksum_line,
    restore=restore,
    refine=agreement.copies_once,
    hooks=(
        Hook("agent-lint", r"^\.agent/"),
        Hook("agent-lint-handoffs", r"^\.agent/"),
        Hook("agent-lint-fix", r"^\.agent/"),
    ),
    support_files=SUPPORT_FILES,
    rules=(
        *conversations.RULES,
        *states.RULES,
        *notes.RULES,
        *ordering.RULES,
        *agreement.RULES,
    ),
    # A mission or conversation folder stands for its record even without the record file
    # (Mission Lite has no mission.json; a conversation without meta.json is AL206 alone).
    named_groups={"mission": "mission", "conversation": "conversation"},
    signature=holds_cortex_state,
    unread_reasons=(
        ("artifacts/", "not read: an artifact (only artifacts/<id>/state.json is a record)"),
    ),
)
