"""Baselines: adopt agent-lint on a repository that already has findings.

``agent-lint --write-baseline FILE`` records the fingerprints of the current
findings; ``agent-lint --baseline FILE`` reports only findings that are not
recorded there. A fingerprint is the rule code, the file, the JSON pointer
with array positions left out, and the message with array positions and
did-you-mean hints left out (or the finding's ``key`` when its message
carries counts). Line numbers never enter it, so findings keep their
fingerprint when lines move or other records change. The baseline counts
each fingerprint: two identical findings need two entries.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from agent_lint.config import ConfigError
from agent_lint.diagnostics import Diagnostic, change_cannot_waive
from agent_lint.fileio import NotRead, read_in_folder
from agent_lint.frozen import frozen
from agent_lint.jsontext import clip

VERSION = 1

_POSITION = re.compile(r"\[\d+\]")
_POINTER_POSITION = re.compile(r"/\d+(?=/|$)")
_HINT = re.compile(r'; did you mean "[^"]*"\?')


def normalised_message(diagnostic: Diagnostic) -> str:
    """The part of a finding's message that identifies it across unrelated edits."""
    if diagnostic.key:
        return diagnostic.key
    return _POSITION.sub("[]", _HINT.sub("", diagnostic.message))


def fingerprint(diagnostic: Diagnostic) -> str:
    """A fingerprint stable across line moves and unrelated edits (hex SHA-256)."""
    parts = (
        diagnostic.code,
        diagnostic.path,
        _POINTER_POSITION.sub("/*", diagnostic.pointer),
        normalised_message(diagnostic),
    )
    data = "\0".join(parts).encode("utf-8", errors="backslashreplace")
    return hashlib.sha256(data).hexdigest()


def render(diagnostics: Iterable[Diagnostic]) -> str:
    """The baseline file recording ``diagnostics``: stable order, one entry per finding."""
    entries = sorted(
        (
            {
                "fingerprint": fingerprint(d),
                "code": d.code,
                "path": d.path,
                "message": d.message,
            }
            for d in diagnostics
            if not change_cannot_waive(d.code)
        ),
        key=lambda entry: (entry["path"], entry["code"], entry["fingerprint"]),
    )
    document = {"version": VERSION, "tool": "agent-lint", "findings": entries}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


#: A baseline is read only up to this size (some 100,000 findings).
MAX_BASELINE_BYTES = 64 * 1024 * 1024


def load(path: Path) -> Counter[str]:
    """The fingerprints recorded in a baseline file, with their counts."""
    if not path.exists() and not path.is_symlink():
        raise ConfigError(
            f"{path}: baseline not found (create it with `agent-lint --write-baseline {path}`)"
        )
    try:
        document = json.loads(read_in_folder(path, MAX_BASELINE_BYTES).decode("utf-8"))
    except NotRead as exc:
        raise ConfigError(f"{path}: cannot read the baseline: {exc.reason}") from exc
    except (RecursionError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the baseline: {clip(str(exc))}") from exc
    findings = document.get("findings") if isinstance(document, dict) else None
    if (
        not isinstance(document, dict)
        or document.get("version") != VERSION
        or not isinstance(findings, list)
    ):
        raise ConfigError(
            f"{path}: not an agent-lint baseline (expected version {VERSION} with a findings list)"
        )
    counts: Counter[str] = Counter()
    for entry in findings:
        value = entry.get("fingerprint") if isinstance(entry, dict) else None
        if not isinstance(value, str):
            raise ConfigError(f"{path}: every baseline entry needs a fingerprint")
        counts[value] += 1
    return counts


@frozen
class Filtered:
    """Findings left after a baseline: those to report, how many were known, how many fixed."""

    new: list[Diagnostic]
    known: int
    stale: int


def apply(diagnostics: Iterable[Diagnostic], baseline: Counter[str]) -> Filtered:
    """Drop findings recorded in ``baseline`` (each entry hides one finding)."""
    left = Counter(baseline)
    new: list[Diagnostic] = []
    known = 0
    for diagnostic in diagnostics:
        value = fingerprint(diagnostic)
        if left[value] > 0 and not change_cannot_waive(diagnostic.code):
            left[value] -= 1
            known += 1
        else:
            new.append(diagnostic)
    return Filtered(new, known, sum(left.values()))
