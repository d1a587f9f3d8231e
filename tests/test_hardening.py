"""Hostile inputs that once hung a run, exhausted memory or buried one fact in many findings."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import jsonschema
import pytest
from conftest import write_tree
from records import decision

from agent_lint.cli import main


@contextmanager
def alarm(seconds: int) -> Iterator[None]:
    """Turn a hang into a failure (a generous guard, not a timing assertion)."""

    def _fail(signum: int, frame: object) -> None:
        raise AssertionError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, _fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- the baseline file is read like a record --------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(tmp_path / "repo" / ".agent", {"decisions/D-001.json": decision(status="bogus")})
    return tmp_path / "repo"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_baseline_linking_to_a_device_is_refused(repo, capsys):
    known = repo / "baseline.json"
    known.symlink_to("/dev/zero")
    with alarm(60):
        assert main([str(repo), "--baseline", str(known)]) == 2
    err = capsys.readouterr().err
    assert "cannot read the baseline" in err and "symbolic link out of its folder" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_baseline_fifo_is_refused_without_blocking(repo, capsys):
    known = repo / "baseline.json"
    os.mkfifo(known)
    with alarm(60):
        assert main([str(repo), "--baseline", str(known)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_a_baseline_linking_out_of_its_folder_is_not_read(repo, tmp_path, capsys):
    outside = tmp_path / "elsewhere" / "baseline.json"
    outside.parent.mkdir()
    assert main([str(repo), "--write-baseline", str(outside)]) == 0
    known = repo / "baseline.json"
    known.symlink_to(outside)
    assert main([str(repo), "--baseline", str(known)]) == 2
    assert "symbolic link out of its folder" in capsys.readouterr().err


def test_a_baseline_past_the_size_limit_is_refused(repo, capsys, monkeypatch):
    from agent_lint import baseline

    known = repo / "baseline.json"
    assert main([str(repo), "--write-baseline", str(known)]) == 0
    monkeypatch.setattr(baseline, "MAX_BASELINE_BYTES", 16)
    assert main([str(repo), "--baseline", str(known)]) == 2
    assert "cannot read the baseline" in capsys.readouterr().err


# -- patterns are evaluated in linear time ------------------------------------------------

_NESTED = "^(a+)+$"


def _user_schema(root: Path, text: str) -> None:
    folder = root / "schemas"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "decision.schema.json").write_text(text, encoding="utf-8")


def test_a_nested_quantifier_in_a_user_pattern_cannot_hang_the_run(lint_tree, tmp_path):
    _user_schema(
        tmp_path / "repo",
        json.dumps(
            {"$ref": "urn:agent-lint:decision", "properties": {"prompt": {"pattern": _NESTED}}}
        ),
    )
    with alarm(60):
        result = lint_tree(
            {"decisions/D-001.json": decision(prompt="a" * 5_000 + "!")},
            config='schema-dirs = ["schemas"]\n',
        )
    assert [d.code for d in result.diagnostics] == ["AL105"]


def test_a_nested_quantifier_in_pattern_properties_cannot_hang_the_run(lint_tree, tmp_path):
    _user_schema(
        tmp_path / "repo",
        json.dumps(
            {
                "type": "object",
                "patternProperties": {_NESTED: {"type": "integer"}},
                "additionalProperties": {"type": "string"},
            }
        ),
    )
    record = {"decision_id": "D-001", "a" * 5_000 + "!": 1, "aaaa": "x"}
    with alarm(60):
        result = lint_tree({"decisions/D-001.json": record}, config='schema-dirs = ["schemas"]\n')
    # The long key is additional (a string is required), "aaaa" matches (an integer is).
    assert sorted(d.code for d in result.diagnostics) == ["AL103", "AL103"]


@pytest.mark.parametrize("draft", ["2020-12", "2019-09"])
def test_unevaluated_properties_beside_a_nested_quantifier_cannot_hang_the_run(
    lint_tree, tmp_path, draft
):
    # jsonschema decides which keys patternProperties took with Python's re; the
    # detailed pass runs for every invalid record, so this key would take hours.
    _user_schema(
        tmp_path / "repo",
        json.dumps(
            {
                "$schema": f"https://json-schema.org/draft/{draft}/schema",
                "type": "object",
                "patternProperties": {_NESTED: {"type": "integer"}},
                "unevaluatedProperties": {"type": "string"},
            }
        ),
    )
    record = {"decision_id": "D-001", "a" * 5_000 + "!": [], "aaaa": "x"}
    with alarm(60):
        result = lint_tree({"decisions/D-001.json": record}, config='schema-dirs = ["schemas"]\n')
    # The long key is unevaluated (a string is required), "aaaa" matches (an integer is).
    assert sorted(d.code for d in result.diagnostics) == ["AL103", "AL108"]


def test_unevaluated_items_beside_a_nested_quantifier_cannot_hang_the_run(lint_tree, tmp_path):
    _user_schema(
        tmp_path / "repo",
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "options": {"contains": {"pattern": _NESTED}, "unevaluatedItems": False}
                },
            }
        ),
    )
    record = decision(options=["a" * 5_000 + "!", "aaaa"])
    with alarm(60):
        result = lint_tree({"decisions/D-001.json": record}, config='schema-dirs = ["schemas"]\n')
    # "aaaa" is what contains evaluated; the long option is unevaluated.
    assert [d.code for d in result.diagnostics] == ["AL108"]
    assert "Unevaluated items" in result.diagnostics[0].message


@pytest.mark.parametrize("draft", ["2020-12", "2019-09"])
def test_unevaluated_properties_match_patterns_as_ecma_262_does(draft):
    # Python's "$" matches before a final newline and its "\d" takes any digit;
    # ECMA-262's (and the rest of agent-lint's) do neither.
    from agent_lint.schemas import _faithful

    schema = {
        "$schema": f"https://json-schema.org/draft/{draft}/schema",
        "patternProperties": {"^x$": True, "^\\d$": True},
        "unevaluatedProperties": False,
    }
    cls = _faithful(jsonschema.validators.validator_for(schema))
    errors = [e.message for e in cls(schema).iter_errors({"x": 1, "x\n": 2, "٣": 3, "7": 4})]
    assert errors == ["Unevaluated properties are not allowed ('x\\n', '٣' were unexpected)"]


_EVALUATING = [
    {"properties": {"a": True}, "patternProperties": {"^b": {"type": "string"}}},
    {
        "allOf": [{"properties": {"a": True}}],
        "anyOf": [{"required": ["z"]}, {"properties": {"b": True}}],
    },
    {"oneOf": [{"patternProperties": {"c$": True}}, {"required": ["nope"]}]},
    {
        "if": {"required": ["a"]},
        "then": {"properties": {"b": True}},
        "else": {"properties": {"c": True}},
    },
    {
        "dependentSchemas": {"a": {"properties": {"bc": True}}},
        "additionalProperties": {"type": "integer"},
    },
    {"$ref": "#/$defs/part", "$defs": {"part": {"patternProperties": {"^a": True}}}},
    {"properties": {"a": {"type": "integer"}}, "unevaluatedProperties": {"type": "integer"}},
]


@pytest.mark.parametrize("draft", ["2020-12", "2019-09"])
@pytest.mark.parametrize("evaluating", _EVALUATING)
@pytest.mark.parametrize("allowed", [False, {"type": "integer"}])
def test_unevaluated_properties_agree_with_jsonschema_on_plain_patterns(draft, evaluating, allowed):
    from agent_lint.schemas import _faithful

    schema = {
        "$schema": f"https://json-schema.org/draft/{draft}/schema",
        **evaluating,
        "unevaluatedProperties": allowed,
    }
    reference = jsonschema.validators.validator_for(schema)
    ours = _faithful(reference)
    for instance in ({"a": 1, "b": "x", "bc": 2, "c": "y", "d": 3}, {"b": 1, "z": "q"}, {}):
        expected = sorted(e.message for e in reference(schema).iter_errors(instance))
        assert sorted(e.message for e in ours(schema).iter_errors(instance)) == expected


@pytest.mark.parametrize("pattern", ["^(?=D-)", "(a)\\1", "a[ab]{50000}c"])
def test_a_pattern_needing_backtracking_is_a_configuration_error(lint_tree, tmp_path, pattern):
    from agent_lint.schemas import SchemaConfigError

    _user_schema(
        tmp_path / "repo",
        json.dumps({"type": "object", "properties": {"options": {"items": {"pattern": pattern}}}}),
    )
    with pytest.raises(SchemaConfigError) as exc:
        lint_tree({"decisions/D-001.json": decision()}, config='schema-dirs = ["schemas"]\n')
    message = str(exc.value)
    assert "decision.schema.json" in message and "/properties/options/items/pattern" in message


def test_a_pattern_s_cost_per_character_is_bounded_by_its_size_limit():
    """Matching is linear in the text with a factor of the pattern's compiled size, so the
    size is capped: a sha256 pattern passes, a[ab]{5000}c (23 s on a 1 MB value) does not."""
    from agent_lint.schemas import UnsupportedPattern, check_pattern

    check_pattern("^sha256:[0-9a-f]{64}$")
    with pytest.raises(UnsupportedPattern):
        check_pattern("a[ab]{5000}c")


def test_every_bundled_pattern_runs_on_the_linear_engine():
    from agent_lint.schemas import bundled_schema_dir, check_patterns

    paths = sorted(bundled_schema_dir().glob("*/*.schema.json"))
    assert {path.parent.name for path in paths} == {"cortex", "astrion", "personal_bot"}
    for path in paths:
        check_patterns(path, json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("pattern", "value"),
    [
        ("^sha256:[0-9a-f]{64}$", "sha256:" + "a" * 64 + "\n"),
        ("^sha256:[0-9a-f]{64}$", "sha256:" + "a" * 64),
        ("^\\d+$", "٣"),
        ("^\\s$", "\u00a0"),
        (_NESTED, "a" * 5_000 + "!"),
    ],
)
def test_fast_and_detailed_engines_agree_on_patterns(pattern, value):
    from agent_lint.schemas import _fast_validator, pattern_search

    fast = _fast_validator({"properties": {"x": {"pattern": pattern}}})
    assert fast is not None
    with alarm(60):
        assert fast.is_valid({"x": value}) == pattern_search(pattern, value)


# -- one fact about an array is one finding -----------------------------------------------


def test_thousands_of_distinct_items_of_the_wrong_type_are_one_finding(lint_tree):
    options = [{"id": i} for i in range(4_000)]
    with alarm(120):
        result = lint_tree({"decisions/D-001.json": decision(options=options)})
    [finding] = result.diagnostics
    assert finding.code == "AL103"
    assert finding.message.startswith('"options[0]" must be string')
    assert finding.message.endswith("(and 3999 more entries)")


def test_repeated_items_are_one_finding_with_the_first_repeat_and_a_count(lint_tree):
    options = ["approve", "reject", "approve", "defer", "approve", "defer"]
    [finding] = lint_tree({"decisions/D-001.json": decision(options=options)}).diagnostics
    assert finding.code == "AL107"
    assert finding.message == (
        '"options" must not repeat items; "approve" appears 3 times (3 repeated items in all)'
    )


def test_unique_items_compares_json_values_in_linear_time():
    from agent_lint.schemas import SchemaStore, repeats

    assert repeats([{"a": 1, "b": [1]}, {"b": [1.0], "a": 1}]) is not None
    assert repeats([True, 1, False, 0, "1"]) is None
    validator = SchemaStore(fast=False, folder="cortex").validator("decision")
    assert validator is not None
    items = [{"id": i} for i in range(20_000)] + [{"id": 7}]
    with alarm(60):
        found = [i for i in validator.issues({"options": items}) if i.keyword == "uniqueItems"]
    assert len(found) == 1


# -- did-you-mean prefers the referring record's own folder -------------------------------


def test_did_you_mean_prefers_the_conversations_own_file(tmp_path):
    import shutil

    from conftest import FIXTURES

    from agent_lint.linter import lint_paths

    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", root)
    handoff = root / ".agent/conversations/C-payments-refactor/handoffs/H-003.json"
    own = ".agent/conversations/C-payments-refactor/summary.md"
    text = handoff.read_text(encoding="utf-8")
    assert f'"{own}"' in text
    handoff.write_text(
        text.replace(f'"{own}"', f'"{own.replace("summary.md", "notes/summary.md")}"'),
        encoding="utf-8",
    )
    assert (root / ".agent/conversations/C-onboarding/summary.md").is_file()
    [finding] = [d for d in lint_paths([root]).diagnostics if d.code == "AL302"]
    assert finding.message.endswith(f'did you mean "{own}"?')


# -- a file of another shape at a kind's path is one finding ------------------------------


def test_a_file_of_another_shape_is_one_finding(lint_tree):
    foreign = {
        "schema_version": 1,
        "milestone_id": "MS-003",
        "state": "done",
        "started_at": "2026-08-06T22:00:00Z",
        "completed_at": "2026-08-06T23:00:00Z",
        "owner": "ci",
    }
    [finding] = lint_tree({"decisions/D-001.json": foreign}).diagnostics
    assert finding.code == "AL109"
    assert finding.message.startswith("does not look like a decision: ")
    assert "and 5 of the file's 6 fields are unknown to it (milestone_id, state, " in (
        finding.message
    )
    assert "expected a decision with schema_version, decision_id, " in finding.message


def test_a_record_with_a_few_mistakes_keeps_its_field_findings(lint_tree):
    record = decision(decison="typo")
    for name in ("prompt", "options"):
        record.pop(name)
    found = sorted(d.code for d in lint_tree({"decisions/D-001.json": record}).diagnostics)
    assert found == ["AL101", "AL101", "AL102"]


# -- YAML is read by libyaml within limits, and a run has a YAML budget ---------------------

_DOCUMENTS = [
    "turn: 1\ntimestamp: 2026-11-01T09:00:00Z\nrole: user\n",
    "a: yes\nb: no\nc: on\nd: 0o17\ne: 017\nf: 0x1F\ng: 1_000\nh: .inf\ni: -.Inf\nj: .nan\n",
    "%YAML 1.1\n---\na: yes\nb: off\nc: 017\nd: 1_000\ne: 1:30\n",
    "base: &b {x: 1, y: [1, 2]}\nderived:\n  <<: *b\n  y: 3\nlist: [*b, *b]\n",
    "k: ~\nl: null\nm: ''\nn: 'it''s'\no: \"tab\\tand \\u00e9\"\n",
    "p: |\n  one\n  two\nq: >-\n  folded\n  text\n",
    "- 1\n- 1.5\n- -2e3\n- 12345678901234567890123\n- true\n- False\n- 2026-11-01\n",
    "? [a, b]\n: 1\n",
    "a: 1\na: 2\n",
    "a: &x [*x]\n",
    "!!python/object/apply:os.system ['true']\n",
    "a: !!python/name:os.system\n",
    "!!binary aGVsbG8=\n",
    "a: [1, 2\n",
    "\ufeffa: b\u2028c\n",
]


def _outcome(read, text):
    from agent_lint.yamlsafe import DuplicateKey, LimitExceeded, YamlProblem

    try:
        return ("data", read(text))
    except DuplicateKey:
        return ("duplicate", None)
    except LimitExceeded:
        return ("limit", None)
    except YamlProblem:
        return ("problem", None)


@pytest.mark.parametrize("text", _DOCUMENTS)
def test_the_c_reader_and_the_pure_reader_agree(text):
    import math

    from agent_lint.config import Limits
    from agent_lint.yamlpure import pure_read
    from agent_lint.yamlsafe import has_c_reader, read_yaml

    if not has_c_reader():
        pytest.skip("libyaml is not installed")
    limits = Limits()
    fast, pure = (
        _outcome(lambda t: read_yaml(t, limits), text),
        _outcome(lambda t: pure_read(t, limits), text),
    )
    nan = {"j": True} if fast[0] == "data" and isinstance(fast[1], dict) and "j" in fast[1] else {}
    if nan:  # NaN is not equal to itself
        assert math.isnan(fast[1].pop("j")) and math.isnan(pure[1].pop("j"))
    assert fast == pure


@pytest.mark.parametrize("text", _DOCUMENTS)
def test_without_libyaml_the_pure_reader_reads_and_places_as_libyaml_does(text, monkeypatch):
    """The fallback loads ruamel.yaml on first use and agrees with the C reader."""
    import math

    from agent_lint import yamlsafe
    from agent_lint.config import Limits
    from agent_lint.positions import locate_yaml

    if not yamlsafe.has_c_reader():
        pytest.skip("libyaml is not installed")
    limits = Limits()
    fast = _outcome(lambda t: yamlsafe.read_yaml(t, limits), text)
    places = locate_yaml(text, 2, limits)
    monkeypatch.setattr(yamlsafe, "_CParser", None)
    pure = _outcome(lambda t: yamlsafe.read_yaml(t, limits), text)
    pure_places = locate_yaml(text, 2, limits)
    if fast[0] == "data" and isinstance(fast[1], dict) and "j" in fast[1]:  # NaN != NaN
        assert math.isnan(fast[1].pop("j")) and math.isnan(pure[1].pop("j"))
    assert fast == pure
    if fast[0] == "data" and "\u2028" not in text:  # libyaml breaks lines at U+2028
        assert (pure_places.values, pure_places.keys) == (places.values, places.keys)


def test_a_yaml_turn_near_the_size_limit_is_read_quickly(lint_tree):
    from agent_lint.yamlsafe import has_c_reader

    if not has_c_reader():
        pytest.skip("libyaml is not installed")
    line = "  - {step: 12, tool: shell, output: 'a line of a long pasted log'}\n"
    big = "turn: 1\ntimestamp: 2026-11-01T09:00:00Z\nrole: tool\nsteps:\n"
    big += line * ((1_000_000 - len(big)) // len(line))
    assert 900_000 < len(big) < 1024 * 1024
    with alarm(30):  # the pure-Python reader took about a minute
        result = lint_tree({"conversations/C-1/turns/0001.yaml": big}, ignore=["AL206"])
    assert result.files_checked == 1 and result.diagnostics == []


def test_the_yaml_budget_of_a_run_is_a_finding_naming_the_setting(lint_tree):
    turn = "turn: {n}\ntimestamp: 2026-11-01T09:00:00Z\ncontent: |\n" + "  pasted log\n" * 100
    files = {f"conversations/C-1/turns/{n:04d}.yaml": turn.format(n=n) for n in (1, 2, 3)}
    config = "[limits]\nmax-yaml-total-bytes = 3000\n"
    found = lint_tree(files, config=config, ignore=["AL206"]).diagnostics
    assert [(d.code, d.path.rsplit("/", 1)[1]) for d in found] == [("AL011", "0003.yaml")]
    assert "`max-yaml-total-bytes`" in found[0].message
    assert lint_tree(files, ignore=["AL206"]).diagnostics == []


# -- a folder that cannot be listed is AL010 and nothing else about its contents ----------


def _deny_listing(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Deny a folder whose path ends in ``name`` as ``chmod 000`` would.

    It cannot be listed, and nothing inside it can be looked at.
    """
    import errno

    for function in ("scandir", "stat", "lstat"):
        original = getattr(os, function)

        def denied(
            path: object, *args: object, _original=original, _lists=function == "scandir", **kw
        ) -> object:
            text = str(os.fspath(path)) if isinstance(path, str | os.PathLike) else ""
            inside = f"{name}/" in text
            if inside or (_lists and text.endswith(name)):
                raise PermissionError(errno.EACCES, "Permission denied", text)
            return _original(path, *args, **kw)

        monkeypatch.setattr(os, function, denied)


def test_an_unlisted_handoffs_folder_is_one_finding_and_no_fix(tmp_path, monkeypatch):
    import shutil

    from conftest import FIXTURES

    from agent_lint.linter import lint_paths

    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", root)
    _deny_listing(monkeypatch, "C-payments-refactor/handoffs")
    result = lint_paths([root], unsafe_fixes=True)
    assert [(d.code, d.path) for d in result.diagnostics] == [
        ("AL010", ".agent/conversations/C-payments-refactor/handoffs")
    ]
    assert not any(d.fixable for d in result.diagnostics)


def test_a_store_that_cannot_be_listed_is_reported_not_called_foreign(tmp_path, monkeypatch):
    """Nothing of the store is seen, so nothing says it is another design: AL010 is shown."""
    import shutil

    from conftest import FIXTURES

    from agent_lint.linter import lint_paths

    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", root)
    _deny_listing(monkeypatch, ".agent")
    result = lint_paths([root])
    assert [(d.code, d.path) for d in result.diagnostics] == [("AL010", ".agent")]
    assert "folder cannot be read (Permission denied)" in result.diagnostics[0].message
    assert not any("no Cortex agent state" in notice for notice in result.notices)


@pytest.mark.parametrize("folder", [".agent/missions/M-001", ".agent/artifacts/T-002"])
def test_references_into_an_unlisted_folder_are_unknown_not_missing(tmp_path, monkeypatch, folder):
    import shutil

    from conftest import FIXTURES

    from agent_lint.linter import lint_paths

    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", root)
    _deny_listing(monkeypatch, folder)
    result = lint_paths([root])
    assert [(d.code, d.path) for d in result.diagnostics] == [("AL010", folder)]


def test_records_elsewhere_are_still_found_missing(lint_tree, monkeypatch):
    from records import conversation

    _deny_listing(monkeypatch, ".agent/waitpoints")
    files = {
        "conversations/C-1/meta.json": conversation(decisions_refs=["D-404"]),
        "decisions/D-001.json": decision(),
        "waitpoints/WP-001.json": {},
    }
    found = [d.code for d in lint_tree(files).diagnostics]
    assert sorted(found) == ["AL010", "AL301"]


def test_a_lone_surrogate_is_matched_not_a_crash():
    from agent_lint.schemas import pattern_search

    assert pattern_search("^D-", "D-\ud800") and not pattern_search("^D-[a-z]+$", "D-\ud800")
