"""What a run keeps per file to the end stays small: facts are slotted, paths kept once."""

from __future__ import annotations

import dataclasses

import pytest

from agent_lint import index
from agent_lint.profiles.astrion import facts as astrion_facts
from agent_lint.profiles.cortex import facts as cortex_facts
from agent_lint.profiles.cortex import handoffs

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
        and dataclasses.is_dataclass(cls)
        and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    ),
]


@pytest.mark.parametrize("cls", KEPT, ids=lambda cls: cls.__qualname__)
def test_facts_kept_to_the_end_of_a_run_have_no_instance_dict(cls: type) -> None:
    """A fact of which a run keeps hundreds of thousands carries no per-instance dict."""
    fields = dataclasses.fields(cls)
    fact = cls(*(None for f in fields if f.init))
    assert not hasattr(fact, "__dict__")
    assert "__slots__" in vars(cls)
