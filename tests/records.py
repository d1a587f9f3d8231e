"""Minimal valid records of each kind, for per-check tests."""

from __future__ import annotations

import copy
from typing import Any

STAMP = "2026-11-02T10:00:00Z"

DECISION: dict[str, Any] = {
    "schema_version": 1,
    "decision_id": "D-001",
    "type": "architecture",
    "status": "open",
    "requested_by": "cortex-main",
    "prompt": "Which storage engine?",
    "options": ["postgresql", "sqlite"],
    "selected_option": None,
    "resolved_by": None,
    "resolved_at": None,
    "gate": {"action": "architecture", "resource_ref": "proposal:docs/design.md"},
    "created_at": STAMP,
    "updated_at": STAMP,
}

MISSION: dict[str, Any] = {
    "schema_version": 1,
    "mission_id": "M-001",
    "title": "Refactor",
    "status": "active",
    "current_milestone_id": "MS-001",
    "milestones": [
        {"milestone_id": "MS-001", "title": "First", "status": "in_progress"},
        {
            "milestone_id": "MS-002",
            "title": "Second",
            "status": "planned",
            "depends_on": ["MS-001"],
        },
    ],
    "created_at": STAMP,
    "updated_at": STAMP,
}

CONVERSATION: dict[str, Any] = {
    "schema_version": 1,
    "conversation_id": "C-1",
    "created_at": STAMP,
    "updated_at": STAMP,
}


def decision(**changes: Any) -> dict[str, Any]:
    """A valid open decision with ``changes`` applied."""
    record = copy.deepcopy(DECISION)
    record.update(changes)
    return record


def mission(**changes: Any) -> dict[str, Any]:
    """A valid mission with ``changes`` applied."""
    record = copy.deepcopy(MISSION)
    record.update(changes)
    return record


def conversation(**changes: Any) -> dict[str, Any]:
    """A valid minimal conversation meta.json with ``changes`` applied."""
    record = copy.deepcopy(CONVERSATION)
    record.update(changes)
    return record


def handoff(handoff_id: str, produced_at: str = STAMP, **changes: Any) -> dict[str, Any]:
    """A valid project or mission handoff (the runtime's handoff payload)."""
    record: dict[str, Any] = {
        "handoff_id": handoff_id,
        "mode": "AGENT_RESUME",
        "from": {"agent_id": "a", "model": "m"},
        "to": {"role": "r", "model_pref": [], "required_capabilities": []},
        "task_id": "T-1",
        "task_progress": {
            "current_step": "s",
            "completed_steps": [],
            "in_progress": "",
            "remaining_steps": [],
        },
        "artifacts": {
            "completed": [],
            "context_snapshot_ref": "https://x",
            "markdown_ref": "https://y",
        },
        "next_action": "go",
        "constraints": [],
        "verification": {"commands_run": [], "commands_needed": [], "known_failures": []},
        "produced_at": produced_at,
    }
    record.update(changes)
    return record


def waitpoint(**changes: Any) -> dict[str, Any]:
    """A valid pending waitpoint with ``changes`` applied."""
    record: dict[str, Any] = {
        "schema_version": 1,
        "waitpoint_id": "WP-001",
        "status": "pending",
        "owner_workflow": "/mission",
        "reason": "needs approval",
        "gate": {"action": "architecture", "resource_ref": "proposal:docs/design.md"},
        "created_at": STAMP,
        "updated_at": STAMP,
    }
    record.update(changes)
    return record


def run(**changes: Any) -> dict[str, Any]:
    """A run record as the runtime's writer leaves it."""
    record: dict[str, Any] = {
        "run_id": "R-1",
        "task_id": None,
        "mission_id": None,
        "kind": "implement",
        "status": "running",
        "started_at": STAMP,
        "updated_at": STAMP,
        "events": [],
        "commands": [],
        "artifacts": [],
    }
    record.update(changes)
    return record
