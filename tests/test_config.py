"""Configuration files and their validation."""

from __future__ import annotations

import json
import re

import pytest
from conftest import codes
from records import decision

from agent_lint.config import ConfigError


def test_ignore_and_per_file_ignores(lint_tree):
    files = {
        "decisions/D-001.json": decision(prompt=""),
        "decisions/D-002.json": decision(decision_id="D-002", options=["a"]),
    }
    assert codes(lint_tree(files)) == ["AL107", "AL107"]
    assert codes(lint_tree(files, config='ignore = ["AL107"]\n')) == []
    config = '[per-file-ignores]\n".agent/decisions/D-001.json" = ["AL1"]\n'
    result = lint_tree(files, config=config)
    assert [d.path for d in result.diagnostics] == [".agent/decisions/D-002.json"]


def test_severity_override(lint_tree):
    files = {"decisions/D-001.json": decision(prompt="")}
    result = lint_tree(files, config='[severity]\nAL107 = "warning"\n')
    assert result.diagnostics[0].severity.value == "warning"
    assert result.errors == 0


def test_pyproject_table(lint_tree, tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.agent-lint]\nselect = ["AL2"]\n')
    assert codes(lint_tree({"decisions/D-001.json": decision(prompt="")})) == []


def test_dedicated_file_wins_over_pyproject(lint_tree, tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.agent-lint]\nselect = ["AL2"]\n')
    result = lint_tree({"decisions/D-001.json": decision(prompt="")}, config='select = ["AL"]\n')
    assert codes(result) == ["AL107"]


def test_agent_dir_setting(tmp_path):
    import json

    from agent_lint.linter import lint_paths

    (tmp_path / "state" / "decisions").mkdir(parents=True)
    (tmp_path / "state" / "decisions" / "D-001.json").write_text(json.dumps(decision(prompt="")))
    (tmp_path / ".agent-lint.toml").write_text('agent-dir = "state"\n')
    result = lint_paths([tmp_path])
    assert [d.path for d in result.diagnostics] == ["state/decisions/D-001.json"]


def _fanned_out(levels: int) -> str:
    """A schema whose every level refers twice to the next: 2^levels checks of a bad value."""
    defs = {
        f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "object"}
    return json.dumps({"$defs": defs, "$ref": "#/$defs/d0"})


def _with_user_schema(tmp_path, lint_tree, schema: str):
    schema_dir = tmp_path / "repo" / "schemas"
    schema_dir.mkdir(parents=True)
    (schema_dir / "decision.schema.json").write_text(schema)
    return lint_tree({"decisions/D-001.json": decision()}, config='schema-dirs = ["schemas"]\n')


def test_a_user_schema_that_fans_out_exponentially_is_refused(lint_tree, tmp_path):
    from agent_lint.schemas import SchemaConfigError

    with pytest.raises(SchemaConfigError) as exc:
        _with_user_schema(tmp_path, lint_tree, _fanned_out(40))
    assert "expand to more than 50,000 subschemas" in str(exc.value)


RECURSIVE = {"type": "object", "properties": {"rationale": {"$ref": "#"}, "x": {"$ref": "#"}}}


@pytest.mark.parametrize(
    "schema", [_fanned_out(8), json.dumps(RECURSIVE)], ids=["shared", "recursive"]
)
def test_shared_definitions_and_a_recursive_user_schema_are_fine(lint_tree, tmp_path, schema):
    # A few shared levels, and a recursion that the record's depth ends, are bounded.
    assert _with_user_schema(tmp_path, lint_tree, schema).diagnostics == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour = true\n", "unknown key `colour`"),
        ('select = "AL1"\n', "`select` must be a list"),
        ('ignore = ["E501"]\n', "'E501' is not a rule code"),
        ('file-name-rule = "loose"\n', "`file-name-rule` must be"),
        ('[severity]\nAL101 = "fatal"\n', "`severity.AL101` must be"),
        ('agent-dir = "../elsewhere"\n', "`agent-dir` must be a relative path"),
        ('schema-dirs = ["/etc"]\n', "outside the repository"),
        ('schema-dirs = ["missing"]\n', "is not a folder"),
        ('agent-dir = ".git"\n', "`agent-dir` '.git' is inside a .git folder"),
        ('agent-dir = "state/.GIT/x"\n', "is inside a .git folder"),
        ('schema-dirs = [".git"]\n', "`schema-dirs` entry '.git' is inside a .git folder"),
        (
            '[[kinds]]\nname = "x"\npath = "x/{stem}.json"\nschema = ".git/config"\n',
            "schema` '.git/config' is inside a .git folder",
        ),
        ("select = [\n", "cannot read configuration"),
        pytest.param("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply", id="deep"),
        pytest.param('select = ["AL1"' + ', "AL1"' * 200_000 + "]\n", "larger than", id="huge"),
    ],
)
def test_bad_configuration_names_key_and_file(lint_tree, text, message):
    with pytest.raises(ConfigError) as exc:
        lint_tree({"decisions/D-001.json": decision()}, config=text)
    assert message in str(exc.value)
    assert ".agent-lint.toml" in str(exc.value)


def test_user_schema_overrides_bundled(lint_tree, tmp_path):
    schema_dir = tmp_path / "repo" / "schemas"
    schema_dir.mkdir(parents=True)
    (schema_dir / "decision.schema.json").write_text(
        '{"type": "object", "required": ["decision_id", "owner_team"]}'
    )
    result = lint_tree({"decisions/D-001.json": decision()}, config='schema-dirs = ["schemas"]\n')
    [d] = result.diagnostics
    assert d.message == 'missing required field "owner_team"'


def test_user_schema_extends_bundled_by_ref(lint_tree, tmp_path):
    for repo in ("repo", "repo2"):
        schema_dir = tmp_path / repo / "schemas"
        schema_dir.mkdir(parents=True)
        (schema_dir / "decision.schema.json").write_text(
            '{"$schema": "https://json-schema.org/draft/2020-12/schema",'
            ' "$ref": "urn:agent-lint:decision",'
            ' "properties": {"requested_by": {"enum": ["cortex-main"]}}}'
        )
    config = 'schema-dirs = ["schemas"]\n'
    assert lint_tree({"decisions/D-001.json": decision()}, config=config).diagnostics == []
    result = lint_tree(
        {"decisions/D-001.json": decision(requested_by="x", prompt="")}, config=config
    )
    assert sorted(codes(result)) == ["AL104", "AL107"]


def test_user_schema_remote_ref_is_never_fetched(lint_tree, tmp_path):
    from agent_lint.schemas import SchemaConfigError

    schema_dir = tmp_path / "repo" / "schemas"
    schema_dir.mkdir(parents=True)
    (schema_dir / "decision.schema.json").write_text(
        '{"$ref": "https://example.invalid/decision.json"}'
    )
    with pytest.raises(SchemaConfigError) as exc:
        lint_tree({"decisions/D-001.json": decision()}, config='schema-dirs = ["schemas"]\n')
    assert "never fetched" in str(exc.value)


def test_invalid_user_schema(lint_tree, tmp_path):
    from agent_lint.schemas import SchemaConfigError

    schema_dir = tmp_path / "repo" / "schemas"
    schema_dir.mkdir(parents=True)
    (schema_dir / "decision.schema.json").write_text('{"type": 12}')
    with pytest.raises(SchemaConfigError):
        lint_tree({"decisions/D-001.json": decision()}, config='schema-dirs = ["schemas"]\n')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('strict = "yes"\n', "`strict` must be true or false"),
        ('completeness = "some"\n', '`completeness` must be "complete" or "partial"'),
        ('[severity]\nAL315 = "loud"\n', 'must be "error", "warning" or "info"'),
    ],
)
def test_strict_and_completeness_are_validated(tmp_path, text, message):
    from agent_lint.config import ConfigError, load_config

    (tmp_path / ".agent-lint.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(tmp_path)


def test_rule_names_work_in_every_key(tmp_path):
    from agent_lint.config import load_config

    (tmp_path / ".agent-lint.toml").write_text(
        'select = ["duplicate-id"]\nignore = ["AL1"]\n'
        '[per-file-ignores]\n"x/*" = ["unknown-field"]\n[severity]\nunknown-id-in-note = "error"\n',
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert config.select == ("AL203",)
    assert config.per_file_ignores == (("x/*", ("AL102",)),)
    assert config.severity[0][0] == "AL315"


@pytest.mark.parametrize("name", [".agent-lint.toml", "pyproject.toml"])
def test_a_configuration_linked_into_the_git_folder_is_not_read(tmp_path, name):
    import os

    from agent_lint.config import find_config_file

    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text('[tool.agent-lint]\nagent-dir = ".agent"\n')
    os.symlink(".git/config", tmp_path / name)
    with pytest.raises(ConfigError, match=r"into a \.git folder"):
        find_config_file(tmp_path)
