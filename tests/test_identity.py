"""AL2xx: ids, their patterns, their names and their uniqueness."""

from __future__ import annotations

from conftest import codes
from records import conversation, decision, mission


def test_id_pattern(lint_tree):
    [d] = lint_tree({"decisions/D-001.json": decision(decision_id="decision-1")}).diagnostics
    assert d.code == "AL201"
    assert d.message.startswith('decision_id "decision-1" does not match the decision id pattern')
    assert d.pointer == "/decision_id"


def test_id_differs_from_file_stem_adopts_valid_name(lint_tree):
    handoff = {"handoff_id": "H-2"}
    result = lint_tree({"conversations/C-1/handoffs/H-002.json": handoff})
    found = [d for d in result.diagnostics if d.code in ("AL201", "AL202")]
    assert [d.message for d in found] == [
        'handoff_id "H-2" does not match its file name H-002.json (expected handoff_id "H-002")'
    ]


def test_id_differs_from_folder(lint_tree):
    result = lint_tree({"conversations/C-7/meta.json": conversation(conversation_id="C-8")})
    [d] = result.diagnostics
    assert d.code == "AL202"
    assert "folder name C-7" in d.message and "rename the folder to C-8" in d.message


def test_slug_rule_prefix_and_exact(lint_tree):
    files = {"decisions/D-001-storage.json": decision()}
    assert lint_tree(files).diagnostics == []
    strict = lint_tree(files, config='file-name-rule = "exact"\n')
    assert codes(strict) == ["AL202"]
    [d] = lint_tree({"decisions/D-002-x.json": decision()}).diagnostics
    assert "D-001.json or D-001-<slug>.json" in d.message


def test_slug_must_follow_a_dash(lint_tree):
    [d] = lint_tree({"decisions/D-0012.json": decision()}).diagnostics
    assert d.code == "AL202"


def test_duplicate_id_in_repo_scope(lint_tree):
    result = lint_tree(
        {"decisions/D-001.json": decision(), "decisions/D-001-copy.json": decision()}
    )
    [d] = result.diagnostics
    assert d.code == "AL203"
    # On the copy, though "-" sorts before ".": the original is named by its id.
    assert d.path == ".agent/decisions/D-001-copy.json"
    assert "already used by .agent/decisions/D-001.json" in d.message


def test_a_copy_under_a_name_its_id_does_not_match_is_its_duplicate_id_alone(lint_tree):
    files = {"decisions/D-001.json": decision(), "decisions/D-002.json": decision()}
    [d] = lint_tree(files).diagnostics  # not also AL202 "or rename the file to D-001.json"
    assert (d.code, d.path, d.pointer) == ("AL203", ".agent/decisions/D-002.json", "/decision_id")
    config = 'ignore = ["AL203"]\n'
    [d] = lint_tree(files, config=config).diagnostics
    assert d.code == "AL202"


def test_conversation_handoff_ids_are_scoped_to_their_conversation(lint_tree):
    handoff = {"handoff_id": "H-001"}
    files = {
        "conversations/C-1/handoffs/H-001.json": handoff,
        "conversations/C-2/handoffs/H-001.json": handoff,
    }
    result = lint_tree(files)
    assert "AL203" not in codes(result)
    files["conversations/C-1/handoffs/H-002.json"] = handoff
    result = lint_tree(files)
    duplicates = [d for d in result.diagnostics if d.code == "AL203"]
    assert [d.path for d in duplicates] == [".agent/conversations/C-1/handoffs/H-002.json"]


def test_milestones_unique_within_mission_only(lint_tree):
    result = lint_tree(
        {
            "missions/M-001/mission.json": mission(),
            "missions/M-002/mission.json": mission(mission_id="M-002"),
        }
    )
    assert result.diagnostics == []
    twice = mission()
    twice["milestones"][1]["milestone_id"] = "MS-001"
    twice["milestones"][1]["depends_on"] = []
    [d] = lint_tree({"missions/M-001/mission.json": twice}).diagnostics
    assert d.code == "AL203" and d.pointer == "/milestones/1/milestone_id"


def test_milestone_id_pattern(lint_tree):
    bad = mission()
    bad["milestones"][0]["milestone_id"] = "phase-1"
    bad["current_milestone_id"] = None
    bad["milestones"][1]["depends_on"] = []
    [d] = lint_tree({"missions/M-001/mission.json": bad}).diagnostics
    assert d.code == "AL201" and "milestone id pattern" in d.message


def test_turn_number_matches_file(lint_tree):
    result = lint_tree(
        {
            "conversations/C-1/turns/0001.yaml": "turn: 1\n",
            "conversations/C-1/turns/0002.yaml": "turn: 3\n",
        }
    )
    [d] = [d for d in result.diagnostics if d.code != "AL206"]
    assert (d.code, d.line, d.column) == ("AL202", 1, 7)
    assert d.message == (
        "turn 3 does not match its file name 0002.yaml "
        "(expected turn: 2; or, if this is turn 3, rename the file to 0003.yaml)"
    )
    # Where a file of that name exists, renaming would overwrite it: only the turn is said.
    taken = lint_tree({
        "conversations/C-1/turns/0001.yaml": "turn: 1\n",
        "conversations/C-1/turns/0002.yaml": "turn: 1\n",
    })  # fmt: skip
    [d] = [d for d in taken.diagnostics if d.code == "AL202"]
    assert d.message == "turn 1 does not match its file name 0002.yaml (expected turn: 2)"


def test_turn_file_name(lint_tree):
    found = lint_tree({"conversations/C-1/turns/12.yaml": "turn: 12\n"}).diagnostics
    [d] = [d for d in found if d.code.startswith("AL2") and d.code != "AL206"]
    assert d.code == "AL204" and "0012.yaml" in d.message
