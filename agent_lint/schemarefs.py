"""Unbounded ``$ref`` cycles in a user schema, found before any record is validated.

A schema may refer to itself: ``{"properties": {"child": {"$ref": "#"}}}``
describes a tree and ends with the record. A reference that comes back to
where it started through keywords that apply to the *same* value
(``$ref``, ``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``,
``dependentSchemas``) never ends: ``{"$ref": "#"}``. Such a schema is the
schema's fault, not the record's, so it is reported as a problem of the
schema file instead of a record nested too deeply.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referencing._core import Resolver

#: Keywords whose subschemas apply to the value the schema applies to.
_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_ONE = ("not", "if", "then", "else")
_SAME_VALUE_MAPS = ("dependentSchemas",)
_REFS = ("$ref", "$dynamicRef")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _same_value(node: dict[str, Any], pointer: str) -> Iterator[tuple[Any, str]]:
    """The subschemas of ``node`` that apply to the same value, with their pointers."""
    for key in _SAME_VALUE_LISTS:
        items = node.get(key)
        if isinstance(items, list):
            for position, item in enumerate(items):
                yield item, f"{pointer}/{key}/{position}"
    for key in _SAME_VALUE_ONE:
        if key in node:
            yield node[key], f"{pointer}/{key}"
    for key in _SAME_VALUE_MAPS:
        table = node.get(key)
        if isinstance(table, dict):
            for name, item in table.items():
                yield item, f"{pointer}/{key}/{_escape(str(name))}"


def ref_cycle(schema: dict[str, Any], resolver: Resolver[Any], limit: int = 10_000) -> str | None:
    """A ``$ref`` chain of ``schema`` that comes back to itself on the same value, in words.

    ``resolver`` resolves references as validation would (rooted at
    ``schema``). Each subschema is visited once, at most ``limit`` of them;
    a reference that does not resolve is left to the validator to report.
    """
    from referencing.exceptions import Unresolvable

    visited: set[int] = set()
    on_path: dict[int, int] = {}  # subschemas on the current path -> refs followed to reach them
    # Depth-first, iteratively: (subschema, pointer, resolver, refs that led here, leaving).
    stack: list[tuple[Any, str, Any, tuple[str, ...], bool]] = [(schema, "", resolver, (), False)]
    while stack:
        node, pointer, current, chain, leaving = stack.pop()
        key = id(node)
        if leaving:
            del on_path[key]
            continue
        if not isinstance(node, dict):
            continue
        if key in on_path:
            return " -> ".join(chain[on_path[key] :])
        if key in visited or len(visited) >= limit:
            continue
        visited.add(key)
        on_path[key] = len(chain)
        stack.append((node, pointer, current, chain, True))
        for item, where in _same_value(node, pointer):
            stack.append((item, where, current, chain, False))
        for ref_key in _REFS:
            ref = node.get(ref_key)
            if not isinstance(ref, str):
                continue
            try:
                resolved = current.lookup(ref)
            except Unresolvable:
                continue
            step = f'{ref_key} "{ref}" at {pointer or "/"}'
            stack.append((resolved.contents, ref, resolved.resolver, (*chain, step), False))
    return None
