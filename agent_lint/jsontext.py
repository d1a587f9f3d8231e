"""JSON text of parsed record values, for messages and for files ``--fix`` writes.

Parsed records hold JSON's values, plus one Python type ``json`` cannot
write: an integer too long for Python's ``int`` is kept exactly as a
:class:`~decimal.Decimal` (see :mod:`agent_lint.loading`). It is written
here as the digits it was read from.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

#: The Python types of a JSON integer in parsed records (``bool`` aside).
INTEGER = (int, Decimal)


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)``, writing long integers as digits."""
    digits: list[str] = []
    nonce = os.urandom(8).hex()  # what secrets.token_hex(8) returns

    def placeholder(item: Any) -> str:
        if isinstance(item, Decimal) and item.is_finite():
            digits.append(str(item))
            return f"{nonce}:{len(digits) - 1}"
        raise TypeError(f"{type(item).__name__} is not a JSON value")

    options.setdefault("ensure_ascii", False)
    text = json.dumps(value, default=placeholder, **options)
    if not digits:
        return text
    return re.sub(f'"{nonce}:([0-9]+)"', lambda m: digits[int(m.group(1))], text)


def escape_token(token: str | int) -> str:
    """Escape one JSON-pointer reference token (RFC 6901)."""
    text = str(token)
    if "~" not in text and "/" not in text:
        return text
    return text.replace("~", "~0").replace("/", "~1")


#: The most characters of one value a message shows; a longer value is cut with "…".
MESSAGE_VALUE_CHARS = 200


def clip(text: str, limit: int = MESSAGE_VALUE_CHARS) -> str:
    """``text`` as a message shows it: at most ``limit`` characters, the cut marked with "…".

    Messages quote ids, paths, names and values from the repository, which can
    be any length; a finding stays one readable line.
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listed(
    items: Sequence[str],
    most: int | None = None,
    chars: int | None = None,
    limit: int | None = MESSAGE_VALUE_CHARS,
) -> str:
    """``items`` for a message: the first ``most`` of them, or as many as fit in about
    ``chars`` characters (one at least), each cut by :func:`clip` at ``limit`` (None: as
    they are), then how many more there are (``a, b and 3 more``)."""
    shown: list[str] = []
    used = 0
    for item in items[:most] if most is not None else items:
        text = item if limit is None else clip(item, limit)
        if chars is not None and shown and used + len(text) > chars:
            break
        shown.append(text)
        used += len(text) + 2
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def quote(value: Any, limit: int = MESSAGE_VALUE_CHARS) -> str:
    """A value from a record as a message shows it: its JSON text, cut by :func:`clip`.

    ``"D-001"``, ``42``, ``null``, ``["a", "b"]``; a cut string keeps its
    opening quote and ends in "…". Only the first ``limit`` characters of a
    long string are rendered at all.
    """
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]
    try:
        text = dumps(value)
    except (TypeError, ValueError):  # not a JSON value (never in parsed records)
        text = repr(value)
    return clip(text, limit)
