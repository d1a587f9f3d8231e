"""``@frozen`` and ``@record`` classes behave as the dataclasses they stand for.

A differential check against classes declared the same way with
``@dataclass``: construction (positional, keyword, defaults, factories,
``__post_init__``, inheritance), the errors of a wrong call, equality and
hashing by value, ``repr``, :func:`~agent_lint.frozen.replace` and
:func:`~agent_lint.frozen.fields_of`. Assignments to a frozen value are the
type checker's to refuse (mypy, strict).
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import pkgutil
from typing import Any, ClassVar

import pytest

import agent_lint
from agent_lint import frozen as values
from agent_lint.diagnostics import Severity
from agent_lint.frozen import fields_of, frozen, record, replace
from agent_lint.positions import Span


def _declared_classes() -> dict[str, type]:
    """Every class of the package declared with ``@frozen`` or ``@record``."""
    found = {}
    for info in pkgutil.walk_packages(agent_lint.__path__, "agent_lint."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and "__value_fields__" in vars(value)
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_the_values_of_the_index_and_the_profiles_are_declared() -> None:
    names = set(_declared_classes())
    assert {
        "agent_lint.kinds.Kind",
        "agent_lint.kinds.Ref",
        "agent_lint.config.Config",
        "agent_lint.profile.Profile",
        "agent_lint.index.RepoIndex",
        "agent_lint.result.LintResult",
    } <= names


def _point(decorator: Any, field: Any = values.field) -> Any:
    @decorator
    class Point:
        x: int
        y: tuple[str, ...] = ()
        note: str = field(default="", compare=False)
        tags: list[str] = field(default_factory=list, repr=False, compare=False)
        origin: ClassVar[int] = 0

    return Point


@pytest.mark.parametrize("options", [{}, {"repr": False}, {"eq": False}])
def test_a_frozen_value_behaves_as_a_frozen_dataclass(options: dict[str, bool]) -> None:
    ours = _point(frozen(**options))
    theirs = _point(dataclasses.dataclass(frozen=True, unsafe_hash=options.get("eq", True),
                                          **options), dataclasses.field)  # fmt: skip
    samples = [((1, ("a",), "n"), (1, ("a",), "m")), ((1, (), ""), (2, (), ""))]
    for first, second in samples:
        a, b = ours(*first), ours(*second)
        c, d = theirs(*first), theirs(*second)
        assert (a == b) == (c == d)
        assert (a == ours(*first)) == (c == theirs(*first))
        assert (hash(a) == hash(b)) == (hash(c) == hash(d)) or not options.get("eq", True)
        assert len({a, b, ours(*first)}) == len({c, d, theirs(*first)})
        assert replace(a, x=5).x == 5 and a.x == first[0]
        assert replace(a, x=5) == replace(a, x=5) or not options.get("eq", True)
        assert (repr(a) == repr(c)) or not options.get("repr", True)
    assert a != (1, (), "", [])  # another type is never equal
    assert fields_of(ours) == fields_of(theirs) == ("x", "y", "note", "tags")
    assert ours.origin == 0 and "origin" not in fields_of(ours)


def test_construction_takes_what_a_dataclass_takes() -> None:
    ours, theirs = _point(frozen), _point(dataclasses.dataclass(frozen=True), dataclasses.field)
    for args, kwargs in [((1,), {}), ((), {"x": 1, "y": ("b",)}), ((1, ("c",)), {"note": "x"})]:
        a, c = ours(*args, **kwargs), theirs(*args, **kwargs)
        assert (a.x, a.y, a.note, a.tags) == (c.x, c.y, c.note, c.tags)
    assert ours(1).tags is not ours(1).tags  # a factory makes a value per instance
    for args, kwargs in [((), {}), ((1, (), "", [], 5), {}), ((1,), {"x": 2}), ((1,), {"z": 3})]:
        with pytest.raises(TypeError):
            theirs(*args, **kwargs)
        with pytest.raises(TypeError):
            ours(*args, **kwargs)


def test_a_record_changes_and_is_equal_only_to_itself() -> None:
    calls: list[int] = []

    @record
    class Counter:
        start: int
        seen: list[int] = values.field(default_factory=list)

        def __post_init__(self) -> None:
            calls.append(self.start)

    first, second = Counter(1), Counter(1)
    first.start = 2
    assert (first.start, calls) == (2, [1, 1])
    assert first != second and first == first and len({first, second}) == 2
    assert replace(first, start=3).seen == [] and calls == [1, 1, 3]
    assert "Counter object" in repr(first)  # no generated repr unless asked


def test_fields_are_inherited_first() -> None:
    @frozen
    class Base:
        a: int
        b: int = 2

    @frozen
    class Derived(Base):
        c: int = 3

    assert fields_of(Derived) == ("a", "b", "c")
    assert repr(Derived(1)) == "test_fields_are_inherited_first.<locals>.Derived(a=1, b=2, c=3)"
    assert Derived(1) == Derived(1, 2, 3) != Base(1)
    with pytest.raises(TypeError):

        @frozen
        class Wrong(Base):
            d: int  # no default after fields with one


def test_what_a_class_defines_itself_stays_and_shared_defaults_are_refused() -> None:
    @frozen
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

        def __hash__(self) -> int:
            return hash(self.name.lower())

    assert repr(Named("A")) == "<A>" and Named("A") == Named("a") and len({Named("A")}) == 1
    with pytest.raises(TypeError, match="default_factory"):

        @record
        class Shared:
            items: list[int] = []  # noqa: RUF012 (the mistake refused)

    @record(repr=True)
    class Loop:
        name: str
        other: Any = None

    loop = Loop("a")
    loop.other = loop
    assert repr(loop).endswith(".Loop(name='a', other=...)")  # a loop is shown, not followed


def test_values_are_pickled_and_compared_as_they_were() -> None:
    # The gate's outcome comes back from a forked child pickled, its settings with it.
    from agent_lint.config import Config

    value = replace(Config(), select=("AL1",))
    again = pickle.loads(pickle.dumps(value))
    assert again == value and again.select == ("AL1",) and repr(again) == repr(value)


def test_named_tuples_and_dataclasses_are_replaced_and_named_too() -> None:
    from agent_lint.diagnostics import Diagnostic

    @dataclasses.dataclass(frozen=True)
    class Pair:
        a: int
        b: int = 0

    finding = Diagnostic("AL1", "x", Severity.ERROR, "m", "p")
    assert replace(finding, line=3).line == 3 and finding.line is None
    assert replace(Pair(1), b=2) == Pair(1, 2)
    assert fields_of(Pair) == ("a", "b") and fields_of(Diagnostic)[:3] == (
        "code",
        "name",
        "severity",
    )


def test_spans_are_equal_by_value() -> None:
    first, again = Span(1, 2, 1, 5), Span(1, 2, 1, 5)
    assert first == again and hash(first) == hash(again) and len({first, again}) == 1
    assert first != Span(1, 2, 1, 6)
