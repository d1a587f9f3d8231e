"""Text for a terminal or a CI log: control characters become visible escapes.

A file name or value holding ``ESC [ 31 m`` would otherwise recolour the
terminal, move the cursor, set the window title or forge a hyperlink, and a
CR or LF would start a forged line. Each such character is shown as a Python
style escape (``\\x1b``, ``\\n``, ``\\u202e``) instead.
"""

from __future__ import annotations

import re

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

#: C0 and C1 control characters, DEL, line and paragraph separators, and the
#: Unicode bidirectional controls that reorder how text is displayed.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character shown as an escape; one line, always."""
    return UNSAFE.sub(_escape, text)
