"""Did-you-mean suggestions in bounded time.

Ids are indexed under every form with one character deleted (the symmetric
delete method) and under a normalised form that folds look-alike characters
(``O``/``0``, ``l``/``I``/``1``) and case. A lookup costs a number of hash
probes proportional to the length of the id, never a scan of all ids.

Deletions cost the square of an id's length, so only ids of at most
``max_length`` characters (the ``max-suggestion-length`` limit) take part;
a longer id gets no suggestion and costs one hash probe.
"""

from __future__ import annotations

from collections import defaultdict

from agent_lint.config import LIMITS

_CONFUSABLE = str.maketrans({"o": "0", "l": "1", "i": "1", "_": "-", ".": "-"})


def _fold(value: str) -> str:
    return value.lower().translate(_CONFUSABLE)


def _deletions(value: str) -> set[str]:
    return {value[:i] + value[i + 1 :] for i in range(len(value))}


class Suggester:
    """Finds an existing id within one edit (or a look-alike) of a mistyped one."""

    def __init__(self, max_length: int = LIMITS["max-suggestion-length"].default) -> None:
        self.max_length = max_length
        self._folded: dict[str, str] = {}
        self._deleted: dict[str, set[str]] = defaultdict(set)
        self.probes = 0

    def add(self, value: str) -> None:
        """Index an existing id."""
        if len(value) > self.max_length:
            return
        self._folded.setdefault(_fold(value), value)
        for variant in _deletions(value) | {value}:
            self._deleted[variant].add(value)

    def suggest(self, value: str) -> str | None:
        """The closest existing id, or ``None`` when nothing is near (or ``value`` is too long)."""
        self.probes += 1
        if len(value) > self.max_length:
            return None
        folded = self._folded.get(_fold(value))
        if folded is not None and folded != value:
            return folded
        candidates: set[str] = set()
        for variant in _deletions(value) | {value}:
            self.probes += 1
            candidates |= self._deleted.get(variant, set())
        candidates.discard(value)
        if not candidates:
            return None
        return min(candidates, key=lambda c: (distance(value, c), c))


def distance(a: str, b: str) -> int:
    """Levenshtein distance (used only to rank the few candidates found)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]
