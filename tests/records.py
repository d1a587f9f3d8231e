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
