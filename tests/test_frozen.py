"""``@frozen`` values behave as frozen dataclasses do, but for the run-time guard.

Equality and hashing by value, ``replace`` and the fields are those of
``dataclass(frozen=True)`` (a differential check against one declared the
same way); assignments are the type checker's to refuse (mypy, strict).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import agent_lint
from agent_lint.frozen import frozen
from agent_lint.positions import Span


def _frozen_classes() -> list[type]:
    """Every class of the package declared with ``@frozen`` (an unsafe hash, not frozen)."""
    found = []
    for info in pkgutil.walk_packages(agent_lint.__path__, "agent_lint."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and dataclasses.is_dataclass(value)
                and not value.__dataclass_params__.frozen  # type: ignore[attr-defined]
                and value.__dataclass_params__.unsafe_hash  # type: ignore[attr-defined]
            ):
                found.append(value)
    return found


def test_the_values_of_the_index_and_the_profiles_are_declared_frozen() -> None:
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in _frozen_classes()}
    assert {
        "agent_lint.kinds.Kind",
        "agent_lint.kinds.Ref",
        "agent_lint.config.Config",
        "agent_lint.positions.Span",
        "agent_lint.profile.Profile",
    } <= names


@pytest.mark.parametrize("options", [{}, {"slots": True}, {"repr": False}, {"eq": False}])
def test_a_frozen_value_compares_and_hashes_as_a_frozen_dataclass(options: dict) -> None:
    def declare(decorator):  # type: ignore[no-untyped-def]
        @decorator
        class Point:
            x: int
            y: tuple[str, ...] = ()
            note: str = dataclasses.field(default="", compare=False)

        return Point

    ours = declare(frozen(**options))
    theirs = declare(dataclasses.dataclass(frozen=True, **options))
    samples = [((1, ("a",), "n"), (1, ("a",), "m")), ((1, (), ""), (2, (), ""))]
    for first, second in samples:
        a, b = ours(*first), ours(*second)
        c, d = theirs(*first), theirs(*second)
        assert (a == b) == (c == d)
        assert (a == ours(*first)) == (c == theirs(*first))
        if options.get("eq", True):
            assert (hash(a) == hash(b)) == (hash(c) == hash(d))
            assert hash(a) == hash(ours(*first))
        assert len({a, b, ours(*first)}) == len({c, d, theirs(*first)})
        assert dataclasses.replace(a, x=5).x == 5 and a.x == first[0]
        if options.get("repr", True):
            assert repr(a) == repr(c)
    assert [f.name for f in dataclasses.fields(ours)] == ["x", "y", "note"]
    assert hasattr(ours(1), "__dict__") == (not options.get("slots", False))


def test_spans_are_equal_by_value() -> None:
    first, again = Span(1, 2, 1, 5), Span(1, 2, 1, 5)
    assert first == again and hash(first) == hash(again) and len({first, again}) == 1
    assert first != Span(1, 2, 1, 6)
