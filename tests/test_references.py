"""AL3xx: references, paths, indexes, state machines, notes, relations."""

from __future__ import annotations

import os
import shutil

import pytest
from conftest import FIXTURES, codes
from records import conversation, decision, mission, waitpoint

from agent_lint.linter import lint_paths


def only(result, prefix="AL3"):
    return [d for d in result.diagnostics if d.code.startswith(prefix)]


def test_dangling_reference_with_suggestion(lint_tree):
    files = {
        "missions/M-004/mission.json": mission(mission_id="M-004"),
        "decisions/D-001.json": decision(mission_id="M-0O4"),
    }
    [d] = lint_tree(files).diagnostics
    assert d.code == "AL301"
    assert (
        d.message == 'mission_id "M-0O4" does not name an existing mission; did you mean "M-004"?'
    )
    assert d.pointer == "/mission_id" and d.line is not None


def test_an_existing_id_with_a_letter_among_its_digits_is_named_not_suggested(lint_tree):
    typo = mission(mission_id="M-004")
    typo["milestones"][0]["milestone_id"] = "MS-0O1"
    found = [d.message for d in only(lint_tree({"missions/M-004/mission.json": typo}))]
    assert found and all(
        m.endswith('does not name an existing milestone in this mission; the existing "MS-0O1" '
                   "may be the typo") for m in found
    )  # fmt: skip


def test_reference_to_kind_without_records_is_skipped_unless_strict(lint_tree):
    files = {"decisions/D-001.json": decision(task_id="T-404")}
    assert lint_tree(files).diagnostics == []
    [d] = lint_tree(files, config="strict-references = true\n").diagnostics
    assert d.code == "AL301" and "no .agent/tasks/ folder" in d.message


def test_reference_resolves_by_file_name_of_broken_record(lint_tree):
    files = {
        "decisions/D-002-broken.json": "{",
        "decisions/D-001.json": decision(superseded_by_decision_id=None),
    }
    files["decisions/D-003.json"] = decision(decision_id="D-003", superseded_by_decision_id="D-002")
    assert codes(lint_tree(files)) == ["AL001"]


def test_milestone_references_are_scoped_to_the_mission(lint_tree):
    other = mission(mission_id="M-002")
    other["milestones"][1]["depends_on"] = ["MS-009"]
    [d] = only(lint_tree({"missions/M-002/mission.json": other}))
    assert d.message == (
        'milestones[].depends_on[] "MS-009" does not name an existing milestone in this mission'
    )
    assert d.pointer == "/milestones/1/depends_on/0"


def test_conversation_handoff_reference_is_scoped(lint_tree):
    meta = conversation(
        handoffs=[
            {
                "handoff_id": "H-001",
                "from_agent": "a",
                "to_agent": "b",
                "timestamp": "2026-11-02T10:00:00Z",
                "reason": "explicit",
            }
        ]
    )
    # C-1's own handoff does not parse, so AL406 cannot judge its handoffs[]: AL301 does.
    files = {
        "conversations/C-1/meta.json": meta,
        "conversations/C-1/handoffs/H-002.json": "{",
        "conversations/C-2/handoffs/H-001.json": "{",
    }
    [d] = only(lint_tree(files))
    assert d.code == "AL301" and "in conversation C-1" in d.message


def test_missing_path(lint_tree):
    files = {
        "conversations/C-1/meta.json": conversation(summary_ref=".agent/conversations/C-1/s.md")
    }
    [d] = lint_tree(files).diagnostics
    assert (d.code, d.pointer) == ("AL302", "/summary_ref")


def test_path_forms(lint_tree, tmp_path):
    record = conversation(
        artifact_refs=[
            "https://example.com/x",
            "proposal:.agent/x.md",
            "docs/*.md",
            "docs/{a,b}.md",
            "/abs/path",
            "../up.md",
            "C:\\\\work\\\\x.md",
        ]
    )
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# a\n")
    result = lint_tree({"conversations/C-1/meta.json": record})
    found = [(d.code, d.pointer) for d in result.diagnostics]
    assert found == [
        ("AL302", "/artifact_refs/3"),
        ("AL303", "/artifact_refs/4"),
        ("AL303", "/artifact_refs/5"),
        ("AL303", "/artifact_refs/6"),
    ]
    assert 'docs/b.md" (from "docs/{a,b}.md") does not exist' in result.diagnostics[0].message


def test_path_scheme_mapping(lint_tree, tmp_path):
    record = conversation(
        artifact_refs=["proposal:docs/plan.md@da93dd0f7e1b", "proposal:docs/gone.md"]
    )
    (tmp_path / "repo" / "docs").mkdir(parents=True)
    (tmp_path / "repo" / "docs" / "plan.md").write_text("plan\n")
    result = lint_tree(
        {"conversations/C-1/meta.json": record}, config='[path-schemes]\nproposal = ""\n'
    )
    [d] = result.diagnostics
    assert d.code == "AL302" and "docs/gone.md" in d.message


def test_path_through_symlink_leaving_repository(lint_tree, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("secret")
    (tmp_path / "repo").mkdir()
    os.symlink(outside, tmp_path / "repo" / "linked")
    [d] = lint_tree(
        {"conversations/C-1/meta.json": conversation(summary_ref="linked/x.md")}
    ).diagnostics
    assert d.code == "AL303" and "symbolic link" in d.message


@pytest.mark.parametrize("target", [".git/HEAD", ".git/refs/heads/no-such-branch"])
def test_a_path_into_the_git_folder_is_unsafe_whether_or_not_it_exists(lint_tree, tmp_path, target):
    """Never whether git's own files exist: a branch name is not learned from the finding."""
    git_folder = tmp_path / "repo" / ".git"
    git_folder.mkdir(parents=True)
    (git_folder / "HEAD").write_text("ref: refs/heads/main\n")
    note = f"# Notes\n\n[head](../../../{target})\n"
    record = conversation(summary_ref=target)
    result = lint_tree(
        {"conversations/C-1/meta.json": record, "conversations/C-1/artifacts.md": note}
    )
    found = sorted((d.code, d.message.split('"', 1)[1]) for d in result.diagnostics)
    assert found == [
        ("AL303", f'../../../{target}" points into a .git folder, git\'s own files, not a '
                  "file of the repository"),
        ("AL303", f'{target}" points into a .git folder, git\'s own files, not a file of '
                  "the repository"),
    ]  # fmt: skip


def _index_entry(did, path, **extra):
    entry = {
        "decision_id": did,
        "path": path,
        "type": "architecture",
        "status": "open",
        "gate_action": "architecture",
        "resource_ref": "proposal:docs/design.md",
        "updated_at": "2026-11-02T10:00:00Z",
    }
    entry.update(extra)
    return entry


def test_index_entries(lint_tree):
    files = {
        "decisions/D-001.json": decision(),
        "decisions/D-002.json": decision(decision_id="D-002"),
        "decisions/index.json": {
            "decisions": [
                _index_entry("D-001", ".agent/decisions/D-001.json", status="approved"),
                _index_entry("D-001", ".agent/decisions/D-001.json"),
                _index_entry("D-009", ".agent/decisions/D-009.json"),
                _index_entry("D-007", ".agent/decisions/D-002.json"),
            ]
        },
    }
    found = [(d.code, d.pointer) for d in lint_tree(files).diagnostics]
    assert found == [
        ("AL305", "/decisions/0/status"),
        ("AL307", "/decisions/1"),
        ("AL304", "/decisions/2/path"),
        ("AL304", "/decisions/3"),
    ]


def test_an_entry_whose_record_was_renamed_says_where_it_is_now(lint_tree):
    """D-001.json renamed to D-001-storage.json (a legal name): the stale entry path
    names the file that holds D-001 now."""
    files = {
        "decisions/D-001-storage.json": decision(),
        "decisions/index.json": {
            "decisions": [_index_entry("D-001", ".agent/decisions/D-001.json")]
        },
    }
    [finding] = lint_tree(files).diagnostics
    assert (finding.code, finding.pointer) == ("AL304", "/decisions/0/path")
    assert finding.message == (
        'entry path ".agent/decisions/D-001.json" names no decision record; decision "D-001" '
        "is at .agent/decisions/D-001-storage.json"
    )


@pytest.mark.parametrize("written", ["2026-11-02T10:00:00.000Z", "2026-11-02T11:00:00+01:00"])
def test_an_index_time_that_is_the_record_s_moment_written_another_way_agrees(lint_tree, written):
    files = {
        "decisions/D-001.json": decision(updated_at="2026-11-02T10:00:00Z"),
        "decisions/index.json": {
            "decisions": [_index_entry("D-001", ".agent/decisions/D-001.json", updated_at=written)]
        },
    }
    assert lint_tree(files).diagnostics == []


def test_a_value_the_record_gets_wrong_is_the_records_finding_alone(lint_tree):
    """A status typo in the decision (AL104): the index that has it right is not blamed."""
    files = {
        "decisions/D-001.json": decision(status="opne"),
        "decisions/index.json": {
            "decisions": [_index_entry("D-001", ".agent/decisions/D-001.json", status="open")]
        },
    }
    found = [(d.code, d.path) for d in lint_tree(files).diagnostics]
    assert found == [("AL104", ".agent/decisions/D-001.json")]


def _waitpoint_listed(written: str, listed: str) -> dict:
    entry = {
        "waitpoint_id": "WP-001",
        "path": ".agent/waitpoints/WP-001.json",
        "status": "pending",
        "owner_workflow": "/mission",
        "gate_action": "architecture",
        "resource_ref": "proposal:docs/design.md",
        "decision_id": listed,
        "updated_at": "2026-11-02T10:00:00Z",
    }
    return {
        "decisions/D-004.json": decision(decision_id="D-004"),
        "waitpoints/WP-001.json": waitpoint(decision_id=written),
        "waitpoints/index.json": {"waitpoints": [entry]},
    }


def test_an_id_mistyped_in_a_record_its_index_has_right_is_one_finding(lint_tree):
    found = lint_tree(_waitpoint_listed("D-0004", "D-004")).diagnostics
    assert [(d.code, d.path, d.pointer) for d in found] == [
        ("AL301", ".agent/waitpoints/WP-001.json", "/decision_id")
    ]
    assert found[0].message.endswith('did you mean "D-004"?')
    # Mistyped in the index instead: the index entry disagrees with its record.
    [wrong] = lint_tree(_waitpoint_listed("D-004", "D-0004")).diagnostics
    assert (wrong.code, wrong.path, wrong.pointer) == (
        "AL305", ".agent/waitpoints/index.json", "/waitpoints/0/decision_id"
    )  # fmt: skip
    # Both name nothing: each is wrong on its own.
    both = lint_tree(_waitpoint_listed("D-0004", "D-0005")).diagnostics
    assert sorted(d.code for d in both) == ["AL301", "AL305"]


def test_an_index_disagreement_stands_when_the_records_typo_is_not_reported(lint_tree):
    config = '[per-file-ignores]\n"*/WP-001.json" = ["AL301"]\n'
    found = lint_tree(_waitpoint_listed("D-0004", "D-004"), config=config).diagnostics
    assert [d.code for d in found] == ["AL305"]


def test_record_missing_from_index(lint_tree):
    files = {
        "decisions/D-001.json": decision(),
        "decisions/D-002.json": decision(decision_id="D-002"),
        "decisions/index.json": {
            "decisions": [_index_entry("D-001", ".agent/decisions/D-001.json")]
        },
    }
    [d] = lint_tree(files).diagnostics
    assert (
        d.code == "AL306"
        and d.message == ".agent/decisions/D-002.json (D-002) is not listed in this index"
    )


def test_a_malformed_index_is_its_own_finding_not_one_per_record_it_omits(lint_tree):
    records = {
        "decisions/D-001.json": decision(),
        "decisions/D-002.json": decision(decision_id="D-002"),
    }
    entry = _index_entry("D-001", ".agent/decisions/D-001.json")
    misspelled = lint_tree({**records, "decisions/index.json": {"decision": [entry]}})
    assert codes(misspelled) == ["AL102"]
    malformed = lint_tree(
        {**records, "decisions/index.json": {"decisions": [entry, {"D-002": "x"}]}}
    )
    assert "AL306" not in codes(malformed) and "AL101" in codes(malformed)


def test_no_index_no_listing_requirement(lint_tree):
    assert lint_tree({"decisions/D-001.json": decision()}).diagnostics == []


def test_unresolved_decision(lint_tree):
    record = decision(status="approved", selected_option="postgresql", resolved_by="me")
    del record["resolved_at"]
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL308" and '"resolved_at"' in d.message


def test_selected_option_must_be_offered(lint_tree):
    record = decision(
        status="approved",
        selected_option="postgres",
        resolved_by="me",
        resolved_at="2026-11-02T10:00:00Z",
    )
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL309" and 'did you mean "postgresql"' in d.message


def test_options_written_as_objects_are_chosen_by_id(lint_tree):
    """{"id", "label"} options are the schema's AL103; the selected option is judged
    against their ids, as the runtime resolves it, not reported again as not offered."""
    resolved = dict(status="approved", resolved_by="me", resolved_at="2026-11-02T10:00:00Z")
    options = [{"id": "redis", "label": "Redis"}, {"id": "none", "label": "No cache"}]
    record = decision(options=options, selected_option="redis", **resolved)
    assert [d.code for d in lint_tree({"decisions/D-001.json": record}).diagnostics] == ["AL103"]
    record = decision(options=options, selected_option="memcached", **resolved)
    found = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert [d.code for d in found] == ["AL103", "AL309"]
    assert found[1].message.endswith("is not one of the options redis, none")
    record = decision(options=[1, 2], selected_option="x", **resolved)
    assert [d.code for d in lint_tree({"decisions/D-001.json": record}).diagnostics] == ["AL103"]


def test_supersession_cycle(lint_tree):
    def superseded(did, by):
        return decision(
            decision_id=did,
            status="superseded",
            resolved_by="me",
            resolved_at="2026-11-02T10:00:00Z",
            superseded_by_decision_id=by,
        )

    files = {
        "decisions/D-001.json": superseded("D-001", "D-002"),
        "decisions/D-002.json": superseded("D-002", "D-003"),
        "decisions/D-003.json": superseded("D-003", "D-001"),
    }
    [d] = lint_tree(files).diagnostics
    assert d.code == "AL310" and d.message == "supersession cycle: D-001 -> D-002 -> D-003 -> D-001"
    assert d.path.endswith("D-001.json")


def test_milestone_cycle_reported_once_per_component(lint_tree):
    record = mission()
    record["milestones"] = [
        {
            "milestone_id": "MS-001",
            "title": "a",
            "status": "planned",
            "depends_on": ["MS-002", "MS-003"],
        },
        {"milestone_id": "MS-002", "title": "b", "status": "planned", "depends_on": ["MS-001"]},
        {"milestone_id": "MS-003", "title": "c", "status": "planned", "depends_on": ["MS-001"]},
        {"milestone_id": "MS-004", "title": "d", "status": "planned", "depends_on": ["MS-004"]},
    ]
    found = lint_tree({"missions/M-001/mission.json": record}).diagnostics
    assert [d.message for d in found] == [
        "milestone dependency cycle: MS-001 -> MS-002 -> MS-001",
        "milestone dependency cycle: MS-004 -> MS-004",
    ]
    assert {d.code for d in found} == {"AL311"}


def test_a_repeated_milestone_id_is_its_al203_alone_not_a_cycle(lint_tree):
    """The third milestone mistyped as MS-001: the first MS-001 stands, so MS-002's
    dependency on it makes no cycle through the copy's depends_on."""
    record = mission()
    record["milestones"] = [
        {"milestone_id": "MS-001", "title": "a", "status": "passed", "depends_on": []},
        {"milestone_id": "MS-002", "title": "b", "status": "planned", "depends_on": ["MS-001"]},
        {"milestone_id": "MS-001", "title": "c", "status": "planned", "depends_on": ["MS-002"]},
    ]
    found = lint_tree({"missions/M-001/mission.json": record}).diagnostics
    assert [(d.code, d.pointer) for d in found] == [("AL203", "/milestones/2/milestone_id")]


def test_memory_folder(lint_tree):
    memory = {
        "schema_version": 1,
        "memory_id": "MEM-1",
        "type": "semantic",
        "content": "x",
        "created_at": "2026-11-02T10:00:00Z",
    }
    [d] = lint_tree({"memory/episodic/MEM-1.json": memory}).diagnostics
    assert d.code == "AL312" and "expected memory/semantic/" in d.message


def test_timestamp_order(lint_tree):
    record = decision(updated_at="2026-11-02T09:59:59+00:00")
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert (d.code, d.pointer) == ("AL313", "/updated_at")
    offset = decision(created_at="2026-11-02T12:00:00+02:00", updated_at="2026-11-02T10:30:00Z")
    assert lint_tree({"decisions/D-001.json": offset}).diagnostics == []


def test_markdown_links_and_anchors(lint_tree, tmp_path):
    (tmp_path / "repo" / "docs").mkdir(parents=True)
    (tmp_path / "repo" / "docs" / "design.md").write_text("# Design\n\n## Retry Policy (v2)\n")
    note = (
        "# Summary\n\n## Current state\n\n"
        "[ok](../../../docs/design.md#retry-policy-v2) [self](#current-state) "
        "[web](https://example.com/x) [root](/docs/design.md) "
        "[source](../../../docs/design.md?plain=1#L3)\n"
        "[gone](../../../docs/gone.md) [bad anchor](../../../docs/design.md#retry)\n"
        "[out](../../../../x.md)\n"
        "```\n[in code](nowhere.md) D-999\n```\n"
        "`[inline](nowhere.md)`\n"
        "[ref]: missing.md\n"
    )
    result = lint_tree({"conversations/C-1/summary.md": note})
    found = [(d.code, d.line, d.column) for d in result.diagnostics]
    assert found == [("AL314", 6, 8), ("AL314", 6, 44), ("AL303", 7, 7), ("AL314", 12, 8)]


def test_ids_in_notes(lint_tree):
    files = {
        "decisions/D-001.json": decision(),
        "conversations/C-1/handoffs/H-001.json": "{",
        "conversations/C-1/summary.md": (
            "Decided in D-001 and D-001-storage; see D-0O1 and H-001, H-002.\n"
            "C-level words are not ids. `D-777` is code.\n"
        ),
        "missions/M-001/notes.md": "H-009 is not checked outside conversations.\n",
    }
    found = only(lint_tree(files))
    assert [(d.code, d.column, d.message) for d in found] == [
        ("AL315", 41, '"D-0O1" does not name an existing decision; did you mean "D-001"?'),
        (
            "AL315",
            58,
            '"H-002" does not name an existing conversation handoff in conversation C-1',
        ),
    ]


def test_relations_agree_with_meta(lint_tree):
    files = {
        "conversations/C-1/meta.json": conversation(
            relations={"mission_ids": ["M-1"], "task_ids": []}
        ),
        "conversations/C-1/relations.yaml": "mission_ids: [M-1, M-2]\nconversation_ids: []\n",
    }
    [d] = only(lint_tree(files))
    assert d.code == "AL316"
    assert d.message.startswith("relations.yaml mission_ids lists M-2, which meta.json")
    assert (d.line, d.column) == (1, 14)


@pytest.mark.parametrize("meta", ['{"conversation_id": "C-1",', b"\xff\xfe"])
def test_relations_are_not_compared_with_a_meta_json_that_did_not_parse(lint_tree, meta):
    """One fact, one finding: the broken meta.json is reported, not a relations mismatch."""
    files = {
        "conversations/C-1/meta.json": meta,
        "conversations/C-1/relations.yaml": "mission_ids: [M-1]\nconversation_ids: []\n",
    }
    assert [d.code for d in lint_tree(files).diagnostics] in (["AL001"], ["AL004"])


def test_released_waitpoint_names_an_existing_decision(lint_tree):
    waitpoint = {
        "schema_version": 1,
        "waitpoint_id": "WP-001",
        "status": "released",
        "owner_workflow": "/approve",
        "reason": "gate",
        "gate": {"action": "merge", "resource_ref": "proposal:x"},
        "decision_id": "D-404",
        "evidence_refs": [".agent/decisions/D-001.json"],
        "released_by": "/approve",
        "released_at": "2026-11-02T10:00:00Z",
        "created_at": "2026-11-02T10:00:00Z",
        "updated_at": "2026-11-02T10:00:00Z",
    }
    files = {"decisions/D-001.json": decision(), "waitpoints/WP-001.json": waitpoint}
    [d] = lint_tree(files).diagnostics
    assert d.code == "AL301" and d.message.startswith('decision_id "D-404" does not name')


def test_superseded_decision_names_an_existing_successor(lint_tree):
    record = decision(
        status="superseded",
        resolved_by="me",
        resolved_at="2026-11-02T10:00:00Z",
        superseded_by_decision_id="D-002",
    )
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL301" and d.pointer == "/superseded_by_decision_id"


def test_current_milestone_must_be_a_milestone_of_the_mission(lint_tree):
    [d] = lint_tree(
        {"missions/M-001/mission.json": mission(current_milestone_id="MS-007")}
    ).diagnostics
    assert d.code == "AL301" and d.pointer == "/current_milestone_id"


def test_record_paths_of_a_store_kept_deeper_by_agent_dir_name_it_from_its_folder(tmp_path):
    """``agent-dir = "services/pay/.agent"``: ``.agent/…`` paths its writers wrote from
    ``services/pay`` resolve there, as a run on ``services/pay`` resolves them."""
    repo = tmp_path / "mono"
    shutil.copytree(FIXTURES / "valid", repo / "services/pay")
    (repo / ".agent-lint.toml").write_text('agent-dir = "services/pay/.agent"\n')
    (repo / "docs").symlink_to(repo / "services/pay/docs")  # non-.agent paths: root-relative
    result = lint_paths([repo], cache=None)
    assert [d.code for d in result.diagnostics] == []
    assert result.files_checked == lint_paths([repo / "services/pay"]).files_checked
    meta = repo / "services/pay/.agent/conversations/C-onboarding/meta.json"
    meta.write_text(meta.read_text().replace("/summary.md", "/gone.md", 1))
    [gone] = lint_paths([repo]).diagnostics
    assert gone.code == "AL302" and ".agent/conversations/C-onboarding/gone.md" in gone.message


def test_a_path_suggestion_is_made_only_when_one_file_is_nearest(lint_tree):
    """A missing path whose file name many folders hold (README.md) gets no guess; the one
    nearest (sharing the most folders) is still suggested."""
    readmes = {f"memory/{kind}/README.md": "# notes\n" for kind in ("user", "project", "team")}
    lists = ("task_ids", "mission_ids", "run_ids", "queue_ids", "session_ids", "worktree_paths")
    relations: dict[str, list[str]] = {name: [] for name in lists}
    record = decision(relations={**relations, "artifact_refs": ["docs/README.md"]})
    [d] = lint_tree({**readmes, "decisions/D-001.json": record}).diagnostics
    assert d.code == "AL302" and "did you mean" not in d.message
    nearer = [".agent/memory/team/x/README.md"]
    record = decision(relations={**relations, "artifact_refs": nearer})
    [d] = lint_tree({**readmes, "decisions/D-001.json": record}).diagnostics
    assert d.message.endswith('did you mean ".agent/memory/team/README.md"?')
