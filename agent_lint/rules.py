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


@functools.cache
def _rules_at_hand(profiles: tuple[str, ...]) -> dict[str, Rule]:
    """The shared rules and those of the loaded ``profiles``, by code."""
    from agent_lint.profiles import get
    from agent_lint.validators import RULES

    own = (rule for name in profiles for rule in get(name).rules)
    return {rule.code: rule for rule in (*RULES, *own)}


def rule_for(code: str) -> Rule:
    """The rule of a finding's ``code``, loading no profile a run did not load.

    A finding comes from the shared families or from the profile that made it,
    which is loaded; the whole catalogue is read only for another code. Codes
    are unique, so the rule is the one :func:`rules_by_code` gives.
    """
    from agent_lint.profiles import loaded

    rule = _rules_at_hand(tuple(profile.name for profile in loaded())).get(code)
    return rule if rule is not None else rules_by_code()[code]


def clear() -> None:
    """Forget the catalogue (after the registered profiles change, in tests)."""
    all_rules.cache_clear()
    rules_by_code.cache_clear()
    _rules_at_hand.cache_clear()
