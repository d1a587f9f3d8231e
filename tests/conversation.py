"""A small, fully consistent conversation to mutate in ordering and agreement tests."""

from __future__ import annotations

import copy
import json
from typing import Any

from agent_lint.profiles.cortex.checksum import compute

AGENTS = [("codex", "codex-main"), ("claude-code", "claude-main"), ("cortex", "cortex-main")]


def handoff(number: int, last_turn: int) -> dict[str, Any]:
    """Handoff H-<number> from agent number-1 to agent number (cycling), with its checksum."""
    source, target = AGENTS[(number - 1) % 3], AGENTS[number % 3]
    record: dict[str, Any] = {
        "handoff_id": f"H-{number:03d}",
        "conversation_id": "C-1",
        "timestamp": f"2026-11-0{number}T10:00:00Z",
        "from_agent": {"type": source[0], "agent_id": source[1], "last_turn": last_turn},
        "to_agent": {"type": target[0], "agent_id": target[1], "target_session": None},
        "reason": "explicit",
        "context_pointer": {
            "latest_turn": last_turn,
            "active_missions": [],
            "pending_decisions": [],
        },
        "checksum": "",
    }
    record["checksum"] = compute(record)
    return record


def tree(handoffs: int = 2, turns: int = 4) -> dict[str, Any]:
    """Files of conversation C-1 (paths relative to the agent dir)."""
    files: dict[str, Any] = {}
    records = [handoff(n, min(2 * n, turns)) for n in range(1, handoffs + 1)]
    for record in records:
        files[f"conversations/C-1/handoffs/{record['handoff_id']}.json"] = record
        files[f"conversations/C-1/handoffs/{record['handoff_id']}.md"] = "# note\n"
    for n in range(1, turns + 1):
        files[f"conversations/C-1/turns/{n:04d}.yaml"] = (
            f"turn: {n}\ntimestamp: 2026-11-0{min(n, 9)}T09:00:00Z\n"
        )
    if records:
        last = records[-1]
        active = {
            "type": last["to_agent"]["type"],
            "agent_id": last["to_agent"]["agent_id"],
            "session_id": None,
        }
        files["conversations/C-1/handoffs/state.json"] = {
            "conversation_id": "C-1",
            "latest_handoff_id": last["handoff_id"],
            "active_agent": active,
            "latest_turn": turns,
            "checksum": last["checksum"],
            "updated_at": last["timestamp"],
        }
        files["conversations/C-1/turn_resumed.yaml"] = (
            f"handoff_id: {last['handoff_id']}\nagent_id: {active['agent_id']}\n"
            "resumed_at: 2026-11-09T10:00:00Z\n"
        )
    files["conversations/C-1/meta.json"] = {
        "schema_version": 1,
        "conversation_id": "C-1",
        "active_agent": files["conversations/C-1/handoffs/state.json"]["active_agent"]
        if records
        else None,
        "turn_count": turns,
        "handoffs": [
            {
                "handoff_id": r["handoff_id"],
                "from_agent": r["from_agent"]["agent_id"],
                "to_agent": r["to_agent"]["agent_id"],
                "timestamp": r["timestamp"],
                "reason": r["reason"],
                "checksum": r["checksum"],
            }
            for r in records
        ],
        "state": {"latest_turn": turns, "checksum": records[-1]["checksum"] if records else None},
        "created_at": "2026-11-01T09:00:00Z",
        "updated_at": "2026-11-09T10:00:00Z",
    }
    return files


def edited(files: dict[str, Any], path: str, **changes: Any) -> dict[str, Any]:
    """A copy of ``files`` with top-level ``changes`` applied to the JSON record at ``path``."""
    result = copy.deepcopy(files)
    result[path].update(changes)
    return result


def rehash(record: dict[str, Any]) -> dict[str, Any]:
    """Recompute a handoff's checksum after editing it."""
    record["checksum"] = compute(record)
    return record


def dumps(value: Any) -> str:
    """Indented JSON text."""
    return json.dumps(value, indent=2) + "\n"
