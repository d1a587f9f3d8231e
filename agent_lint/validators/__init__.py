"""Validator modules, one per family of checks, registered explicitly here.

``FILE_CHECKS`` run once per parsed file (a :class:`~agent_lint.index.FileContext`);
``REPO_CHECKS`` run once per repository on the :class:`~agent_lint.index.RepoIndex`.
Each :class:`Check` declares the codes it emits, so selection decides what runs.
``RULES`` lists every rule of every family, in code order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.index import FileContext, RepoIndex
from agent_lint.validators import (
    agreement,
    files,
    history,
    identity,
    indexes,
    notes,
    ordering,
    references,
    schema,
    states,
    storage,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Check(Generic[T]):
    """A check and the rule codes it can emit.

    The linter skips a check when every one of its codes is deselected, and a
    test verifies that no check emits a code it does not declare.
    """

    run: Callable[[T], Iterator[Diagnostic]]
    codes: frozenset[str]

    @property
    def name(self) -> str:
        """The check function's qualified name (for messages and tests)."""
        return f"{self.run.__module__}.{self.run.__name__}"


def _codes(*rules: Rule) -> frozenset[str]:
    return frozenset(rule.code for rule in rules)


FileCheck = Check[FileContext]
RepoCheck = Check[RepoIndex]

FILE_CHECKS: tuple[FileCheck, ...] = (
    Check(schema.check_schema, _codes(*schema.RULES)),
    Check(
        identity.check_identity,
        _codes(identity.INVALID_ID, identity.ID_NAME_MISMATCH, identity.INVALID_FILE_NAME),
    ),
    Check(
        states.check_states,
        _codes(
            states.UNRESOLVED_DECISION,
            states.INVALID_SELECTED_OPTION,
            states.MILESTONE_CYCLE,
            states.MEMORY_FOLDER_MISMATCH,
            states.TIMESTAMP_ORDER,
        ),
    ),
)
REPO_CHECKS: tuple[RepoCheck, ...] = (
    Check(identity.check_unique_ids, _codes(identity.DUPLICATE_ID)),
    Check(identity.check_conversation_folders, _codes(identity.MISSING_META)),
    Check(references.check_references, _codes(references.DANGLING_REFERENCE)),
    Check(references.check_paths, _codes(references.MISSING_PATH, references.UNSAFE_PATH)),
    Check(references.check_relations, _codes(references.RELATIONS_MISMATCH)),
    Check(indexes.check_indexes, _codes(*indexes.RULES, schema.MISSING_FIELD)),
    Check(states.check_supersession, _codes(states.SUPERSESSION_CYCLE)),
    Check(notes.check_notes, _codes(*notes.RULES, references.UNSAFE_PATH)),
    Check(
        ordering.check_conversations,
        _codes(*ordering.RULES)
        - _codes(
            ordering.HANDOFF_TIME_MISMATCH,
            ordering.DUPLICATE_HANDOFF_TIME,
            ordering.MISSION_MISMATCH,
        ),
    ),
    Check(
        ordering.check_timed_handoffs,
        _codes(
            ordering.HANDOFF_TIME_MISMATCH,
            ordering.DUPLICATE_HANDOFF_TIME,
            ordering.MISSION_MISMATCH,
            ordering.MISSING_NOTE,
        ),
    ),
    Check(agreement.check_agreement, _codes(*agreement.RULES)),
)

_FAMILIES = (
    files,
    schema,
    identity,
    references,
    indexes,
    states,
    notes,
    ordering,
    agreement,
    history,
    storage,
)
RULES: tuple[Rule, ...] = tuple(
    sorted((rule for family in _FAMILIES for rule in family.RULES), key=lambda rule: rule.code)
)
RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
