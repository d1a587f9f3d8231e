"""AL313: no object of a record was updated before it was created.

Every profile's records carry ``created_at``/``updated_at`` pairs somewhere (a
decision, an Astrion conversation's metadata); one whose update precedes its
creation has one of the two wrong, whatever the layout.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.index import FileContext
from agent_lint.jsontext import escape_token
from agent_lint.schemas import parse_timestamp

TIMESTAMP_ORDER = Rule(
    "AL313",
    "timestamp-order",
    "A record was updated before it was created",
    "Reports an object whose `updated_at` is earlier than its `created_at`. One of the two "
    "is wrong, and ordering or staleness checks built on them mislead.",
    '{"created_at": "2026-11-02T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z"}',
    '{"created_at": "2026-11-02T10:00:00Z", "updated_at": "2026-11-02T12:00:00Z"}',
)

RULES = (TIMESTAMP_ORDER,)

_NAIVE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?")


def timestamps(data: Any, text: str | None = None) -> list[tuple[str, str, str]]:
    """``(pointer, created_at, updated_at)`` of every object whose update precedes its creation.

    Objects are visited in document order; the pointer is built only for a hit,
    so a clean record costs one walk over its containers and nothing more. With
    ``text``, the file's text, a record that cannot hold both fields is not
    walked at all (:func:`may_name_both`).
    """
    found: list[tuple[str, str, str]] = []
    if text is None or may_name_both(text):
        _visit(data, [], found)
    return found


def may_name_both(text: str) -> bool:
    """Whether a document written as ``text`` may have a key ``created_at`` and one ``updated_at``.

    A key of a JSON or YAML document is its text as written unless it uses an
    escape, which needs a backslash (JSON's ``\\u…``, a double-quoted YAML
    scalar's); a folded YAML key gains a space or a line break, never loses
    one. So a text without a backslash holds both keys only if it names both.
    """
    return "\\" in text or ("updated_at" in text and "created_at" in text)


def _visit(data: Any, trail: list[Any], found: list[tuple[str, str, str]]) -> None:
    if isinstance(data, dict):
        if "updated_at" in data and "created_at" in data:
            created, updated = _moment(data["created_at"]), _moment(data["updated_at"])
            if (
                created is not None
                and updated is not None
                and (created.tzinfo is None) == (updated.tzinfo is None)
                and updated < created
            ):
                pointer = "".join(f"/{escape_token(key)}" for key in trail)
                found.append((pointer, data["created_at"], data["updated_at"]))
        items: Any = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return
    for key, value in items:
        if value and isinstance(value, (dict, list)):
            trail.append(key)
            _visit(value, trail, found)
            trail.pop()


def _moment(value: Any) -> datetime | None:
    """An RFC 3339 date-time, or one written without an offset (``2026-07-11T21:00:00``,
    as Python's ``isoformat`` writes local time): naive then, compared with naive only."""
    aware = parse_timestamp(value)
    if aware is not None or not isinstance(value, str) or not _NAIVE.fullmatch(value):
        return aware
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def check_timestamp_order(ctx: FileContext) -> Iterator[Diagnostic]:
    """No object's ``updated_at`` is earlier than its ``created_at`` (AL313). The same fact
    in several entries of one array is one finding at the first, with the count."""
    found = timestamps(ctx.data, ctx.text)
    groups: dict[str, list[tuple[str, str, str]]] = {}
    for hit in found:
        groups.setdefault(_ENTRY.sub("/*", hit[0]), []).append(hit)
    for hits in groups.values():
        pointer, created, updated = hits[0]
        more = len(hits) - 1
        also = f" (and {more} more entr{'y' if more == 1 else 'ies'})" if more else ""
        yield TIMESTAMP_ORDER.at(
            ctx.path,
            f"updated_at {updated} is earlier than created_at {created}{also}",
            pointer=f"{pointer}/updated_at",
        )


_ENTRY = re.compile(r"/\d+(?=/|$)")
