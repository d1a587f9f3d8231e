"""Bad input gets findings, never a crash: odd values in every kind of file."""

from __future__ import annotations

import json
import random

import pytest

from agent_lint.cli import main

PATHS = [
    "conversations/C-1/meta.json",
    "conversations/C-1/handoffs/H-001.json",
    "conversations/C-1/handoffs/H-002.json",
    "conversations/C-1/handoffs/state.json",
    "conversations/C-1/turns/0001.yaml",
    "conversations/C-1/turn_resumed.yaml",
    "conversations/C-1/relations.yaml",
    "conversations/C-1/summary.md",
    "handoffs/H-20261103-120000-x.json",
    "missions/M-1/mission.json",
    "missions/M-1/handoffs/H-20261103-120000-y.json",
    "decisions/D-1.json",
    "decisions/index.json",
    "waitpoints/WP-1.json",
    "waitpoints/index.json",
    "inbox/IM-1.json",
    "inbox/index.json",
    "memory/semantic/MEM-1.json",
    "runs/R-1.json",
    "runs/index.json",
    "sessions/S-1.json",
    "tasks/T-1.json",
    "tasks/index.json",
    "agents/a.json",
    "subagents/a/session-ref.json",
]
FIELDS = [
    "decision_id", "handoff_id", "conversation_id", "status", "options", "selected_option",
    "superseded_by_decision_id", "milestones", "depends_on", "handoffs", "active_agent",
    "context_pointer", "from_agent", "to_agent", "timestamp", "checksum", "turn", "decisions",
    "waitpoints", "messages", "runs", "tasks", "path", "relations", "state", "created_at",
    "updated_at", "mission_id", "file", "latest_turn", "produced_at", "type", "summary_ref",
]  # fmt: skip


def odd_value(rng: random.Random, depth: int = 0) -> object:
    choices = [
        None, True, 0, -1, 2**64, 1.5, "", "D-1", "H-001", "../../etc/passwd", "/abs",
        "2026-13-45T99:99:99Z", "\ud800", "x" * 300, "sha256:" + "0" * 64, "[D-1](#x)",
    ]  # fmt: skip
    if depth < 3:
        choices += [
            [odd_value(rng, depth + 1) for _ in range(rng.randint(0, 3))],
            {rng.choice(FIELDS): odd_value(rng, depth + 1) for _ in range(rng.randint(0, 4))},
        ]
    return rng.choice(choices)


@pytest.mark.parametrize("seed", range(12))
def test_random_records_never_crash(tmp_path, capsys, seed):
    rng = random.Random(seed)
    agent = tmp_path / "repo" / ".agent"
    for rel in PATHS:
        path = agent / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {field: odd_value(rng) for field in rng.sample(FIELDS, rng.randint(0, 12))}
        if rel.endswith(".md"):
            text = "# t\n" + " ".join(str(v) for v in record.values())
        elif rel.endswith(".yaml"):
            text = json.dumps(record)  # JSON is YAML
        else:
            text = json.dumps(record if rng.random() < 0.9 else odd_value(rng))
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    summary = tmp_path / "summary.md"
    outputs = (
        ["--output-format", "sarif"],
        ["--output-format", "github", "--summary-file", str(summary)],
    )
    for args in ([], ["--fix", "--unsafe-fixes"], *outputs):
        code = main([str(tmp_path / "repo"), "--quiet", *args])
        err = capsys.readouterr().err
        assert code in (0, 1), err
        assert "internal error" not in err
