"""The repo-wide checks do work linear in records and references."""

from __future__ import annotations

from typing import Any

import pytest

from agent_lint.config import Config
from agent_lint.index import FileContext, RepoIndex, file_facts, present_facts
from agent_lint.profiles import get

CORTEX = get("cortex")
REPO_CHECKS = CORTEX.repo_checks


def _add(index: RepoIndex, relpath: str, data: Any) -> None:
    match = CORTEX.classify(relpath)
    assert match is not None
    path = f".agent/{relpath}"
    index.add(present_facts(CORTEX, path, relpath, match, True))
    ctx = FileContext(
        path,
        match.kind,
        match.groups,
        data,
        Config(),
        None,  # type: ignore[arg-type]
        relpath=relpath,
        profile=CORTEX,
    )
    index.add(file_facts(CORTEX, ctx))


def build(records: int) -> RepoIndex:
    """An index of ``records`` records: decisions, missions and conversations, cross-linked."""
    index = RepoIndex(folders={"decisions", "missions", "conversations"}, profile=CORTEX)
    per_kind = records // 4
    for n in range(per_kind):
        successor = f"D-{n + 1:06d}" if n + 1 < per_kind else None
        _add(
            index,
            f"decisions/D-{n:06d}.json",
            {
                "decision_id": f"D-{n:06d}",
                "superseded_by_decision_id": successor,
                "mission_id": f"M-{n:06d}" if n % 100 else f"M-{n:06d}x",  # 1% dangling
            },
        )
        _add(
            index,
            f"missions/M-{n:06d}/mission.json",
            {
                "mission_id": f"M-{n:06d}",
                "current_milestone_id": "MS-002",
                "milestones": [
                    {"milestone_id": "MS-001"},
                    {"milestone_id": "MS-002", "depends_on": ["MS-001"]},
                ],
            },
        )
        _add(
            index,
            f"conversations/C-{n:06d}/meta.json",
            {
                "conversation_id": f"C-{n:06d}",
                "decisions_refs": [f"D-{n:06d}", f"D-{(n * 7) % per_kind:06d}"],
                "relations": {"mission_ids": [f"M-{n:06d}"], "conversation_ids": [f"C-{n:06d}"]},
                "handoffs": [{"handoff_id": "H-001"}],
            },
        )
        _add(index, f"conversations/C-{n:06d}/handoffs/H-001.json", {"handoff_id": "H-001"})
    return index


def run(index: RepoIndex) -> int:
    findings = [d for check in REPO_CHECKS for d in check.run(index)]
    assert findings, "the generated repository has dangling references"
    return index.lookups


@pytest.mark.slow
def test_graph_checks_scale_linearly():
    small, large = build(2_000), build(20_000)
    assert len(large.identities) >= 20_000
    ratio = run(large) / run(small)
    assert 9 <= ratio <= 11, ratio


def test_the_index_keeps_one_string_per_repeated_value():
    # Ids, pointers and field names recur in thousands of files: the index holds each once.
    index = build(400)
    by_text: dict[str, set[int]] = {}
    for fact in index.references:
        for text in (fact.value, fact.pointer, fact.field):
            by_text.setdefault(text, set()).add(id(text))
    assert by_text and all(len(ids) == 1 for ids in by_text.values())
    repeated = [r for r in index.references if r.value == "D-000001"]
    assert len(repeated) >= 2
