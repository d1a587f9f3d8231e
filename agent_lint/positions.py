"""Map JSON pointers to 1-based line/column spans, for files with findings.

Parsing for data uses the fast C parsers; this module re-reads a file's text
only when something must be reported in it. The JSON scanner is strict (it is
also used to locate syntax errors the C parser reports without context, such
as ``NaN``), and it records every object key, so duplicate keys can be
pointed at precisely.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, AnyStr, NamedTuple

from agent_lint.config import LIMITS, Limits
from agent_lint.frozen import field, record
from agent_lint.jsontext import escape_token, quote
from agent_lint.yamlsafe import yaml_spans

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node


class Span(NamedTuple):
    """A 1-based, end-exclusive span: ``line:column`` to ``end_line:end_column``.

    A named tuple: placing the findings of a file that did not parse spans every value.
    """

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


@record
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
        comma = j  # where the last comma was: a trailing one is reported there
        while True:
            m = _STRING.match(text, j)
            if not m:
                if text.startswith("}", j):
                    raise fail("trailing comma before '}'", comma)
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
                comma, j = j, ws(j + 1)
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
                comma, j = j, ws(j + 1)
                if text.startswith("]", j):
                    raise fail("trailing comma before ']'", comma)
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


def _skip_text(text: str, i: int) -> int:
    """The end of the JSON value at ``i`` of ``text`` (ValueError if it is not one)."""
    return _SKIP(text, i)[1]


_UTF8_BOM = b"\xef\xbb\xbf"
#: The most bytes :func:`_skip_bytes` decodes to skip a container.
_SKIP_WINDOW = 4096


class _LeftToText(ValueError):
    """Skipping on the bytes would cost more than decoding the text: the text is scanned."""


def _skip_bytes(data: bytes, i: int) -> int:
    """The end of the JSON value at byte ``i`` of UTF-8 ``data`` (ValueError if it is not one).

    A string, number or literal is matched on the bytes, as strictly as json's
    scanner reads it. A container is skipped by json's C scanner on the
    :data:`_SKIP_WINDOW` bytes from ``i`` decoded (cut at a character boundary):
    a complete container inside the window is the container of the whole text,
    since it ends at its own closing bracket. A longer one raises
    :class:`_LeftToText`: skipping it window by window costs more than the text.
    """
    head = data[i : i + 1]
    if head == b'"':
        found = _bytes_grammar().string.match(data, i)
        if found is None:
            raise ValueError("invalid string")
        return found.end()
    if head not in (b"{", b"["):
        number = _bytes_grammar().number.match(data, i)
        if number is not None and number.end() > i:
            return number.end()
        for literal in (b"true", b"false", b"null"):
            if data.startswith(literal, i):
                return i + len(literal)
        raise ValueError("not a JSON value")
    stop = min(len(data), i + _SKIP_WINDOW)
    while stop < len(data) and data[stop] & 0xC0 == 0x80:  # inside a character
        stop -= 1
    window = data[i:stop].decode("utf-8")
    try:
        end = _SKIP(window, 0)[1]
    except ValueError:
        if stop < len(data):
            raise _LeftToText("a container larger than the window") from None
        raise
    return i + (end if window.isascii() else len(window[:end].encode("utf-8")))


class _Grammar(NamedTuple):
    """The tokens the pointer scanner reads: those of ``str`` text or of UTF-8 ``bytes``."""

    ws: re.Pattern[Any]
    string: re.Pattern[Any]
    number: re.Pattern[Any]
    skip: Callable[[Any, int], int]
    newline: Any
    open_object: Any
    close_object: Any
    open_array: Any
    close_array: Any
    comma: Any
    colon: Any
    backslash: Any
    bom: Any

    def key(self, quoted: str | bytes) -> str:
        """The key a quoted JSON string of this grammar spells."""
        if self.backslash in quoted:
            return json.loads(quoted)  # type: ignore[no-any-return]
        inner = quoted[1:-1]
        return inner if isinstance(inner, str) else inner.decode("utf-8")


_TEXT = _Grammar(
    ws=_WS,
    string=_STRING,
    number=_NUMBER,
    skip=_skip_text,
    newline="\n",
    open_object="{",
    close_object="}",
    open_array="[",
    close_array="]",
    comma=",",
    colon=":",
    backslash="\\",
    bom="\ufeff",
)


@functools.cache
def _bytes_grammar() -> _Grammar:
    """The grammar of UTF-8 bytes (the same patterns), compiled when a run first needs it."""
    return _Grammar(
        ws=re.compile(_WS.pattern.encode()),
        string=re.compile(_STRING.pattern.encode()),
        number=re.compile(_NUMBER.pattern.encode()),
        skip=_skip_bytes,
        newline=b"\n",
        open_object=b"{",
        close_object=b"}",
        open_array=b"[",
        close_array=b"]",
        comma=b",",
        colon=b":",
        backslash=b"\\",
        bom=_UTF8_BOM,
    )


def _grammar(text: str | bytes) -> _Grammar:
    return _bytes_grammar() if isinstance(text, bytes) else _TEXT


def _line_columns(
    text: AnyStr, offsets: Iterable[int], origin: int = 0
) -> dict[int, tuple[int, int]]:
    """1-based line and column of each offset, by counting newlines between them in order.

    The same numbers as :class:`LineIndex` gives, without listing every line of a
    large file to place a few findings. In UTF-8 ``bytes`` the offsets are byte
    offsets and the columns still count characters, from ``origin`` on the
    first line (the end of a byte order mark, which takes no column).
    """
    grammar = _grammar(text)
    found: dict[int, tuple[int, int]] = {}
    line, last, width = 1, 0, 0  # ``width``: characters of the line before ``last``
    for offset in sorted(set(offsets)):
        newlines = text.count(grammar.newline, last, offset)
        if newlines or last == 0:
            # A new line (or the first): measured from its start, which lies after
            # ``last``, so each stretch of the text is looked at once.
            line += newlines
            start = max(text.rfind(grammar.newline, last, offset) + 1, origin)
            width = _width(text, start, offset)
        else:  # the same line as the offset before: only the stretch between them
            width += _width(text, last, offset)
        found[offset] = (line, width + 1)
        last = offset
    return found


def _width(text: AnyStr, start: int, end: int) -> int:
    """The number of characters from ``start`` to ``end`` (UTF-8 ``bytes``: decoded)."""
    if isinstance(text, bytes):
        return len(text[start:end].decode("utf-8"))
    return end - start


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
    try:
        return _towards(text, asked, parsed)
    except (ValueError, RecursionError):
        return locate_json(text)


def locate_parsed_json(raw: bytes, pointers: Iterable[tuple[str, str]]) -> Locations | None:
    """:func:`locate_json_pointers` of a parsed JSON file's text, read from its UTF-8 bytes.

    The same spans, columns in characters, the file's byte order mark taking
    none, while only the bytes the scan reads are decoded (a file of 20 MB is
    never turned whole into a string). None when the bytes are not what a run
    parsed (the file changed since, or is not UTF-8): the caller then decodes
    the text and locates in it.
    """
    try:
        return _towards(raw, list(pointers), True)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None


def _towards(text: AnyStr, asked: list[tuple[str, str]], parsed: bool) -> Locations:
    """The spans of the ``asked`` places and their ancestors; ValueError if not plain JSON."""
    wanted: set[str] = set()
    keys: set[str] = set()
    for pointer, target in asked:
        wanted.update(_ancestors(pointer))
        if target == "key":
            keys.add(pointer)
    # Containers to enter: strict ancestors of a requested pointer.
    enter = {p.rsplit("/", 1)[0] for p in wanted if p}
    goal = asked if parsed else None
    origin = len(_UTF8_BOM) if isinstance(text, bytes) and text.startswith(_UTF8_BOM) else 0
    raw: dict[str, tuple[int, int]]
    raw_keys: dict[str, tuple[int, int]]
    raw, raw_keys = _scan_towards(text, wanted, enter, keys, goal, origin)
    places = _line_columns(
        text, (o for span in (*raw.values(), *raw_keys.values()) for o in span), origin
    )

    def span(start: int, end: int) -> Span:
        return Span(*places[start], *places[end])

    return Locations(
        values={p: span(*offsets) for p, offsets in raw.items()},
        keys={p: span(*offsets) for p, offsets in raw_keys.items()},
    )


class _AllPlaced(Exception):
    """Every requested place is found: the scan of a text known to be valid stops."""


def _scan_towards(
    text: AnyStr,
    wanted: set[str],
    enter: set[str],
    keys: set[str],
    goal: list[tuple[str, str]] | None = None,
    origin: int = 0,
) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """Offsets of the ``wanted`` values and ``keys``; ValueError on anything not plain JSON.

    With a ``goal`` (the requested ``(pointer, target)`` pairs of a text known
    to be valid JSON without repeated keys), the scan ends once each is found,
    and array elements before a requested one may be jumped over. ``text`` is
    a string or UTF-8 bytes (offsets in characters or in bytes), read from
    ``origin`` on.
    """
    g = _grammar(text)
    raw: dict[str, tuple[int, int]] = {}
    raw_keys: dict[str, tuple[int, int]] = {}
    open_values = {p for p, target in goal if target != "key"} if goal is not None else set()
    open_keys = {p for p, target in goal if target == "key"} if goal is not None else set()

    def placed(table: set[str], pointer: str) -> None:
        table.discard(pointer)
        if not open_values and not open_keys:
            raise _AllPlaced

    def ws(i: int) -> int:
        m = g.ws.match(text, i)
        return m.end() if m else i

    def value(i: int, pointer: str, depth: int) -> int:
        i = ws(i)
        if i >= len(text):
            raise ValueError("unexpected end")
        if pointer not in enter:
            end = g.skip(text, i)
        elif text.startswith((g.open_object, g.open_array), i) and depth >= MAX_SCAN_DEPTH:
            raise ValueError("too deep")
        elif text.startswith(g.open_object, i):
            end = obj(i, pointer, depth + 1)
        elif text.startswith(g.open_array, i):
            end = array(i, pointer, depth + 1)
        else:
            end = g.skip(text, i)
        if pointer in wanted:
            raw[pointer] = (i, end)
            if pointer in open_values:
                placed(open_values, pointer)
        return end

    def obj(i: int, pointer: str, depth: int) -> int:
        j = ws(i + 1)
        if text.startswith(g.close_object, j):
            return j + 1
        while True:
            m = g.string.match(text, j)
            if not m:
                raise ValueError("expected a key")
            member = pointer + "/" + escape_token(g.key(m.group()))
            if member in keys:
                raw_keys[member] = (j, m.end())
                if member in open_keys:
                    placed(open_keys, member)
            j = ws(m.end())
            if not text.startswith(g.colon, j):
                raise ValueError("expected ':'")
            j = ws(value(j + 1, member, depth))
            if text.startswith(g.comma, j):
                j = ws(j + 1)
                continue
            if text.startswith(g.close_object, j):
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
        if text.startswith(g.close_array, j):
            return j + 1
        index = 0
        while True:
            while later and later[-1] < index:
                later.pop()
            if jumping and later and later[-1] - index >= _JUMP_AT_LEAST:
                landed = _jump(text, j, later[-1] - index)
                if landed is None and isinstance(text, bytes):
                    raise _LeftToText("elements to skip one by one")
                jumping = landed is not None
                if landed is not None:
                    j, index = landed, later[-1]
            j = ws(value(j, f"{prefix}{index}", depth) if index in asked else g.skip(text, j))
            index += 1
            if text.startswith(g.comma, j):
                j = ws(j + 1)
                if text.startswith(g.close_array, j):
                    raise ValueError("trailing comma")
                continue
            if text.startswith(g.close_array, j):
                return j + 1
            raise ValueError("expected ',' or ']'")

    start = origin + len(g.bom) if text.startswith(g.bom, origin) else origin
    try:
        if ws(value(start, "", 0)) != len(text):
            raise ValueError("extra data")
    except _AllPlaced:
        pass
    return raw, raw_keys


#: The fewest array elements :func:`_jump` is tried on; fewer are skipped one by one.
_JUMP_AT_LEAST = 64


def _jump(text: AnyStr, start: int, count: int) -> int | None:
    """Offset of the array element ``count`` elements after the one at ``start``, or None.

    For a text known to be valid JSON (a string, or UTF-8 bytes), whose element
    at ``start`` is an object
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
    (In UTF-8 bytes, none of these ASCII characters is ever part of another
    character's bytes.)
    """
    g = _grammar(text)
    if not text.startswith(g.open_object, start):
        return None
    try:
        end = g.skip(text, start)
    except ValueError:
        return None
    comma = _skip_ws(text, end)
    following = _skip_ws(text, comma + 1)
    if not text.startswith(g.comma, comma) or not text.startswith(g.open_object, following):
        return None
    separator = text[end - 1 : following + 1]
    if g.newline not in separator:
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
        text.find(g.open_array, start, landing) >= 0
        or text.find(g.close_array, start, landing) >= 0
        or text.count(g.open_object, start, landing) != count
    ):
        return None
    return landing


def _skip_ws(text: AnyStr, i: int) -> int:
    m = _grammar(text).ws.match(text, i)
    return m.end() if m else i


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
