"""Set values in JSON text while keeping every other byte as it was.

Used by ``--fix --unsafe-fixes`` on ``meta.json``: key order, indentation,
unknown fields and formatting of untouched values stay exactly as written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from agent_lint.jsontext import dumps
from agent_lint.positions import Span, locate_json


class EditError(ValueError):
    """The edit cannot be applied (the text does not parse, or a parent is missing)."""


def _offsets(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _offset(starts: list[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1


def _indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _line_indent(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    return re.match(r"[ \t]*", text[start:]).group(0)  # type: ignore[union-attr]


def _render(value: Any, unit: str, indent: str, inline: bool, newline: str = "\n") -> str:
    if inline:
        return dumps(value, separators=(", ", ": "))
    rendered = dumps(value, indent=unit)
    return rendered.replace("\n", newline + indent)


def _ancestors(pointer: str) -> Iterator[str]:
    while "/" in pointer:
        pointer = pointer.rsplit("/", 1)[0]
        yield pointer


def set_values(text: str, changes: Sequence[tuple[str, Any]]) -> str:
    """Return ``text`` with each JSON pointer set to its value.

    Existing values are replaced in place (rendered in the file's indentation
    style, or on one line where the old value was on one line); a missing
    member is appended to its parent object. Nested changes under a pointer
    that is itself replaced are dropped. New lines use the file's line
    ending (CRLF stays CRLF).
    """
    try:
        found = locate_json(text)
    except ValueError as exc:
        raise EditError(str(exc)) from exc
    starts = _offsets(text)
    unit = _indent_unit(text)
    newline = "\r\n" if "\r\n" in text else "\n"
    replaced = {pointer for pointer, _ in changes}
    kept = [
        (pointer, value)
        for pointer, value in changes
        if not any(ancestor in replaced for ancestor in _ancestors(pointer))
    ]
    patches: list[tuple[int, int, str]] = []
    for pointer, value in kept:
        span = found.values.get(pointer)
        if span is not None:
            start = _offset(starts, span.line, span.column)
            end = _offset(starts, span.end_line, span.end_column)
            compact = _render(value, unit, "", True)
            inline = span.line == span.end_line and (
                not isinstance(value, (dict, list)) or len(compact) <= 100
            )
            indent = _line_indent(text, start)
            patches.append((start, end, _render(value, unit, indent, inline, newline)))
            continue
        parent, _, key = pointer.rpartition("/")
        parent_span: Span | None = found.values.get(parent)
        if parent_span is None:
            raise EditError(f"cannot set {pointer}: {parent or 'the document'} does not exist")
        close = _offset(starts, parent_span.end_line, parent_span.end_column) - 1
        if text[close] != "}":
            raise EditError(f"cannot set {pointer}: {parent or 'the document'} is not an object")
        body_end = len(text[:close].rstrip())
        name = key.replace("~1", "/").replace("~0", "~")
        empty = text[body_end - 1] == "{"
        parent_indent = _line_indent(text, _offset(starts, parent_span.line, parent_span.column))
        member_indent = parent_indent + unit
        member = f"{dumps(name)}: {_render(value, unit, member_indent, False, newline)}"
        if empty:
            insertion = f"{newline}{member_indent}{member}{newline}{parent_indent}"
            patches.append((body_end, close, insertion))
        else:
            patches.append((body_end, body_end, f",{newline}{member_indent}{member}"))
    pieces: list[str] = []
    position = 0
    for start, end, replacement in sorted(patches):
        pieces.extend((text[position:start], replacement))
        position = end
    pieces.append(text[position:])
    edited = "".join(pieces)
    json.loads(edited, parse_int=Decimal)  # the result must still be valid JSON
    return edited
