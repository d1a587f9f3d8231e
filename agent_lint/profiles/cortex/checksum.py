"""Checksum v1 of a conversation handoff (see docs/checksum.md).

``checksum = "sha256:" + hex(sha256(JCS(obj)))`` where JCS is RFC 8785 JSON
canonicalization and ``obj`` holds the conversation id and the handoff's
context pointer, its id lists sorted by code point and de-duplicated.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from agent_lint.jsontext import clip
from agent_lint.problems import ParseIssue

PREFIX = "sha256:"
MAX_SAFE_INTEGER = 2**53 - 1
#: The id lists of a handoff's ``context_pointer`` (meta.json's ``state`` copies them).
CONTEXT_LISTS = ("active_missions", "pending_decisions", "in_flight_tasks")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class ChecksumError(ValueError):
    """The handoff holds a value checksum v1 cannot canonicalise."""


def checksum_input(handoff: dict[str, Any]) -> dict[str, Any]:
    """Build the object that is hashed, from a parsed conversation handoff."""
    pointer = handoff.get("context_pointer")
    if pointer is None:
        pointer = {}
    if not isinstance(pointer, dict):
        raise ChecksumError("context_pointer must be an object")
    obj: dict[str, Any] = {
        "conversation_id": handoff.get("conversation_id"),
        "latest_turn": pointer.get("latest_turn"),
    }
    for name in CONTEXT_LISTS:
        values = pointer.get(name)
        if values is None:
            values = []
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ChecksumError(f"context_pointer.{name} must be a list of strings")
        obj[name] = sorted(set(values))
    return obj


def _number(value: int | float | Decimal) -> str:
    """ECMAScript ``Number.prototype.toString`` of ``value``, as RFC 8785 requires."""
    if isinstance(value, Decimal):  # an integer too long for Python's int
        length = len(value.as_tuple().digits)
        raise ChecksumError(
            f"an integer of {length} digits is beyond 2^53-1 and has no exact canonical JSON form"
        )
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise ChecksumError(
                f"integer {value} is beyond 2^53-1 and has no exact canonical JSON form"
            )
        return str(value)
    if not math.isfinite(value):
        raise ChecksumError("NaN and Infinity have no canonical JSON form")
    if value == 0:
        return "0"
    decimal = Decimal(repr(value))  # repr gives the shortest round-trip digits
    sign, digit_tuple, exponent = decimal.as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple))
    power = exponent + len(digits) - 1  # exponent of the leading digit
    digits = digits.rstrip("0") or "0"
    minus = "-" if sign else ""
    if -7 < power < 21:
        if power >= len(digits) - 1:
            return minus + digits + "0" * (power - len(digits) + 1)
        if power >= 0:
            return f"{minus}{digits[: power + 1]}.{digits[power + 1 :]}"
        return f"{minus}0.{'0' * (-power - 1)}{digits}"
    fraction = f".{digits[1:]}" if len(digits) > 1 else ""
    return f"{minus}{digits[0]}{fraction}e{'+' if power > 0 else '-'}{abs(power)}"


#: Nesting canonicalisation follows at most (it recurses once per level).
MAX_DEPTH = 200


def canonicalize(value: Any, depth: int = 0) -> str:
    """RFC 8785 canonical JSON text of ``value``."""
    if depth > MAX_DEPTH:
        raise ChecksumError(f"a value is nested deeper than {MAX_DEPTH} levels")
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float, Decimal)):
        return _number(value)
    if isinstance(value, str):
        if _LONE_SURROGATE.search(value):
            raise ChecksumError(f"string {clip(json.dumps(value))} contains a lone surrogate")
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join([canonicalize(v, depth + 1) for v in value]) + "]"
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ChecksumError("an object has a key that is not a string")
        keys = sorted(value, key=lambda k: k.encode("utf-16-be", errors="surrogatepass"))
        members = [f"{canonicalize(k)}:{canonicalize(value[k], depth + 1)}" for k in keys]
        return "{" + ",".join(members) + "}"
    raise ChecksumError(f"{type(value).__name__} is not a JSON value")


def _plain(value: Any) -> bool:
    """Whether ``value`` is a scalar whose canonical form is what ``json.dumps`` writes.

    ``None``, booleans, strings and integers up to 2^53-1; floats (whose
    canonical form is ECMAScript's) and everything else take :func:`canonicalize`.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    return kind is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER


def canonical_text(obj: dict[str, Any]) -> str:
    """RFC 8785 text of a checksum input (:func:`checksum_input`), the same as :func:`canonicalize`.

    The input's keys are ASCII (UTF-16 order is code point order), its lists
    hold strings only, so when both scalars are plain (:func:`_plain`) and no
    string holds a lone surrogate, one ``json.dumps`` with sorted keys writes
    the canonical text; otherwise :func:`canonicalize` writes it or raises.
    """
    if _plain(obj["conversation_id"]) and _plain(obj["latest_turn"]):
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        if not _LONE_SURROGATE.search(text):
            return text
    return canonicalize(obj)


def compute(handoff: dict[str, Any]) -> str:
    """The checksum v1 a conversation handoff must carry."""
    text = canonical_text(checksum_input(handoff))
    return PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def checksum_line(path: Path) -> str:
    """The checksum line for a conversation handoff file (``--print-checksum``).

    Raises :class:`agent_lint.config.ConfigError` (a usage error) for a file
    that is not a readable conversation handoff or holds an uncanonicalisable value.
    """
    from agent_lint.config import ConfigError, Limits
    from agent_lint.fileio import NotRead, read_in_folder
    from agent_lint.kinds import Format
    from agent_lint.loading import parse

    # Read as the lint reads a record: the file may be a change's, a link to /dev/zero or
    # nested past any stack; bounded, no link out of its folder, depth measured first.
    limits = Limits()
    try:
        raw = read_in_folder(path, limits.max_file_bytes)
    except NotRead as exc:
        raise ConfigError(f"{path}: cannot read a JSON handoff: {exc.reason}") from None
    loaded = parse(str(path), Format.JSON, raw, limits)
    problems = [p for p in loaded.problems if p.issue is not ParseIssue.BYTE_ORDER_MARK]
    if problems:
        raise ConfigError(f"{path}: cannot read a JSON handoff: {problems[0].message}")
    data = loaded.data
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a handoff is a JSON object")
    if not all(isinstance(data.get(key), str) for key in ("handoff_id", "conversation_id")):
        raise ConfigError(
            f"{path}: not a conversation handoff (no handoff_id and conversation_id); "
            "checksum v1 is defined for conversations/<C>/handoffs/H-NNN.json"
        )
    try:
        return compute(data) + "\n"
    except ChecksumError as exc:
        raise ConfigError(f"{path}: checksum v1 cannot be computed: {exc}") from exc
