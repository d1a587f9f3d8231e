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
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from agent_lint.config import Limits, over_limit
from agent_lint.diagnostics import Diagnostic
from agent_lint.jsontext import clip, quote
from agent_lint.kinds import Format
from agent_lint.positions import LineIndex, Locations, ScanError, locate_json, locate_yaml
from agent_lint.validators import files as rules
from agent_lint.yamlsafe import DuplicateKey, LimitExceeded, YamlProblem, read_yaml

#: Integers with more digits than this are kept as :class:`~decimal.Decimal`:
#: Python's ``int`` refuses (and would take quadratic time on) longer ones.
INT_DIGITS = 4000
_DEFAULT_LIMITS = Limits()


@dataclass
class Loaded:
    """The outcome of reading one file."""

    data: Any
    ok: bool
    diagnostics: list[Diagnostic]
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


def _too_deep(path: str, max_depth: int, line: int, column: int) -> Diagnostic:
    return rules.LIMIT_EXCEEDED.at(
        path,
        f"document is nested deeper than {max_depth} levels; not checked: "
        f"{over_limit('max-depth', max_depth)}",
        line=line,
        column=column,
    )


def decode(path: str, raw: bytes) -> tuple[str | None, list[Diagnostic]]:
    """Decode UTF-8, reporting invalid bytes and a byte order mark."""
    found: list[Diagnostic] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        line_start = before.rfind(b"\n") + 1
        column = len(before[line_start:].decode("utf-8", errors="replace")) + 1
        found.append(
            rules.INVALID_UTF8.at(
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
            rules.BYTE_ORDER_MARK.at(
                path,
                "file starts with a UTF-8 byte order mark (U+FEFF); save it as UTF-8 without BOM",
                line=1,
                column=1,
            )
        )
        text = text[1:]
    return text, found


def _parse_json(path: str, text: str, limits: Limits) -> tuple[Any, list[Diagnostic]]:
    deep = json_too_deep(text, limits.max_depth)
    if deep is not None:
        return None, [_too_deep(path, limits.max_depth, *LineIndex(text).position(deep))]
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
        return None, [rules.INVALID_JSON.at(path, "JSON is nested too deeply", line=1, column=1)]
    except ValueError as exc:
        # json's own messages lack context for NaN and friends; the strict
        # scanner locates every syntax error precisely.
        try:
            locate_json(text)
        except ScanError as scan:
            return None, [
                rules.INVALID_JSON.at(
                    path, f"invalid JSON: {scan.message}", line=scan.line, column=scan.column
                )
            ]
        except RecursionError:
            pass
        line = getattr(exc, "lineno", 1)
        column = getattr(exc, "colno", 1)
        message = getattr(exc, "msg", str(exc))
        return None, [
            rules.INVALID_JSON.at(path, f"invalid JSON: {message}", line=line, column=column)
        ]


def _duplicate_keys(path: str, locations: Locations, advice: str) -> list[Diagnostic]:
    """One AL003 finding per repeated key, at the repeated key."""
    found = []
    for pointer, span in locations.duplicates:
        parent, _, token = pointer.rpartition("/")
        key = token.replace("~1", "/").replace("~0", "~")
        found.append(
            rules.DUPLICATE_KEY.at(
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
) -> tuple[Any, list[Diagnostic]]:
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
        return None, [rules.LIMIT_EXCEEDED.at(path, problem, line=1 + line_offset, column=1)]
    try:
        return read_yaml(text, limits), []
    except LimitExceeded as exc:
        line, column = LineIndex(text).position(exc.index)
        return None, [
            rules.LIMIT_EXCEEDED.at(
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
            rules.INVALID_YAML.at(
                path, f"invalid YAML: {clip(exc.problem)}", line=line + line_offset, column=column
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
            rules.EMPTY_FILE.at(
                path, f"file is empty; expected a {fmt.value.upper()} document", line=1, column=1
            )
        )
        return Loaded(None, False, found, text)
    if fmt is Format.JSON:
        data, errors = _parse_json(path, text, limits)
    else:
        data, errors = _parse_yaml(path, text, limits, budget=budget)
    return Loaded(data, not errors, found + errors, text)
