"""JSON text of parsed record values, for messages and for files ``--fix`` writes.

Parsed records hold JSON's values, plus one Python type ``json`` cannot
write: an integer too long for Python's ``int`` is kept exactly as a
:class:`~decimal.Decimal` (see :mod:`agent_lint.loading`). It is written
here as the digits it was read from.
"""

from __future__ import annotations

import json
import re
import secrets
from decimal import Decimal
from typing import Any

#: The Python types of a JSON integer in parsed records (``bool`` aside).
INTEGER = (int, Decimal)


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)``, writing long integers as digits."""
    digits: list[str] = []
    nonce = secrets.token_hex(8)

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
