"""One fact, one finding: grouped repeats, the note id rule, history that cannot be edited."""

from __future__ import annotations

import shutil
from pathlib import Path

import conversation
from conftest import FIXTURES, codes
from records import decision, handoff, mission

from agent_lint.diagnostics import Severity
from agent_lint.linter import lint_paths
from agent_lint.profiles.cortex.notes import id_shape

PLAN = """# M-004 Event bus

Depends on M-002 (M-002 must ship first; see M-002 and M-002).

## Decisions of proposal FAE-002

| id | topic | choice |
|---|---|---|
| D-FAE-002-1 | start | after M-002 |
| D-FAE-002-4 | rollback | 3 retries (D-FAE-002-4) |

MS-002 shipped with 3 deviations D-1/D-2/D-3; D-1 is the author change.
The storage decision is D-TCP-004, recorded in D-TCP-009 later. See `D-TCP-777` in code.
"""


def _repo() -> dict[str, object]:
    return {
        "decisions/D-TCP-004-add-dsh-host.json": decision(decision_id="D-TCP-004-add-dsh-host"),
        "missions/M-004/mission-plan.md": PLAN,
        "missions/M-003/mission-plan.md": "# M-003\n",
    }


def test_id_shapes():
    assert id_shape("D-TCP-004-add-dsh-host") == ("D", "A", "999")
    assert id_shape("D-1") == ("D", "9")
    assert id_shape("D-FAE-002-4") == ("D", "A", "999", "9")
    assert id_shape("D-001-storage-engine") == ("D", "999")
    assert id_shape("D-demo-1") == ("D", "a", "9")
    assert id_shape("M-P006") == ("M", "x")


def test_note_ids_are_judged_only_in_the_repository_id_shape(lint_tree):
    found = lint_tree(_repo()).diagnostics
    assert [(d.code, d.severity, d.line, d.column, d.message) for d in found] == [
        (
            "AL315",
            Severity.WARNING,
            3,
            12,
            '"M-002" does not name an existing mission (5 times in this note; first here)',
        ),
        ("AL315", Severity.WARNING, 13, 48, '"D-TCP-009" does not name an existing decision'),
    ]


def test_strict_judges_every_mention_with_a_digit(lint_tree):
    found = {d.message.split('"')[1] for d in lint_tree(_repo(), strict=True).diagnostics}
    assert found == {"M-002", "D-FAE-002-1", "D-FAE-002-4", "D-1", "D-TCP-009"}


def test_kinds_without_records_are_not_judged_in_notes(lint_tree):
    files = {"missions/M-004/mission-plan.md": "Waits for WP-12 and D-001.\n"}
    assert lint_tree(files).diagnostics == []


def test_severity_of_note_ids_is_configurable(lint_tree):
    found = lint_tree(_repo(), config='[severity]\nAL315 = "error"\n').diagnostics
    assert {d.severity for d in found} == {Severity.ERROR}


def test_repeated_link_is_one_finding(lint_tree):
    note = "[a](gone.md) and [a](gone.md)\n[b](other.md)\n"
    found = lint_tree({**_repo(), "missions/M-003/notes.md": note}).diagnostics
    links = [d for d in found if d.code == "AL314"]
    assert [(d.line, d.message) for d in links] == [
        (
            1,
            'link target "gone.md" does not exist (.agent/missions/M-003/gone.md) '
            "(2 times in this note; first here)",
        ),
        (2, 'link target "other.md" does not exist (.agent/missions/M-003/other.md)'),
    ]


def test_what_github_does_not_render_as_a_link_or_id_is_not_judged(lint_tree):
    """As CommonMark renders it: an HTML block a comment opens at a line's start (to the
    line holding ``-->``, that line included: a template's commented-out example),
    indented code blocks and escaped brackets hold no links and no ids; nor does a comment
    inside a paragraph, to its close on a later line. A list item's indented paragraph,
    at any depth, and a lazy continuation line are prose."""
    note = (
        "<!-- Example: - [Reply in Chinese](user/reply-zh.md) -->\n"
        "<!-- D-997 is\n  [future](later.md)\n--> and [in the block](block.md)\n"
        "\n    [label](relative/path.md) and D-998\n\n"
        "Literal: \\[not a link](nowhere.md)\n"
        "- item\n\n    [in the item](item.md)\n\n"
        "    - nested\n\n        [nested](nested.md)\n\n"
        "text\n    [lazy](lazy.md)\n"
        "Say <!-- hidden --> [after](after.md) and <!-- open [open](open.md)\n"
        "\n"
        "Design [doc](doc.md) <!-- TODO: the old\n[draft](draft.md) is gone\n-->\n"
        "\n- Open items\n  - Ledger\n    <!--\n    [runbook](runbook.md)\n    -->\n"
        "\n> Reviewer note\n> <!--\n> [scratch](scratch.md)\n> -->\n"
        "\n1. Step\n\n    ```sh\n    see [x](fenced.md) D-042\n    ```\n\n    Then [y](step.md)\n"
    )
    found = lint_tree({**_repo(), "missions/M-003/notes.md": note}).diagnostics
    links = [(d.line, d.message.split('"')[1]) for d in found if d.path.endswith("notes.md")]
    assert links == [
        (11, "item.md"),
        (15, "nested.md"),
        (18, "lazy.md"),
        (19, "after.md"),
        # A comment left open hides the rest of its line and runs on to the end of its
        # paragraph at most (GitHub shows it as text when it never closes: a rare typo;
        # one that closes a line or two later is the common case, and hides what it holds).
        (21, "doc.md"),
        (42, "step.md"),  # after a fence inside the list item, whose content is code
    ]


def test_index_missing_a_field_in_many_entries_is_one_finding(lint_tree):
    entries = [
        {
            "decision_id": f"D-{n:03d}",
            "path": f".agent/decisions/D-{n:03d}.json",
            "type": "architecture",
            "status": "open",
            "gate_action": "architecture",
            "resource_ref": "proposal:docs/design.md",
        }
        for n in range(1, 85)
    ]
    files = {f"decisions/D-{n:03d}.json": decision(decision_id=f"D-{n:03d}") for n in range(1, 85)}
    files["decisions/index.json"] = {"decisions": entries}
    [d] = lint_tree(files).diagnostics
    assert d.code == "AL101" and d.pointer == "/decisions/0"
    assert d.message == (
        'missing required field "updated_at" in decisions[0] (and 83 more entries)'
    )


def test_paths_in_append_only_handoffs_are_warnings(lint_tree):
    payload = handoff(
        "H-20261103-120000-x",
        "2026-11-03T12:00:00Z",
        artifacts={
            "completed": ["src/renamed-since.py"],
            "context_snapshot_ref": "https://x",
            "markdown_ref": "https://y",
        },
    )
    files = {
        "handoffs/H-20261103-120000-x.json": payload,
        "handoffs/20261103-120000-x.md": "[design](../../docs/moved.md)\n",
    }
    found = lint_tree(files).diagnostics
    assert [(d.code, d.severity) for d in found] == [
        ("AL314", Severity.WARNING),
        ("AL302", Severity.WARNING),
    ]
    strict = lint_tree(files, strict=True).diagnostics
    assert [(d.code, d.severity) for d in strict] == [
        ("AL314", Severity.ERROR),
        ("AL302", Severity.ERROR),
    ]
    # The same path in a record that may be edited stays an error.
    relations = {
        key: [] for key in ("task_ids", "mission_ids", "run_ids", "queue_ids", "session_ids")
    }
    relations.update(artifact_refs=["src/renamed-since.py"], worktree_paths=[])
    bad = decision(relations=relations)
    assert [(d.code, d.severity) for d in lint_tree({"decisions/D-001.json": bad}).diagnostics] == [
        ("AL302", Severity.ERROR)
    ]


def test_values_are_rendered_as_json(lint_tree):
    from conversation import tree

    files = tree()
    state = files["conversations/C-1/handoffs/state.json"]
    assert isinstance(state, dict)
    files["conversations/C-1/handoffs/state.json"] = {
        **state,
        "active_agent": {"type": "codex", "agent_id": "x", "session_id": None},
    }
    [d] = lint_tree(files).diagnostics
    assert d.code == "AL503"
    assert '{"type": "codex", "agent_id": "x", "session_id": null}' in d.message
    assert "'" not in d.message and "None" not in d.message
    assert codes(lint_tree(files)) == ["AL503"]


def test_a_note_after_a_path_is_not_part_of_it_unless_strict(lint_tree, tmp_path):
    payload = handoff(
        "H-20261103-120000-x",
        "2026-11-03T12:00:00Z",
        artifacts={
            "completed": ["README.md (12 lines, VC-001)"],
            "context_snapshot_ref": "https://x",
            "markdown_ref": "https://y",
        },
    )
    for root in ("repo", "repo2"):  # lint_tree's first and second trees
        (tmp_path / root).mkdir()
        (tmp_path / root / "README.md").write_text("# r\n", encoding="utf-8")
    files = {
        "handoffs/H-20261103-120000-x.json": payload,
        "handoffs/20261103-120000-x.md": "# x\n",
    }
    assert lint_tree(files).diagnostics == []
    [d] = lint_tree(files, strict=True).diagnostics
    assert d.code == "AL302" and '"README.md (12 lines, VC-001)"' in d.message


def _latest_deleted() -> dict[str, object]:
    """Conversation C-1 whose latest handoff H-003 was deleted, state.json and meta.json not."""
    files: dict[str, object] = conversation.tree(handoffs=3, turns=6)
    del files["conversations/C-1/handoffs/H-003.json"], files["conversations/C-1/handoffs/H-003.md"]
    return files


def test_a_deleted_latest_handoff_is_not_also_a_dangling_reference(lint_tree):
    found = {
        (d.path.rsplit("/", 1)[-1], d.code, d.pointer)
        for d in lint_tree(_latest_deleted()).diagnostics
    }
    assert ("state.json", "AL503", "/latest_handoff_id") in found
    assert ("meta.json", "AL406", "/handoffs") in found
    assert not [f for f in found if f[1] == "AL301"]  # the same two facts, not four findings


def test_a_covering_rule_turned_off_or_down_leaves_the_reference_reported(lint_tree):
    ignored = lint_tree(_latest_deleted(), config='ignore = ["AL503", "AL406"]\n')
    assert sorted(
        (d.path.rsplit("/", 1)[-1], d.pointer) for d in ignored.diagnostics if d.code == "AL301"
    ) == [("meta.json", "/handoffs/2/handoff_id"), ("state.json", "/latest_handoff_id")]
    warned = lint_tree(_latest_deleted(), config='[severity]\nAL503 = "warning"\n')
    [d] = [d for d in warned.diagnostics if d.code == "AL301"]
    assert (d.pointer, d.severity) == ("/latest_handoff_id", Severity.ERROR)


def test_a_mission_handoff_naming_another_mission_is_one_finding(lint_tree):
    files = {
        "missions/M-001/mission.json": mission(mission_id="M-001"),
        "missions/M-001/handoffs/H-20261102-143000-done.json": handoff(
            "H-20261102-143000-done", mission_id="M-002"
        ),
    }
    found = [
        (d.code, d.pointer) for d in lint_tree(files).diagnostics if d.pointer == "/mission_id"
    ]
    assert found == [("AL415", "/mission_id")]


def test_a_malformed_handoff_id_is_one_finding_where_a_check_compares_it(lint_tree):
    files: dict[str, object] = conversation.tree(handoffs=3, turns=6)
    state = files["conversations/C-1/handoffs/state.json"]
    assert isinstance(state, dict)
    state["latest_handoff_id"] = "H-03"
    files["conversations/C-1/turn_resumed.yaml"] = str(
        files["conversations/C-1/turn_resumed.yaml"]
    ).replace("H-003", "H-03")
    found = [(d.code, d.path.rsplit("/", 1)[-1], d.pointer) for d in lint_tree(files).diagnostics]
    # Not also AL105 (the id pattern) at either place: the same value, one finding each.
    assert found == [
        ("AL503", "state.json", "/latest_handoff_id"),
        ("AL416", "turn_resumed.yaml", "/handoff_id"),
    ]


def _valid_with(tmp_path: Path, *moves: tuple[str, str]) -> list[tuple[str, str]]:
    """The valid fixture with files of its agent dir renamed; (code, file name) found."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    for old, new in moves:
        (repo / ".agent" / old).rename(repo / ".agent" / new)
    return [(d.code, d.path.rsplit("/", 1)[-1]) for d in lint_paths([repo]).diagnostics]


def test_an_id_that_is_the_text_of_a_broken_link_to_it_is_the_link_finding(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / ".agent/decisions/D-003.json").unlink()
    note = repo / ".agent/conversations/C-payments-refactor/decisions.md"
    assert "[D-003](../../decisions/D-003.json)" in note.read_text()
    found = [
        (d.code, d.line, d.column)
        for d in lint_paths([repo]).diagnostics
        if d.path.endswith("decisions.md")
    ]
    assert found == [("AL314", 4, 11)]  # not also AL315 for "D-003" at 4:4


def test_a_conversation_without_meta_json_is_that_finding_alone(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / ".agent/conversations/C-payments-refactor/meta.json").unlink()
    found = [d.code for d in lint_paths([repo]).diagnostics]
    # The folder stands for the conversation: references to it resolve (no AL301), and
    # relations.yaml has no meta.json to be compared with (no AL316).
    assert found == ["AL206"]


def test_a_copied_record_is_one_finding_on_the_copy(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    decisions = repo / ".agent/decisions"
    shutil.copy(decisions / "D-003.json", decisions / "D-003-copy.json")
    found = [(d.code, d.path.rsplit("/", 1)[-1]) for d in lint_paths([repo]).diagnostics]
    # Not also AL306: the index lists D-003, at the original.
    assert found == [("AL203", "D-003-copy.json")]


def _renamed(tmp_path: Path, old: str, new: str) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    (repo / ".agent" / old).rename(repo / ".agent" / new)
    return repo


def test_a_renamed_mission_folder_is_its_mission_id_finding_alone(tmp_path):
    repo = _renamed(tmp_path, "missions/M-001", "missions/M-001-payments")
    [d] = lint_paths([repo]).diagnostics
    assert (d.code, d.path) == ("AL202", ".agent/missions/M-001-payments/mission.json")
    assert d.message.endswith("or rename the folder to M-001)")
    # AL202 turned off for it: what the rename broke is reported again.
    (repo / ".agent-lint.toml").write_text('[per-file-ignores]\n"**/mission.json" = ["AL202"]\n')
    found = {d.code for d in lint_paths([repo]).diagnostics}
    assert found == {"AL302", "AL314", "AL415"}


def test_a_renamed_conversation_folder_is_its_id_finding_and_fix_keeps_the_id(tmp_path):
    from agent_lint.cli import main

    repo = _renamed(tmp_path, "conversations/C-payments-refactor", "conversations/C-payments")
    [d] = lint_paths([repo]).diagnostics
    assert (d.code, d.path) == ("AL202", ".agent/conversations/C-payments/meta.json")
    state = repo / ".agent/conversations/C-payments/handoffs/state.json"
    before = state.read_bytes()
    assert main([str(repo), "--fix", "--quiet", "--no-cache"]) == 1
    assert state.read_bytes() == before  # --fix does not adopt the rename into state.json


def test_a_folder_beside_the_one_its_id_names_is_no_rename(tmp_path):
    repo = _renamed(tmp_path, "missions/M-001", "missions/M-001-payments")
    shutil.copytree(repo / ".agent/missions/M-001-payments", repo / ".agent/missions/M-001")
    found = [(d.code, d.path) for d in lint_paths([repo]).diagnostics]
    assert ("AL202", ".agent/missions/M-001-payments/mission.json") in found
    assert "AL415" in {code for code, _ in found}  # its files still name another mission


def test_a_mistyped_folder_record_id_is_its_finding_alone_and_fix_keeps_the_folder_name(
    tmp_path,
):
    from agent_lint.cli import main

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    for path, old, new in (
        ("missions/M-001/mission.json", '"mission_id": "M-001"', '"mission_id": "M-0001"'),
        (
            "conversations/C-payments-refactor/meta.json",
            '"conversation_id": "C-payments-refactor"',
            '"conversation_id": "C-payments-refactr"',
        ),
    ):
        record = repo / ".agent" / path
        record.write_text(record.read_text().replace(old, new, 1))
    found = sorted((d.code, d.path) for d in lint_paths([repo]).diagnostics)
    assert found == [
        ("AL202", ".agent/conversations/C-payments-refactor/meta.json"),
        ("AL202", ".agent/missions/M-001/mission.json"),
    ]
    state = repo / ".agent/conversations/C-payments-refactor/handoffs/state.json"
    before = state.read_bytes()
    main([str(repo), "--fix", "--quiet", "--no-cache"])
    assert state.read_bytes() == before


def _decision_kept_as(tmp_path: Path, name: str, config: str = "") -> list[tuple[str, str]]:
    """The valid fixture with its decision D-003 kept under ``name``: the findings."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "valid", repo)
    decisions = repo / ".agent" / "decisions"
    (decisions / "D-003.json").rename(decisions / name)
    if config:
        (repo / ".agent-lint.toml").write_text(config, encoding="utf-8")
    return [(d.code, d.path.rsplit("/", 1)[-1]) for d in lint_paths([repo]).diagnostics]


def test_a_record_file_renamed_away_from_its_id_is_one_finding(tmp_path):
    """The index entry, the note's link and the references that name D-003.json or D-003
    are judged by the record's AL202, which says to rename it back or change the id."""
    assert _decision_kept_as(tmp_path, "D-009.json") == [("AL202", "D-009.json")]


def test_a_record_under_a_name_no_kind_matches_is_one_finding(tmp_path):
    """``export.json`` holding D-003: its AL205 (rename it to D-003.json) is the finding;
    the ids and links that name the decision it holds are not each one more."""
    assert _decision_kept_as(tmp_path, "export.json") == [("AL205", "export.json")]


def test_a_rename_whose_finding_is_turned_off_leaves_the_references_to_judge(tmp_path):
    """A covering finding turned off covers nothing: the index entry and the link are
    reported again, as they would be for a record that is gone."""
    found = _decision_kept_as(tmp_path, "D-009.json", 'ignore = ["AL202"]\n')
    assert ("AL304", "index.json") in found and ("AL314", "decisions.md") in found
    found = _decision_kept_as(tmp_path / "b", "export.json", 'ignore = ["AL205"]\n')
    assert ("AL304", "index.json") in found and ("AL301", "D-002.json") in found


def test_a_covering_finding_made_less_severe_covers_nothing(tmp_path):
    """AL205 or AL202 as info: the errors they would stand for are reported again (they
    would otherwise vanish from a run that passes)."""
    found = _decision_kept_as(tmp_path, "export.json", '[severity]\nAL205 = "info"\n')
    assert ("AL304", "index.json") in found and ("AL301", "D-002.json") in found
    found = _decision_kept_as(tmp_path / "b", "D-009.json", '[severity]\nAL202 = "info"\n')
    assert ("AL304", "index.json") in found and ("AL314", "decisions.md") in found
