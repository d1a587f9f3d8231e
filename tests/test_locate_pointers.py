"""Placing findings: locating only the requested pointers agrees with locating every value."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_lint.positions import (
    Locations,
    ScanError,
    _jump,
    locate_json,
    locate_json_pointers,
    locate_parsed_json,
)

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


def _placed_as_a_run(raw: bytes, asked: list[tuple[str, str]]) -> Locations:
    """Places in a parsed JSON file: from its bytes, or from its text when they leave it."""
    found = locate_parsed_json(raw, asked)
    if found is not None:
        return found
    return locate_json_pointers(raw.decode("utf-8").removeprefix("\ufeff"), asked, parsed=True)


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
    from_bytes = locate_parsed_json(text.encode("utf-8"), asked)
    assert from_bytes is not None  # jumped over on the bytes, never decoded whole
    for pointer, target in asked:
        assert from_bytes.find(pointer, target) == locate_json(text).find(pointer, target)
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


# A text a run parsed (valid JSON, no repeated key): the scan stops early and jumps over
# runs of array elements. The same answers as the full scan, on documents built to tempt
# the jump into a wrong landing: braces, brackets, commas and line breaks inside strings,
# nested containers, scalars among the objects, odd or no indentation, CRLF line ends.
TRICKY = st.text(alphabet=st.sampled_from(list('ab{}[],:"\\\n\r\t é')), max_size=8)
MEMBERS = st.dictionaries(
    st.sampled_from(["id", "path", "t", "{", "}", "a,b"]),
    st.one_of(
        TRICKY,
        st.integers(-5, 5),
        st.none(),
        st.lists(st.integers(0, 3), max_size=2),
        st.dictionaries(st.sampled_from(["x", "y"]), TRICKY, max_size=2),
    ),
    max_size=4,
)
PLAIN = st.dictionaries(
    st.sampled_from(["path", "title", "n"]),
    st.one_of(st.text(alphabet="ab .-/é", max_size=6), st.integers(-5, 5)),
    max_size=3,
)
TWISTS = st.lists(
    st.tuples(st.integers(0, 179), st.one_of(MEMBERS, st.integers(0, 9), TRICKY)), max_size=3
)


def _elements(template: dict[str, Any], length: int, twists: list[tuple[int, Any]]) -> list[Any]:
    """``length`` objects like ``template``, each with its own id, a few replaced by ``twists``."""
    elements: list[Any] = [{**template, "id": f"D-{n}"} for n in range(length)]
    for position, twist in twists:
        elements[position % length] = twist
    return elements


def _spaced(document: Any, style: int) -> str:
    """``document`` written with whitespace the standard writer never uses."""
    if style == 0:
        return json.dumps(document, separators=(",", ":"))  # one line
    if style == 1:
        return json.dumps(document, indent="\t").replace("\n", "\r\n")
    if style == 2:  # each element on a line of its own, with a different indent each
        items = document["list"]
        lines = [" " * (n % 3) + json.dumps(item) for n, item in enumerate(items)]
        return '{"head": 1, "list": [\n' + ",\n".join(lines) + '\n], "tail": [1]}'
    return json.dumps(document, indent=style - 2)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(PLAIN, PLAIN, PLAIN, MEMBERS),
    st.integers(60, 180),
    st.one_of(st.just([]), TWISTS),
    st.integers(0, 5),
    st.lists(st.integers(0, 400), min_size=1, max_size=3),
    st.integers(0, 20),
)
def test_a_parsed_text_is_placed_as_the_full_scan_places_it(
    template: dict[str, Any],
    length: int,
    twists: list[tuple[int, Any]],
    style: int,
    picks: list[int],
    far: int,
) -> None:
    elements = _elements(template, length, twists)
    text = _spaced({"head": 1, "list": elements, "tail": [1]}, style)
    asked = [(f"/list/{n % (len(elements) + 3)}", "value") for n in picks]
    asked += [(f"/list/{length - 1 - far}/id", "value"), ("/tail/0", "key")]
    whole = locate_json(text)
    some = locate_json_pointers(text, asked, parsed=True)
    for bom in (False, True):
        # The same text as UTF-8 bytes, with and without a byte order mark (which the
        # run's text leaves out and no column counts), placed as a run places it.
        from_bytes = _placed_as_a_run(("\ufeff" if bom else "").encode() + text.encode(), asked)
        for pointer, target in asked:
            expected = whole.find(pointer, target)
            assert some.find(pointer, target) == expected, (pointer, target)
            assert from_bytes.find(pointer, target) == expected, (pointer, target, bom)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    DOCUMENTS,
    st.sampled_from([None, 0, 2, 4]),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=6),
    st.lists(st.sampled_from(["/0", "/9", "/x", "/~1", "/a/b", "/-"]), max_size=3),
)
def test_a_parsed_file_is_placed_from_its_bytes_as_from_its_text(
    document: Any,
    indent: int | None,
    ascii_only: bool,
    crlf: bool,
    picks: list[int],
    extra: list[str],
) -> None:
    # Non-ASCII text before the place (columns count characters, not bytes), CRLF ends.
    text = _render({"é€𝄞": "ü", "doc": document}, indent, ascii_only)
    if crlf:
        text = text.replace("\n", "\r\n")  # only the line ends: strings hold no raw break
    asked = _asked(text, picks, extra)
    whole = locate_json(text)
    found = locate_parsed_json(text.encode("utf-8"), asked)
    assert found is not None
    for pointer, target in asked:
        assert found.find(pointer, target) == whole.find(pointer, target), (pointer, target)


@pytest.mark.parametrize("padding", [0, 1, 2])
def test_a_container_is_skipped_on_a_window_cut_between_characters(padding: int) -> None:
    # The window ends inside the run of three-byte characters that follows the container.
    text = '{"a":' + " " * padding + '{"x": [1, "é"]}, "b": "' + "€" * 3000 + '", "c": 2}'
    asked = [("/c", "value"), ("/c", "key")]
    found = locate_parsed_json(text.encode("utf-8"), asked)
    assert found is not None
    whole = locate_json(text)
    for pointer, target in asked:
        assert found.find(pointer, target) == whole.find(pointer, target)


def test_what_costs_more_on_bytes_is_left_to_the_text() -> None:
    big = {f"k{n}": "é€𝄞" * (n % 7) for n in range(3000)}  # far larger than the window
    text = json.dumps({"big": big, "after": "ü"}, ensure_ascii=False)
    assert locate_parsed_json(text.encode("utf-8"), [("/after", "value")]) is None
    # A run of elements the jump cannot prove: skipped one by one, on the text.
    text = json.dumps({"d": [{"t": "{}"}] + [{"t": "x"}] * 99}, indent=2)
    assert locate_parsed_json(text.encode("utf-8"), [("/d/90/t", "value")]) is None


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": "\xff", "b": 1}',  # not UTF-8 before the place: decoded, it fails
        b'{"a": [1, 2, {"c": "\xe9"}], "b": 1}',  # not UTF-8 inside a skipped container
        b'{"a": NaN, "b": 1}',  # not JSON: the file changed since the run parsed it
        b'{"a": {"b": 1',
    ],
)
def test_bytes_that_are_not_what_a_run_parsed_are_left_to_the_text(raw: bytes) -> None:
    assert locate_parsed_json(raw, [("/b", "value")]) is None


def test_the_jump_lands_on_the_element_the_full_scan_finds() -> None:
    entries = [{"id": f"D-{n}", "title": f"Decision {n}"} for n in range(300)]
    text = json.dumps({"decisions": entries}, indent=2)
    start = text.index("{", 1)
    whole = locate_json(text)
    for count in (64, 100, 299):
        landing = _jump(text, start, count)
        assert landing is not None
        span = whole.values[f"/decisions/{count}"]
        line_start = text.rfind("\n", 0, landing) + 1
        assert (span.line, span.column) == (
            text.count("\n", 0, landing) + 1,
            landing - line_start + 1,
        )


@pytest.mark.parametrize(
    "entries",
    [
        # A brace inside a string: the count of braces no longer proves the landing.
        [{"t": "{}"}] + [{"t": "x"}] * 99,
        # An array inside an element.
        [{"t": [1]}] + [{"t": "x"}] * 99,
        # A scalar among the objects breaks the run of separators.
        [{"t": "x"}, 5] + [{"t": "x"}] * 98,
    ],
)
def test_the_jump_refuses_what_it_cannot_prove(entries: list[Any]) -> None:
    text = json.dumps({"d": entries}, indent=2)
    start = text.index("{", 1)
    assert _jump(text, start, 80) is None
    asked = [("/d/90/t", "value")]
    assert locate_json_pointers(text, asked, parsed=True).find("/d/90/t") == locate_json(text).find(
        "/d/90/t"
    )


def test_a_parsed_text_is_read_only_as_far_as_the_requested_places() -> None:
    # What follows the last requested place is not read: the run parsed the text already.
    text = '{"a": 1, "b": [1, 2,], "c": NaN}'
    found = locate_json_pointers(text, [("/a", "value"), ("/a", "key")], parsed=True)
    assert found.find("/a") is not None and found.find("/a", "key") is not None
    with pytest.raises(ScanError):
        locate_json_pointers(text, [("/a", "value")])
