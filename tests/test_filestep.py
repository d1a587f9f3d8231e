"""The per-file step: a pure function of profile, configuration, path and bytes.

Its outcome (findings and facts) survives a pickle round trip unchanged, and an index
merged from stored outcomes gives the repo-wide checks exactly what a live run gives:
the seam a cache keyed by content hash relies on.
"""

from __future__ import annotations

import pickle
from pathlib import Path

from conftest import FIXTURES

from agent_lint.config import Config
from agent_lint.diagnostics import Diagnostic
from agent_lint.discovery import find_target, relative, walk
from agent_lint.filestep import FileOutcome, check_file
from agent_lint.index import RepoIndex
from agent_lint.linter import lint_target
from agent_lint.profiles import get
from agent_lint.profiles.cortex.facts import ConversationRecord
from agent_lint.schemas import SchemaStore
from agent_lint.selection import without_covered

CORTEX = get("cortex")
HANDOFF = FIXTURES / "valid/.agent/conversations/C-payments-refactor/handoffs/H-002.json"


def _check(path: str, relpath: str, raw: bytes) -> FileOutcome:
    match = CORTEX.classify(relpath)
    schemas = SchemaStore(folder=CORTEX.schema_folder)
    return check_file(CORTEX, Config(), schemas, CORTEX.file_checks, path, relpath, match, raw)


def test_the_step_needs_no_file_on_disk_and_gives_the_same_outcome_twice():
    relpath = "conversations/C-elsewhere/handoffs/H-002.json"
    raw = HANDOFF.read_bytes()
    first = _check(f"nowhere/{relpath}", relpath, raw)
    assert first == _check(f"nowhere/{relpath}", relpath, raw)
    [record] = [
        f for facts in first.facts for f in facts.extra if isinstance(f, ConversationRecord)
    ]
    assert (
        record.conversation == "C-elsewhere"
        and record.folder == "nowhere/conversations/C-elsewhere"
    )
    assert record.handoff is not None and record.handoff.id == "H-002"


def test_an_index_merged_from_stored_outcomes_gives_the_same_repo_findings():
    target = find_target(FIXTURES / "broken-ordering")
    live = lint_target(target)
    index = RepoIndex(root=target.root, agent_prefix=".agent", config=target.config, profile=CORTEX)
    found: list[Diagnostic] = []
    for entry in walk(target):
        path = relative(str(entry.path), str(target.root))
        index.file_names[Path(path).name].append(path)
        match = CORTEX.classify(entry.relpath)
        if entry.problem is not None or match is None:
            continue
        stored = pickle.dumps(_check(path, entry.relpath, Path(entry.path).read_bytes()))
        outcome = pickle.loads(stored)
        found.extend(outcome.diagnostics)
        for facts in outcome.facts:
            index.add(facts)
    for check in CORTEX.repo_checks:
        found.extend(check.run(index))
    codes = sorted((d.code, d.path) for d in without_covered(found))
    assert codes == sorted((d.code, d.path) for d in live.diagnostics)
    assert codes  # the fixture is broken: the comparison is not between two empty lists
