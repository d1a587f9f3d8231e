"""Map JSON pointers to 1-based line/column spans, for files with findings.

Parsing for data uses the fast C parsers; this module re-reads a file's text
only when something must be reported in it. The JSON scanner is strict (it is
also used to locate syntax errors the C parser reports without context, such
as ``NaN``), and it records every object key, so duplicate keys can be
pointed at precisely.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode


@dataclass(frozen=True)
class Span:
    """A 1-based, end-exclusive span: ``line:column`` to ``end_line:end_column``."""

    line: int
    column: int
    end_line: int
    end_column: int


class ScanError(ValueError):
    """Invalid JSON found by the strict scanner, at 1-based ``line``/``column``."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass
class Locations:
    """Spans of values and keys by JSON pointer, plus duplicate keys in order."""

    values: dict[str, Span] = field(default_factory=dict)
    keys: dict[str, Span] = field(default_factory=dict)
    duplicates: list[tuple[str, Span]] = field(default_factory=list)

    def find(self, pointer: str, target: str = "value") -> Span | None:
        """The span for ``pointer``; the nearest existing ancestor if it is absent."""
        table = self.keys if target == "key" else self.values
        if pointer in table:
            return table[pointer]
        while pointer:
            if pointer in self.values:
                return self.values[pointer]
            pointer = pointer.rsplit("/", 1)[0]
        return self.values.get("")


def escape_token(token: str | int) -> str:
    """Escape one JSON-pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer_of(parts: Any) -> str:
    """Build a JSON pointer from path parts (strings and array indexes)."""
    return "".join("/" + escape_token(p) for p in parts)


class _LineIndex:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def span(self, start: int, end: int) -> Span:
        """The span between two character offsets."""
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(line, column, end_line, end_column)


_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = ("true", "false", "null")


def locate_json(text: str) -> Locations:
    """Scan JSON ``text`` strictly and return the span of every value and key.

    Raises :class:`ScanError` with a position on invalid JSON.
    """
    lines = _LineIndex(text)
    found = Locations()
    raw: dict[str, tuple[int, int]] = {}
    raw_keys: dict[str, tuple[int, int]] = {}

    def fail(message: str, offset: int) -> ScanError:
        line, column = lines.position(min(offset, len(text)))
        return ScanError(message, line, column)

    def ws(i: int) -> int:
        m = _WS.match(text, i)
        return m.end() if m else i

    def value(i: int, pointer: str) -> int:
        i = ws(i)
        if i >= len(text):
            raise fail("unexpected end of file, expected a value", i)
        ch = text[i]
        if ch == "{":
            end = obj(i, pointer)
        elif ch == "[":
            end = array(i, pointer)
        elif ch == '"':
            m = _STRING.match(text, i)
            if not m:
                raise fail("unterminated or invalid string", i)
            end = m.end()
        else:
            m = _NUMBER.match(text, i)
            if m and m.end() > i:
                end = m.end()
            else:
                for literal in _LITERALS:
                    if text.startswith(literal, i):
                        end = i + len(literal)
                        break
                else:
                    word = re.match(r"[A-Za-z_+-]*", text[i:]).group() or ch  # type: ignore[union-attr]
                    raise fail(f"unexpected {word!r}, expected a JSON value", i)
        raw[pointer] = (i, end)
        return end

    def obj(i: int, pointer: str) -> int:
        seen: set[str] = set()
        j = ws(i + 1)
        if text.startswith("}", j):
            return j + 1
        while True:
            m = _STRING.match(text, j)
            if not m:
                if text.startswith("}", j):
                    raise fail("trailing comma before '}'", j)
                raise fail("expected a string key in double quotes", j)
            key = json.loads(m.group())
            member = pointer + "/" + escape_token(key)
            raw_keys[member] = (j, m.end())
            if key in seen:
                found.duplicates.append((member, lines.span(j, m.end())))
            seen.add(key)
            j = ws(m.end())
            if not text.startswith(":", j):
                raise fail("expected ':' after key", j)
            j = ws(value(j + 1, member))
            if text.startswith(",", j):
                j = ws(j + 1)
                continue
            if text.startswith("}", j):
                return j + 1
            raise fail("expected ',' or '}' in object", j)

    def array(i: int, pointer: str) -> int:
        j = ws(i + 1)
        if text.startswith("]", j):
            return j + 1
        index = 0
        while True:
            j = ws(value(j, f"{pointer}/{index}"))
            index += 1
            if text.startswith(",", j):
                j = ws(j + 1)
                if text.startswith("]", j):
                    raise fail("trailing comma before ']'", j)
                continue
            if text.startswith("]", j):
                return j + 1
            raise fail("expected ',' or ']' in array", j)

    start = 1 if text.startswith("\ufeff") else 0
    end = ws(value(start, ""))
    if end != len(text):
        raise fail("extra data after the JSON document", end)
    found.values = {p: lines.span(*offsets) for p, offsets in raw.items()}
    found.keys = {p: lines.span(*offsets) for p, offsets in raw_keys.items()}
    return found


def locate_yaml(text: str, line_offset: int = 0) -> Locations:
    """Return the span of every node of the first YAML document in ``text``."""
    found = Locations()
    try:
        root = YAML(typ="safe").compose(text)
    except Exception:
        return found

    def span(node: Node) -> Span:
        start, end = node.start_mark, node.end_mark
        return Span(
            start.line + 1 + line_offset,
            start.column + 1,
            end.line + 1 + line_offset,
            end.column + 1,
        )

    def walk(node: Node, pointer: str) -> None:
        found.values[pointer] = span(node)
        if isinstance(node, MappingNode):
            seen: set[str] = set()
            for key_node, value_node in node.value:
                key = str(key_node.value) if isinstance(key_node, ScalarNode) else "?"
                member = pointer + "/" + escape_token(key)
                found.keys[member] = span(key_node)
                if key in seen:
                    found.duplicates.append((member, span(key_node)))
                seen.add(key)
                walk(value_node, member)
        elif isinstance(node, SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, f"{pointer}/{index}")

    if root is not None:
        walk(root, "")
    return found
