"""Unbounded ``$ref`` cycles and ``$ref`` fan-out in a user schema, found before any
record is validated.

A schema may refer to itself: ``{"properties": {"child": {"$ref": "#"}}}``
describes a tree and ends with the record. A reference that comes back to
where it started through keywords that apply to the *same* value
(``$ref``, ``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``,
``dependentSchemas``) never ends: ``{"$ref": "#"}``. Such a schema is the
schema's fault, not the record's, so it is reported as a problem of the
schema file instead of a record nested too deeply.

References may also share subschemas so that one record is checked against
exponentially many of them: forty ``anyOf`` levels of two ``$ref`` each to
the next are 2^40 checks of a value that fails them. :func:`ref_expansion`
counts the subschemas a record may be checked against, references
followed, and stops at a limit.
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


#: Keywords holding one subschema, a list of them, or a map of them (``$defs`` is
#: applied only through ``$ref``, so it is not among them).
_ONE: tuple[str, ...] = (*_SAME_VALUE_ONE, "items", "additionalItems", "contains")
_ONE += ("additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties")
_LISTS = (*_SAME_VALUE_LISTS, "prefixItems", "items")
_MAPS = (*_SAME_VALUE_MAPS, "properties", "patternProperties", "dependencies")


def _subschemas(node: dict[str, Any]) -> Iterator[Any]:
    """Every subschema ``node`` applies, to its value or to a value inside it."""
    for key in _ONE:
        if isinstance(node.get(key), dict):
            yield node[key]
    for key in _LISTS:
        items = node.get(key)
        if isinstance(items, list):
            yield from items
    for key in _MAPS:
        table = node.get(key)
        if isinstance(table, dict):
            yield from table.values()


def ref_expansion(schema: dict[str, Any], resolver: Resolver[Any], limit: int) -> bool:
    """Whether ``schema`` expands to more than ``limit`` subschemas with references followed.

    Each subschema is counted with everything it applies, shared ones once per
    use, as a validator meets them; a reference back to a subschema being
    counted (a recursive schema, which the record's depth ends) counts once.
    The count stops at the limit, so the work is bounded too.
    """
    from referencing.exceptions import Unresolvable

    sizes: dict[int, int] = {}
    counting: set[int] = set()

    def size(node: Any, current: Any) -> int:
        if not isinstance(node, dict):
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in counting:
            return 1
        counting.add(key)
        total = 1
        children = [(child, current) for child in _subschemas(node)]
        for ref_key in _REFS:
            ref = node.get(ref_key)
            if isinstance(ref, str):
                try:
                    resolved = current.lookup(ref)
                except Unresolvable:
                    continue
                children.append((resolved.contents, resolved.resolver))
        for child, where in children:
            total += size(child, where)
            if total > limit:
                break
        counting.discard(key)
        sizes[key] = total = min(total, limit + 1)
        return total

    return size(schema, resolver) > limit
