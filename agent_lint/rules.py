"""The rule catalogue: every rule agent-lint can report.

The shared families of :mod:`agent_lint.validators` and the rules each built-in
profile defines of its own (``Profile.rules``), in code order. Selection,
``--list-rules``, ``--explain`` and the reporters read rules from here.
"""

from __future__ import annotations

import functools

from agent_lint.diagnostics import Rule


@functools.cache
def all_rules() -> tuple[Rule, ...]:
    """Every rule, in code order (loaded on first use: the profiles import the validators)."""
    from agent_lint.profile import rules_of
    from agent_lint.profiles import builtin
    from agent_lint.validators import RULES

    by_code = {rule.code: rule for rule in (*RULES, *rules_of(builtin()))}
    return tuple(sorted(by_code.values(), key=lambda rule: rule.code))


@functools.cache
def rules_by_code() -> dict[str, Rule]:
    """Every rule by its code."""
    return {rule.code: rule for rule in all_rules()}


def clear() -> None:
    """Forget the catalogue (after the registered profiles change, in tests)."""
    all_rules.cache_clear()
    rules_by_code.cache_clear()
