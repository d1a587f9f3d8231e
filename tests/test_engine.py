"""The fast schema path never changes a result: it agrees with the detailed engine."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES
from conftest import REPO as REPO_ROOT

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


def _records_of_every_kind() -> list[tuple[str, str, object]]:
    """(profile, schema, record) for each valid schema-checked record of the fixtures."""
    found = []
    for profile_name in ("cortex", "astrion", "personal_bot"):
        profile = get_profile(profile_name)
        for repo in sorted((REPO_ROOT / "fixtures" / profile_name).iterdir()):
            for path in sorted(repo.rglob("*")):
                for store in (repo / ".agent", repo / ".astrion", repo):
                    if store in path.parents:
                        break
                if not path.is_file() or ".git" in path.parts:
                    continue
                match = profile.classify(path.relative_to(store).as_posix())
                if match is None or match.kind.schema is None:
                    continue
                loaded = parse(path.name, match.kind.format, path.read_bytes())
                if loaded.ok and isinstance(loaded.data, dict):
                    found.append((profile.schema_folder, match.kind.schema, loaded.data))
    return found


def _mutations(record: dict[str, object], named: list[str]) -> list[dict[str, object]]:
    """The record with unknown fields: alone, beside a missing or a wrong field, or a field
    only a conditional branch names."""
    first = next(iter(record), None)
    misspelt = f"{first}x" if first is not None else "x"
    out = [
        {**record, misspelt: 1},
        {**record, "zz_unknown": None, "aa_unknown": [1]},
        {**record, "status": "released", "extra": True},
        {**record, "status": "superseded", "promt": "?"},
        {**record, "status": "approved", "unknown": 1},
    ]
    if first is not None:
        missing = {k: v for k, v in record.items() if k != first}
        out += [{**missing, misspelt: record[first]}, {**record, first: [[]], misspelt: 1}]
    out += [{**record, name: "x", "unknown": 2} for name in named]
    return out


def test_the_unknown_fields_shortcut_agrees_with_the_detailed_engine():
    """Records whose fault is unknown fields (alone or with others) get the detailed engine's
    issues, whether or not the shortcut explains them; and the shortcut does explain some."""
    stores = {}
    explained = checked = 0
    for folder, name, record in _records_of_every_kind():
        if folder not in stores:
            stores[folder] = (
                schemas.SchemaStore(fast=True, folder=folder),
                schemas.SchemaStore(fast=False, folder=folder),
            )
        fast, detailed = (store.validator(name) for store in stores[folder])
        if not isinstance(fast, schemas.FastPathValidator):
            continue
        schema = fast._schema
        # Fields only a conditional branch names (a decision's superseded_by_decision_id).
        named = sorted(set(json.dumps(schema.get("allOf", [])).split('"')[1::2]) - set(record))
        for mutated in _mutations(record, named[:20]):
            slow = list(detailed.issues(mutated))  # type: ignore[union-attr]
            assert list(fast.issues(mutated)) == slow, (folder, name, mutated)
            shortcut = schemas.unknown_fields_issue(fast._fast, schema, mutated)
            if shortcut is not None:
                assert [shortcut] == slow
                explained += 1
            checked += 1
    assert checked > 500 and explained > 100


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"a": {}}, "allOf": [{"required": ["b"]}]},
        {"properties": {"a": {}}, "allOf": [{"properties": {"b": {"type": "string"}}}]},
        {"properties": {"a": {}}, "if": {"required": ["b"]}, "then": {"required": ["c"]}},
        {"properties": {"a": {}}, "minProperties": 3},
        {"properties": {"a": {}}, "maxProperties": 1},
        {"properties": {"a": {}}, "not": {"required": ["b"]}},
        {"properties": {"a": {}}, "propertyNames": {"maxLength": 1}},
        {"properties": {"a": {}}, "dependentRequired": {"b": ["c"]}},
        {"properties": {"a": {}}, "anyOf": [{"required": ["b"]}, {"required": ["c"]}]},
        {"properties": {"a": {}}, "patternProperties": {"^x": {"type": "integer"}}},
        {"properties": {"a": {}}, "$defs": {"d": {}}, "allOf": [{"$ref": "#/$defs/d"}]},
        {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
    ],
)
def test_the_shortcut_leaves_schemas_that_look_at_unknown_fields_to_the_detailed_engine(
    schema, tmp_path, monkeypatch
):
    """Whatever else a schema says of an object's keys, the issues are the detailed engine's."""
    (tmp_path / "t").mkdir()
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
              "additionalProperties": False, **schema}  # fmt: skip
    (tmp_path / "t" / "k.schema.json").write_text(json.dumps(schema))
    monkeypatch.setattr(schemas, "bundled_schema_dir", lambda: tmp_path)
    fast = schemas.SchemaStore(fast=True, folder="t").validator("k")
    detailed = schemas.SchemaStore(fast=False, folder="t").validator("k")
    assert isinstance(fast, schemas.FastPathValidator)
    for record in ({"a": 1, "b": "x"}, {"a": 1, "b": 1, "c": 2}, {"a": "s", "b": 1},
                   {"b": 1}, {"a": 1, "x1": "y"}, {"a": 1, "x1": 1, "b": 2}):  # fmt: skip
        assert list(fast.issues(record)) == list(detailed.issues(record)), record  # type: ignore[union-attr]
