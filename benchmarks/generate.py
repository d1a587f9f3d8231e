"""Generate realistic Cortex agent-state repositories, with chosen defects.

A repository is made of *clusters*: one mission with its milestones, notes,
handoffs, validation contract and artifact bus state, a project handoff, two
conversations (meta.json, turns, handoffs with their notes, state.json,
relations, resume marker, summary), four decisions, a waitpoint, an inbox
message, three memories, a run, two sessions and two tasks, all
cross-referenced (inside the cluster and to the previous one), plus the agents,
session references, the index files and the documents records cite.
About 56 files per cluster; the number of clusters follows the requested record
(file) count, so sizes from 100 to 100,000 keep the same mix.

Everything is deterministic for a seed. With ``defects``, each family (schema
AL1xx, identity AL2xx, references AL3xx, ordering AL4xx, agreement AL5xx) gets
that many injected mistakes, each one chosen to produce exactly one finding;
:attr:`Repository.defects` lists the code and file agent-lint must report.

    python -m benchmarks.generate DEST --records 10000 [--defects 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from agent_lint.profiles.cortex.checksum import compute
from benchmarks.defects import AGENT, FAMILIES, Cluster, Defect, plan_defects, repo_path

FILES_PER_CLUSTER = 56  # on average (turns per conversation vary from 4 to 6)
SHARED_FILES = 14  # agents, session references, indexes, READMEs
EPOCH = datetime(2026, 1, 5, 8, 0, tzinfo=timezone.utc)
#: The agents every cluster works with: (agent_id, handoff type, role, model).
AGENTS = (
    ("cortex-main", "cortex", "coordinator", "cortex-large"),
    ("codex-main", "codex", "implementer", "gpt-5-codex"),
    ("claude-code-main", "claude-code", "reviewer", "claude-sonnet"),
)
TOPICS = (
    "payments",
    "ledger",
    "gateway",
    "search-index",
    "auth",
    "billing",
    "notifications",
    "export",
    "onboarding",
    "scheduler",
    "storage",
    "reporting",
)
VERBS = ("Split", "Harden", "Migrate", "Document", "Profile", "Refactor", "Release", "Review")
PHRASES = (
    "the tests pass on the branch",
    "the interface is stable now",
    "two edge cases remain open",
    "the benchmark shows no regression",
    "the reviewer asked for smaller commits",
    "the migration is reversible",
)
GATES = ("architecture", "merge", "release", "destructive", "credential", "external_side_effect")
DECISION_TYPES = ("approval", "architecture", "merge", "release", "risk")
REASONS = ("user_switched_tool", "task_complete", "timeout", "explicit", "session_archive")


def _dump_json(value: Any) -> bytes:
    return (json.dumps(value, indent=2) + "\n").encode("utf-8")


try:
    import orjson
except ImportError:  # the same bytes, a little slower
    dump_json = _dump_json
else:

    def dump_json(value: Any) -> bytes:
        """``value`` as 2-space indented JSON with a final newline (what agents write)."""
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _num(prefix: str, number: int) -> str:
    return f"{prefix}-{number:06d}"


@dataclass
class Repository:
    """A generated repository: where it is, what it holds and which findings it must produce."""

    root: Path
    records: int
    seed: int
    clusters: int = 0
    files: int = 0
    defects: list[Defect] = field(default_factory=list)
    #: Repository-relative handoff ``.json`` files, project handoffs first, then mission
    #: handoffs, then conversation handoffs (the order the ``--base`` scenario edits them).
    handoffs: list[str] = field(default_factory=list)
    #: Repository-relative ``handoffs/state.json`` files.
    states: list[str] = field(default_factory=list)

    @property
    def agent_dir(self) -> Path:
        """The generated ``.agent/`` directory."""
        return self.root / AGENT

    def expected(self) -> Counter[tuple[str, str]]:
        """The findings agent-lint must report, as a multiset of (code, path)."""
        return Counter((d.code, d.path) for d in self.defects)


#: A cluster's files (agent-dir path -> JSON value or text) and index entries (index -> entries).
Files = dict[str, Any]
Entries = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class _Ids:
    """The names of one cluster's records and files (``index`` counts from 0)."""

    index: int
    number: int
    base: datetime
    topic: str
    doc: str
    mission: str
    sessions: list[str]
    tasks: list[str]
    conversations: list[str]
    decision_ids: list[str]
    decision_files: list[str]
    memory_ids: list[str]
    run: str
    waitpoint: str
    inbox: str
    previous_decision: str | None
    project_handoff: str
    mdir: str
    plan: str
    log: str
    contract: str
    milestone_note: str

    @classmethod
    def of(cls, index: int) -> _Ids:
        """Names of cluster ``index``: ids numbered across clusters, times 3 hours apart."""
        number = index + 1
        base = EPOCH + timedelta(hours=3 * index)
        topic = TOPICS[index % len(TOPICS)]
        mission = _num("M", number)
        decisions = [_num("D", 4 * index + k) for k in range(1, 5)]
        mdir = f"missions/{mission}"
        return cls(
            index=index,
            number=number,
            base=base,
            topic=topic,
            doc=f"docs/{topic}.md",
            mission=mission,
            sessions=[_num("S", 2 * index + 1), _num("S", 2 * index + 2)],
            tasks=[_num("T", 2 * index + 1), _num("T", 2 * index + 2)],
            conversations=[_num("C", 2 * index + 1), _num("C", 2 * index + 2)],
            decision_ids=decisions,
            decision_files=[
                f"decisions/{decisions[0]}.json",
                f"decisions/{decisions[1]}-{topic}-owner.json",
                f"decisions/{decisions[2]}.json",
                f"decisions/{decisions[3]}.json",
            ],
            memory_ids=[_num("MEM", 3 * index + k) for k in range(1, 4)],
            run=_num("R", number),
            waitpoint=_num("WP", number),
            inbox=_num("IM", number),
            previous_decision=_num("D", 4 * index) if index else None,
            project_handoff=f"H-{base + timedelta(minutes=50):%Y%m%d-%H%M%S}-{topic}-release-prep",
            mdir=mdir,
            plan=f"{mdir}/mission-plan.md",
            log=f"{mdir}/command-log.md",
            contract=f"{mdir}/validation-contract.json",
            milestone_note=f"{mdir}/milestones/MS-001.md",
        )


class _Builder:
    """Builds clusters; holds the seeded random source and the shared pools."""

    def __init__(self, seed: int, clusters: int) -> None:
        self.rng = random.Random(seed)
        self.clusters = clusters

    def words(self) -> str:
        """A phrase of agent chatter."""
        return self.rng.choice(PHRASES)

    def cluster(self, index: int) -> Cluster:
        """All files of cluster ``index`` (0-based), and the index entries of its records."""
        ids = _Ids.of(index)
        files: dict[str, Any] = {}
        entries: dict[str, list[dict[str, Any]]] = {
            name: [] for name in ("decisions", "waitpoints", "inbox", "runs", "sessions", "tasks")
        }
        self._decisions(ids, files, entries)
        self._sessions_and_tasks(ids, files, entries)
        self._mission(ids, files)
        self._waitpoint_and_inbox(ids, files, entries)
        self._run(ids, files, entries)
        memories = self._memories(ids, files)
        for slot in range(len(ids.conversations)):
            self._conversation(files, ids, slot)
        return Cluster(
            files=files,
            entries=entries,
            conversations=ids.conversations,
            decisions=ids.decision_files,
            decision_ids=ids.decision_ids,
            memories=memories,
            tasks=[f"tasks/{t}.json" for t in ids.tasks],
            sessions=[f"sessions/{s}.json" for s in ids.sessions],
            mission=ids.mdir,
            inbox=f"inbox/{ids.inbox}.json",
        )

    def _decisions(
        self, ids: _Ids, files: dict[str, Any], entries: dict[str, list[dict[str, Any]]]
    ) -> None:
        """Four decisions: D1 superseded by D2 (approved), D3 open, D4 rejected."""
        rng = self.rng
        statuses = ("superseded", "approved", "open", "rejected")
        for k, (did, path, status) in enumerate(
            zip(ids.decision_ids, ids.decision_files, statuses, strict=True)
        ):
            options = [
                f"{ids.topic}-{choice}" for choice in ("keep", "split", "defer")[: 2 + k % 2]
            ]
            created = ids.base + timedelta(minutes=10 + 5 * k)
            resolved = status != "open"
            gate = rng.choice(GATES)
            resource = f"proposal:{repo_path(ids.plan)}" if k % 2 == 0 else ids.doc
            record: dict[str, Any] = {
                "schema_version": 1,
                "decision_id": did,
                "type": rng.choice(DECISION_TYPES),
                "status": status,
                "requested_by": AGENTS[0][0],
                "prompt": f"{rng.choice(VERBS)} {ids.topic}: which option? ({self.words()})",
                "options": options,
                "selected_option": options[1] if status in ("approved", "rejected") else None,
                "resolved_by": "interactive-user" if resolved else None,
                "resolved_at": _stamp(created + timedelta(minutes=3)) if resolved else None,
                "rationale": f"Recorded by the agents: {self.words()}.",
                "gate": {"action": gate, "resource_ref": resource},
                "task_id": ids.tasks[0],
                "mission_id": ids.mission,
                "superseded_by_decision_id": ids.decision_ids[1]
                if status == "superseded"
                else None,
                "created_at": _stamp(created),
                "updated_at": _stamp(created + timedelta(minutes=3 if resolved else 0)),
            }
            if k == 2:
                record["relations"] = {
                    "task_ids": [ids.tasks[0]],
                    "mission_ids": [ids.mission],
                    "run_ids": [ids.run],
                    "queue_ids": [],
                    "session_ids": [ids.sessions[0]],
                    "artifact_refs": [ids.doc],
                    "worktree_paths": [],
                }
            files[path] = record
            entries["decisions"].append(
                {
                    "decision_id": did,
                    "path": repo_path(path),
                    "type": record["type"],
                    "status": status,
                    "gate_action": gate,
                    "resource_ref": resource,
                    "updated_at": record["updated_at"],
                }
            )

    def _sessions_and_tasks(
        self, ids: _Ids, files: dict[str, Any], entries: dict[str, list[dict[str, Any]]]
    ) -> None:
        """Two sessions and two tasks."""
        for k, sid in enumerate(ids.sessions):
            agent_id, _, role, _ = AGENTS[k]
            started = ids.base + timedelta(minutes=2 + k)
            files[f"sessions/{sid}.json"] = {
                "schema_version": 1,
                "session_id": sid,
                "project": ids.topic,
                "agent_id": agent_id,
                "role": role,
                "mode": "code",
                "status": "closed" if ids.index + 1 < self.clusters else "running",
                "phase": None,
                "activity": None,
                "current_run_id": ids.run if k else None,
                "current_task_id": ids.tasks[k],
                "current_mission_id": ids.mission,
                "worktree_path": None,
                "started_at": _stamp(started),
                "last_heartbeat_at": _stamp(started + timedelta(minutes=40)),
                "updated_at": _stamp(started + timedelta(minutes=40)),
                "updated_by_gate": "handoff",
                "closed_at": None,
                "archive_path": None,
            }
            entries["sessions"].append(
                {
                    "session_id": sid,
                    "path": repo_path(f"sessions/{sid}.json"),
                    "agent_id": agent_id,
                    "status": files[f"sessions/{sid}.json"]["status"],
                    "updated_at": _stamp(started + timedelta(minutes=40)),
                }
            )
        for k, tid in enumerate(ids.tasks):
            title = f"{VERBS[(ids.index + k) % len(VERBS)]} the {ids.topic} package"
            status, stage = ("completed", "done") if k == 0 else ("active", "validate")
            record = {
                "schema_version": 1,
                "task_id": tid,
                "title": title,
                "description": f"{title} for mission {ids.mission}; {self.words()}.",
                "status": status,
                "stage": stage,
                "priority": f"P{1 + (ids.index + k) % 3}",
                "owner": AGENTS[1][0],
                "mission_id": ids.mission,
                "acceptance_criteria": ["tests pass", "reviewed"],
                "dependencies": [ids.tasks[0]] if k else [],
                "subtasks": [],
                "validation_commands": ["pytest"],
                "gates": [
                    {
                        "from_stage": "plan",
                        "to_stage": "implement",
                        "status": "passed",
                        "required_artifacts": ["plan"],
                        "evidence_refs": [repo_path(ids.plan)],
                        "checked_by": AGENTS[0][0],
                        "checked_at": _stamp(ids.base + timedelta(minutes=6)),
                        "reason": "Plan approved",
                    }
                ],
                "artifacts": [{"kind": "plan", "ref": repo_path(ids.plan), "status": "final"}],
                "created_at": _stamp(ids.base + timedelta(minutes=5)),
                "updated_at": _stamp(ids.base + timedelta(minutes=80)),
            }
            files[f"tasks/{tid}.json"] = record
            entries["tasks"].append(
                {
                    "task_id": tid,
                    "path": repo_path(f"tasks/{tid}.json"),
                    "title": title,
                    "status": status,
                    "stage": stage,
                    "priority": record["priority"],
                    "updated_at": record["updated_at"],
                }
            )

    def _mission(self, ids: _Ids, files: Files) -> None:
        """The mission, its notes and its handoff; the cluster's project handoff."""
        verb = VERBS[ids.index % len(VERBS)]
        files[f"{ids.mdir}/mission.json"] = {
            "schema_version": 1,
            "mission_id": ids.mission,
            "title": f"{verb} {ids.topic}",
            "description": f"{verb} the {ids.topic} packages and release them.",
            "status": "active",
            "current_milestone_id": "MS-002",
            "milestones": [
                {
                    "milestone_id": f"MS-00{m}",
                    "title": title,
                    "status": status,
                    "owner": AGENTS[1][0],
                    "depends_on": [f"MS-00{d}" for d in range(1, m)],
                    "validation_contract_ref": repo_path(ids.contract),
                    "milestone_ref": repo_path(ids.milestone_note) if m == 1 else None,
                    "started_at": _stamp(ids.base + timedelta(minutes=10 * m)) if m < 3 else None,
                    "completed_at": _stamp(ids.base + timedelta(minutes=10 * m + 5))
                    if m == 1
                    else None,
                }
                for m, title, status in (
                    (1, f"{ids.topic} core", "passed"),
                    (2, f"{ids.topic} boundary", "in_progress"),
                    (3, "release", "planned"),
                )
            ],
            "validation_contract_ref": repo_path(ids.contract),
            "command_log_ref": repo_path(ids.log),
            "owner": AGENTS[0][0],
            "coordinator_session_id": ids.sessions[0],
            "created_at": _stamp(ids.base),
            "updated_at": _stamp(ids.base + timedelta(minutes=25)),
        }
        files[ids.contract] = {
            "schema_version": 1,
            "mission_id": ids.mission,
            "assertions": [
                {
                    "id": "A-1",
                    "type": "command",
                    "blocking": True,
                    "assertion": "pytest tests/" + ids.topic,
                },
                {"id": "A-2", "type": "command", "blocking": False, "assertion": "ruff check ."},
            ],
        }
        files[ids.plan] = (
            f"# {ids.mission} plan\n\n1. MS-001 {ids.topic} core\n2. MS-002 {ids.topic} boundary\n"
            f"3. MS-003 release\n\nOpen question: {ids.decision_ids[2]} "
            f"(see [the decision](../../{ids.decision_files[2]})).\n"
        )
        files[ids.log] = f"# Command log\n\n- `pytest tests/{ids.topic}` passed ({ids.run})\n"
        files[f"artifacts/{ids.tasks[0]}/state.json"] = {
            "task_id": ids.tasks[0],
            "mission_id": ids.mission,
            "updated_at": _stamp(ids.base + timedelta(minutes=30)),
            "latest_seq": 1,
            "latest_artifact": repo_path(ids.log),
            "status": "active",
            "artifacts": [{"seq": 1, "kind": "log", "path": repo_path(ids.log)}],
        }
        files[ids.milestone_note] = (
            f"# MS-001 {ids.topic} core\n\n"
            f"Passed; evidence in [the run](../../../runs/{ids.run}.json).\n"
        )
        produced = ids.base + timedelta(minutes=40)
        mission_handoff = f"H-{produced:%Y%m%d-%H%M%S}-ms-001-done"
        mh_path = f"{ids.mdir}/handoffs/{mission_handoff}"
        files[f"{mh_path}.json"] = self._project_handoff(
            mission_handoff,
            produced,
            ids.mission,
            ids.tasks[0],
            ids.sessions[1],
            repo_path(ids.milestone_note),
            repo_path(f"{mh_path}.md"),
            ids.doc,
            f"Review the {ids.topic} boundary against {ids.decision_ids[1]}",
        )
        files[f"{mh_path}.md"] = (
            f"# MS-001 done\n\n{ids.topic} core complete. Next: review the boundary "
            f"({ids.decision_ids[1]}).\n"
        )
        ph_path = f"handoffs/{ids.project_handoff}"
        files[f"{ph_path}.json"] = self._project_handoff(
            ids.project_handoff,
            ids.base + timedelta(minutes=50),
            ids.mission,
            ids.tasks[1],
            ids.sessions[0],
            repo_path(f"conversations/{ids.conversations[0]}/summary.md"),
            repo_path(f"{ph_path}.md"),
            ids.doc,
            f"Approve {ids.waitpoint} to release the {ids.topic} packages",
        )
        files[f"{ph_path}.md"] = (
            f"# Release prep\n\nWaiting on {ids.waitpoint} for {ids.mission}.\n"
        )

    def _waitpoint_and_inbox(
        self, ids: _Ids, files: dict[str, Any], entries: dict[str, list[dict[str, Any]]]
    ) -> None:
        """A released waitpoint and the inbox message about the next decision."""
        released = ids.base + timedelta(minutes=20)
        files[f"waitpoints/{ids.waitpoint}.json"] = {
            "schema_version": 1,
            "waitpoint_id": ids.waitpoint,
            "status": "released",
            "owner_workflow": "/approve",
            "reason": f"{ids.topic} needs approval",
            "gate": {"action": "architecture", "resource_ref": ids.doc},
            "decision_id": ids.decision_ids[1],
            "evidence_refs": [repo_path(ids.decision_files[1])],
            "release_note": "Approved.",
            "released_by": "/approve",
            "released_at": _stamp(released),
            "expires_at": None,
            "task_id": ids.tasks[0],
            "mission_id": ids.mission,
            "created_at": _stamp(ids.base + timedelta(minutes=12)),
            "updated_at": _stamp(released),
        }
        entries["waitpoints"].append(
            {
                "waitpoint_id": ids.waitpoint,
                "path": repo_path(f"waitpoints/{ids.waitpoint}.json"),
                "status": "released",
                "owner_workflow": "/approve",
                "gate_action": "architecture",
                "resource_ref": ids.doc,
                "decision_id": ids.decision_ids[1],
                "updated_at": _stamp(released),
            }
        )
        subject = f"Approval needed for {ids.topic} ({ids.waitpoint})"
        files[f"inbox/{ids.inbox}.json"] = {
            "schema_version": 1,
            "message_id": ids.inbox,
            "type": "decision_request",
            "status": "read",
            "sender_id": AGENTS[0][0],
            "recipient_ids": ["interactive-user"],
            "subject": subject,
            "body": f"Please decide {ids.decision_ids[2]}; {self.words()}.",
            "task_id": ids.tasks[1],
            "mission_id": ids.mission,
            "related_decision_ids": [ids.decision_ids[2]],
            "related_waitpoint_ids": [ids.waitpoint],
            "related_handoff_ids": [ids.project_handoff],
            "artifact_refs": [ids.doc],
            "created_at": _stamp(ids.base + timedelta(minutes=51)),
            "updated_at": _stamp(ids.base + timedelta(minutes=55)),
            "read_at": _stamp(ids.base + timedelta(minutes=55)),
            "acknowledged_at": None,
            "archived_at": None,
        }
        entries["inbox"].append(
            {
                "message_id": ids.inbox,
                "path": repo_path(f"inbox/{ids.inbox}.json"),
                "type": "decision_request",
                "status": "read",
                "subject": subject,
                "updated_at": _stamp(ids.base + timedelta(minutes=55)),
            }
        )

    def _run(
        self, ids: _Ids, files: dict[str, Any], entries: dict[str, list[dict[str, Any]]]
    ) -> None:
        """The implementation run of the first milestone."""
        rng = self.rng
        started, finished = ids.base + timedelta(minutes=10), ids.base + timedelta(minutes=15)
        files[f"runs/{ids.run}.json"] = {
            "schema_version": 1,
            "run_id": ids.run,
            "task_id": ids.tasks[0],
            "mission_id": ids.mission,
            "agent_id": AGENTS[1][0],
            "role": "implementer",
            "kind": "implement",
            "status": "completed",
            "phase": "completed",
            "activity": f"{ids.topic} core implemented",
            "worktree_path": None,
            "branch": f"agent/{ids.topic}-{ids.number}",
            "base_commit": f"{rng.getrandbits(28):07x}",
            "head_commit": f"{rng.getrandbits(28):07x}",
            "started_at": _stamp(started),
            "finished_at": _stamp(finished),
            "updated_at": _stamp(finished),
            "events": [
                {
                    "type": "agent_invoked",
                    "phase": "implementing",
                    "status": "running",
                    "activity": f"{AGENTS[1][0]} started",
                    "at": _stamp(started),
                },
                {
                    "type": "completed",
                    "phase": "completed",
                    "status": "completed",
                    "message": self.words(),
                    "at": _stamp(finished),
                },
            ],
            "commands": [{"command": f"pytest tests/{ids.topic}", "exit_code": 0}],
            "next_action": None,
        }
        entries["runs"].append(
            {
                "run_id": ids.run,
                "path": repo_path(f"runs/{ids.run}.json"),
                "kind": "implement",
                "status": "completed",
                "task_id": ids.tasks[0],
                "mission_id": ids.mission,
                "started_at": _stamp(started),
                "finished_at": _stamp(finished),
                "updated_at": _stamp(finished),
            }
        )

    def _memories(self, ids: _Ids, files: Files) -> list[str]:
        """One memory of each type; returns their paths."""
        memories = []
        for k, (mid, kind) in enumerate(
            zip(ids.memory_ids, ("episodic", "semantic", "procedural"), strict=True)
        ):
            name = f"{mid}-{ids.topic}-habit" if kind == "procedural" else mid
            path = f"memory/{kind}/{name}.json"
            memories.append(path)
            content = f"In {ids.mission} {self.words()} ({ids.decision_ids[1]})."
            files[path] = {
                "schema_version": 1,
                "memory_id": mid,
                "type": kind,
                "title": content[:40],
                "content": content,
                "tags": [ids.topic.replace("-", "_")],
                "source_conversation_id": ids.conversations[0],
                "source_decision_id": ids.decision_ids[1] if k != 2 else None,
                "source_run_id": ids.run if k == 2 else None,
                "scope": "project",
                "expires_at": None,
                "pinned": k == 1,
                "confidence": 0.9,
                "created_at": _stamp(ids.base + timedelta(minutes=60 + k)),
                "updated_at": None,
            }
        return memories

    def _project_handoff(
        self,
        handoff_id: str,
        produced: datetime,
        mission: str,
        task: str,
        session: str,
        snapshot: str,
        note: str,
        doc: str,
        action: str,
    ) -> dict[str, Any]:
        agent_id, _, role, model = AGENTS[1]
        return {
            "schema_version": 1,
            "handoff_id": handoff_id,
            "mode": "AGENT_RESUME",
            "from": {"agent_id": agent_id, "model": model, "session_id": session},
            "to": {
                "role": role,
                "model_pref": [AGENTS[2][3]],
                "required_capabilities": ["code_review"],
            },
            "task_id": task,
            "mission_id": mission,
            "task_progress": {
                "current_step": "MS-001 done",
                "completed_steps": ["core-package", "core-tests"],
                "in_progress": "boundary review",
                "remaining_steps": ["release"],
            },
            "artifacts": {
                "completed": [doc],
                "context_snapshot_ref": snapshot,
                "markdown_ref": note,
                "artifact_refs": [doc],
            },
            "next_action": action,
            "constraints": ["Do not change the storage schema"],
            "verification": {
                "commands_run": [{"command": "pytest", "exit_code": 0, "summary": "all passed"}],
                "commands_needed": ["pytest tests/integration"],
                "known_failures": [],
            },
            "context_budget_hint": None,
            "produced_at": _stamp(produced),
        }

    def _conversation(self, files: dict[str, Any], ids: _Ids, slot: int) -> None:
        """Conversation number ``slot`` of the cluster: turns, handoffs, state, notes, meta."""
        cid, j = ids.conversations[slot], slot
        base = ids.base + timedelta(minutes=90 * slot)
        topic, mission, doc = ids.topic, ids.mission, ids.doc
        sessions, tasks, decisions = ids.sessions, ids.tasks, ids.decision_ids
        related = ids.conversations[1 - slot]
        rng = self.rng
        folder = f"conversations/{cid}"
        turns = 4 + rng.randrange(3)
        for t in range(1, turns + 1):
            agent = AGENTS[(t // 2 + j) % 3][0]
            text = rng.choice(PHRASES)
            if t % 2:
                files[f"{folder}/turns/{t:04d}.yaml"] = (
                    f"turn: {t}\ntimestamp: {_stamp(base + timedelta(minutes=5 * t))}\n"
                    f'role: user\ncontent: "Next step on {topic}: {text}."\n'
                )
            else:
                files[f"{folder}/turns/{t:04d}.yaml"] = (
                    f"turn: {t}\ntimestamp: {_stamp(base + timedelta(minutes=5 * t))}\n"
                    f'role: assistant\nagent_id: {agent}\ncontent: "Done: {text} '
                    f'({decisions[t % 4]})."\n'
                )
        records = []
        for h, last_turn in enumerate((1, 2, turns - 1), start=1):
            source, target = AGENTS[(h - 1 + j) % 3], AGENTS[(h + j) % 3]
            target_session = sessions[0] if target[0] == AGENTS[0][0] else None
            record: dict[str, Any] = {
                "schema_version": 1,
                "handoff_id": f"H-{h:03d}",
                "conversation_id": cid,
                "timestamp": _stamp(base + timedelta(minutes=5 * last_turn + 2)),
                "from_agent": {
                    "type": source[1],
                    "agent_id": source[0],
                    "session_id": None,
                    "last_turn": last_turn,
                },
                "to_agent": {
                    "type": target[1],
                    "agent_id": target[0],
                    "target_session": target_session,
                },
                "reason": REASONS[(h + j) % len(REASONS)],
                "context_pointer": {
                    "latest_turn": last_turn,
                    "active_missions": [mission],
                    "pending_decisions": [decisions[2]],
                    "in_flight_tasks": tasks[: 1 + h // 3],
                    "recent_artifacts": [doc],
                },
                "checksum": "",
            }
            record["checksum"] = compute(record)
            records.append(record)
            files[f"{folder}/handoffs/H-{h:03d}.json"] = record
            files[f"{folder}/handoffs/H-{h:03d}.md"] = (
                f"# H-{h:03d}: {source[0]} → {target[0]}\n\n"
                f"Reason: {record['reason']}. Resume from turn {last_turn}.\n\n"
                f"- Mission: [{mission}](../../../missions/{mission}/mission-plan.md)\n"
                f"- Context: see [summary](../summary.md#current-state)\n"
            )
        last = records[-1]
        active = {
            "type": last["to_agent"]["type"],
            "agent_id": last["to_agent"]["agent_id"],
            "session_id": last["to_agent"]["target_session"],
        }
        files[f"{folder}/handoffs/state.json"] = {
            "conversation_id": cid,
            "latest_handoff_id": last["handoff_id"],
            "active_agent": active,
            "latest_turn": turns,
            "checksum": last["checksum"],
            "updated_at": last["timestamp"],
        }
        files[f"{folder}/turn_resumed.yaml"] = (
            f"handoff_id: {last['handoff_id']}\nagent_id: {active['agent_id']}\n"
            f"resumed_at: {_stamp(base + timedelta(minutes=5 * turns + 1))}\n"
        )
        relations = {
            "mission_ids": [mission],
            "task_ids": list(tasks),
            "conversation_ids": [related],
        }
        files[f"{folder}/relations.yaml"] = "".join(
            f"{key}:" + ("".join(f"\n  - {v}" for v in values) if values else " []") + "\n"
            for key, values in relations.items()
        )
        cited = [decisions[1]] + ([ids.previous_decision] if ids.previous_decision else [])
        files[f"{folder}/summary.md"] = (
            f"# {topic.capitalize()} conversation {cid}\n\n## Current state\n\n"
            f"Working on {mission}; {rng.choice(PHRASES)}. Decisions: "
            + ", ".join(cited)
            + f". Pending: [{decisions[2]}](../../{ids.decision_files[2]}).\n\n"
            f"Design notes: [{topic}](../../../{doc}).\n"
        )
        files[f"{folder}/meta.json"] = {
            "schema_version": 1,
            "conversation_id": cid,
            "topic": f"{topic.capitalize()} work, part {j + 1}",
            "outcome": "open",
            "domain": "code",
            "active_agent": active,
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
            "summary_ref": repo_path(f"{folder}/summary.md"),
            "decisions_refs": [decisions[1], decisions[2]],
            "artifact_refs": [doc],
            "relations": relations,
            "state": {
                "latest_turn": turns,
                "active_missions": [mission],
                "pending_decisions": [decisions[2]],
                "in_flight_tasks": last["context_pointer"]["in_flight_tasks"],
                "checksum": last["checksum"],
            },
            "created_at": _stamp(base),
            "updated_at": _stamp(base + timedelta(minutes=5 * turns)),
        }


def _shared_files() -> dict[str, Any]:
    """Files outside the clusters: agents, session references, the agent dir's README."""
    files: dict[str, Any] = {
        "README.md": "# Agent state\n\nCommitted state of the agents working on this repository.\n",
        "agents/README.md": "# Agents\n\nOne registry entry per agent.\n",
    }
    mission = "M-000001"
    for k, (agent_id, kind, role, model) in enumerate(AGENTS):
        files[f"agents/{agent_id}.json"] = {
            "schema_version": 1,
            "agent_id": agent_id,
            "role": role,
            "model": model,
            "task_id": None,
            "mission_id": mission,
            "session_id": _num("S", 1 + k % 2),
            "started_at": _stamp(EPOCH),
            "last_heartbeat": _stamp(EPOCH + timedelta(hours=1)),
            "status": "running" if k == 0 else "handed_off",
            "owned_files": [],
            "pending_artifacts": [],
            "capabilities": ["python"],
            "external": {"adapter_type": kind, "config_ref": repo_path("agents/README.md")}
            if k
            else None,
        }
        files[f"subagents/{agent_id}/session-ref.json"] = {
            "file": f"/home/agent/.sessions/{agent_id}.jsonl" if k == 1 else None
        }
    return files


# --- writing ---------------------------------------------------------------------------------


class _Writer:
    """Writes files under a root, creating folders once."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.folders: set[str] = set()
        self.count = 0

    def write(self, relpath: str, value: Any) -> None:
        """Write text as is, anything else as 2-space indented JSON with a final newline."""
        full = os.path.join(self.root, relpath)
        folder = os.path.dirname(full)
        if folder not in self.folders:
            os.makedirs(folder, exist_ok=True)
            self.folders.add(folder)
        data = value.encode("utf-8") if isinstance(value, str) else dump_json(value)
        fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        self.count += 1


def _counts(defects: int | Mapping[str, int]) -> dict[str, int]:
    if isinstance(defects, int):
        return dict.fromkeys(FAMILIES, defects)
    return dict(defects)


def clusters_for(records: int) -> int:
    """How many clusters make about ``records`` files."""
    return max(1, round((records - SHARED_FILES) / FILES_PER_CLUSTER))


def generate(
    root: Path, records: int, defects: int | Mapping[str, int] = 0, seed: int = 0
) -> Repository:
    """Write a repository of about ``records`` files under ``root`` (which must not exist).

    ``defects`` is the number of injected defects per family, or a mapping
    family -> number. Same arguments, same bytes.
    """
    if root.exists() and any(root.iterdir()):
        raise ValueError(f"{root} exists and is not empty")
    clusters = clusters_for(records)
    placed = plan_defects(_counts(defects), clusters)
    builder = _Builder(seed, clusters)
    writer = _Writer(root / AGENT)
    repo = Repository(root=root, records=records, seed=seed, clusters=clusters)
    indexes: dict[str, list[dict[str, Any]]] = {}
    conversation_handoffs: list[str] = []
    mission_handoffs: list[str] = []
    for i in range(clusters):
        cluster = builder.cluster(i)
        for variant, slot in placed.get(i, []):
            path, what = variant.apply(cluster, slot)
            repo.defects.append(Defect(variant.family, variant.code, repo_path(path), what))
        for name, entries in cluster.entries.items():
            indexes.setdefault(name, []).extend(entries)
        for path, value in cluster.files.items():
            writer.write(path, value)
            if path.endswith(".json") and "/handoffs/H-" in f"/{path}":
                if path.startswith("handoffs/"):
                    repo.handoffs.append(repo_path(path))
                elif path.startswith("missions/"):
                    mission_handoffs.append(repo_path(path))
                else:
                    conversation_handoffs.append(repo_path(path))
            elif path.endswith("/handoffs/state.json"):
                repo.states.append(repo_path(path))
    repo.handoffs.extend(mission_handoffs + conversation_handoffs)
    for path, value in _shared_files().items():
        writer.write(path, value)
    for name, entries in indexes.items():
        writer.write(f"{name}/index.json", {"messages" if name == "inbox" else name: entries})
    docs = _Writer(root)
    for topic in TOPICS[: min(clusters, len(TOPICS))]:
        docs.write(f"docs/{topic}.md", f"# {topic}\n\nDesign notes for the {topic} packages.\n")
    repo.files = writer.count
    return repo


def main(argv: list[str] | None = None) -> int:
    """Command line: generate one repository and print what it holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="folder to create")
    parser.add_argument("--records", type=int, default=1000, help="about this many files")
    parser.add_argument("--defects", type=int, default=0, help="injected defects per family")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        repo = generate(args.dest, args.records, args.defects, args.seed)
    except ValueError as exc:
        parser.error(str(exc))
    sys.stdout.write(
        f"{repo.files} files in {repo.clusters} clusters under {repo.agent_dir}; "
        f"{len(repo.defects)} defects:\n"
    )
    for defect in repo.defects:
        sys.stdout.write(f"  {defect.code} {defect.path}: {defect.what}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
