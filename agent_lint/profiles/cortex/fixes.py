"""``--fix`` for Cortex: ``handoffs/state.json`` from the latest handoff, ``meta.json`` mirrors.

``state.json`` is derived, so ``--fix`` rewrites it; with ``--unsafe-fixes``
the ``handoffs[]``, ``active_agent`` and ``state.checksum`` fields of
``meta.json`` are edited in place to mirror the handoffs, and its turn counters
(``turn_count``, ``state.latest_turn``) to the latest turn file's number. Handoff files are
never written: they are the agents' records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_lint.fixer import (
    Blocked,
    Edit,
    edit_json_bytes,
    read_derived,
    render_state,
    target_problem,
)
from agent_lint.index import RepoIndex
from agent_lint.jsonedit import EditError
from agent_lint.profiles.cortex.agreement import checksum_reported
from agent_lint.profiles.cortex.facts import facts_of
from agent_lint.profiles.cortex.handoffs import Conversation, Handoff
from agent_lint.profiles.cortex.ordering import (
    disputed_fields,
    latest_faults,
    stale_turn_counters,
)
from agent_lint.validators.identity import renamed_folders

_Plan = Edit | Blocked | None


def _state_edit(index: RepoIndex, conversation: Conversation) -> _Plan:
    faults = latest_faults(index, conversation)
    if disputed_fields(faults) & {"updated_at", "latest_turn"} or "AL409" in faults:
        # state.json does not copy a value its latest handoff has wrong (AL40x), nor a
        # latest turn that turn files with a gap put in doubt (AL409).
        return None
    derived = conversation.derived_state(checksum_reported(index), renamed_folders(index))
    latest = conversation.latest()
    if derived is None or latest is None:
        return None
    state = conversation.state
    if state is not None and all(key in state and state[key] == derived[key] for key in derived):
        # It agrees field by field (AL503 has nothing to say); its formatting and line
        # endings are the checkout's (CRLF under core.autocrlf), not a fix to make.
        return None
    path = conversation.state_path or f"{conversation.folder}/handoffs/state.json"
    resolves = (path, latest.path)
    problem = target_problem(index.root, path)
    if problem is not None:
        return Blocked(path, problem, resolves)
    try:
        after = render_state(derived)
    except (UnicodeEncodeError, TypeError, ValueError):
        # Text that is not valid Unicode, or a number JSON output cannot hold exactly.
        return Blocked(path, "the latest handoff holds a value that cannot be written", resolves)
    try:
        before = read_derived(index.root / path)
    except OSError as exc:
        return Blocked(path, f"it cannot be read ({exc})", resolves)
    if before is not None and b"\r\n" in before:
        after = after.replace(b"\n", b"\r\n")  # a CRLF checkout stays CRLF
    if before == after:
        return None
    return Edit(index.root, path, before, after, resolves, regenerates=True)


def _meta_changes(
    conversation: Conversation, reported: Callable[[Handoff], bool], faults: set[str]
) -> list[tuple[str, Any]]:
    meta, latest = conversation.meta, conversation.latest()
    if meta is None or conversation.broken or faults:
        # No mirror follows a latest handoff that is wrong (its AL40x); the file is
        # edited once that is settled (a write resolves every finding on the file).
        return []
    turn = conversation.latest_turn()
    changes: list[tuple[str, Any]] = []
    if turn is not None:
        changes += [(pointer, turn) for _, pointer, _ in stale_turn_counters(meta, turn)]
    if latest is None:
        return changes
    handoffs = conversation.ordered()
    entries = meta.get("handoffs")
    if not isinstance(entries, list) or [
        e.get("handoff_id") if isinstance(e, dict) else None for e in entries
    ] != [h.id for h in handoffs]:
        changes.append(("/handoffs", [h.entry(None, reported(h)) for h in handoffs]))
    else:
        for position, (entry, handoff) in enumerate(zip(entries, handoffs, strict=True)):
            mirror = handoff.entry(entry.get("checksum"), reported(handoff), entry.get("timestamp"))
            for key, value in mirror.items():
                if entry.get(key) != value or key not in entry:
                    changes.append((f"/handoffs/{position}/{key}", value))
    if meta.get("active_agent") != latest.active_agent():
        changes.append(("/active_agent", latest.active_agent()))
    state = meta.get("state")
    if isinstance(state, dict):
        expected = latest.mirrored_checksum(state.get("checksum"), reported(latest))
        if state.get("checksum") != expected:
            changes.append(("/state/checksum", expected))
    return changes


def _meta_edit(index: RepoIndex, conversation: Conversation) -> _Plan:
    changes = _meta_changes(
        conversation, checksum_reported(index), latest_faults(index, conversation)
    )
    path = conversation.meta_path
    if not changes or path is None:
        return None
    resolves = (path,)
    problem = target_problem(index.root, path)
    if problem is not None:
        return Blocked(path, problem, resolves)
    try:
        before = read_derived(index.root / path)
    except OSError as exc:
        return Blocked(path, f"it cannot be read ({exc})", resolves)
    if before is None:
        return None
    try:
        after = edit_json_bytes(before, changes)
    except (EditError, UnicodeError, TypeError, ValueError) as exc:
        return Blocked(path, f"it cannot be edited in place ({exc})", resolves)
    return None if before == after else Edit(index.root, path, before, after, resolves)


def _edited_history(index: RepoIndex, conversation: Conversation) -> str | None:
    """The first merged handoff file of ``conversation`` the change under ``--base``
    modified, deleted or renamed (``RepoIndex.history_edited``), or None."""
    inside = f"{conversation.folder}/handoffs/"
    return min((p for p in index.history_edited if p.startswith(inside)), default=None)


def _not_from(item: _Plan, edited: str) -> _Plan:
    """A write planned from a conversation whose merged history the change edited, blocked:
    it would copy the edit into a derived file, and restoring the handoff undoes it."""
    if not isinstance(item, Edit):
        return item
    name = edited.rsplit("/", 1)[-1]
    return Blocked(
        item.path,
        f"it would be derived from {name}, which the change modified, renamed or deleted "
        "against the merged history (its AL6xx finding); restore that file, then run --fix again",
        item.resolves,
    )


def plan_state_files(index: RepoIndex, unsafe: bool = False) -> tuple[list[Edit], list[Blocked]]:
    """State files to regenerate (and ``meta.json`` mirrors when ``unsafe``), or why not."""
    edits: list[Edit] = []
    blocked: list[Blocked] = []
    conversations = facts_of(index).conversations
    for name in sorted(conversations):
        conversation = conversations[name]
        planned = [_state_edit(index, conversation)]
        if unsafe:
            planned.append(_meta_edit(index, conversation))
        edited = _edited_history(index, conversation)
        if edited is not None:
            planned = [_not_from(item, edited) for item in planned]
        for item in planned:
            if isinstance(item, Edit):
                edits.append(item)
            elif isinstance(item, Blocked):
                blocked.append(item)
    return edits, blocked
