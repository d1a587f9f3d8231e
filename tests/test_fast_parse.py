"""The cold run's shortcuts agree with the exact paths they stand in for.

Whenever :func:`agent_lint.loading.fast_json` decides a document, the exact
reader (``json`` with hooks) must read the same data, types included; every
other document must be left to the exact reader, which then makes the
findings. Checked on generated documents, written in many styles, with
repeated keys, long integers and escaped colons, and on malformed ones.
The walk's shortcut for ordinary names and folders must never pass a name
the name checks have something to say about.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from agent_lint import loading
from agent_lint.config import Limits
from agent_lint.discovery import _distinct_ascii, ordinary_name
from agent_lint.kinds import Format
from agent_lint.loading import _UNDECIDED, _exact_json, _first_too_deep, fast_json, json_too_deep
from agent_lint.validators import storage

pytest.importorskip("orjson")


def same(left: Any, right: Any) -> bool:
    """Equal values of equal types all the way down: ``1`` is not ``1.0``, ``-0.0`` not ``0.0``."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, float):
        return math.copysign(1, left) == math.copysign(1, right) and (
            left == right or (math.isnan(left) and math.isnan(right))
        )
    return bool(left == right)


def agrees(text: str) -> bool:
    """Check one document; True when the fast reader decided it."""
    fast = fast_json(text)
    if fast is _UNDECIDED:
        return False
    data, problems = _exact_json("x.json", text)
    assert problems == [], text
    assert same(fast, data), text
    return True


#: Enough examples for a differential test to meet the rare cases: a second or two each,
#: so out of the fast inner loop (``-m "not slow"``).
def _MANY(test: Any) -> Any:
    return pytest.mark.slow(settings(max_examples=150)(test))


_INTS = st.one_of(
    st.integers(-(2**63), 2**64),
    st.integers(-(10**30), 10**30),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 0]),
)
_FLOATS = st.floats(allow_nan=False, allow_infinity=False)
_TEXT = st.text(
    st.one_of(st.characters(codec="utf-8"), st.sampled_from(':"\\/\u2028\x00\x1f')), max_size=12
)
_SCALARS = st.one_of(st.none(), st.booleans(), _INTS, _FLOATS, _TEXT)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=15,
)


@st.composite
def _written(draw: st.DrawFn, value: Any = None) -> str:
    """A JSON text of a generated value, in one of the styles files are written in."""
    if value is None:
        value = draw(_VALUES)
    indent = draw(st.sampled_from([None, 0, 2, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", " : ")]))
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        # Escape some colons and slashes the way other writers do.
        text = text.replace(":", "\\u003a", 1) if '":' not in text[:3] else text
    return text


@_MANY
@given(_written())
def test_fast_reader_agrees_on_generated_documents(text: str) -> None:
    agrees(text)


@st.composite
def _with_repeated_keys(draw: st.DrawFn) -> str:
    """An object written member by member, some keys written twice, some nested."""
    keys = draw(st.lists(_TEXT, min_size=1, max_size=5))
    members = []
    for key in keys + draw(st.lists(st.sampled_from(keys), max_size=3)):
        value = draw(st.one_of(_SCALARS, st.just({"k": 1, "k:": [":"]})))
        members.append(f"{json.dumps(key)}: {json.dumps(value)}")
    inner = "{" + ", ".join(draw(st.permutations(members))) + "}"
    return draw(st.sampled_from([inner, f'{{"outer": {inner}}}', f"[1, {inner}]"]))


@_MANY
@given(_with_repeated_keys())
def test_fast_reader_leaves_repeated_keys_to_the_exact_reader(text: str) -> None:
    decided = agrees(text)
    repeated = _exact_json("x.json", text)[0] is None
    assert not (decided and repeated)


_JUNK = st.sampled_from(
    ["NaN", "-Infinity", "Infinity", "1e400", "-1e999", "01", "1.", ".5", "+1", "-", "1e", "0x1",
     ",", "]", "}", "{", "[", '"', "\\", "\\ud800", '"\\ud800"', "\x00", "\x1f", "\u00a0", "\f",
     "true", "nul", "//", "/*", "123456789012345678901234567890", ":", '"a":1'],
)  # fmt: skip


@_MANY
@given(_written(), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3), _JUNK), max_size=3))
def test_fast_reader_never_accepts_what_the_exact_reader_refuses(
    text: str, edits: list[tuple[int, int, str]]
) -> None:
    for where, cut, junk in edits:
        at = where % (len(text) + 1)
        text = text[:at] + junk + text[at + cut :]
    agrees(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"a": 1, "a": 2}', "a repeated key"),
        ('{"x": {"b": [], "c": 1, "b": "::"}}', "a repeated key, nested"),
        ('{"a\\u003a": 1, "a:": 2}', "keys equal once the escape is read"),
        ('{"a": 1, "a": 2, "x": "\\u003a"}', "a repeated key, an escaped colon to make up"),
        ("18446744073709551616", "an integer past 64 bits"),
        ("[-9223372036854775809]", "an integer past 64 bits, negative"),
        ('{"h": "1234567890123456789"}', "19 digits in a string: undecided, not wrong"),
        ("[NaN]", "a constant JSON lacks"),
        ("1e400", "a number past the float range"),
        ('"\\ud800"', "a lone surrogate"),
        ("[1,]", "a syntax error"),
    ],
)
def test_fast_reader_leaves_these_to_the_exact_reader(text: str, why: str) -> None:
    assert fast_json(text) is _UNDECIDED, why


def test_fast_reader_decides_ordinary_records() -> None:
    text = '{"id": "D-001", "n": 922337203685477580, "x": -0.0, "at": "12:00", "t": ["a:b"]}'
    assert same(fast_json(text), json.loads(text))


def test_long_integers_are_exact_either_way() -> None:
    digits = "9" * 5000
    data, problems = loading._parse_json("x.json", f'{{"n": {digits}}}', Limits())
    assert problems == [] and data == {"n": Decimal(digits)}


@given(st.one_of(_written(), _with_repeated_keys()))
def test_parse_is_the_same_with_and_without_orjson(text: str) -> None:
    raw = text.encode()
    fast = loading.parse("x.json", Format.JSON, raw)
    saved = loading._orjson
    loading._orjson = None  # type: ignore[assignment]
    try:
        exact = loading.parse("x.json", Format.JSON, raw)
    finally:
        loading._orjson = saved
    assert fast.problems == exact.problems
    assert fast.ok == exact.ok and same(fast.data, exact.data)


_NESTING = st.text(st.sampled_from('[]{}"\\ a:,\n'), max_size=80)


@_MANY
@given(_NESTING, st.integers(0, 6))
def test_depth_check_agrees_with_the_token_scan(text: str, limit: int) -> None:
    assert json_too_deep(text, limit) == _first_too_deep(text, limit)


@given(st.integers(1, 100), st.integers(1, 100))
def test_depth_check_finds_the_first_bracket_too_deep(depth: int, limit: int) -> None:
    text = '{"a": "[[[", "b": ' + "[" * depth + "]" * depth + "}"
    start = text.index('"b": ') + len('"b": ')
    expected = start + limit - 1 if depth + 1 > limit else None
    assert json_too_deep(text, limit) == expected


_NAME_PARTS = st.sampled_from(
    ["a", "Z", "0", "_", "-", ".", " ", "~", "#", ".#", ".tmp", ".TeMp", ".tmp-1", ".swp", ".swq",
     ".SWP", "con", "CoM1", "lpt9", "nul", "AUX", "com¹", "ß", "é", "e\u0301", "K", "ſ",
     ":", "\x01"]
)  # fmt: skip
_NAMES = st.one_of(
    st.lists(_NAME_PARTS, min_size=1, max_size=5).map("".join),
    st.text(min_size=1, max_size=12),
)


@_MANY
@given(_NAMES)
def test_ordinary_names_are_ones_the_name_checks_pass(name: str) -> None:
    if ordinary_name(name):
        assert storage.unportable_name(name, name) is None
        assert storage.temporary_file(name, name) is None


@pytest.mark.parametrize("name", ["D-001.json", "H-0001.json", "meta.json", "turns", ".gitkeep"])
def test_ordinary_names_take_the_shortcut(name: str) -> None:
    assert ordinary_name(name)


@pytest.mark.parametrize("name", ["x.json.tmp", ".a.swp", "CON.json", "a.", "a~", "#a#", "a:b"])
def test_names_with_something_to_say_do_not(name: str) -> None:
    assert not ordinary_name(name)


@_MANY
@given(st.lists(_NAMES, max_size=6, unique=True))
def test_distinct_ascii_folders_have_no_collisions(names: list[str]) -> None:
    if _distinct_ascii(names):
        assert list(storage.collisions("f", names)) == []
    else:
        assert not all(map(str.isascii, names)) or list(storage.collisions("f", names))


# -- YAML: the reader's shortcut for plain scalars -------------------------------------------

_YAML_WORDS = st.sampled_from(
    ["yes", "No", "on", "OFF", "y", "~", "null", "Null", "", "true", "FALSE", "0o17", "017",
     "0x1F", "0b101", "1_000", "1:30", "-.inf", ".NaN", "1e3", "-2.5", "+1", "12345678901234567890",
     "2026-11-01", "2026-11-01T09:00:00Z", "<<", "a b", "x:y", "- z", "#c", "'q'", "\u2028", "é"]
)  # fmt: skip
_YAML_SCALARS = st.one_of(_YAML_WORDS, st.integers(), st.booleans(), st.none(), st.text(max_size=6))
_YAML_VALUES = st.recursive(
    _YAML_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(_YAML_WORDS | _TEXT, inner, max_size=4)
    ),
    max_leaves=15,
)


@st.composite
def _yaml_documents(draw: st.DrawFn) -> str:
    """YAML written by PyYAML in one of its styles, or by hand with plain words, anchors,
    aliases, merges, tags, repeated keys and a version directive."""
    import yaml

    if draw(st.booleans()):
        return yaml.safe_dump(
            draw(_YAML_VALUES),
            default_flow_style=draw(st.sampled_from([None, True, False])),
            allow_unicode=draw(st.booleans()),
            default_style=draw(st.sampled_from([None, None, "'", '"'])),
        )
    word = st.one_of(_YAML_WORDS.filter(lambda w: w.strip() == w and w[:1] not in "-#'"), _TEXT)
    lines = []
    for number in range(draw(st.integers(1, 6))):
        key = draw(word.filter(lambda w: w.isalnum() or w in ("<<", "~", "")))
        form = draw(st.integers(0, 6))
        if form == 0:
            lines.append(f"k{number}: &a{number} {{x: 1, y: [1, 2]}}")
        elif form == 1:
            lines.append(f"k{number}: *a{draw(st.integers(0, number))}")
        elif form == 2:
            lines.append(f"m{number}:\n  <<: *a{draw(st.integers(0, number))}\n  y: 3")
        elif form == 3:
            tag = draw(st.sampled_from(["!!str", "!!int", "!!float", "!", "!!bool", "!!null"]))
            lines.append(f"t{number}: {tag} {json.dumps(draw(word))}")
        elif form == 4:
            lines.append(f"s{number}:\n  - {json.dumps(draw(word))}\n  - [{draw(word)!r}]")
        else:
            lines.append(f"{json.dumps(key)}: {draw(word)}")
    head = draw(st.sampled_from(["", "%YAML 1.1\n---\n", "---\n"]))
    return head + "\n".join(lines) + "\n"


def _yaml_outcome(text: str, place: bool = True) -> tuple[str, Any]:
    from agent_lint.yamlsafe import DuplicateKey, LimitExceeded, YamlProblem, _Reader

    saved = _Reader._place
    if not place:
        _Reader._place = lambda self, event, top: False  # type: ignore[method-assign]
    try:
        return ("data", _Reader(Limits(max_depth=6, max_yaml_alias_nodes=15)).read(text))
    except DuplicateKey as exc:
        return ("duplicate", exc.index)
    except LimitExceeded as exc:
        return ("limit", exc.index)
    except YamlProblem as exc:
        return ("problem", exc.index)
    finally:
        _Reader._place = saved  # type: ignore[method-assign]


@_MANY
@given(_yaml_documents())
def test_plain_scalars_are_placed_as_the_event_reader_places_them(text: str) -> None:
    fast, exact = _yaml_outcome(text), _yaml_outcome(text, place=False)
    assert fast[0] == exact[0], text
    if fast[0] == "data":
        assert same(fast[1], exact[1]), text
    else:
        assert fast[1] == exact[1], text


# -- classifying a path: the kinds tried by first folder, against every kind in order ----------

_SEGMENTS = st.sampled_from(
    ["conversations", "C-1", "handoffs", "H-001.json", "meta.json", "turns", "0001.yaml",
     "decisions", "D-001.json", "index.json", "missions", "M-1", "mission.json", "memory",
     "MEM-1.json", "agents", "a.md", "session-ref.json", "state.json", ".pi", "agent", "pbot",
     "subagents", "descriptor.json", "teams", "team.json", "history", "notes.md",
     "20260101-120000.md", "Decisions", "x", ""]
)  # fmt: skip


def _every_kind_in_order(profile: Any, relpath: str) -> tuple[str, dict[str, str]] | None:
    if relpath.endswith(".json") and profile.support_file(relpath):
        return None
    for kind in profile.kinds:
        found = kind.path.match(relpath)
        if found:
            return kind.name, {k: v for k, v in found.groupdict().items() if v is not None}
    return None


def _classified(profile: Any, relpath: str) -> tuple[str, dict[str, str]] | None:
    match = profile.classify(relpath)
    return None if match is None else (match.kind.name, dict(match.groups))


@settings(max_examples=60)
@given(st.lists(_SEGMENTS, min_size=1, max_size=6).map("/".join))
def test_classify_agrees_with_trying_every_kind(relpath: str) -> None:
    from agent_lint.profiles import builtin

    for profile in builtin():
        assert _classified(profile, relpath) == _every_kind_in_order(profile, relpath), relpath


def test_classify_agrees_with_trying_every_kind_on_the_fixtures() -> None:
    from pathlib import Path

    from agent_lint.profiles import builtin

    root = Path(__file__).resolve().parent.parent / "fixtures"
    paths = {p.relative_to(top).as_posix() for top in root.glob("*/*") for p in top.rglob("*")}
    paths |= {path.split("/", 1)[1] for path in paths if "/" in path}  # inside the store
    assert len(paths) > 200
    for profile in builtin():
        for relpath in paths:
            assert _classified(profile, relpath) == _every_kind_in_order(profile, relpath)


_NUMBERS = st.builds(
    "{}{}{}{}".format,
    st.sampled_from(["", "-"]),
    st.integers(0, 10**10),
    st.just("") | st.integers(0, 10**9).map(".{:09d}".format),
    st.just("") | st.builds("e{}{}".format, st.sampled_from(["", "+", "-"]), st.integers(0, 330)),
)


@_MANY
@given(st.lists(_NUMBERS, min_size=1, max_size=8))
def test_fast_reader_rounds_numbers_as_python_does(numbers: list[str]) -> None:
    agrees("[" + ", ".join(numbers) + "]")
