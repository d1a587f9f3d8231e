"""SARIF logs: repository paths as percent-encoded relative references, and message text.

SARIF's ``artifactLocation.uri`` is a URI reference (RFC 3986). A file name
with ``%``, ``#``, ``?``, a space, a control character or a ``:`` in its
first segment (which would read as a URI scheme) is percent-encoded, UTF-8
byte by byte; ``/`` separates segments.

A message's plain text may hold embedded links, ``[text](target)`` (SARIF 2.1.0,
3.11.6), which viewers render as links: text quoted from the repository could forge
one. The brackets of such a sequence are escaped (``\\[``, ``\\]``, as the format
defines); other brackets (``handoffs[2]``) are left as they are.
"""

from __future__ import annotations

import re
from urllib.parse import quote

_EMBEDDED_LINK = re.compile(r"\\*\[[^\[\]]*\\*\]\(")
_BRACKET = re.compile(r"(\\*)([\[\]])")


def message(text: str) -> str:
    """``text`` with every ``[…](`` that would read as an embedded link escaped."""
    if "](" not in text:
        return text
    return _EMBEDDED_LINK.sub(
        lambda m: _BRACKET.sub(lambda b: b.group(1) * 2 + "\\" + b.group(2), m.group()), text
    )


def uri(path: str) -> str:
    """A POSIX repository path as a relative URI reference."""
    try:
        data = path.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        data = path.encode("utf-8", errors="backslashreplace")
    return quote(data, safe="/-._~")
