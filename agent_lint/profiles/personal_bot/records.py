"""The schema findings of Personal Bot records, in the storage document's own words.

The shared schema check (:func:`agent_lint.validators.schema.check_schema`)
reports every violation of the bundled schemas. Two of them state a rule of
the storage document that a regular expression or a ``not`` cannot explain:
``session-ref.json``'s ``file`` is null or one normalised absolute path, and
the history archive keeps no ``file`` field (its sources are a session id and
a message id). This check runs the shared one and says why, computed from the
value; every other finding passes unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_lint.diagnostics import Diagnostic
from agent_lint.frozen import replace
from agent_lint.index import FileContext
from agent_lint.jsontext import quote
from agent_lint.validators import schema

_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


def session_file_problem(value: str) -> str:
    """Why ``value`` is not a normalised absolute path, in a few words."""
    if not (value.startswith("/") or _DRIVE.match(value)):
        return "is relative; expected null or an absolute path"
    segments = re.split(r"[\\/]", value[2:] if _DRIVE.match(value) else value)[1:]
    if ".." in segments:
        return "has `..` segments; expected null or one normalised absolute path"
    if "." in segments:
        return "has `.` segments; expected null or one normalised absolute path"
    return "has an empty segment; expected null or one normalised absolute path"


def _history_file(pointer: str) -> str:
    if pointer == "/file":
        return (
            "a history record has a `file` field; the archive keeps sources as session id "
            "and message id only (remove the legacy field)"
        )
    owner = "a history source" if pointer.endswith("/source/file") else "a history entry"
    return f"{owner} has a `file` field; expected only the session id and message id"


def check_records(ctx: FileContext) -> Iterator[Diagnostic]:
    """AL1xx: the record against its kind's schema, with the document's rules explained."""
    kind = ctx.kind.name
    for diagnostic in schema.check_schema(ctx):
        code, pointer = diagnostic.code, diagnostic.pointer
        if kind == "session-ref" and code == schema.PATTERN_MISMATCH.code and pointer == "/file":
            value = ctx.data.get("file") if isinstance(ctx.data, dict) else None
            if isinstance(value, str):
                message = f'"file" {quote(value)} {session_file_problem(value)}'
                diagnostic = replace(diagnostic, message=message)
        elif (
            kind == "history" and code == schema.SCHEMA_VIOLATION.code and pointer.endswith("/file")
        ):
            diagnostic = replace(diagnostic, message=_history_file(pointer))
        yield diagnostic
