"""The generic validator modules, one per family of checks.

With the profiles' own checks (``agent_lint/profiles/<name>/``) they are the
one layer that emits codes: the engine (discovery, loading, the per-file step,
the gate) returns typed problems (:mod:`agent_lint.problems`) that functions
here make findings, and nothing else calls :meth:`Rule.at
<agent_lint.diagnostics.Rule.at>`. Nothing here knows a profile's kinds by name.

A profile (:mod:`agent_lint.profile`) lists the checks that apply to it: file
checks run once per parsed file (a :class:`~agent_lint.index.FileContext`),
repo checks once per repository on the :class:`~agent_lint.index.RepoIndex`.
``SHARED_FILE_CHECKS`` and ``SHARED_REPO_CHECKS`` are the ones every profile
runs. Each :class:`Check` declares the codes it emits, so selection decides
what runs. ``RULES`` lists every rule of the generic families, in code order;
a profile's own rules are its ``rules`` (:func:`agent_lint.rules.all_rules`
has them all).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.frozen import frozen
from agent_lint.index import FileContext, RepoIndex
from agent_lint.validators import (
    files,
    history,
    identity,
    indexes,
    references,
    schema,
    storage,
    timestamps,
)

T = TypeVar("T")


@frozen(repr=False, eq=False)
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

#: Checks every profile runs on each parsed record: its schema and its identity.
SHARED_FILE_CHECKS: tuple[FileCheck, ...] = (
    Check(schema.check_schema, _codes(*schema.RULES)),
    Check(
        identity.check_identity,
        _codes(identity.INVALID_ID, identity.ID_NAME_MISMATCH, identity.INVALID_FILE_NAME),
    ),
    Check(timestamps.check_timestamp_order, _codes(timestamps.TIMESTAMP_ORDER)),
)
#: Checks every profile runs on the index: unique ids, references, paths, index files.
SHARED_REPO_CHECKS: tuple[RepoCheck, ...] = (
    Check(identity.check_unique_ids, _codes(identity.DUPLICATE_ID)),
    Check(references.check_references, _codes(references.DANGLING_REFERENCE)),
    Check(references.check_paths, _codes(references.MISSING_PATH, references.UNSAFE_PATH)),
    Check(indexes.check_indexes, _codes(*indexes.RULES, schema.MISSING_FIELD)),
)

_FAMILIES = (
    files,
    schema,
    identity,
    references,
    indexes,
    history,
    storage,
    timestamps,
)
RULES: tuple[Rule, ...] = tuple(
    sorted((rule for family in _FAMILIES for rule in family.RULES), key=lambda rule: rule.code)
)
RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
