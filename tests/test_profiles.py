"""Profiles: detection, selection, listing, and the engine's independence from any layout."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from conftest import FIXTURES, REPO

from agent_lint import profiles, rules
from agent_lint.cli import main
from agent_lint.discovery import find_target
from agent_lint.linter import lint_paths

ASTRION = REPO / "fixtures" / "astrion"
PERSONAL_BOT = REPO / "fixtures" / "personal_bot"


def _json(capsys: pytest.CaptureFixture[str]) -> dict:
    return json.loads(capsys.readouterr().out)


def test_list_profiles_names_each_profile_its_markers_and_hooks(capsys):
    assert main(["--list-profiles"]) == 0
    out = capsys.readouterr().out
    names = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert names == ["cortex", "astrion", "personal_bot"]
    assert "found at: .astrion/ with state.json and conversations/" in out
    assert "agent-lint-personal-bot (files: ^(\\.pi/pbot/|\\.pi/agent/pbot/|pbot/))" in out


@pytest.mark.parametrize(
    ("fixture", "name", "store"),
    [
        (FIXTURES / "valid", "cortex", ".agent"),
        (ASTRION / "valid", "astrion", ".astrion"),
        (PERSONAL_BOT / "valid", "personal_bot", ""),
    ],
)
def test_each_profile_is_detected_by_its_markers_and_its_valid_fixture_is_clean(
    fixture, name, store, capsys
):
    target = find_target(fixture)
    assert target.profile is not None and target.profile.name == name
    assert target.agent_dir == (fixture / store).resolve()
    assert main([str(fixture), "--output-format", "json"]) == 0
    document = _json(capsys)
    assert document["diagnostics"] == [] and "notices" not in document
    assert document["files_checked"] > 5


def test_a_path_inside_a_store_finds_the_store_and_its_profile():
    conversation = ASTRION / "valid" / ".astrion" / "conversations" / "conv_20260711_210000_001"
    target = find_target(conversation / "agents" / "1")
    assert target.profile is not None and target.profile.name == "astrion"
    assert target.root == (ASTRION / "valid").resolve()


def test_astrion_records_are_checked_by_the_shared_rules(tmp_path, capsys):
    shutil.copytree(ASTRION / "valid", tmp_path / "repo")
    role = tmp_path / "repo" / ".astrion" / "agents" / "researcher.md"
    role.write_text(role.read_text().replace("id: researcher", "id: research", 1))
    agent = tmp_path / "repo/.astrion/conversations/conv_20260711_210000_001/agents/3"
    data = json.loads((agent / "metadata.json").read_text())
    data["agent_id"], data["role_id"] = 4, "no-such-role"
    (agent / "metadata.json").write_text(json.dumps(data))
    assert main([str(tmp_path / "repo"), "--output-format", "json"]) == 1
    found = {(d["code"], d["path"].split("/")[-1]) for d in _json(capsys)["diagnostics"]}
    assert found == {
        ("AL202", "researcher.md"),
        ("AL202", "metadata.json"),
        ("AL301", "metadata.json"),
    }


def test_astrion_index_keyed_by_id_lists_every_conversation(tmp_path, capsys):
    shutil.copytree(ASTRION / "valid", tmp_path / "repo")
    index = tmp_path / "repo" / ".astrion" / "conversations" / "index.json"
    entries = json.loads(index.read_text())
    del entries["conv_20260713_140500_003"]
    entries["conv_20260712_093000_002"]["agent_count"] = 9
    index.write_text(json.dumps(entries, ensure_ascii=False, indent=2))
    assert main([str(tmp_path / "repo"), "--output-format", "json"]) == 1
    found = sorted((d["code"], d["message"]) for d in _json(capsys)["diagnostics"])
    assert [code for code, _ in found] == ["AL305", "AL306"]
    assert "agent_count 9 disagrees with" in found[0][1]
    assert "conv_20260713_140500_003/metadata.json" in found[1][1]


def test_markers_of_two_profiles_are_a_usage_error_naming_both(tmp_path, capsys):
    shutil.copytree(FIXTURES / "valid", tmp_path, dirs_exist_ok=True)
    shutil.copytree(PERSONAL_BOT / "valid" / ".pi", tmp_path / ".pi")
    (tmp_path / ".git").mkdir()
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "the markers of several profiles match: cortex (.agent/), personal_bot (./)" in err
    assert "--profile NAME" in err
    assert main([str(tmp_path), "--profile", "personal_bot", "-q"]) == 0
    (tmp_path / ".agent-lint.toml").write_text('profile = "cortex"\n')
    assert main([str(tmp_path), "--output-format", "json"]) == 0
    assert _json(capsys)["files_checked"] == 67


def test_a_profile_that_does_not_fit_says_so_in_one_line(capsys):
    assert main([str(FIXTURES / "valid"), "--profile", "astrion"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "profile 'astrion' does not fit: no Astrion store found" in err


@pytest.mark.parametrize("where", ["--profile", "config"])
def test_an_unknown_profile_is_a_usage_error_with_a_suggestion(tmp_path, capsys, where):
    shutil.copytree(FIXTURES / "valid", tmp_path / "repo")
    args = [str(tmp_path / "repo")]
    if where == "config":
        (tmp_path / "repo" / ".agent-lint.toml").write_text('profile = "astrian"\n')
    else:
        args += ["--profile", "astrian"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "'astrian' is not a profile" in err and "did you mean 'astrion'?" in err


def test_a_user_schema_extends_a_bundled_one_by_both_of_its_ids(tmp_path):
    from agent_lint.schemas import SchemaStore

    user = tmp_path / "schemas"
    user.mkdir()
    for name, ref in (("a", "urn:agent-lint:decision"), ("b", "urn:agent-lint:cortex:decision")):
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": ref}
        (user / f"{name}.schema.json").write_text(json.dumps(schema))
    store = SchemaStore([user], folder="cortex")
    for name in ("a", "b"):
        validator = store.validator(name)
        assert validator is not None
        issues = list(validator.issues({"decision_id": "D-1"}))
        assert {issue.keyword for issue in issues} == {"required"}


TOY = '''
"""A toy profile: one kind of record in a .toy/ store."""

from agent_lint.diagnostics import Rule
from agent_lint.kinds import Format, Kind, NameRule, whole
from agent_lint.profile import Hook, Marker, Profile
from agent_lint.validators import SHARED_FILE_CHECKS, SHARED_REPO_CHECKS, Check

EMPTY = Rule(
    "AL990",
    "toy-empty-text",
    "A toy note has no text",
    "Reports a toy note whose text is empty: a rule the toy profile defines of its own, "
    "listed, selectable and explained like every other rule.",
    '{"id": "a", "text": ""}',
    '{"id": "a", "text": "hello"}',
)


def check_text(ctx):
    """A toy note's text is not empty."""
    if ctx.data.get("text") == "":
        yield EMPTY.at(ctx.path, "the note has no text", pointer="/text")

PROFILE = Profile(
    name="toy",
    title="Toy",
    description="a toy layout",
    markers=(Marker(".toy", all_of=("notes/",)),),
    kinds=(
        Kind(
            "toy-note",
            "toy note",
            whole(r"notes/(?P<stem>[^/]+)\\.json"),
            Format.JSON,
            schema="note",
            id_field="id",
            name_rule=NameRule.STEM,
            namespace="toy-note",
        ),
    ),
    namespaces={},
    record_folders=frozenset({"notes"}),
    schema_folder="toy",
    file_checks=(*SHARED_FILE_CHECKS, Check(check_text, frozenset({"AL990"}))),
    repo_checks=SHARED_REPO_CHECKS,
    hooks=(Hook("agent-lint-toy", r"^\\.toy/"),),
    rules=(EMPTY,),
)
'''


def test_a_fourth_profile_needs_its_folder_its_schemas_and_one_registration_line(
    tmp_path, monkeypatch, capsys
):
    # Its own folder: a package beside the built-in ones (here in a temporary place).
    package = tmp_path / "site" / "agent_lint_toy"
    (package / "toy").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "toy" / "__init__.py").write_text("")
    (package / "toy" / "profile.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(profiles, "__path__", [*profiles.__path__, str(package)])
    # Its schemas: schemas/toy/ in the bundled schema folder.
    schemas = tmp_path / "bundled"
    shutil.copytree(REPO / "schemas", schemas)
    (schemas / "toy").mkdir()
    note = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:agent-lint:toy:note",
        "type": "object",
        "required": ["id", "text"],
    }
    (schemas / "toy" / "note.schema.json").write_text(json.dumps(note))
    monkeypatch.setattr("agent_lint.schemas.bundled_schema_dir", lambda: schemas)
    # One registration line.
    monkeypatch.setattr(profiles, "BUILTIN", (*profiles.BUILTIN, "toy"))
    profiles.builtin.cache_clear()
    rules.clear()
    try:
        repo = tmp_path / "repo"
        (repo / ".toy" / "notes").mkdir(parents=True)
        (repo / ".git").mkdir()
        (repo / ".toy" / "notes" / "a.json").write_text('{"id": "b", "text": "hello"}')
        (repo / ".toy" / "notes" / "c.json").write_text('{"id": "c"}')
        (repo / ".toy" / "notes" / "d.json").write_text('{"id": "d", "text": ""}')
        assert main([str(repo), "--output-format", "json"]) == 1
        found = sorted((d["code"], d["path"]) for d in _json(capsys)["diagnostics"])
        assert found == [
            ("AL101", ".toy/notes/c.json"),
            ("AL202", ".toy/notes/a.json"),
            ("AL990", ".toy/notes/d.json"),
        ]
        assert main([str(repo), "--select", "toy-empty-text", "-q"]) == 1
        assert capsys.readouterr().out == ".toy/notes/d.json:1:21: AL990 the note has no text\n"
        assert main(["--list-profiles"]) == 0
        assert "toy  Toy: a toy layout" in capsys.readouterr().out
        assert main(["--explain", "AL990"]) == 0
        assert capsys.readouterr().out.startswith("AL990 (toy-empty-text), error")
    finally:
        profiles.builtin.cache_clear()
        rules.clear()
        sys.modules.pop("agent_lint.profiles.toy.profile", None)
        sys.modules.pop("agent_lint.profiles.toy", None)


def test_lint_paths_takes_the_profile_by_name():
    result = lint_paths([ASTRION / "valid"], profile="astrion")
    assert result.diagnostics == [] and result.files_checked == 22
    assert result.indexes[0].profile is not None
    assert result.indexes[0].profile.name == "astrion"


def test_the_job_summary_shows_each_profile_its_own_sections():
    from agent_lint.reporters import summary

    cortex = summary.render(lint_paths([FIXTURES / "valid"]))
    assert "### Handoff chain of `C-payments-refactor`" in cortex
    astrion = summary.render(lint_paths([ASTRION / "valid"]))
    assert astrion.startswith("## agent-lint\n\nAll checks passed (22 files checked).")
    assert "Handoff chain" not in astrion and "mermaid" not in astrion


def test_a_change_cannot_move_the_gate_onto_another_profile_by_naming_it(tmp_path, capsys):
    from gitrepo import CONV, edit, git, make_repo

    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "-b", "change")
    shutil.copytree(PERSONAL_BOT / "valid" / ".pi", repo / ".pi")
    (repo / ".agent-lint.toml").write_text('profile = "personal_bot"\n')
    edit(repo / CONV / "handoffs/H-002.json", '"task_complete"', '"timeout"')
    code = main([str(repo), "--base", "main", "--select", "AL6", "--output-format", "json"])
    document = _json(capsys)
    assert code == 1
    assert [(d["code"], d["path"]) for d in document["diagnostics"]] == [
        ("AL601", f"{CONV}/handoffs/H-002.json")
    ]


def test_each_outline_is_what_its_profile_declares():
    """Detection reads outlines; each says what the whole profile says of its store."""
    for name in profiles.BUILTIN:
        outline, whole = profiles.outline(name), profiles.get(name)
        assert outline is not whole
        assert (outline.name, outline.title, outline.markers, outline.record_folders) == (
            whole.name,
            whole.title,
            whole.markers,
            whole.record_folders,
        )
        assert outline.where() == whole.where()
    assert [p.name for p in profiles.outlines()] == [p.name for p in profiles.builtin()]
    with pytest.raises(KeyError):
        profiles.outline("nothing")
