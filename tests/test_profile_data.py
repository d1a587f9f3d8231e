"""Data of the Astrion and Personal Bot layouts: schemas, fixtures and expected findings agree.

The layouts are described in ``docs/profiles.md``. The path patterns below restate its
tables so that every record of the fixtures is matched to the schema of its kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pytest
from conftest import REPO
from ruamel.yaml import YAML

SCHEMAS = REPO / "schemas"
FIXTURES = REPO / "fixtures"

#: profile -> (folder of the store inside a fixture, [(kind, path pattern in the store)])
LAYOUTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "astrion": (
        ".astrion",
        [
            ("role", r"agents/[^/]+\.md"),
            ("state", r"state\.json"),
            ("conversation-index", r"conversations/index\.json"),
            ("conversation", r"conversations/[^/]+/metadata\.json"),
            ("conversation-messages", r"conversations/[^/]+/messages\.json"),
            ("sub-agent", r"conversations/[^/]+/agents/[^/]+/metadata\.json"),
            ("sub-agent-messages", r"conversations/[^/]+/agents/[^/]+/messages\.json"),
        ],
    ),
    "personal_bot": (
        "",
        [
            *(
                (record, rf"(?:\.pi/agent/)?pbot/subagents/[^/.][^/]*/{record}\.json")
                for record in (
                    "descriptor",
                    "launch",
                    "inbox",
                    "status",
                    "completions",
                    "session-ref",
                    "team-ready",
                )
            ),
            ("team", r"(?:\.pi/agent/)?pbot/teams/[^/]+/team\.json"),
            ("history", r"\.pi/pbot/history/(?:[^/]+/)*[^/]+\.json"),
        ],
    ),
}
#: Folders (relative to a fixture) that hold only store files.
STORE_FOLDERS = {"astrion": [".astrion"], "personal_bot": [".pi/agent/pbot", ".pi/pbot"]}

ROW = re.compile(r"^\| `(?P<file>[^`]+)` \| `(?P<pointer>[^`]+)` \| (?P<check>[^|]+?) \|")


def schema_files(profile: str) -> list[Path]:
    return sorted((SCHEMAS / profile).glob("*.schema.json"))


def load_schema(profile: str, kind: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / profile / f"{kind}.schema.json").read_text(encoding="utf-8"))


def classify(profile: str, rel: str) -> str | None:
    """The kind of a store file (path relative to the store folder), or None."""
    for kind, pattern in LAYOUTS[profile][1]:
        if re.fullmatch(pattern, rel):
            return kind
    return None


def parse(path: Path) -> Any:
    """A JSON record, or the YAML front matter of a Markdown record; raises if it does not parse."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".md":
        return json.loads(text)
    head, sep, _ = text.removeprefix("---\n").partition("\n---\n")
    assert text.startswith("---\n") and sep, f"{path}: no front matter"
    return YAML(typ="safe").load(head)


def records(profile: str, repo: Path) -> Iterator[tuple[str, str, Path]]:
    """(kind, repository-relative path, path) of every classified file of a fixture."""
    store = repo / LAYOUTS[profile][0]
    for path in sorted(store.rglob("*")):
        if path.is_file():
            kind = classify(profile, path.relative_to(store).as_posix())
            if kind is not None:
                yield kind, path.relative_to(repo).as_posix(), path


def walk_patterns(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            yield from walk_patterns(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk_patterns(item)


def pointers(error: jsonschema.ValidationError) -> list[str]:
    """Where a finding for ``error`` points: the field itself, or the object missing a field."""
    base = "".join(f"/{step}" for step in error.absolute_path)
    if error.validator == "additionalProperties":
        declared = error.schema.get("properties", {})
        return [f"{base}/{key}" for key in error.instance if key not in declared]
    return [base]


def expected_rows(fixture: Path) -> list[dict[str, str]]:
    text = (fixture / "expected.md").read_text(encoding="utf-8")
    return [m.groupdict() for line in text.splitlines() if (m := ROW.match(line))]


def fixture_trees(profile: str, prefix: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / profile).iterdir() if p.name.startswith(prefix))


@pytest.mark.parametrize(
    "path",
    [p for profile in LAYOUTS for p in schema_files(profile)],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_schema_is_a_2020_12_schema_with_its_profile_id(path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    kind = path.name.removesuffix(".schema.json")
    assert schema["$id"] == f"urn:agent-lint:{path.parent.name}:{kind}"
    assert schema["description"]
    for pattern in walk_patterns(schema):
        assert pattern.isascii() and pattern.startswith("^") and pattern.endswith("$"), pattern


@pytest.mark.parametrize("profile", sorted(LAYOUTS))
def test_every_kind_has_a_schema_and_the_valid_fixture_has_every_kind(profile):
    kinds = {kind for kind, _ in LAYOUTS[profile][1]}
    assert {p.name.removesuffix(".schema.json") for p in schema_files(profile)} == kinds
    assert {kind for kind, _, _ in records(profile, FIXTURES / profile / "valid")} == kinds


@pytest.mark.parametrize("profile", sorted(LAYOUTS))
def test_every_file_of_the_valid_stores_is_a_record(profile):
    repo = FIXTURES / profile / "valid"
    classified = {rel for _, rel, _ in records(profile, repo)}
    for folder in STORE_FOLDERS[profile]:
        for path in (repo / folder).rglob("*"):
            if path.is_file():
                assert path.relative_to(repo).as_posix() in classified


@pytest.mark.parametrize("profile", sorted(LAYOUTS))
def test_valid_fixture_records_match_their_schemas(profile):
    validators: dict[str, tuple[Any, Any]] = {}
    checked = 0
    for kind, rel, path in records(profile, FIXTURES / profile / "valid"):
        if kind not in validators:
            schema = load_schema(profile, kind)
            validators[kind] = (
                jsonschema.Draft202012Validator(schema),
                jsonschema_rs.Draft202012Validator(schema),
            )
        detailed, fast = validators[kind]
        data = parse(path)
        assert [e.message for e in detailed.iter_errors(data)] == [], rel
        assert fast.is_valid(data), rel
        checked += 1
    assert checked >= 20


BROKEN = [
    (profile, tree)
    for profile in sorted(LAYOUTS)
    for fixture in fixture_trees(profile, "broken-") + fixture_trees(profile, "git-history")
    for tree in (
        [fixture / "base", fixture / "change"] if fixture.name == "git-history" else [fixture]
    )
]


@pytest.mark.parametrize(
    ("profile", "tree"), BROKEN, ids=lambda v: v if isinstance(v, str) else v.name
)
def test_schema_rows_of_expected_md_are_exactly_the_schema_errors(profile, tree):
    """A broken fixture breaks its schemas exactly where its expected.md says, nowhere else."""
    fixture = tree if (tree / "expected.md").exists() else tree.parent
    expected = {
        (row["file"], "" if row["pointer"] == "(root)" else row["pointer"])
        for row in expected_rows(fixture)
        if row["check"] == "schema" and (tree / row["file"]).exists()
    }
    found = set()
    for kind, rel, path in records(profile, tree):
        try:
            data = parse(path)
        except Exception:  # a file-syntax finding, not a schema one
            continue
        validator = jsonschema.Draft202012Validator(load_schema(profile, kind))
        for error in validator.iter_errors(data):
            found.update((rel, pointer) for pointer in pointers(error))
    assert found == expected


@pytest.mark.parametrize(
    "fixture",
    [f for profile in LAYOUTS for f in fixture_trees(profile, "broken-")]
    + [FIXTURES / "personal_bot" / "git-history"],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_expected_findings_name_files_of_the_fixture(fixture):
    rows = expected_rows(fixture)
    assert rows
    trees = [fixture / "base", fixture / "change"] if fixture.name == "git-history" else [fixture]
    for row in rows:
        assert any((tree / row["file"]).exists() for tree in trees), row["file"]
        assert row["pointer"] in ("-", "(root)") or row["pointer"].startswith("/"), row


FIX_CASES = sorted((FIXTURES / "astrion" / "fix").iterdir())
DERIVED = {".astrion/state.json", ".astrion/conversations/index.json"}


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("case", FIX_CASES, ids=lambda p: p.name)
def test_fix_after_is_valid_json_and_differs_only_in_derived_files(case):
    before, after = tree_bytes(case / "before"), tree_bytes(case / "after")
    assert before.keys() == after.keys()
    changed = {rel for rel in before if before[rel] != after[rel]}
    assert changed and changed <= DERIVED
    for rel, data in after.items():
        if rel.endswith(".json"):
            json.loads(data.decode("utf-8"))


@pytest.mark.parametrize("case", FIX_CASES, ids=lambda p: p.name)
def test_fix_writes_the_runtime_formatting(case):
    """Rewritten files: 2-space indent, UTF-8 as is, no final newline; index sorted by id."""
    before, after = tree_bytes(case / "before"), tree_bytes(case / "after")
    for rel in DERIVED:
        if before[rel] == after[rel]:
            continue
        value = json.loads(after[rel].decode("utf-8"))
        assert after[rel] == json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8")
        if rel.endswith("index.json"):
            assert list(value) == sorted(value)


def values(data: Any, spec: str) -> Iterator[Any]:
    """The values at a field spec such as ``messages[].metadata.agent_id``; ``**.f``: any depth."""
    if spec.startswith("**."):
        key = spec[3:]
        if isinstance(data, dict):
            if key in data:
                yield data[key]
            for value in data.values():
                yield from values(value, spec)
        elif isinstance(data, list):
            for item in data:
                yield from values(item, spec)
        return
    head, _, rest = spec.partition(".")
    each = head.endswith("[]")
    key = head.removesuffix("[]")
    if not isinstance(data, dict) or key not in data:
        return
    items = data[key] if each and isinstance(data[key], list) else [data[key]]
    for item in items:
        yield from values(item, rest) if rest else iter([item])


#: (profile, kind, field spec, the JSON types it must take somewhere in the valid fixture)
FOLLOWED = [
    ("astrion", "sub-agent", "role_id", {str}),
    ("astrion", "sub-agent", "pending_messages[].source_agent_id", {int, type(None)}),
    ("astrion", "sub-agent", "pending_tool_calls[].tool_call_id", {str}),
    ("astrion", "conversation-messages", "messages[].metadata.agent_id", {int}),
    ("astrion", "sub-agent-messages", "messages[].tool_calls[].id", {str}),
    ("astrion", "state", "last_conversation_id", {str}),
    ("astrion", "state", "agent_id_counter", {int}),
    ("personal_bot", "session-ref", "file", {str, type(None)}),
    ("personal_bot", "team", "**.operationId", {str}),
    ("personal_bot", "inbox", "**.operationId", {str}),
    ("personal_bot", "completions", "**.requestId", {str}),
]


@pytest.mark.parametrize(
    ("profile", "kind", "spec", "types"), FOLLOWED, ids=lambda v: v if isinstance(v, str) else ""
)
def test_valid_fixture_exercises_every_field_the_checks_follow(profile, kind, spec, types):
    seen = {
        type(value)
        for found, _, path in records(profile, FIXTURES / profile / "valid")
        if found == kind
        for value in values(parse(path), spec)
    }
    assert seen == types
