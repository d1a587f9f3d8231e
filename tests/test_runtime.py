"""What the upstream runtime writes is valid: its fields, its folders, Mission Lite."""

from __future__ import annotations

import pytest
from conftest import SHARED, codes
from records import decision, handoff, run, waitpoint

from agent_lint.cli import main

WORKSPACE = SHARED / "reference" / "cortex-agent" / "runtime-workspace"


@pytest.mark.skipif(not WORKSPACE.is_dir(), reason="../shared is not present")
def test_runtime_workspace_has_only_the_defended_findings(capsys):
    """docs/real-world.md defends each of these; anything else is a false positive."""
    assert main([str(WORKSPACE), "--no-color", "--output-format", "json"]) == 1
    import json

    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [(d["code"], d["severity"], d["path"]) for d in found] == [
        ("AL205", "error", ".agent/decisions/approve:release-1.2.json"),
        ("AL704", "warning", ".agent/decisions/approve:release-1.2.json"),
        ("AL105", "error", ".agent/decisions/index.json"),
    ]
    # One fact, one finding: the name is not a decision's (AL205); Windows refuses the
    # colon (AL704, a warning, since a team without Windows machines may ignore it).
    assert "Windows" not in found[0]["message"] and "D-<id>.json" in found[0]["message"]
    assert "cannot be checked out on Windows" in found[1]["message"]


@pytest.mark.skipif(not WORKSPACE.is_dir(), reason="../shared is not present")
def test_the_workspace_committed_as_its_own_repository_has_the_same_findings(tmp_path, capsys):
    """The runtime names files `.agent/...`; with the agent dir as the root, they resolve."""
    import shutil

    root = tmp_path / "store"
    shutil.copytree(WORKSPACE / ".agent", root)
    (root / ".git").mkdir()
    assert main([str(root), "--no-color", "--output-format", "json", "--no-cache"]) == 1
    import json

    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [(d["code"], d["path"]) for d in found] == [
        ("AL205", "decisions/approve:release-1.2.json"),
        ("AL704", "decisions/approve:release-1.2.json"),
        ("AL105", "decisions/index.json"),
    ]


def test_a_store_at_the_root_resolves_the_paths_writers_name_from_above_it(tmp_path):
    from conftest import write_tree

    from agent_lint.linter import lint_paths

    root = tmp_path / "store"
    ref = {"evidence_refs": [".agent/waitpoints/evidence.md"]}
    write_tree(root, {"waitpoints/WP-001.json": waitpoint(**ref), "waitpoints/evidence.md": "E\n"})
    (root / ".git").mkdir()
    assert lint_paths([root]).diagnostics == []
    (root / "waitpoints/evidence.md").unlink()
    [missing] = lint_paths([root]).diagnostics
    assert missing.code == "AL302" and missing.message.startswith(
        'evidence_refs[] "waitpoints/evidence.md" (from ".agent/waitpoints/evidence.md")'
    )


@pytest.mark.skipif(not WORKSPACE.is_dir(), reason="../shared is not present")
def test_real_world_page_shows_the_workspace_output(capsys):
    """docs/real-world.md quotes the output it defends, exactly."""
    import re

    from conftest import REPO

    page = (REPO / "docs" / "real-world.md").read_text(encoding="utf-8")
    block = re.search(r"## 1\..*?```text\n(.*?)```", page, re.DOTALL)
    assert block is not None
    main([str(WORKSPACE), "--no-color"])
    assert capsys.readouterr().out == block.group(1)


def test_workflow_gate_is_a_runtime_field(lint_tree):
    files = {
        "decisions/D-001.json": decision(workflow_gate="agent"),
        "waitpoints/WP-001.json": waitpoint(workflow_gate="mission"),
    }
    assert lint_tree(files).diagnostics == []
    [d] = lint_tree({"decisions/D-001.json": decision(workflow_gate="robot")}).diagnostics
    assert d.code == "AL104" and d.pointer == "/workflow_gate"


def test_inbox_index_sender_and_waitpoint_index_without_gate(lint_tree):
    files = {
        "waitpoints/WP-001.json": waitpoint(),
        "waitpoints/index.json": {
            "waitpoints": [
                {
                    "waitpoint_id": "WP-001",
                    "path": ".agent/waitpoints/WP-001.json",
                    "status": "pending",
                    "owner_workflow": "/mission",
                    "updated_at": "2026-11-02T10:00:00Z",
                }
            ]
        },
        "inbox/index.json": {"messages": []},
    }
    assert lint_tree(files).diagnostics == []
    strict = lint_tree(files, strict=True).diagnostics
    assert [(d.code, d.message) for d in strict] == [
        ("AL101", 'missing required field "gate_action" (strict) in waitpoints[0]'),
        ("AL101", 'missing required field "resource_ref" (strict) in waitpoints[0]'),
    ]
    sender = {
        "message_id": "IM-1",
        "path": ".agent/inbox/IM-1.json",
        "type": "information",
        "status": "unread",
        "sender_id": "cortex",
        "updated_at": "2026-11-02T10:00:00Z",
    }
    found = lint_tree({"inbox/index.json": {"messages": [sender]}, **files}, partial=True)
    assert "AL102" not in codes(found)


def test_run_extra_fields_are_reported_only_when_strict(lint_tree):
    files = {"runs/R-1.json": run(tokens={"input": 3})}
    assert lint_tree(files).diagnostics == []
    [d] = lint_tree(files, strict=True).diagnostics
    assert d.code == "AL102" and '"tokens"' in d.message


def test_schema_files_and_samples_are_not_records(lint_tree):
    files = {
        "tasks/task.schema.json": {"type": "object", "required": ["task_id"]},
        "tasks/index.schema.json": {"type": "object"},
        "decisions/sample.json": {"decision_id": "D-sample"},
        "decisions/D-001.json": decision(),
    }
    result = lint_tree(files)
    assert result.diagnostics == []
    shown = dict(result.files)
    assert shown[".agent/tasks/task.schema.json"] == "not a record: a JSON Schema"
    assert shown[".agent/decisions/sample.json"].startswith("not a record: a sample")


def test_empty_unmaintained_index_does_not_list_every_record(lint_tree):
    files = {"runs/R-1.json": run(), "runs/index.json": {"runs": []}}
    assert lint_tree(files).diagnostics == []
    [d] = lint_tree(files, strict=True).diagnostics
    assert d.code == "AL306" and "R-1" in d.message
    listed = {
        "run_id": "R-2",
        "path": ".agent/runs/R-2.json",
        "kind": "implement",
        "status": "running",
        "updated_at": "2026-11-02T10:00:00Z",
    }
    files = {**files, "runs/R-2.json": run(run_id="R-2"), "runs/index.json": {"runs": [listed]}}
    assert codes(lint_tree(files)) == ["AL306"]  # someone maintains it: R-1 is missing


def test_gate_resource_ref_is_a_path_only_when_strict(lint_tree):
    gated = decision(gate={"action": "release", "resource_ref": "docs/x.md"})
    assert lint_tree({"decisions/D-001.json": gated}).diagnostics == []
    [d] = lint_tree({"decisions/D-001.json": gated}, strict=True).diagnostics
    assert d.code == "AL302" and "gate.resource_ref" in d.message


def test_kind_folder_without_records_keeps_no_records(lint_tree):
    files = {"runs/R-1.json": run(task_id="T-1"), "tasks/index.json": {"tasks": []}}
    assert lint_tree(files).diagnostics == []
    config = "strict-references = true\n"
    [d] = lint_tree(files, config=config).diagnostics
    assert d.code == "AL301" and "keeps no task records" in d.message


MISSION_PLAN = """# M-003 Event bus

Milestones: [MS-001](milestones/MS-001.md). Follows M-003's proposal; see also M-002.

| # | deviation |
|---|---|
| D-1 | kept the old writer |
| D-2 | split the commit |

Decisions D-FAE-002-1 to D-FAE-002-5 were all taken as proposed (D-FAE-002-4: retry 3 times).
"""


def _mission_lite() -> dict[str, object]:
    return {
        "missions/M-003/mission-plan.md": MISSION_PLAN,
        "missions/M-003/milestones/MS-001.md": "# MS-001\n",
        "missions/M-003/command-log.md": "| time | command | exit |\n",
        "missions/M-003/validation-contract.json": {
            "type": "validation_contract",
            "mission_id": "M-003",
            "scope": {"feature": "event-bus"},
            "assertions": [
                {"id": "VC-001", "type": "test", "assertion": "tests pass", "blocking": True}
            ],
        },
        "missions/M-003/handoffs/H-20260804-200000-ms-001-done.json": handoff(
            "H-20260804-200000-ms-001-done", "2026-08-04T20:00:00+08:00", mission_id="M-003"
        ),
        "missions/M-003/handoffs/20260804-200000-ms-001-done.md": "# MS-001 done for M-003\n",
        "decisions/D-001.json": decision(),
    }


def test_mission_lite_folder_is_the_mission(lint_tree):
    result = lint_tree(_mission_lite())
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("AL315", '"M-002" does not name an existing mission'),
    ]
    shown = dict(result.files)
    assert shown[".agent/missions/M-003/validation-contract.json"] == "validation contract"
    assert (
        shown[".agent/missions/M-003/handoffs/H-20260804-200000-ms-001-done.json"]
        == "mission handoff"
    )
    assert shown[".agent/missions/M-003/handoffs/20260804-200000-ms-001-done.md"] == "handoff note"


def test_runtime_handoff_names(lint_tree):
    files = _mission_lite()
    bare = "missions/M-003/handoffs/20260805-090000-ms-002.json"
    files[bare] = handoff("H-M003-MS002-001", "2026-08-05T09:00:00Z", mission_id="M-004")
    found = [(d.code, d.message) for d in lint_tree(files).diagnostics if d.code != "AL315"]
    # The runtime never ties a time-named handoff's id to its file name; strict mode does.
    # Naming another mission, which does not exist, is one fact: AL415 (not also AL301).
    assert sorted(found) == [
        ("AL408", "20260805-090000-ms-002.json has no note 20260805-090000-ms-002.md beside it"),
        ("AL415", 'mission_id "M-004" but the handoff is stored under missions/M-003/'),
    ]
    [strict] = [d for d in lint_tree(files, strict=True).diagnostics if d.code == "AL202"]
    assert strict.message == (
        'handoff_id "H-M003-MS002-001" does not match its file name '
        '20260805-090000-ms-002.json (expected handoff_id "H-20260805-090000-ms-002")'
    )


def test_handoff_time_in_any_offset(lint_tree):
    files = _mission_lite()  # 20:00 in +08:00 is 12:00 UTC; the name has the local time
    assert "AL413" not in codes(lint_tree(files))
    [d] = [d for d in lint_tree(files, strict=True).diagnostics if d.code == "AL413"]
    assert d.message == (
        "handoff name time 20260804-200000 but produced_at 2026-08-04T20:00:00+08:00 is "
        "20260804-120000 in UTC"
    )
    name = "missions/M-003/handoffs/H-20260804-200000-ms-001-done.json"
    files[name] = {**files[name], "produced_at": "2026-08-04T21:00:00+08:00"}
    [d] = [d for d in lint_tree(files).diagnostics if d.code == "AL413"]
    assert d.message.endswith("is 20260804-130000 in UTC and 20260804-210000 in its own offset")


def test_handoff_time_whose_utc_is_out_of_range(lint_tree):
    """A produced_at whose UTC time falls before year 1 is named by its own offset's time,
    and the message does not call that time UTC."""
    files = _mission_lite()
    name = "missions/M-003/handoffs/H-20260804-200000-ms-001-done.json"
    files[name] = {**files[name], "produced_at": "0001-01-01T00:00:00+01:00"}
    [d] = [d for d in lint_tree(files).diagnostics if d.code == "AL413"]
    assert d.message == (
        "handoff name time 20260804-200000 but produced_at 0001-01-01T00:00:00+01:00 is "
        "00010101-000000 in its own offset (its UTC time is outside the years 1-9999)"
    )
    [strict] = [d for d in lint_tree(files, strict=True).diagnostics if d.code == "AL413"]
    assert strict.message == d.message


def test_validation_contract_shapes(lint_tree):
    milestone_map = {
        "schema_version": 1,
        "mission_id": "M-003",
        "milestones": {
            "MS-001": {
                "goal": "g",
                "assertions": [
                    {
                        "id": "VC-001",
                        "type": "contract",
                        "blocking": True,
                        "description": "d",
                        "command": "node --test",
                        "expected": "exit 0",
                    }
                ],
            }
        },
    }
    materialised = {
        "schema_version": 2,
        "mission_id": "M-003",
        "proposal_hash": "0123456789abcdef",
        "generated_at": "2026-08-01T00:00:00Z",
        "states": {"current": "planned", "transitions": ["in_progress", "blocked", "done"]},
        "milestones": [{"id": "MS-001", "title": "Implementation"}],
        "gates": [{"id": "review", "type": "manual"}],
    }
    for contract in (milestone_map, materialised):
        files = {**_mission_lite(), "missions/M-003/validation-contract.json": contract}
        assert [d.code for d in lint_tree(files).diagnostics] == ["AL315"]
    broken = {**milestone_map, "mission_id": "M-009", "owner": "x"}
    broken["milestones"]["MS-001"]["assertions"][0].pop("blocking")
    files = {**_mission_lite(), "missions/M-003/validation-contract.json": broken}
    found = sorted(codes(lint_tree(files)))
    assert found == ["AL101", "AL102", "AL315", "AL415"]  # M-009 is AL415 alone


def test_artifact_bus_state(lint_tree):
    state = {
        "task_id": "T-9",
        "updated_at": "2026-08-01T00:00:00Z",
        "latest_seq": 1,
        "latest_artifact": ".agent/artifacts/T-9/001-plan.json",
        "artifacts": [{"seq": 1, "kind": "plan", "path": ".agent/artifacts/T-9/001-plan.json"}],
    }
    files = {
        "decisions/D-001.json": decision(),
        "artifacts/T-9/state.json": state,
        "artifacts/T-9/001-plan.json": {"artifact_id": "T-9-001-plan"},
    }
    assert lint_tree(files).diagnostics == []
    files["artifacts/T-8/state.json"] = {**state, "latest_seq": "1"}
    found = [(d.code, d.path) for d in lint_tree(files).diagnostics]
    assert found == [
        ("AL202", ".agent/artifacts/T-8/state.json"),
        ("AL103", ".agent/artifacts/T-8/state.json"),
    ]
