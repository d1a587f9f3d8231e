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
