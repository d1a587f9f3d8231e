"""The per-file step's fast paths agree with their reference forms on generated inputs.

Each fast function here replaced a simpler one in the per-file step; the
simpler one stays (in the module or, when the module no longer needs it, in
this file) as the oracle the fast one is compared with.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_lint import markdown
from agent_lint.index import field_values, walk_field
from agent_lint.kinds import EACH, Format
from agent_lint.loading import parse
from agent_lint.positions import escape_token
from agent_lint.profiles.cortex import checksum
from agent_lint.schemas import _date_time, is_date_time
from agent_lint.validators.timestamps import timestamps as _timestamps

MANY = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))

KEYS = st.sampled_from(["a", "b", "x/y", "t~1", "created_at", "updated_at", "0", "[]"])
STAMPS = st.sampled_from(
    ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2025-12-31T23:59:59+01:00", "soon", 3]
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=3), STAMPS)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=20,
)


@MANY
@given(DOCUMENTS, st.lists(st.one_of(KEYS, st.just(EACH)), max_size=4))
def test_field_values_are_the_values_walk_field_yields(data: Any, steps: list[str]) -> None:
    """Level-by-level collection reaches the same values, with the same pointers, in order."""
    spec = tuple(steps)
    assert field_values(data, spec) == list(walk_field(data, spec))


def test_field_values_escape_keys_and_number_items() -> None:
    """Pointers escape ``/`` and ``~`` in keys and number array items (RFC 6901)."""
    data = {"x/y": [{"t~1": "a"}, {"t~1": "b"}, 3]}
    expected = [("/x~1y/0/t~01", "a"), ("/x~1y/1/t~01", "b")]
    assert field_values(data, ("x/y", EACH, "t~1")) == expected
    assert list(walk_field(data, ("x/y", EACH, "t~1"))) == expected


def _timestamps_reference(data: Any, pointer: str = "") -> Iterator[tuple[str, str, str]]:
    """The generator the states check used before: a pointer built for every container."""
    from agent_lint.schemas import parse_timestamp

    if isinstance(data, dict):
        if "updated_at" in data and "created_at" in data:
            created = parse_timestamp(data["created_at"])
            updated = parse_timestamp(data["updated_at"])
            if created and updated and updated < created:
                yield pointer, data["created_at"], data["updated_at"]
        for key, value in data.items():
            if value and isinstance(value, (dict, list)):
                yield from _timestamps_reference(value, f"{pointer}/{escape_token(key)}")
    elif isinstance(data, list):
        for number, item in enumerate(data):
            if item and isinstance(item, (dict, list)):
                yield from _timestamps_reference(item, f"{pointer}/{number}")


@MANY
@given(DOCUMENTS)
def test_timestamp_order_finds_what_the_reference_walk_finds(data: Any) -> None:
    """Every object whose update precedes its creation, in document order, at its pointer."""
    assert _timestamps(data) == list(_timestamps_reference(data))


def test_timestamp_order_pointer_escapes_keys() -> None:
    """A hit below keys with ``/`` and ``~`` and an array index gets an RFC 6901 pointer."""
    late = {"created_at": "2026-01-02T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
    data = {"a/b": [{"c~d": late}]}
    assert _timestamps(data) == [("/a~1b/0/c~0d", late["created_at"], late["updated_at"])]


def _escaped_keys(text: str) -> str:
    """JSON text with every ``_`` written as ``\\u005f``: the same keys, spelt otherwise."""
    return text.replace("_", "\\u005f")


def _written(data: Any, style: str) -> tuple[Format, str]:
    """``data`` written as a file would hold it, in one of several spellings."""
    import yaml

    if style == "json":
        return Format.JSON, json.dumps(data, indent=2)
    if style == "json-escaped":
        return Format.JSON, _escaped_keys(json.dumps(data))
    if style == "yaml-quoted":
        return Format.YAML, yaml.safe_dump(data, default_style='"', allow_unicode=True)
    return Format.YAML, yaml.safe_dump(data, allow_unicode=True)


LATE = {"created_at": "2026-01-02T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
#: Documents, half of them with an object whose update precedes its creation.
SOME_LATE = st.tuples(DOCUMENTS, st.booleans()).map(
    lambda t: {"a": t[0], "b": LATE} if t[1] else t[0]
)


@MANY
@given(SOME_LATE, st.sampled_from(["json", "json-escaped", "yaml", "yaml-quoted"]))
def test_timestamp_order_skips_only_texts_that_cannot_hold_both_keys(data: Any, style: str) -> None:
    """Given the file's text, the check finds what the full walk of the parsed data finds."""
    fmt, text = _written(data, style)
    loaded = parse("x", fmt, text.encode("utf-8"))
    if not loaded.ok:
        return  # a spelling the reader refuses (a YAML 1.1 scalar): nothing to compare
    assert _timestamps(loaded.data, loaded.text) == _timestamps(loaded.data)


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        (
            Format.JSON,
            '{"created\\u005fat": "2026-01-02T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}',
        ),
        (Format.YAML, '"created\\x5fat": 2026-01-02T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\n'),
        (
            Format.YAML,
            "x: &a created_at\ny:\n  *a : 2026-01-02T00:00:00Z\n"
            "  updated_at: 2026-01-01T00:00:00Z\n",
        ),
        (
            Format.MARKDOWN,
            "---\ncreated_at: 2026-01-02T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\n---\n# t\n",
        ),
    ],
)
def test_timestamp_order_reads_keys_however_they_are_written(fmt: Format, text: str) -> None:
    """Escaped keys, keys by alias and front matter are still walked and found."""
    loaded = parse("x", fmt, text.encode("utf-8"))
    assert loaded.ok, loaded.problems
    found = _timestamps(loaded.data, loaded.text)
    assert len(found) == 1
    assert found == _timestamps(loaded.data)


def _checksum_reference(handoff: dict[str, Any]) -> str:
    """Checksum v1 through the general RFC 8785 canonicaliser only."""
    text = checksum.canonicalize(checksum.checksum_input(handoff))
    return checksum.PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


IDS = st.text(alphabet=st.sampled_from(["M", "-", "1", "é", "\u2028", '"', "\\", "\n", "\ud800"]))
TURNS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just(Decimal("1" * 30)),
    IDS,
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["b", "a", "é"]), st.integers(0, 3), max_size=2),
)
HANDOFFS = st.fixed_dictionaries(
    {"conversation_id": TURNS},
    optional={
        "context_pointer": st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "latest_turn": TURNS,
                    "active_missions": st.one_of(st.lists(IDS, max_size=3), st.none(), IDS),
                    "pending_decisions": st.lists(IDS, max_size=3),
                    "in_flight_tasks": st.lists(st.one_of(IDS, st.integers()), max_size=2),
                },
            ),
            st.none(),
            st.just([]),
        )
    },
)


def _outcome(compute: Any, handoff: dict[str, Any]) -> tuple[str, str]:
    try:
        return "ok", compute(handoff)
    except checksum.ChecksumError as exc:
        return "error", str(exc)


@MANY
@given(HANDOFFS)
def test_checksum_matches_the_general_canonicaliser(handoff: dict[str, Any]) -> None:
    """Same checksum, or the same error, as canonicalising the input value by value."""
    assert _outcome(checksum.compute, handoff) == _outcome(_checksum_reference, handoff)


@pytest.mark.parametrize(
    "turn", [None, True, 7, 2**53 - 1, -(2**53) + 1, 2**53, 1.5, 1e21, Decimal("9" * 40), "7"]
)
def test_checksum_of_each_kind_of_latest_turn(turn: Any) -> None:
    """Integers past 2^53-1, floats and long integers take the general path and agree."""
    handoff = {
        "conversation_id": "C-1",
        "context_pointer": {"latest_turn": turn, "active_missions": ["M-2", "M-1", "M-2"]},
    }
    assert _outcome(checksum.compute, handoff) == _outcome(_checksum_reference, handoff)


def test_checksum_text_is_the_documented_canonical_form() -> None:
    """The fast text is RFC 8785: sorted keys, no spaces, lists sorted and de-duplicated."""
    handoff = {
        "conversation_id": "C-é",
        "context_pointer": {"latest_turn": 3, "pending_decisions": ["D-2", "D-1", "D-2"]},
    }
    assert checksum.canonical_text(checksum.checksum_input(handoff)) == (
        '{"active_missions":[],"conversation_id":"C-é","in_flight_tasks":[],'
        '"latest_turn":3,"pending_decisions":["D-1","D-2"]}'
    )
    assert json.loads(checksum.canonical_text(checksum.checksum_input(handoff)))


DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=3)
DATE_TIMES = st.builds(
    "{}-{}-{}{}{}:{}:{}{}{}".format,
    st.sampled_from(["0000", "0001", "1900", "2000", "2024", "2026", "9999", "99", "20a6"]),
    st.one_of(st.sampled_from(["00", "01", "02", "04", "09", "12", "13"]), DIGITS),
    st.one_of(st.sampled_from(["00", "01", "28", "29", "30", "31", "32"]), DIGITS),
    st.sampled_from(["T", "t", " ", "TT"]),
    st.one_of(st.sampled_from(["00", "23", "24", "1"]), DIGITS),
    st.one_of(st.sampled_from(["00", "59", "60"]), DIGITS),
    st.one_of(st.sampled_from(["00", "59", "60", "61"]), DIGITS),
    st.sampled_from(["", ".5", ".123456789", ".", ".x"]),
    st.one_of(
        st.sampled_from(["Z", "z", "", "+00:00", "-23:59", "+24:00", "+05:60", "Z\n", "+5:00"]),
        st.builds("+{}:{}".format, DIGITS, DIGITS),
    ),
)


@MANY
@given(st.one_of(DATE_TIMES, st.text(max_size=30), st.integers(), st.none()))
def test_date_time_format_accepts_what_the_parser_accepts(value: Any) -> None:
    """The schema's date-time check accepts exactly the strings parse_timestamp reads."""
    expected = not isinstance(value, str) or _date_time(value) is not None
    assert is_date_time(value) is expected


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("2024-02-29T00:00:00Z", True),
        ("2026-02-29T00:00:00Z", False),
        ("2026-04-31T12:00:00+02:00", False),
        ("2026-12-31T23:59:60.5-23:59", True),
        ("0000-01-01T00:00:00Z", False),
        ("2026-01-01T00:00:00Z\n", False),
        ("２０２６-01-01T00:00:00Z", False),
    ],
)
def test_date_time_format_edges(value: str, valid: bool) -> None:
    """Leap days, month lengths, leap seconds, year 0, a trailing newline, non-ASCII digits."""
    assert is_date_time(value) is valid
    assert (_date_time(value) is not None) is valid


def _date_time_reference(value: str) -> Any:
    """The RFC 3339 parser the fast one replaced: group by group, a new zone per call."""
    import re
    from datetime import datetime, timedelta, timezone

    m = re.compile(
        r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
        r"([Zz]|[+-]([0-9]{2}):([0-9]{2}))\Z",
        re.ASCII,
    ).match(value)
    if not m:
        return None
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if second > 60 or (m.group(9) and (int(m.group(9)) > 23 or int(m.group(10)) > 59)):
        return None
    zone = m.group(8).upper()
    offset = timedelta(0)
    if zone != "Z":
        offset = timedelta(hours=int(m.group(9)), minutes=int(m.group(10)))
        if zone.startswith("-"):
            offset = -offset
    fraction = (m.group(7) or ".0")[1:7].ljust(6, "0")
    try:
        return datetime(
            year, month, day, hour, minute, min(second, 59), int(fraction), timezone(offset)
        )
    except ValueError:
        return None


@MANY
@given(st.one_of(DATE_TIMES, st.text(max_size=30)))
def test_date_time_parser_reads_what_the_reference_reads(value: str) -> None:
    """The same datetime (value, offset and all), or None, as the reference parser."""
    parsed, expected = _date_time(value), _date_time_reference(value)
    assert parsed == expected
    if expected is not None:
        assert parsed is not None
        assert parsed.utcoffset() == expected.utcoffset()
        assert parsed.isoformat() == expected.isoformat()


def _slugify_reference(heading: str) -> str:
    """GitHub's anchor of a heading, character by character through Unicode categories."""
    import unicodedata

    text = markdown._TAG.sub("", heading).strip().lower()
    kept = "".join(
        ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in ("L", "N", "M")
    )
    return kept.replace(" ", "-")


def _scan_reference(text: str) -> markdown.Note:
    """The Markdown scan, every pattern tried on every line (no skipping by the text)."""
    note = markdown.Note([], [], set())
    counts: dict[str, int] = {}

    def add_anchor(heading: str) -> None:
        slug = _slugify_reference(heading)
        seen = counts.get(slug, 0)
        counts[slug] = seen + 1
        note.anchors.add(slug if seen == 0 else f"{slug}-{seen}")

    fence: str | None = None
    blocks = markdown._Blocks()
    previous = ""
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.removesuffix("\r")
        opener = blocks.fence(raw)
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            previous = ""
            continue
        if opener:
            fence = opener.group(1)
            blocks.blank()
            previous = ""
            continue
        if not raw.strip():
            blocks.blank()
        prose = blocks.prose(raw) if raw.strip() else raw
        if prose is None:
            previous = ""
            continue
        line = blocks.inline(markdown._blank_code(prose))
        heading = markdown.atx_heading(line) if "#" in line else None
        if heading is not None:
            add_anchor(heading)
        elif markdown._SETEXT.match(line) and previous.strip():
            add_anchor(previous.strip())
        spans: list[tuple[int, int]] = []
        if "[" in line:
            definition = markdown._REF_DEFINITION.match(line)
            if definition:
                spans.append(definition.span(1))
            if "](" in line:
                spans.extend(markdown._LinkScanner(line).destinations())
                spans.sort()
        for start, end in spans:
            note.links.append(
                markdown.Token(line[start:end].strip("<>"), number, start + 1, end + 1)
            )
        covering = 0
        for match in markdown._ID.finditer(line):
            while covering < len(spans) and spans[covering][1] <= match.start():
                covering += 1
            if covering < len(spans) and spans[covering][0] <= match.start():
                continue
            token = match.group(0).rstrip("._-")
            start = match.start() + 1
            note.ids.append(markdown.Token(token, number, start, start + len(token)))
        previous = line
    return note


MARKDOWN = st.lists(
    st.one_of(
        st.sampled_from(
            ["# ", "## Title", "===", "---", "```", "~~~", "`", "[", "]", "(", ")", "](", "<", ">"]
        ),
        st.sampled_from(['"', "'", " ", "\n", "\r\n", "D-1", "H-002", "x.md", "#a", "é", "→"]),
        st.sampled_from(["[t](a.md)", "[r]: <b c>", "    ", "\t", "WP-7.", "Ünï", "\u0301", "_"]),
        st.sampled_from(["<!--", "-->", "\\", "\\[", "- ", "1. ", "\n\n    ", "\n\n"]),
    ),
    max_size=30,
).map("".join)


@MANY
@given(MARKDOWN)
def test_markdown_scan_finds_what_the_line_by_line_reference_finds(text: str) -> None:
    """Links, ids and anchors, with their lines and columns, as trying every pattern finds."""
    assert markdown.scan(text) == _scan_reference(text)


@MANY
@given(st.one_of(MARKDOWN, st.text(max_size=20)))
def test_heading_anchor_matches_the_unicode_category_reference(heading: str) -> None:
    """ASCII headings by one substitution, others by category: the same anchor."""
    assert markdown.slugify(heading) == _slugify_reference(heading)


def test_heading_anchors_of_ascii_and_unicode() -> None:
    """Punctuation goes, letters, digits, marks, ``-`` and ``_`` stay, spaces become ``-``."""
    assert markdown.slugify("H-001: cortex-main → codex_main!") == "h-001-cortex-main--codex_main"
    assert markdown.slugify("Über <b>Straße</b> 2") == "über-straße-2"
    assert markdown.slugify("e\u0301t\u00e9") == "e\u0301t\u00e9"


@pytest.mark.parametrize(
    "text",
    [
        "Title\n---\nSee D-001.\n",
        "Title\r\n===\r\n[a](b.md) H-002\r\n",
        "```\n[a](b.md)\n```\n# After\n",
        "~~~~\n# in code\n~~~\nD-9\n~~~~\n## Out\n",
        "[ref]: <x y.md>\n- [t](<a b.md> 'T') and [u](c.md \"U\") WP-1.\n",
        "# Dup\n# Dup\nDup\n---\n",
    ],
)
def test_markdown_scan_examples_agree_with_the_reference(text: str) -> None:
    """Setext and ATX headings, fences, CRLF, angle destinations and titles, ids."""
    assert markdown.scan(text) == _scan_reference(text)
    assert markdown.scan(text).anchors or "#" not in text
