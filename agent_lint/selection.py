"""Selection: which codes a run reports, for which files, at which severity.

``select`` and ``ignore`` take codes, prefixes or rule names; the longest
matching prefix wins (ties ignore), as in flake8 and ruff. A finding another
one already states is left out (:func:`without_covered`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from fnmatch import fnmatch

from agent_lint.config import Config
from agent_lint.diagnostics import Diagnostic, Severity
from agent_lint.rules import rule_for


def _best_prefix(code: str, prefixes: Iterable[str]) -> int:
    return max((len(p) for p in prefixes if code.startswith(p.upper())), default=-1)


def is_selected(code: str, config: Config, path: str) -> bool:
    """Longest matching prefix wins between ``select`` and ``ignore`` (ties ignore)."""
    ignored = list(config.ignore)
    for pattern, codes in config.per_file_ignores:
        if fnmatch(path, pattern):
            ignored.extend(codes)
    return _best_prefix(code, config.select) > _best_prefix(code, ignored)


def is_enabled(code: str, config: Config) -> bool:
    """Whether ``code`` can be reported for any file (``per-file-ignores`` only narrow it)."""
    return _best_prefix(code, config.select) > _best_prefix(code, config.ignore)


def _severity(code: str, config: Config) -> Severity | None:
    best, level = -1, None
    for prefix, severity in config.severity:
        if code.startswith(prefix) and len(prefix) > best:
            best, level = len(prefix), severity
    return level


def configured(diagnostic: Diagnostic, config: Config) -> Diagnostic | None:
    """``diagnostic`` as the configuration reports it: None when deselected for its file.

    ``[severity]`` overrides apply to errors and warnings; info summaries stay info.
    """
    if not is_selected(diagnostic.code, config, diagnostic.path):
        return None
    level = _severity(diagnostic.code, config)
    if level and diagnostic.severity is not Severity.INFO:
        return diagnostic.with_severity(level)
    return diagnostic


def reported_as_error(code: str, config: Config, path: str) -> bool:
    """Whether an error of rule ``code`` at ``path`` is reported, and as an error: only
    then does it stand for the findings it makes needless (a rename's AL202 for the
    references that name the old file), since those would be errors of their own."""
    return is_selected(code, config, path) and _severity(code, config) in (None, Severity.ERROR)


#: Severities from least to most severe.
RANK = {Severity.ERROR: 2, Severity.WARNING: 1, Severity.INFO: 0}


def without_covered(findings: list[Diagnostic]) -> list[Diagnostic]:
    """The findings less those another one already states: one fact, one finding.

    A rule's ``covers`` codes are left out at its finding's pointer or inside
    it, in the same file, when they are no more severe than it: state.json's
    ``latest_handoff_id`` naming a deleted handoff is its AL503 alone. A
    finding on a whole file (no pointer) covers nothing, unless its rule is
    ``per_file``: then it covers its codes anywhere in the file. Given the findings a
    configuration keeps (:func:`configured`), a covering rule turned off
    covers nothing either.
    """
    covering: dict[str, list[tuple[str, tuple[str, ...], int]]] = defaultdict(list)
    for diagnostic in findings:
        rule = rule_for(diagnostic.code)
        if rule.covers and (diagnostic.pointer or rule.per_file):
            place = "" if rule.per_file else diagnostic.pointer
            covering[diagnostic.path].append((place, rule.covers, RANK[diagnostic.severity]))
    if not covering:
        return findings
    return [d for d in findings if not _covered(d, covering.get(d.path, ()))]


def _covered(diagnostic: Diagnostic, places: Iterable[tuple[str, tuple[str, ...], int]]) -> bool:
    pointer = diagnostic.pointer
    return any(
        diagnostic.code in codes
        and rank >= RANK[diagnostic.severity]
        and (not place or pointer == place or pointer.startswith(place + "/"))
        for place, codes, rank in places
    )
