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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_lint.config import LIMITS, Limits
from agent_lint.jsontext import escape_token, quote
from agent_lint.yamlsafe import yaml_spans

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node


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


def pointer_of(parts: Any) -> str:
    """Build a JSON pointer from path parts (strings and array indexes)."""
    return "".join("/" + escape_token(p) for p in parts)


class LineIndex:
    """1-based lines and columns of character offsets; lines end at "\\n" only.

    YAML's own marks also break lines at a lone CR, NEL and U+2028; positions
    are computed from the marks' character offsets instead, so every format
    counts lines the way editors and GitHub show them.
    """

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


#: Nesting the scanner follows at most: the ceiling of the ``max-depth`` limit.
MAX_SCAN_DEPTH = LIMITS["max-depth"].ceiling


def locate_json(text: str) -> Locations:
    """Scan JSON ``text`` strictly and return the span of every value and key.

    Raises :class:`ScanError` with a position on invalid JSON, and on JSON
    nested deeper than :data:`MAX_SCAN_DEPTH` (the scanner recurses once per
    level; documents are refused at the ``max-depth`` limit before this).
    """
    lines = LineIndex(text)
    found = Locations()
    raw: dict[str, tuple[int, int]] = {}
    raw_keys: dict[str, tuple[int, int]] = {}

    def fail(message: str, offset: int) -> ScanError:
        line, column = lines.position(min(offset, len(text)))
        return ScanError(message, line, column)

    def ws(i: int) -> int:
        m = _WS.match(text, i)
        return m.end() if m else i

    def value(i: int, pointer: str, depth: int = 0) -> int:
        i = ws(i)
        if i >= len(text):
            raise fail("unexpected end of file, expected a value", i)
        ch = text[i]
        if ch in "{[" and depth >= MAX_SCAN_DEPTH:
            raise fail(f"nested deeper than {MAX_SCAN_DEPTH} levels", i)
        if ch == "{":
            end = obj(i, pointer, depth + 1)
        elif ch == "[":
            end = array(i, pointer, depth + 1)
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
                    raise fail(f"unexpected {quote(word)}, expected a JSON value", i)
        raw[pointer] = (i, end)
        return end

    def obj(i: int, pointer: str, depth: int) -> int:
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
            j = ws(value(j + 1, member, depth))
            if text.startswith(",", j):
                j = ws(j + 1)
                continue
            if text.startswith("}", j):
                return j + 1
            raise fail("expected ',' or '}' in object", j)

    def array(i: int, pointer: str, depth: int) -> int:
        j = ws(i + 1)
        if text.startswith("]", j):
            return j + 1
        index = 0
        while True:
            j = ws(value(j, f"{pointer}/{index}", depth))
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


def _ancestors(pointer: str) -> Iterator[str]:
    """``pointer`` and each pointer above it, up to the document ("")."""
    yield pointer
    while pointer:
        pointer = pointer.rsplit("/", 1)[0]
        yield pointer


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


#: Skips a value the caller did not ask about: json's C scanner, as strict as the scanner here.
_SKIP = json.JSONDecoder(parse_constant=_reject_constant).raw_decode


def _line_columns(text: str, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """1-based line and column of each offset, by counting newlines between them in order.

    The same numbers as :class:`LineIndex` gives, without listing every line of a
    large file to place a few findings.
    """
    found: dict[int, tuple[int, int]] = {}
    line, last = 1, 0
    for offset in sorted(set(offsets)):
        line += text.count("\n", last, offset)
        found[offset] = (line, offset - (text.rfind("\n", 0, offset) + 1) + 1)
        last = offset
    return found


def locate_json_pointers(
    text: str, pointers: Iterable[tuple[str, str]], *, parsed: bool = False
) -> Locations:
    """The spans :meth:`Locations.find` needs for ``pointers`` only: ``(pointer, target)`` pairs.

    The result answers ``find`` for each requested pointer exactly as the
    :func:`locate_json` of the whole text does (the spans of each pointer and
    of its ancestors, and the key of a ``"key"`` target), but only the members
    on the way to a requested pointer are scanned here; every other value is
    skipped by json's C scanner, and only the few spans asked for are placed.
    One finding in an index of 100,000 entries costs a skim, not a span per
    value. Raises :class:`ScanError` where :func:`locate_json` does: on any
    doubt (a value the C scanner refuses) the whole text is scanned by it.

    For a document nested no deeper than :data:`MAX_SCAN_DEPTH`, as every
    document a run parsed is (loading refuses deeper ones at ``max-depth``,
    whose ceiling that is): a deeper value that is skipped is not measured.

    ``parsed`` says the text is known to be valid JSON without a repeated key
    (a run parsed it strictly). Then the scan stops as soon as every requested
    place is found (no later repetition can move it), and a long run of array
    elements is jumped over by :func:`_jump` instead of skipped one by one;
    the answers are the same, the rest of the text is not read.
    """
    asked = list(pointers)
    wanted: set[str] = set()
    keys: set[str] = set()
    for pointer, target in asked:
        wanted.update(_ancestors(pointer))
        if target == "key":
            keys.add(pointer)
    # Containers to enter: strict ancestors of a requested pointer.
    enter = {p.rsplit("/", 1)[0] for p in wanted if p}
    goal = asked if parsed else None
    try:
        raw, raw_keys = _scan_towards(text, wanted, enter, keys, goal)
    except (ValueError, RecursionError):
        return locate_json(text)
    places = _line_columns(text, (o for span in (*raw.values(), *raw_keys.values()) for o in span))

    def span(start: int, end: int) -> Span:
        return Span(*places[start], *places[end])

    return Locations(
        values={p: span(*offsets) for p, offsets in raw.items()},
        keys={p: span(*offsets) for p, offsets in raw_keys.items()},
    )


class _AllPlaced(Exception):
    """Every requested place is found: the scan of a text known to be valid stops."""


def _scan_towards(
    text: str,
    wanted: set[str],
    enter: set[str],
    keys: set[str],
    goal: list[tuple[str, str]] | None = None,
) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """Offsets of the ``wanted`` values and ``keys``; ValueError on anything not plain JSON.

    With a ``goal`` (the requested ``(pointer, target)`` pairs of a text known
    to be valid JSON without repeated keys), the scan ends once each is found,
    and array elements before a requested one may be jumped over.
    """
    raw: dict[str, tuple[int, int]] = {}
    raw_keys: dict[str, tuple[int, int]] = {}
    open_values = {p for p, target in goal if target != "key"} if goal is not None else set()
    open_keys = {p for p, target in goal if target == "key"} if goal is not None else set()

    def placed(table: set[str], pointer: str) -> None:
        table.discard(pointer)
        if not open_values and not open_keys:
            raise _AllPlaced

    def ws(i: int) -> int:
        m = _WS.match(text, i)
        return m.end() if m else i

    def value(i: int, pointer: str, depth: int) -> int:
        i = ws(i)
        if i >= len(text):
            raise ValueError("unexpected end")
        if pointer not in enter:
            end = _SKIP(text, i)[1]
        elif text.startswith(("{", "["), i) and depth >= MAX_SCAN_DEPTH:
            raise ValueError("too deep")
        elif text.startswith("{", i):
            end = obj(i, pointer, depth + 1)
        elif text.startswith("[", i):
            end = array(i, pointer, depth + 1)
        else:
            end = _SKIP(text, i)[1]
        if pointer in wanted:
            raw[pointer] = (i, end)
            if pointer in open_values:
                placed(open_values, pointer)
        return end

    def obj(i: int, pointer: str, depth: int) -> int:
        j = ws(i + 1)
        if text.startswith("}", j):
            return j + 1
        while True:
            m = _STRING.match(text, j)
            if not m:
                raise ValueError("expected a key")
            quoted = m.group()
            key = json.loads(quoted) if "\\" in quoted else quoted[1:-1]
            member = pointer + "/" + escape_token(key)
            if member in keys:
                raw_keys[member] = (j, m.end())
                if member in open_keys:
                    placed(open_keys, member)
            j = ws(m.end())
            if not text.startswith(":", j):
                raise ValueError("expected ':'")
            j = ws(value(j + 1, member, depth))
            if text.startswith(",", j):
                j = ws(j + 1)
                continue
            if text.startswith("}", j):
                return j + 1
            raise ValueError("expected ',' or '}'")

    def array(i: int, pointer: str, depth: int) -> int:
        # Only the elements on the way to a requested pointer get a pointer of their
        # own; the others are skipped in a tight loop.
        prefix = pointer + "/"
        asked = {
            int(token)
            for p in wanted
            if p.startswith(prefix)
            and (token := p[len(prefix) :].split("/", 1)[0]).isascii()
            and token.isdigit()
        }
        later = sorted(asked, reverse=True)
        jumping = goal is not None  # until a jump is refused: the elements then differ
        j = ws(i + 1)
        if text.startswith("]", j):
            return j + 1
        index = 0
        while True:
            while later and later[-1] < index:
                later.pop()
            if jumping and later and later[-1] - index >= _JUMP_AT_LEAST:
                landed = _jump(text, j, later[-1] - index)
                jumping = landed is not None
                if landed is not None:
                    j, index = landed, later[-1]
            j = ws(value(j, f"{prefix}{index}", depth) if index in asked else _SKIP(text, j)[1])
            index += 1
            if text.startswith(",", j):
                j = ws(j + 1)
                if text.startswith("]", j):
                    raise ValueError("trailing comma")
                continue
            if text.startswith("]", j):
                return j + 1
            raise ValueError("expected ',' or ']'")

    start = 1 if text.startswith("\ufeff") else 0
    try:
        if ws(value(start, "", 0)) != len(text):
            raise ValueError("extra data")
    except _AllPlaced:
        pass
    return raw, raw_keys


def _skip_ws(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i


#: The fewest array elements :func:`_jump` is tried on; fewer are skipped one by one.
_JUMP_AT_LEAST = 64


def _jump(text: str, start: int, count: int) -> int | None:
    """Offset of the array element ``count`` elements after the one at ``start``, or None.

    For a text known to be valid JSON, whose element at ``start`` is an object
    followed by more objects, each separated from the next by the same
    separator ``S`` (``}``, a comma, whitespace with a line break, ``{``): the
    separators are found with ``str.find``/``str.count``, and the landing is
    proved, not guessed. None whenever the proof does not hold (the caller
    then skips element by element).

    Why it is exact: a JSON string never holds a raw line break and ``S`` holds
    no quote, so every occurrence of ``S`` lies outside strings; ``},{`` with
    only whitespace between can only separate two objects of one array. If the
    text from ``start`` to the landing holds no ``[`` or ``]`` (no array opens,
    the one at hand does not close) and exactly ``count`` ``{`` (the one at
    ``start`` and those of the separators passed: no other object and no brace
    inside a string), then each separator passed ends the object the previous
    one began, so the landing ``{`` opens element ``count`` after ``start``.
    """
    if not text.startswith("{", start):
        return None
    try:
        end = _SKIP(text, start)[1]
    except ValueError:
        return None
    comma = _skip_ws(text, end)
    following = _skip_ws(text, comma + 1)
    if not text.startswith(",", comma) or not text.startswith("{", following):
        return None
    separator = text[end - 1 : following + 1]
    if "\n" not in separator:
        return None
    # Find the count-th separator: count ahead by the length of the elements seen so
    # far (a little short of it), then step separator by separator.
    at, seen, reach = end - 1, 1, 0.97
    while seen < count:
        ahead = count - seen
        if ahead > 16 and reach > 0.1:
            guess = at + int((at - start) / seen * ahead * reach)
            more = text.count(separator, at + 1, guess)
            if 0 < more <= ahead:
                at = text.rfind(separator, at + 1, guess)
                seen += more
                continue
            if more > ahead:  # elements got shorter: look less far
                reach /= 2
                continue
        at = text.find(separator, at + 1)
        if at < 0:
            return None
        seen += 1
    landing = at + len(separator) - 1
    if (
        text.find("[", start, landing) >= 0
        or text.find("]", start, landing) >= 0
        or text.count("{", start, landing) != count
    ):
        return None
    return landing


def _shifted(span: Span, line_offset: int) -> Span:
    return Span(span.line + line_offset, span.column, span.end_line + line_offset, span.end_column)


def locate_yaml(text: str, line_offset: int = 0, limits: Limits | None = None) -> Locations:
    """Return the span of every node of the first YAML document in ``text``.

    The document is read within ``limits``; a node that aliases repeat is
    located where it is written, once.
    """
    found = Locations()
    lines = LineIndex(text)
    spans = yaml_spans(text, limits or Limits())
    if spans is not None:  # libyaml's events: far faster than composing in Python
        for table, offsets in ((found.values, spans.values), (found.keys, spans.keys)):
            for pointer, (start, end) in offsets.items():
                table[pointer] = _shifted(lines.span(start, end), line_offset)
        found.duplicates = [
            (pointer, _shifted(lines.span(*offsets), line_offset))
            for pointer, offsets in spans.duplicates
        ]
        return found
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    from agent_lint.yamlpure import safe_yaml  # only without libyaml

    try:
        root = safe_yaml(limits or Limits()).compose(text)
    except Exception:
        return found

    def span(node: Node) -> Span:
        return _shifted(lines.span(node.start_mark.index, node.end_mark.index), line_offset)

    seen: set[int] = set()
    pending: list[tuple[Node, str]] = [(root, "")] if root is not None else []
    while pending:
        node, pointer = pending.pop()
        found.values[pointer] = span(node)
        if id(node) in seen:
            continue
        seen.add(id(node))
        children: list[tuple[Node, str]] = []
        if isinstance(node, MappingNode):
            keys: set[str] = set()
            for key_node, value_node in node.value:
                key = str(key_node.value) if isinstance(key_node, ScalarNode) else "?"
                member = pointer + "/" + escape_token(key)
                found.keys[member] = span(key_node)
                if key in keys:
                    found.duplicates.append((member, span(key_node)))
                keys.add(key)
                children.append((value_node, member))
        elif isinstance(node, SequenceNode):
            children = [(item, f"{pointer}/{index}") for index, item in enumerate(node.value)]
        # Visited in document order, so a repeated key's last value wins, as in the data.
        pending.extend(reversed(children))
    return found
