"""Placing findings: locating only the requested pointers agrees with locating every value."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_lint.positions import ScanError, locate_json, locate_json_pointers

KEYS = st.text(
    alphabet=st.sampled_from(["a", "b", "/", "~", "0", "é", '"', "\\", " ", "\n", "\u2028"]),
    max_size=4,
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=30,
)


def _render(document: Any, indent: int | None, ascii_only: bool) -> str:
    return json.dumps(document, indent=indent, ensure_ascii=ascii_only)


def _agree(text: str, asked: list[tuple[str, str]]) -> None:
    whole = locate_json(text)
    some = locate_json_pointers(text, asked)
    for pointer, target in asked:
        assert some.find(pointer, target) == whole.find(pointer, target), (pointer, target)


def _asked(text: str, picks: list[int], extra: list[str]) -> list[tuple[str, str]]:
    whole = locate_json(text)
    known = sorted(whole.values) + sorted(whole.keys)
    asked = [(known[i % len(known)], ("value", "key")[i % 2]) for i in picks]
    # Pointers the document does not have: below a value, a bad index, an unknown key.
    asked += [(pointer + suffix, "value") for pointer, _ in asked[:3] for suffix in extra]
    return asked


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    DOCUMENTS,
    st.sampled_from([None, 0, 2, 4]),
    st.booleans(),
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=6),
    st.lists(st.sampled_from(["/0", "/9", "/x", "/~1", "/a/b", "/-"]), max_size=3),
)
def test_requested_pointers_are_placed_as_a_full_scan_places_them(
    document: Any, indent: int | None, ascii_only: bool, picks: list[int], extra: list[str]
) -> None:
    text = _render(document, indent, ascii_only)
    _agree(text, _asked(text, picks, extra))


@pytest.mark.parametrize(
    "text",
    [
        '{"a": NaN}',
        '{"a": [1, 2,]}',
        '{"a": 1} x',
        '{"a": "\x01"}',
        '{"a": {"b": Infinity}}',
        '{"a": 1, "b": {"c": [1, 2',
    ],
)
def test_invalid_json_is_refused_as_the_full_scan_refuses_it(text: str) -> None:
    with pytest.raises(ScanError) as whole:
        locate_json(text)
    with pytest.raises(ScanError) as some:
        locate_json_pointers(text, [("/a", "value"), ("/b/c/1", "key")])
    assert (some.value.line, some.value.column, some.value.message) == (
        whole.value.line,
        whole.value.column,
        whole.value.message,
    )


def test_a_value_json_reads_beyond_python_limits_still_places_the_finding() -> None:
    # An integer too long for int(): the skip refuses it, the full scan takes over.
    text = '{"decisions": [{"n": ' + "7" * 5000 + '}, {"id": "D-2"}]}'
    _agree(text, [("/decisions/1/id", "value"), ("/decisions/0/n", "key")])


def test_one_finding_in_a_large_index_is_placed_like_the_full_scan() -> None:
    entries = [
        {"decision_id": f"D-{n:05d}", "title": f"Decision {n}", "path": f"decisions/D-{n:05d}.json"}
        for n in range(5000)
    ]
    text = json.dumps({"decisions": entries, "count": 5000}, indent=2) + "\n"
    asked = [("/decisions/4321/path", "value"), ("/decisions/17", "key"), ("/count", "key")]
    _agree(text, asked)
    found = locate_json_pointers(text, asked)
    # Only the requested places and their ancestors were placed.
    assert set(found.values) == {
        "",
        "/decisions",
        "/decisions/4321",
        "/decisions/4321/path",
        "/decisions/17",
        "/count",
    }
    assert set(found.keys) == {"/count"}  # an array element has no key
