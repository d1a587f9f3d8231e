"""The fast schema path never changes a result: it agrees with the detailed engine."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from agent_lint import schemas
from agent_lint.linter import lint_paths
from agent_lint.loading import parse
from agent_lint.profiles import get as get_profile

REPOS = sorted(p for p in FIXTURES.iterdir() if (p / ".agent").is_dir())


def test_fast_engine_is_available_and_used():
    validator = schemas.SchemaStore(folder="cortex").validator("decision")
    assert isinstance(validator, schemas.FastPathValidator)


@pytest.mark.parametrize("repo", REPOS, ids=lambda p: p.name)
def test_fast_and_detailed_engines_agree_on_every_record(repo):
    fast, detailed = (
        schemas.SchemaStore(fast=True, folder="cortex"),
        schemas.SchemaStore(fast=False, folder="cortex"),
    )
    agent = repo / ".agent"
    checked = 0
    for path in sorted(agent.rglob("*")):
        match = (
            get_profile("cortex").classify(path.relative_to(agent).as_posix())
            if path.is_file()
            else None
        )
        if match is None or match.kind.schema is None:
            continue
        loaded = parse(path.name, match.kind.format, path.read_bytes())
        if not loaded.ok:
            continue
        slow = list(detailed.validator(match.kind.schema).issues(loaded.data))  # type: ignore[union-attr]
        quick = list(fast.validator(match.kind.schema).issues(loaded.data))  # type: ignore[union-attr]
        assert quick == slow, path
        checked += 1
    assert checked > (8 if repo.name == "real-world" else 40)


@pytest.mark.parametrize("repo", REPOS, ids=lambda p: p.name)
def test_lint_results_do_not_depend_on_the_engine(repo, monkeypatch):
    with_fast = lint_paths([repo]).diagnostics
    monkeypatch.setattr(schemas, "_fast_validator", lambda schema: None)
    assert lint_paths([repo]).diagnostics == with_fast


def test_values_the_fast_engine_cannot_take_fall_back(lint_tree):
    stamp = "2026-11-02T10:00:00Z"
    record = {"schema_version": 1, "conversation_id": "C-1", "turn_count": 2**70,
              "created_at": stamp, "updated_at": stamp}  # fmt: skip
    assert lint_tree({"conversations/C-1/meta.json": record}).diagnostics == []
    record["turn_count"] = -(2**70)
    [d] = lint_tree({"conversations/C-1/meta.json": record}).diagnostics
    assert d.code == "AL107"
