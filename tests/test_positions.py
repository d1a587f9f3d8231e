"""Pointer-to-position mapping for JSON and YAML."""

from __future__ import annotations

import pytest

from agent_lint.positions import ScanError, Span, locate_json, locate_yaml


def test_json_values_and_keys():
    text = '{\n  "a": [1, {"b": "x"}],\n  "c~/d": null\n}'
    found = locate_json(text)
    assert found.values["/a/1/b"] == Span(2, 18, 2, 21)
    assert found.keys["/a"] == Span(2, 3, 2, 6)
    assert found.values["/c~0~1d"] == Span(3, 11, 3, 15)
    assert found.find("/a/1/missing") == found.values["/a/1"]


def test_json_unicode_columns_count_code_points():
    found = locate_json('{"é": "ü", "k": 1}')
    assert found.values["/k"].column == 17


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [("{\n  1: 2}", 2, 3), ('{"a" 1}', 1, 6), ("[1 2]", 1, 4), ("{} x", 1, 4), ('"abc', 1, 1)],
)
def test_json_scan_errors(text, line, column):
    with pytest.raises(ScanError) as exc:
        locate_json(text)
    assert (exc.value.line, exc.value.column) == (line, column)


def test_yaml_spans():
    found = locate_yaml("a:\n  - x\n  - y: 1\n")
    assert found.values["/a/1/y"] == Span(3, 8, 3, 9)
    assert found.keys["/a"] == Span(1, 1, 1, 2)
