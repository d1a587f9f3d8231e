"""The Astrion profile: each broken fixture gives its golden findings; the valid one is clean."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_lint.cli import main

ASTRION = Path(__file__).resolve().parent.parent / "fixtures" / "astrion"
BROKEN = sorted(p.name for p in ASTRION.iterdir() if p.name.startswith("broken-"))


def test_valid_store_is_clean(capsys):
    assert main([str(ASTRION / "valid"), "--profile", "astrion", "--no-color"]) == 0
    assert capsys.readouterr().out.startswith("All checks passed")


@pytest.mark.parametrize("name", BROKEN)
def test_broken_store_matches_golden(name, capsys, update_goldens, monkeypatch):
    fixture = ASTRION / name
    monkeypatch.chdir(fixture)  # paths as shown from the fixture's own root
    golden = fixture / "expected.txt"
    code = main([str(fixture), "--profile", "astrion", "--no-color"])
    out = capsys.readouterr().out
    if update_goldens:
        golden.write_text(out, encoding="utf-8")
    assert code == 1
    assert out == golden.read_text(encoding="utf-8")


def test_every_astrion_rule_has_a_golden_finding():
    from agent_lint.profiles.astrion.checks import RULES

    goldens = "".join((ASTRION / name / "expected.txt").read_text("utf-8") for name in BROKEN)
    codes = ("AL801", "AL802", "AL803", "AL804", "AL805", "AL806", "AL807", "AL808", "AL809")
    for code in codes:
        assert f" {code} " in goldens, code
    assert {rule.code for rule in RULES} == set(codes)


def _store(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(ASTRION / "valid", root)
    return root / ".astrion"


def _edit(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text("utf-8"))
    data.update(changes)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def test_a_record_with_an_error_of_its_own_is_not_compared(tmp_path, capsys):
    store = _store(tmp_path)
    agent = store / "conversations" / "conv_20260711_210000_001" / "agents" / "2"
    _edit(agent / "messages.json", display_name="Someone else")
    _edit(agent / "metadata.json", status="done")
    main([str(store.parent), "--profile", "astrion", "--no-color"])
    out = capsys.readouterr().out
    assert "AL104" in out and "AL803" not in out


def test_null_source_is_the_team_leader_and_a_string_counter_is_not_compared(tmp_path, capsys):
    store = _store(tmp_path)
    agent = store / "conversations" / "conv_20260711_210000_001" / "agents" / "1" / "metadata.json"
    data = json.loads(agent.read_text("utf-8"))
    for entry in data.get("pending_messages", []):
        entry["source_agent_id"] = None
    agent.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    _edit(store / "state.json", agent_id_counter="1")
    main([str(store.parent), "--profile", "astrion", "--no-color"])
    out = capsys.readouterr().out
    assert "AL805" not in out and "AL807" not in out and "AL103" in out


def test_counter_below_an_agent_folder_missing_from_agent_ids(tmp_path, capsys):
    """An agent folder alone puts its id in use for the counter."""
    store = _store(tmp_path)
    conversation = store / "conversations" / "conv_20260713_140500_003"
    counter = json.loads((store / "state.json").read_text("utf-8"))["agent_id_counter"]
    extra = conversation / "agents" / str(counter + 1)
    source = store / "conversations" / "conv_20260711_210000_001" / "agents" / "1"
    shutil.copytree(source, extra)
    main([str(store.parent), "--profile", "astrion", "--no-color"])
    out = capsys.readouterr().out
    assert f"AL807 [*] agent_id_counter is {counter} but agent id {counter + 1} is in use" in out
    assert f"AL802 the sub-agent folder agents/{counter + 1}/ is not listed" in out


FIX_CASES = sorted((ASTRION / "fix").iterdir())


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("case", FIX_CASES, ids=lambda p: p.name)
def test_fix_rebuilds_the_derived_files_and_a_second_run_changes_nothing(case, tmp_path, capsys):
    work = tmp_path / "repo"
    shutil.copytree(case / "before", work)
    assert main([str(work), "--profile", "astrion", "--fix", "--no-color"]) == 0
    assert tree_bytes(work) == tree_bytes(case / "after")
    capsys.readouterr()
    assert main([str(work), "--profile", "astrion", "--fix", "--no-color"]) == 0
    assert "Fixed" not in capsys.readouterr().out
    assert tree_bytes(work) == tree_bytes(case / "after")


@pytest.mark.parametrize("name", ["broken-state", "broken-index"])
def test_fix_repairs_every_finding_of_the_state_and_index_stores(name, tmp_path, capsys):
    work = tmp_path / "repo"
    shutil.copytree(ASTRION / name, work)
    assert main([str(work), "--profile", "astrion", "--fix", "--no-color"]) == 0
    assert "All checks passed" in capsys.readouterr().out


def test_fix_does_not_create_an_absent_index(tmp_path):
    store = _store(tmp_path)
    (store / "conversations" / "index.json").unlink()
    _edit(store / "state.json", agent_id_counter=1)
    assert main([str(store.parent), "--profile", "astrion", "--fix", "--no-color"]) == 0
    assert not (store / "conversations" / "index.json").exists()
    assert json.loads((store / "state.json").read_text("utf-8"))["agent_id_counter"] > 1


def test_fix_keeps_the_index_entry_of_a_conversation_whose_metadata_does_not_parse(tmp_path):
    store = _store(tmp_path)
    index = store / "conversations" / "index.json"
    entries = json.loads(index.read_text("utf-8"))
    kept = entries["conv_20260711_210000_001"]
    entries["conv_20260712_093000_002"]["title"] = "stale"
    index.write_text(json.dumps(entries, ensure_ascii=False, indent=2), encoding="utf-8")
    meta = store / "conversations" / "conv_20260711_210000_001" / "metadata.json"
    meta.write_text("{", encoding="utf-8")
    assert main([str(store.parent), "--profile", "astrion", "--fix", "--no-color"]) == 1
    fixed = json.loads(index.read_text("utf-8"))
    assert fixed["conv_20260711_210000_001"] == kept
    assert fixed["conv_20260712_093000_002"]["title"] != "stale"


def test_fix_keeps_a_last_conversation_that_exists_and_never_lowers_the_counter(tmp_path):
    from agent_lint.profiles.astrion.facts import AstrionFacts, Conversation
    from agent_lint.profiles.astrion.fixes import derived_state

    facts = AstrionFacts()
    facts.conversations["a"] = Conversation("a", "c/a", meta={"updated_at": "2026-01-02T00:00:00"})
    facts.conversations["b"] = Conversation("b", "c/b", meta={"updated_at": "2026-01-01T00:00:00"})
    facts.conversations["a"].agent_folders["2"] = "c/a/agents/2"
    state = {
        "last_conversation_id": "b",
        "agent_id_counter": 9,
        "updated_at": "2025-01-01T00:00:00",
    }
    assert derived_state(facts, state) == state
    dangling = {**state, "last_conversation_id": "gone", "agent_id_counter": 1}
    assert derived_state(facts, dangling) == {
        "last_conversation_id": "a",
        "agent_id_counter": 2,
        "updated_at": "2026-01-02T00:00:00",
    }


def test_a_long_list_in_a_message_is_cut_to_a_few_items_and_a_count():
    from agent_lint.profiles.astrion.checks import _listed

    assert _listed(["tc_1"], "none") == "tc_1"
    assert _listed([], "no tool calls") == "no tool calls"
    assert _listed([f"tc_{i}" for i in range(1000)], "none") == (
        "tc_0, tc_1, tc_2, tc_3, tc_4 and 995 more"
    )


def _findings(capsys, root: Path) -> list[dict[str, object]]:
    main([str(root), "--profile", "astrion", "--output-format", "json"])
    found: list[dict[str, object]] = json.loads(capsys.readouterr().out)["diagnostics"]
    return found


@pytest.mark.parametrize("name", BROKEN)
def test_a_finding_is_fixable_exactly_when_fix_rewrites_its_file(name, tmp_path, capsys):
    work = tmp_path / "repo"
    shutil.copytree(ASTRION / name, work)
    before = tree_bytes(work)
    found = _findings(capsys, work)
    fixable = {d["path"] for d in found if d["fixable"]}
    main([str(work), "--profile", "astrion", "--fix", "--no-color"])
    capsys.readouterr()
    after = tree_bytes(work)
    changed = {f"{path}" for path in before if before[path] != after.get(path)}
    assert changed == fixable
    left = _findings(capsys, work)
    assert [d for d in left if d["fixable"]] == []
    assert [d for d in found if not d["fixable"]] == left


def test_a_dangling_role_lists_the_roles_there_are_and_cuts_a_long_list(tmp_path, capsys):
    store = _store(tmp_path)
    meta = store / "conversations" / "conv_20260711_210000_001" / "agents" / "1" / "metadata.json"
    _edit(meta, role_id="analyst")
    _edit(meta.with_name("messages.json"), role_id="analyst")
    [finding] = _findings(capsys, store.parent)
    assert finding["code"] == "AL301"
    assert finding["message"] == (
        'role_id "analyst" names no role file; expected one of code-reviewer, '
        "full-stack-engineer, researcher, ui-operator (agents/<role_id>.md)"
    )
    for n in range(3):
        role = (store / "agents" / "researcher.md").read_text("utf-8")
        (store / "agents" / f"z{n}.md").write_text(role.replace("researcher", f"z{n}"), "utf-8")
    [finding] = _findings(capsys, store.parent)
    assert "ui-operator, z0 and 2 more (agents/<role_id>.md)" in str(finding["message"])


def test_an_integer_id_is_written_without_quotes(tmp_path, capsys):
    store = _store(tmp_path)
    agent = store / "conversations" / "conv_20260711_210000_001" / "agents" / "3"
    _edit(agent / "metadata.json", agent_id=7)
    _edit(agent / "messages.json", agent_id=7)
    found = _findings(capsys, store.parent)
    assert {d["message"] for d in found if d["code"] == "AL202"} == {
        "agent_id 7 does not match its folder name 3 (expected agent_id 3, or rename the "
        "folder to 7)"
    }


def test_fix_keeps_the_index_entry_of_a_folder_without_metadata(tmp_path, capsys):
    """The missing metadata.json is the one finding; --fix neither drops the entry nor fixes it."""
    store = _store(tmp_path)
    (store / "conversations" / "conv_20260713_140500_003" / "metadata.json").unlink()
    before = tree_bytes(store)
    found = _findings(capsys, store.parent)
    assert [(d["code"], d["fixable"]) for d in found] == [("AL809", False)]
    assert main([str(store.parent), "--profile", "astrion", "--fix", "--no-color"]) == 1
    assert tree_bytes(store) == before


def test_every_folder_without_metadata_is_one_finding_at_its_first_file(tmp_path, capsys):
    store = _store(tmp_path)
    conversation = store / "conversations" / "conv_20260711_210000_001"
    (conversation / "metadata.json").unlink()
    (conversation / "messages.json").unlink()
    (conversation / "agents" / "2" / "metadata.json").unlink()
    found = [(d["path"], d["code"], d["message"]) for d in _findings(capsys, store.parent)]
    folder = ".astrion/conversations/conv_20260711_210000_001"
    assert found == [
        (
            f"{folder}/agents/1/messages.json",
            "AL809",
            "the conversation folder conv_20260711_210000_001/ holds agents/1/messages.json, "
            "agents/1/metadata.json, agents/2/messages.json, agents/3/messages.json, "
            "agents/3/metadata.json but no metadata.json (expected "
            'conv_20260711_210000_001/metadata.json with id "conv_20260711_210000_001")',
        ),
        (
            f"{folder}/agents/2/messages.json",
            "AL809",
            "the sub-agent folder agents/2/ holds messages.json but no metadata.json "
            "(expected agents/2/metadata.json with agent_id 2)",
        ),
    ]


def _renamed_then_fixed(tmp_path, capsys, folder: str, old: str, new: str):
    """Rename ``folder/old`` of the valid store to ``new``: the findings of a run, and the
    names of the JSON files a ``--fix`` then changes."""
    store = tmp_path / "store"
    shutil.copytree(ASTRION / "valid", store)
    parent = store / ".astrion" / folder
    (parent / old).rename(parent / new)
    before = {p: p.read_bytes() for p in store.rglob("*.json")}
    assert main([str(store), "--no-color", "--no-cache", "--output-format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    main([str(store), "--fix", "--quiet", "--no-cache"])
    after = {p: p.read_bytes() for p in store.rglob("*.json")}
    return found, {p.name for p in after if after[p] != before.get(p)}


def test_a_renamed_conversation_folder_is_its_id_findings_and_fix_keeps_the_id(tmp_path, capsys):
    found, changed = _renamed_then_fixed(
        tmp_path, capsys, "conversations", "conv_20260713_140500_003", "conv_20260713_140500_009"
    )
    # One fact, one finding: the conversation's id, on its metadata.json; not messages.json,
    # which repeats that id, the index entry, state.json's last_conversation_id or a record
    # missing from the index.
    assert [(d["code"], d["path"].rsplit("/", 1)[-1]) for d in found] == [
        ("AL202", "metadata.json")
    ]
    assert changed == set()


def test_a_renamed_sub_agent_folder_stands_for_its_agent_in_agent_ids(tmp_path, capsys):
    found, changed = _renamed_then_fixed(
        tmp_path, capsys, "conversations/conv_20260711_210000_001/agents", "3", "7"
    )
    # agents/7/ stands for agent 3 in agent_ids (no AL802 either way); the folder name 7 is
    # in use all the same, so the counter must pass it (a new agent 7 would collide).
    assert [(d["code"], d["path"].removeprefix(".astrion/conversations/")) for d in found] == [
        ("AL202", "conv_20260711_210000_001/agents/7/metadata.json"),
        ("AL807", ".astrion/state.json"),
    ]
    assert changed == {"state.json"}


@pytest.mark.parametrize(
    "folder", ["conv_20260711_210000_001", "conv_20260711_210000_001/agents/3"]
)
def test_a_messages_file_with_an_id_of_its_own_is_its_own_finding(tmp_path, capsys, folder):
    """messages.json's AL202 is left out only when it repeats metadata.json's, alike."""
    store = tmp_path / "store"
    shutil.copytree(ASTRION / "valid", store)
    records = store / ".astrion" / "conversations" / folder
    field = "agent_id" if "/agents/" in folder else "id"
    wrong = {"agent_id": 8, "id": "conv_20260711_210000_008"}[field]
    _edit(records / "messages.json", **{field: wrong})
    found = json.loads(_run_json(store, capsys))["diagnostics"]
    assert [(d["code"], d["path"].rsplit("/", 1)[-1]) for d in found] == [
        ("AL202", "messages.json")
    ]
    # The folder renamed as well: two ids that disagree with it, each in its own words.
    renamed = records.with_name(records.name[:-1] + "9")
    records.rename(renamed)
    found = json.loads(_run_json(store, capsys))["diagnostics"]
    assert [(d["code"], d["path"].rsplit("/", 1)[-1]) for d in found if d["code"] == "AL202"] == [
        ("AL202", "messages.json"),
        ("AL202", "metadata.json"),
    ]


def test_a_mistyped_sub_agent_id_is_its_own_finding_alone(tmp_path, capsys):
    store = tmp_path / "store"
    shutil.copytree(ASTRION / "valid", store)
    agent = store / ".astrion/conversations/conv_20260711_210000_001/agents/3"
    _edit(agent / "metadata.json", agent_id=9)
    found = json.loads(_run_json(store, capsys))["diagnostics"]
    # agent_ids still lists 3, which the folder is: the mistyped id is its AL202, not also
    # a folder missing from agent_ids, or agent 3 listed without a folder.
    assert [(d["code"], d["path"].rsplit("/", 1)[-1]) for d in found] == [
        ("AL202", "metadata.json")
    ]


def _run_json(store: Path, capsys) -> str:
    main([str(store), "--no-color", "--no-cache", "--output-format", "json"])
    return capsys.readouterr().out


CONV1 = "conversations/conv_20260711_210000_001"


def _codes_and_fix(capsys, store: Path) -> tuple[list[tuple[str, str]], set[str]]:
    """The findings (code, file name) of a run, and the files ``--fix`` then rewrites."""
    found = [
        (str(d["code"]), str(d["path"]).rsplit("/", 1)[-1]) for d in _findings(capsys, store.parent)
    ]
    before = tree_bytes(store.parent)
    main([str(store.parent), "--profile", "astrion", "--fix", "--no-color"])
    capsys.readouterr()
    after = tree_bytes(store.parent)
    return found, {path for path in before if before[path] != after.get(path)}


def test_a_wrong_agent_count_is_its_al801_alone_and_fix_does_not_copy_it(tmp_path, capsys):
    store = _store(tmp_path)
    _edit(store / CONV1 / "metadata.json", agent_count=4)
    found, changed = _codes_and_fix(capsys, store)
    assert found == [("AL801", "metadata.json")]
    assert changed == set()


def test_an_agent_listed_without_its_folder_is_its_al802_alone(tmp_path, capsys):
    """Not also the index's count (AL305) nor the counter (AL807); --fix raises nothing."""
    store = _store(tmp_path)
    _edit(store / CONV1 / "metadata.json", agent_ids=[1, 2, 3, 99], agent_count=4)
    found, changed = _codes_and_fix(capsys, store)
    assert found == [("AL802", "metadata.json")]
    assert changed == set()


def test_a_conversation_updated_before_it_was_created_is_al313_and_not_copied(tmp_path, capsys):
    store = _store(tmp_path)
    _edit(store / CONV1 / "metadata.json", updated_at="2026-07-10T08:00:00")
    found, changed = _codes_and_fix(capsys, store)
    assert found == [("AL313", "metadata.json")]
    assert changed == set()


def test_a_mistyped_role_in_a_sub_agent_s_metadata_is_its_al301_alone(tmp_path, capsys):
    store = _store(tmp_path)
    agent = store / CONV1 / "agents" / "2" / "metadata.json"
    role = json.loads(agent.read_text("utf-8"))["role_id"]
    _edit(agent, role_id=role + "x")
    found, _ = _codes_and_fix(capsys, store)
    assert found == [("AL301", "metadata.json")]


def test_a_role_without_front_matter_says_so(tmp_path, capsys):
    store = _store(tmp_path)
    role = sorted((store / "agents").glob("*.md"))[0]
    role.write_text("You review code.\n", encoding="utf-8")
    [finding] = _findings(capsys, store.parent)
    assert (finding["code"], finding["line"], finding["column"]) == ("AL103", 1, 1)
    assert finding["message"] == (
        "the role has no YAML front matter; expected the file to start with a line ---, its "
        "fields as YAML, and a line ---"
    )


def test_an_index_count_matching_no_reading_of_a_doubtful_count_is_still_stale(tmp_path, capsys):
    store = _store(tmp_path)
    _edit(store / CONV1 / "metadata.json", agent_count=4)  # agent_ids lists 3
    index = store / "conversations" / "index.json"
    entries = json.loads(index.read_text("utf-8"))
    entries["conv_20260711_210000_001"]["agent_count"] = 9
    index.write_text(json.dumps(entries, ensure_ascii=False, indent=2), encoding="utf-8")
    found, changed = _codes_and_fix(capsys, store)
    assert found == [("AL801", "metadata.json"), ("AL305", "index.json")]
    assert changed == {".astrion/conversations/index.json"}


def test_an_agent_folder_named_with_a_non_ascii_digit_is_no_crash(tmp_path, capsys):
    store = _store(tmp_path)
    shutil.copytree(store / CONV1 / "agents" / "2", store / CONV1 / "agents" / "²")
    assert main([str(store.parent), "--profile", "astrion", "--no-color"]) == 1
    assert "AL802" in capsys.readouterr().out


def test_a_doubtful_count_whose_rule_is_off_releases_the_index_finding(tmp_path, capsys):
    """With AL801 ignored the doubt is no finding: the index's disagreement is its own."""
    store = _store(tmp_path)
    _edit(store / CONV1 / "metadata.json", agent_count=4)
    (store.parent / ".agent-lint.toml").write_text('ignore = ["AL801"]\n')
    found, changed = _codes_and_fix(capsys, store)
    assert found == [("AL305", "index.json")]
    assert changed == {".astrion/conversations/index.json"}


def test_an_index_count_of_another_type_beside_a_doubtful_count_is_no_crash(tmp_path, capsys):
    store = _store(tmp_path)
    _edit(store / CONV1 / "metadata.json", agent_count=4)
    index = store / "conversations" / "index.json"
    entries = json.loads(index.read_text("utf-8"))
    entries["conv_20260711_210000_001"]["agent_count"] = [3]
    index.write_text(json.dumps(entries, ensure_ascii=False, indent=2), encoding="utf-8")
    found, _ = _codes_and_fix(capsys, store)
    assert ("AL801", "metadata.json") in found
