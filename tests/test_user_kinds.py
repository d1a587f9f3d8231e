"""Kinds declared in the configuration ([[kinds]]): validated centrally, checked like built-ins."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES
from gitrepo import commit_all, git

from agent_lint.cli import main

REVIEW_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:example:review",
    "type": "object",
    "required": ["review_id", "verdict"],
    "properties": {
        "review_id": {"type": "string"},
        "verdict": {"enum": ["approve", "reject"]},
        "decision_ids": {"type": "array", "items": {"type": "string"}},
        "handoff": {"type": "string"},
    },
}

CONFIG = """\
profile = "cortex"

[[kinds]]
name = "review"
path = "reviews/{stem}.json"
schema = "tools/review.schema.json"
id-field = "review_id"
id-pattern = "RV-[0-9]{3,}"
history = "append-only"
references = [
  { field = "decision_ids[]", target = "decision" },
  { field = "handoff", target = "handoff" },
]
"""


def _review(review_id: str, **fields: object) -> str:
    record = {"review_id": review_id, "verdict": "approve", "decision_ids": ["D-001"]}
    record.update(fields)
    return json.dumps(record, indent=2) + "\n"


def _repo(root: Path, config: str = CONFIG) -> Path:
    """The valid Cortex fixture with a declared review kind and two reviews."""
    shutil.copytree(FIXTURES / "valid", root)
    (root / "tools").mkdir()
    (root / "tools" / "review.schema.json").write_text(json.dumps(REVIEW_SCHEMA))
    (root / ".agent-lint.toml").write_text(config)
    reviews = root / ".agent" / "reviews"
    reviews.mkdir()
    (reviews / "RV-001.json").write_text(_review("RV-001"))
    (reviews / "RV-002.json").write_text(
        _review("RV-002", handoff="H-20261103-120000-release-prep")
    )
    return root


def _lint(capsys, *args: str) -> tuple[int, list[tuple[str, str, str]]]:
    code = main([*args, "--output-format", "json"])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    return code, [(d["code"], d["path"].rsplit("/", 1)[-1], d["message"]) for d in found]


def test_a_declared_kind_of_valid_records_is_clean_and_its_records_are_read(tmp_path, capsys):
    repo = _repo(tmp_path / "repo")
    assert _lint(capsys, str(repo)) == (0, [])
    assert main([str(repo), "--show-files"]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert [line.split() for line in shown if "reviews/" in line] == [
        [".agent/reviews/RV-001.json", "review"],
        [".agent/reviews/RV-002.json", "review"],
    ]


def test_a_declared_kind_gets_schema_identity_and_reference_checks(tmp_path, capsys):
    repo = _repo(tmp_path / "repo")
    reviews = repo / ".agent" / "reviews"
    (reviews / "RV-003.json").write_text(_review("RV-004", verdict="maybe"))
    (reviews / "RV-005.json").write_text(_review("RV-005", decision_ids=["D-999"]))
    (reviews / "RV-6.json").write_text(_review("RV-6"))
    code, found = _lint(capsys, str(repo))
    assert code == 1
    assert sorted((c, f) for c, f, _ in found) == [
        ("AL104", "RV-003.json"),
        ("AL201", "RV-6.json"),
        ("AL202", "RV-003.json"),
        ("AL301", "RV-005.json"),
    ]
    dangling = next(m for c, _, m in found if c == "AL301")
    assert '"D-999"' in dangling and "decision" in dangling


def test_a_data_file_in_a_declared_record_folder_is_named_not_skipped(tmp_path, capsys):
    repo = _repo(tmp_path / "repo")
    (repo / ".agent" / "reviews" / "notes").mkdir()
    (repo / ".agent" / "reviews" / "notes" / "x.json").write_text("{}")
    code, found = _lint(capsys, str(repo))
    assert code == 1 and [(c, f) for c, f, _ in found] == [("AL205", "x.json")]


def test_an_append_only_declared_kind_is_protected_by_the_gate(tmp_path, capsys):
    repo = _repo(tmp_path / "work")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "Reviews before the change")
    git(repo, "checkout", "-q", "-b", "change")
    review = repo / ".agent" / "reviews" / "RV-001.json"
    review.write_text(_review("RV-001", verdict="reject"))
    (repo / ".agent" / "reviews" / "RV-002.json").unlink()
    code, found = _lint(capsys, str(repo), "--base", "main", "--select", "AL6")
    assert code == 1
    assert sorted((c, f) for c, f, _ in found) == [
        ("AL601", "RV-001.json"),
        ("AL602", "RV-002.json"),
    ]
    [modified] = [m for c, _, m in found if c == "AL601"]
    assert modified.endswith("and write a new review instead")  # not "handoff"


def test_a_change_cannot_lift_the_history_its_base_declares(tmp_path, capsys):
    repo = _repo(tmp_path / "work")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "Reviews before the change")
    config = repo / ".agent-lint.toml"
    config.write_text(config.read_text().replace('"append-only"', '"free"'))
    (repo / ".agent" / "reviews" / "RV-001.json").write_text(_review("RV-001", verdict="reject"))
    code, found = _lint(capsys, str(repo), "--base", "main", "--select", "AL6")
    assert code == 1 and [(c, f) for c, f, _ in found] == [("AL601", "RV-001.json")]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('name = "review"', "`kinds[0].path` must be a pattern relative to the store"),
        ('name = "Review"\npath = "r/{stem}.json"', "`kinds[0].name` must be a kebab-case"),
        ('name = "r"\npath = "/etc/{stem}.json"', "`kinds[0].path` must be a relative pattern"),
        ('name = "r"\npath = "../{stem}.json"', "`kinds[0].path` must be a relative pattern"),
        ('name = "r"\npath = "r/{a b}.json"', "`kinds[0].path` group {a b} must be a name"),
        ('name = "r"\npath = "r/{stem}.txt"', "`kinds[0].format` must be"),
        ('name = "r"\npath = "r/{stem}.json"\nhistory = "append"', "`kinds[0].history` must be"),
        ('name = "r"\npath = "r/{stem}.json"\npaht = 1', "unknown key `paht`"),
        ('name = "r"\npath = "r/{stem}.json"\nid-pattern = "("', "`kinds[0].id-pattern` is not"),
        ('name = "r"\npath = "r/{stem}.json"\nid-pattern = "(?=R)R"', "in linear time"),
        ('name = "r"\npath = "r/*a*a*.json"', "may hold at most two of `*` and `{name}`"),
        ('name = "r"\npath = "r/{a}-{b}-{c}.json"', "may hold at most two of `*` and `{name}`"),
        ('name = "r"\npath = "**/r/**/{stem}.json"', "may hold `**` once"),
        (
            'name = "r"\npath = "r/{stem}.json"\n\n[[kinds]]\nname = "r"\npath = "s/{stem}.json"',
            "`kinds[1].name` 'r' is declared twice",
        ),
        (
            'name = "r"\npath = "r/x.json"\nid-field = "id"\nname-rule = "stem"',
            "which `path` does not have",
        ),
        ('name = "r"\npath = "r/{stem}.json"\nschema = "nope.json"', "`kinds[0].schema`"),
        ('name = "r"\npath = "r/{stem}.json"\nschema = "../x.json"', "outside the repository"),
        (
            'name = "r"\npath = "r/{stem}.json"\nreferences = [{ field = "a", target = "nope" }]',
            "`kinds[0].references[0].target` 'nope' is not a namespace",
        ),
        ('name = "decision"\npath = "r/{stem}.json"', "is a kind of the cortex profile"),
    ],
)
def test_declarations_are_validated_with_errors_naming_the_key(tmp_path, capsys, table, message):
    shutil.copytree(FIXTURES / "valid", tmp_path / "repo")
    (tmp_path / "repo" / ".agent-lint.toml").write_text(f"[[kinds]]\n{table}\n")
    assert main([str(tmp_path / "repo")]) == 2
    err = capsys.readouterr().err
    assert message in err and ".agent-lint.toml" in err


@pytest.mark.parametrize(
    ("pattern", "valid", "invalid"),
    [
        ("(a|aa)+", "aaaa", "a" * 60 + "b"),  # a backtracking engine takes minutes on it
        ("(?i)RV-[0-9]+", "rv-001", "RV-x"),  # flags, as schema patterns take them
        ("RV-[0-9]+", "RV-001", "RV-001\n"),  # the whole id: no final newline slips by
    ],
)
def test_an_id_pattern_is_matched_whole_in_linear_time(tmp_path, capsys, pattern, valid, invalid):
    """The change under review may declare the pattern: it runs on the engine of schema
    patterns, which never backtracks."""
    config = CONFIG.replace('id-pattern = "RV-[0-9]{3,}"', f"id-pattern = {json.dumps(pattern)}")
    repo = _repo(
        tmp_path / "repo", config.replace('name = "review"', 'name = "review"\nname-rule = "none"')
    )
    reviews = repo / ".agent" / "reviews"
    for path in reviews.iterdir():
        path.unlink()
    (reviews / "one.json").write_text(_review(valid))
    (reviews / "two.json").write_text(_review(invalid))
    code, found = _lint(capsys, str(repo))
    assert (code, [(c, f) for c, f, _ in found]) == (1, [("AL201", "two.json")])


def test_a_path_with_two_wildcards_in_a_name_keeps_its_groups_and_stays_linear(tmp_path):
    """``{date}-{slug}.json``: the groups are Python's, and a long name that matches no
    kind is turned away by the linear-time engine first (a backtracking engine takes
    quadratic time per kind on it)."""
    from agent_lint.config import UserKind
    from agent_lint.profile import GuardedPath, compile_path

    path = compile_path("reviews/{date}-{slug}.json")
    assert isinstance(path, GuardedPath)
    match = path.match("reviews/2026-12-01-rollout-plan.json")
    # The groups as Python's engine takes them, each as long as the rest allows.
    assert match is not None
    assert match.groupdict() == {"date": "2026-12-01-rollout", "slug": "plan"}
    assert path.match("reviews/" + "-" * 250 + ".yaml") is None
    assert path.match("reviews/a-b.json\n") is None  # the whole path, no final newline
    assert not isinstance(compile_path("reviews/{stem}.json"), GuardedPath)  # linear already
    assert UserKind  # the config type the path comes from


def test_a_configuration_declares_a_bounded_number_of_kinds(tmp_path, capsys):
    shutil.copytree(FIXTURES / "valid", tmp_path / "repo")
    tables = "".join(f'[[kinds]]\nname = "k{n}"\npath = "k{n}/{{stem}}.json"\n' for n in range(101))
    (tmp_path / "repo" / ".agent-lint.toml").write_text(tables)
    assert main([str(tmp_path / "repo")]) == 2
    assert "`kinds` declares 101 kinds; at most 100 are allowed" in capsys.readouterr().err


def test_profile_table_extends_a_built_in_profile(tmp_path, capsys):
    repo = _repo(
        tmp_path / "repo", CONFIG.replace('profile = "cortex"', '[profile]\nextends = "cortex"\n')
    )
    assert _lint(capsys, str(repo)) == (0, [])
    (repo / ".agent-lint.toml").write_text('[profile]\nextend = "cortex"\n')
    assert main([str(repo)]) == 2
    assert "`[profile]` takes one key, `extends" in capsys.readouterr().err


INDEXED = (
    CONFIG
    + """\
paths = ["evidence[]"]

[kinds.index]
path = "reviews/index.json"
entries = "reviews"
fields = { verdict = "verdict" }
"""
)


def _index(repo: Path, entries: object) -> None:
    path = repo / ".agent" / "reviews" / "index.json"
    path.write_text(json.dumps(entries, indent=2) + "\n")


def _entry(review_id: str, verdict: str = "approve") -> dict[str, str]:
    return {"review_id": review_id, "verdict": verdict}


def test_a_declared_kinds_path_fields_are_checked_like_built_in_path_references(tmp_path, capsys):
    repo = _repo(tmp_path / "repo", INDEXED)
    _index(repo, {"reviews": [_entry("RV-001"), _entry("RV-002")]})
    reviews = repo / ".agent" / "reviews"
    (reviews / "RV-001.json").write_text(_review("RV-001", evidence=["docs"]))
    assert _lint(capsys, str(repo)) == (0, [])
    (reviews / "RV-002.json").write_text(
        _review("RV-002", evidence=["docs/nothing-here.md", "../outside.md"])
    )
    code, found = _lint(capsys, str(repo))
    assert code == 1
    assert sorted((c, f) for c, f, _ in found) == [
        ("AL302", "RV-002.json"),
        ("AL303", "RV-002.json"),
    ]
    assert any("docs/nothing-here.md" in m for c, _, m in found if c == "AL302")


def test_a_declared_index_is_checked_against_the_records_both_ways(tmp_path, capsys):
    repo = _repo(tmp_path / "repo", INDEXED)
    _index(repo, {"reviews": [_entry("RV-001"), _entry("RV-002")]})
    assert _lint(capsys, str(repo)) == (0, [])
    assert main([str(repo), "--show-files"]) == 0
    assert ".agent/reviews/index.json review index" in " ".join(capsys.readouterr().out.split())
    _index(
        repo,
        {"reviews": [_entry("RV-001", "reject"), _entry("RV-009"), _entry("RV-001", "reject")]},
    )
    code, found = _lint(capsys, str(repo))
    assert code == 1
    assert sorted((c, m) for c, _, m in found) == [
        ("AL304", "entry RV-009 names no review record under reviews/"),
        (
            "AL305",
            'verdict "reject" disagrees with .agent/reviews/RV-001.json, which has "approve"',
        ),
        ("AL306", ".agent/reviews/RV-002.json (RV-002) is not listed in this index"),
        ("AL307", ".agent/reviews/RV-001.json is listed more than once in this index"),
    ]
    assert {f for _, f, _ in found} == {"index.json"}


def test_a_declared_index_may_be_an_object_keyed_by_id(tmp_path, capsys):
    keyed = INDEXED.replace('entries = "reviews"\n', "")
    repo = _repo(tmp_path / "repo", keyed)
    _index(repo, {"RV-001": {"verdict": "approve"}, "RV-002": {"verdict": "approve"}})
    assert _lint(capsys, str(repo)) == (0, [])
    _index(repo, {"RV-001": {"verdict": "reject"}, "RV-003": {}})
    code, found = _lint(capsys, str(repo))
    assert code == 1
    assert sorted(c for c, _, _ in found) == ["AL304", "AL305", "AL306"]


def test_a_user_profile_extends_a_built_in_one_and_keeps_its_checks(tmp_path, capsys):
    """The declared kinds sit beside the profile's own, which are still checked."""
    repo = _repo(
        tmp_path / "repo", INDEXED.replace('profile = "cortex"', '[profile]\nextends = "cortex"\n')
    )
    _index(repo, {"reviews": [_entry("RV-001"), _entry("RV-002")]})
    assert _lint(capsys, str(repo)) == (0, [])
    decision = repo / ".agent" / "decisions" / "D-002.json"
    record = json.loads(decision.read_text())
    record["decision_id"] = "D-777"
    decision.write_text(json.dumps(record, indent=2) + "\n")
    code, found = _lint(capsys, str(repo))
    assert code == 1 and ("AL202", "D-002.json") in {(c, f) for c, f, _ in found}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('paths = "evidence"', "`kinds[0].paths` must be an array of field specs"),
        ("index = 1", "`kinds[0].index` must be a table"),
        ('[kinds.index]\npaht = "x.json"', "`kinds[0].index` has unknown key `paht`"),
        ('[kinds.index]\npath = "r/index.yaml"', "`kinds[0].index.path` must name a JSON file"),
        ('[kinds.index]\npath = "../index.json"', "`kinds[0].index.path` must be a relative"),
        (
            '[kinds.index]\npath = "r/index.json"\nentries = "a.b"',
            "`kinds[0].index.entries` must be",
        ),
        (
            '[kinds.index]\npath = "r/index.json"\nentries = "items"',
            "`kinds[0].index.id-field` must name the entry field",
        ),
        (
            '[kinds.index]\npath = "r/index.json"\nfields = { a = 1 }',
            "`kinds[0].index.fields` must be",
        ),
    ],
)
def test_declared_paths_and_index_are_validated(tmp_path, capsys, table, message):
    shutil.copytree(FIXTURES / "valid", tmp_path / "repo")
    config = f'[[kinds]]\nname = "r"\npath = "r/{{stem}}.json"\n{table}\n'
    (tmp_path / "repo" / ".agent-lint.toml").write_text(config)
    assert main([str(tmp_path / "repo")]) == 2
    err = capsys.readouterr().err
    assert message in err and ".agent-lint.toml" in err


TREE = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}


@pytest.mark.parametrize(
    ("schema", "chain"),
    [
        ({"$ref": "#"}, '$ref "#" at /'),
        (
            {
                "$defs": {
                    "a": {"allOf": [{"$ref": "#/$defs/b"}]},
                    "b": {"not": {"$ref": "#/$defs/a"}},
                },
                "$ref": "#/$defs/a",
            },
            '$ref "#/$defs/b" at #/$defs/a/allOf/0 -> $ref "#/$defs/a" at #/$defs/b/not',
        ),
        ({"$id": "urn:example:x", "anyOf": [{"$ref": "urn:example:y"}]}, "urn:example:y"),
    ],
)
def test_a_ref_cycle_in_a_declared_schema_blames_the_schema_not_the_record(
    tmp_path, capsys, schema, chain
):
    repo = _repo(tmp_path / "repo")
    (repo / "tools" / "review.schema.json").write_text(json.dumps(schema))
    # A second schema in the repository that the first may reach (the cross-file cycle).
    other = {"$id": "urn:example:y", "oneOf": [{"$ref": "urn:example:x"}]}
    (repo / "schemas").mkdir()
    (repo / "schemas" / "other.schema.json").write_text(json.dumps(other))
    config = repo / ".agent-lint.toml"
    config.write_text('schema-dirs = ["schemas"]\n' + config.read_text())
    assert main([str(repo)]) == 2
    err = capsys.readouterr().err
    assert "review.schema.json" in err and chain in err
    assert "comes back to where it started" in err and "AL011" not in err


def test_a_schema_that_recurses_into_the_record_is_bounded_and_accepted(tmp_path, capsys):
    repo = _repo(tmp_path / "repo")
    tree = {**TREE, "properties": {**REVIEW_SCHEMA["properties"], **TREE["properties"]}}
    (repo / "tools" / "review.schema.json").write_text(json.dumps(tree))
    reviews = repo / ".agent" / "reviews"
    (reviews / "RV-001.json").write_text(_review("RV-001", children=[{"children": [{}]}]))
    assert _lint(capsys, str(repo)) == (0, [])
    (reviews / "RV-001.json").write_text(_review("RV-001", children=[{"children": [1]}]))
    code, found = _lint(capsys, str(repo))
    assert code == 1 and [c for c, _, _ in found] == ["AL103"]


def test_an_id_pattern_cannot_break_out_of_its_anchoring(tmp_path, capsys):
    shutil.copytree(FIXTURES / "valid", tmp_path / "repo")
    table = 'name = "r"\npath = "r/{stem}.json"\nid-pattern = "RV-[0-9]{3})|(x"\n'
    (tmp_path / "repo" / ".agent-lint.toml").write_text(f"[[kinds]]\n{table}")
    assert main([str(tmp_path / "repo")]) == 2
    assert "`kinds[0].id-pattern` is not a regular expression" in capsys.readouterr().err
