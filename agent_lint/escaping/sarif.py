"""URIs in SARIF logs: repository paths as percent-encoded relative references.

SARIF's ``artifactLocation.uri`` is a URI reference (RFC 3986). A file name
with ``%``, ``#``, ``?``, a space, a control character or a ``:`` in its
first segment (which would read as a URI scheme) is percent-encoded, UTF-8
byte by byte; ``/`` separates segments.
"""

from __future__ import annotations

from urllib.parse import quote


def uri(path: str) -> str:
    """A POSIX repository path as a relative URI reference."""
    try:
        data = path.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        data = path.encode("utf-8", errors="backslashreplace")
    return quote(data, safe="/-._~")
