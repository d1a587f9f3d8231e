"""Read and parse one file: JSON (duplicate keys detected), YAML (safe), front matter.

Parse failures are data, not exceptions: :func:`parse` returns the parsed value
(or ``None``) together with the file-level diagnostics, so one bad file never
stops a run.

Documents are bounded before anything walks them: JSON nesting is measured by
a linear pre-scan, YAML nesting and aliases while the document's events are
read (:mod:`agent_lint.yamlsafe`). YAML costs far more to read than JSON, so a
run reads at most ``max-yaml-total-bytes`` of it (:class:`YamlBudget`); a
document past that is a finding naming the limit, never a silent skip.
Parsed data follows JSON's model whatever the format: mapping keys are
strings, integers of any length are kept exactly.

JSON is read by orjson when it is installed (a dependency wherever it has
wheels) and its reading provably equals the exact reader's, the standard
library's ``json`` with hooks for duplicate keys, long integers and the
constants JSON lacks (see :func:`fast_json`); every other document, and every
document that does not parse, takes the exact reader, which also makes the
findings.
"""

from __future__ import annotations

import itertools
import json
import re
from decimal import Decimal
from typing import Any, NamedTuple

from agent_lint.config import Limits, over_limit
from agent_lint.jsontext import clip, quote
from agent_lint.kinds import Format
from agent_lint.positions import LineIndex, Locations, ScanError, locate_json, locate_yaml
from agent_lint.problems import ParseIssue, ParseProblem
from agent_lint.yamlsafe import DuplicateKey, LimitExceeded, YamlProblem, read_yaml

try:  # a C reader of JSON, some five times faster than json with hooks; optional
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson has wheels wherever agent-lint is tested
    _orjson = None  # type: ignore[assignment]

#: Integers with more digits than this are kept as :class:`~decimal.Decimal`:
#: Python's ``int`` refuses (and would take quadratic time on) longer ones.
INT_DIGITS = 4000
_DEFAULT_LIMITS = Limits()


class Loaded(NamedTuple):
    """The outcome of reading one file: its data, and the problems met reading it."""

    data: Any
    ok: bool
    problems: list[ParseProblem]
    text: str | None


class _DuplicateSeen(Exception):
    pass


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateSeen
    return result


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def json_int(text: str) -> int | Decimal:
    """A JSON integer literal as ``int``, or exactly as ``Decimal`` when very long."""
    if len(text) - text.startswith("-") > INT_DIGITS:
        return Decimal(text)
    return int(text)


_JSON_TOKEN = re.compile(r'[\[\]{}"]')
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def json_too_deep(text: str, max_depth: int) -> int | None:
    """Offset of the first bracket nested deeper than ``max_depth``, or None.

    A linear scan that skips strings; it runs before the parser and every
    later walk, so none of them meets a document deeper than the limit. An
    unterminated string ends the scan (the parser reports it).
    """
    if text.count("[") + text.count("{") <= max_depth:
        return None
    if _deepest(text) <= max_depth:
        return None
    return _first_too_deep(text, max_depth)


#: A whole JSON string, and a run of characters that are not brackets.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _deepest(text: str) -> int | float:
    """The deepest nesting of ``text``'s brackets outside strings (infinity when unsure).

    Strings and then everything but brackets are cut away and the depth is
    summed, all in C: a string left unterminated leaves its quote, and then
    only :func:`_first_too_deep` can tell.
    """
    outside = _STRING.sub("", text)
    if '"' in outside:
        return float("inf")
    brackets = _NOT_BRACKETS.sub("", outside)
    return max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)


def _first_too_deep(text: str, max_depth: int) -> int | None:
    """:func:`json_too_deep` token by token: the offset of the first bracket too deep."""
    depth, position = 0, 0
    search, rest = _JSON_TOKEN.search, _STRING_REST.match
    while True:
        token = search(text, position)
        if token is None:
            return None
        position = token.end()
        char = token.group()
        if char == '"':
            string = rest(text, position)
            if string is None:
                return None
            position = string.end()
        elif char in "[{":
            depth += 1
            if depth > max_depth:
                return token.start()
        else:
            depth -= 1


#: Every digit as "0": a run of 19 digits (an integer orjson would read as a float,
#: past 64 bits) is then one substring search.
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19
#: No reading: the document takes the exact reader.
_UNDECIDED = object()


def fast_json(text: str) -> Any:
    """``text`` read by orjson when that equals the exact reader's data, else ``_UNDECIDED``.

    orjson agrees with ``json.loads`` on every valid document but three
    kinds, each detected here and left to the exact reader: an integer of 19
    digits or more (orjson reads one past 64 bits as a float: any run of 19
    digits, in a string too, is enough), a repeated key (orjson keeps the last
    value silently: the data then holds fewer ``:`` than the text, counted
    once more in orjson's own output, where a colon is never escaped; a text
    that escapes one as ``\u003a`` is left alone) and anything it refuses
    (NaN, numbers past the float range, lone surrogates, syntax errors).
    """
    if _orjson is None or "\\u003" in text:
        return _UNDECIDED
    raw = text.encode("utf-8")
    if _LONG_DIGITS in raw.translate(_DIGITS_AS_ZERO):
        return _UNDECIDED
    try:
        data = _orjson.loads(raw)
        written = _orjson.dumps(data)
    except (_orjson.JSONDecodeError, _orjson.JSONEncodeError):
        return _UNDECIDED
    if written.count(b":") != raw.count(b":"):
        return _UNDECIDED
    return data


def _too_deep(path: str, max_depth: int, line: int, column: int) -> ParseProblem:
    return ParseProblem(
        ParseIssue.LIMIT_EXCEEDED,
        path,
        f"document is nested deeper than {max_depth} levels; not checked: "
        f"{over_limit('max-depth', max_depth)}",
        line=line,
        column=column,
    )


def decode(path: str, raw: bytes) -> tuple[str | None, list[ParseProblem]]:
    """Decode UTF-8, reporting invalid bytes and a byte order mark."""
    found: list[ParseProblem] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        line_start = before.rfind(b"\n") + 1
        column = len(before[line_start:].decode("utf-8", errors="replace")) + 1
        found.append(
            ParseProblem(
                ParseIssue.INVALID_UTF8,
                path,
                f"invalid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} "
                "cannot be decoded; save the file as UTF-8",
                line=line,
                column=column,
            )
        )
        return None, found
    if text.startswith("\ufeff"):
        found.append(
            ParseProblem(
                ParseIssue.BYTE_ORDER_MARK,
                path,
                "file starts with a UTF-8 byte order mark (U+FEFF); save it as UTF-8 without BOM",
                line=1,
                column=1,
            )
        )
        text = text[1:]
    return text, found


def _parse_json(path: str, text: str, limits: Limits) -> tuple[Any, list[ParseProblem]]:
    deep = json_too_deep(text, limits.max_depth)
    if deep is not None:
        return None, [_too_deep(path, limits.max_depth, *LineIndex(text).position(deep))]
    data = fast_json(text)
    if data is not _UNDECIDED:
        return data, []
    return _exact_json(path, text)


def _exact_json(path: str, text: str) -> tuple[Any, list[ParseProblem]]:
    """The standard library's reading of ``text``, the reference for :func:`fast_json`."""
    try:
        return json.loads(
            text,
            object_pairs_hook=_pairs_without_duplicates,
            parse_constant=_reject_constant,
            parse_int=json_int,
        ), []
    except _DuplicateSeen:
        advice = "JSON readers keep only one of the values"
        return None, _duplicate_keys(path, locate_json(text), advice)
    except RecursionError:
        return None, [
            ParseProblem(
                ParseIssue.INVALID_JSON, path, "JSON is nested too deeply", line=1, column=1
            )
        ]
    except ValueError as exc:
        # json's own messages lack context for NaN and friends; the strict
        # scanner locates every syntax error precisely.
        try:
            locate_json(text)
        except ScanError as scan:
            return None, [
                ParseProblem(
                    ParseIssue.INVALID_JSON,
                    path,
                    f"invalid JSON: {scan.message}",
                    line=scan.line,
                    column=scan.column,
                )
            ]
        except RecursionError:
            pass
        line = getattr(exc, "lineno", 1)
        column = getattr(exc, "colno", 1)
        message = getattr(exc, "msg", str(exc))
        return None, [
            ParseProblem(
                ParseIssue.INVALID_JSON, path, f"invalid JSON: {message}", line=line, column=column
            )
        ]


def _duplicate_keys(path: str, locations: Locations, advice: str) -> list[ParseProblem]:
    """One AL003 finding per repeated key, at the repeated key."""
    found = []
    for pointer, span in locations.duplicates:
        parent, _, token = pointer.rpartition("/")
        key = token.replace("~1", "/").replace("~0", "~")
        found.append(
            ParseProblem(
                ParseIssue.DUPLICATE_KEY,
                path,
                f"duplicate key {quote(key)} in {clip(parent) or 'the top level'}; {advice}",
                pointer=pointer,
                target="key",
                line=span.line,
                column=span.column,
                end_line=span.end_line,
                end_column=span.end_column,
            )
        )
    return found


class YamlBudget:
    """The bytes of YAML one run may still read (``max-yaml-total-bytes``)."""

    def __init__(self, limits: Limits) -> None:
        self.total = limits.max_yaml_total_bytes
        self.spent = 0

    def take(self, size: int) -> bool:
        """Spend ``size`` bytes if the budget has them; False (nothing spent) if not."""
        if self.spent + size > self.total:
            return False
        self.spent += size
        return True


def _parse_yaml(
    path: str, text: str, limits: Limits, line_offset: int = 0, budget: YamlBudget | None = None
) -> tuple[Any, list[ParseProblem]]:
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    problem = None
    if size > limits.max_yaml_bytes:
        problem = (
            f"YAML document is {size} bytes; not checked: "
            f"{over_limit('max-yaml-bytes', limits.max_yaml_bytes)}"
        )
    elif budget is not None and not budget.take(size):
        problem = (
            f"this run has read {budget.spent} bytes of YAML and this document of {size} bytes "
            f"would go past its budget; not checked: "
            f"{over_limit('max-yaml-total-bytes', budget.total)}"
        )
    if problem is not None:
        return None, [
            ParseProblem(ParseIssue.LIMIT_EXCEEDED, path, problem, line=1 + line_offset, column=1)
        ]
    try:
        return read_yaml(text, limits), []
    except LimitExceeded as exc:
        line, column = LineIndex(text).position(exc.index)
        return None, [
            ParseProblem(
                ParseIssue.LIMIT_EXCEEDED,
                path,
                f"{exc.problem}; not checked: {over_limit(exc.limit, exc.value)}",
                line=line + line_offset,
                column=column,
            )
        ]
    except DuplicateKey:
        advice = "YAML mappings must have unique keys"
        return None, _duplicate_keys(path, locate_yaml(text, line_offset, limits), advice)
    except YamlProblem as exc:
        line, column = LineIndex(text).position(exc.index) if exc.index is not None else (1, 1)
        return None, [
            ParseProblem(
                ParseIssue.INVALID_YAML,
                path,
                f"invalid YAML: {clip(exc.problem)}",
                line=line + line_offset,
                column=column,
            )
        ]


def split_front_matter(text: str) -> tuple[str | None, int]:
    """Return (front matter text, its first line number - 1), or (None, 0)."""
    if not text.startswith("---\n") and not text.startswith("---\r\n"):
        return None, 0
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines[1:], start=1):
        if line.rstrip("\r\n") in ("---", "..."):
            return "".join(lines[1:number]), 1
    return None, 0


def parse(
    path: str,
    fmt: Format,
    raw: bytes,
    limits: Limits = _DEFAULT_LIMITS,
    budget: YamlBudget | None = None,
) -> Loaded:
    """Decode and parse ``raw`` as ``fmt`` within ``limits``; never raises on bad input.

    YAML (a YAML file, a note's front matter) is read only while ``budget``,
    shared by the files of one run, has room for it.
    """
    text, found = decode(path, raw)
    if text is None:
        return Loaded(None, False, found, None)
    if fmt is Format.MARKDOWN:
        front, offset = split_front_matter(text)
        if front is None:
            return Loaded(None, True, found, text)
        data, errors = _parse_yaml(path, front, limits, offset, budget)
        return Loaded(data, not errors, found + errors, text)
    if not text.strip():
        found.append(
            ParseProblem(
                ParseIssue.EMPTY_FILE,
                path,
                f"file is empty; expected a {fmt.value.upper()} document",
                line=1,
                column=1,
            )
        )
        return Loaded(None, False, found, text)
    if fmt is Format.JSON:
        data, errors = _parse_json(path, text, limits)
    else:
        data, errors = _parse_yaml(path, text, limits, budget=budget)
    return Loaded(data, not errors, found + errors, text)
