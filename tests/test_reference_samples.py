"""The upstream samples validate clean against the bundled schemas."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED

from agent_lint.schemas import SchemaStore

REFERENCE = SHARED / "reference" / "cortex-agent"

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared is not present")

SAMPLES = {
    "agent": "agent",
    "conversation": "conversation",
    "decision": "decision",
    "handoff": "handoff",
    "inbox": "inbox-message",
    "memory": "memory",
    "mission": "mission",
    "run": "run",
    "session": "session",
    "task": "task",
    "waitpoint": "waitpoint",
}
INDEXES = {
    "decisions__index.json": "decision-index",
    "inbox__index.json": "inbox-index",
    "runs__index.json": "run-index",
    "sessions__index.json": "session-index",
    "tasks__index.json": "task-index",
    "waitpoints__index.json": "waitpoint-index",
}


@pytest.mark.parametrize(("sample", "schema"), sorted(SAMPLES.items()))
def test_upstream_sample_is_valid(sample, schema):
    data = json.loads((REFERENCE / f"{sample}.sample.json").read_text(encoding="utf-8"))
    validator = SchemaStore(folder="cortex").validator(schema)
    assert validator is not None
    assert [issue.message for issue in validator.issues(data)] == []


@pytest.mark.parametrize(("name", "schema"), sorted(INDEXES.items()))
def test_upstream_index_is_valid(name, schema):
    data = json.loads((REFERENCE / "implementation-layer" / name).read_text(encoding="utf-8"))
    validator = SchemaStore(folder="cortex").validator(schema)
    assert validator is not None
    assert [issue.message for issue in validator.issues(data)] == []


def test_every_sample_is_covered():
    names = {p.name.removesuffix(".sample.json") for p in REFERENCE.glob("*.sample.json")}
    assert names == set(SAMPLES)
