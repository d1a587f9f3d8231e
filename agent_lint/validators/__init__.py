"""Validator modules, one per family of checks, registered explicitly here.

``FILE_CHECKS`` run once per parsed file (a :class:`~agent_lint.index.FileContext`);
``REPO_CHECKS`` run once per repository on the :class:`~agent_lint.index.RepoIndex`.
``RULES`` lists every rule of every family, in code order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.index import FileContext, RepoIndex
from agent_lint.validators import files, identity, schema

FileCheck = Callable[[FileContext], Iterator[Diagnostic]]
RepoCheck = Callable[[RepoIndex], Iterator[Diagnostic]]

FILE_CHECKS: tuple[FileCheck, ...] = (
    schema.check_schema,
    identity.check_identity,
)
REPO_CHECKS: tuple[RepoCheck, ...] = (identity.check_unique_ids,)

RULES: tuple[Rule, ...] = tuple(
    sorted((*files.RULES, *schema.RULES, *identity.RULES), key=lambda rule: rule.code)
)
RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
