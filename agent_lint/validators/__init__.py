"""Validator modules, one per family of checks, registered explicitly here.

``FILE_CHECKS`` run once per parsed file (a :class:`~agent_lint.index.FileContext`);
``REPO_CHECKS`` run once per repository on the :class:`~agent_lint.index.RepoIndex`.
``RULES`` lists every rule of every family, in code order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

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

FileCheck = Callable[[FileContext], Iterator[Diagnostic]]
RepoCheck = Callable[[RepoIndex], Iterator[Diagnostic]]

FILE_CHECKS: tuple[FileCheck, ...] = (
    schema.check_schema,
    identity.check_identity,
    states.check_states,
)
REPO_CHECKS: tuple[RepoCheck, ...] = (
    identity.check_unique_ids,
    references.check_references,
    references.check_paths,
    references.check_relations,
    indexes.check_indexes,
    states.check_supersession,
    notes.check_notes,
    ordering.check_conversations,
    ordering.check_timed_handoffs,
    agreement.check_agreement,
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
