"""What a run keeps per file to the end stays small: facts are slotted, paths kept once."""

from __future__ import annotations

import dataclasses

import pytest

from agent_lint import index
from agent_lint.profiles.astrion import facts as astrion_facts
from agent_lint.profiles.cortex import facts as cortex_facts
from agent_lint.profiles.cortex import handoffs


def _named_tuple(cls: type) -> bool:
    return issubclass(cls, tuple) and "_fields" in vars(cls)


def _frozen_dataclass(cls: type) -> bool:
    return dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def _arity(cls: type) -> int:
    """How many values the constructor of a named tuple or dataclass takes."""
    if _named_tuple(cls):
        return len(cls._fields)  # type: ignore[attr-defined]
    return sum(1 for f in dataclasses.fields(cls) if f.init)


KEPT = [
    index.Identity,
    index.Reference,
    index.PathReference,
    index.IndexEntry,
    index.ListedRecord,
    index.NoteFacts,
    handoffs.Handoff,
    handoffs.Turn,
    handoffs.TimedHandoff,
    *(
        cls
        for module in (cortex_facts, astrion_facts)
        for cls in vars(module).values()
        if isinstance(cls, type)
        and cls.__module__ == module.__name__
        and (_named_tuple(cls) or _frozen_dataclass(cls))
    ),
]


@pytest.mark.parametrize("cls", KEPT, ids=lambda cls: cls.__qualname__)
def test_facts_kept_to_the_end_of_a_run_have_no_instance_dict(cls: type) -> None:
    """A fact of which a run keeps hundreds of thousands carries no per-instance dict."""
    fact = cls(*(None for _ in range(_arity(cls))))
    assert not hasattr(fact, "__dict__")
    assert "__slots__" in vars(cls)
