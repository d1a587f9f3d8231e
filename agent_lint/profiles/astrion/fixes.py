"""``--fix`` for Astrion: the global ``state.json`` and ``conversations/index.json``.

Both are derived from the conversation folders. The index is rebuilt whole
(entries sorted by conversation id, keys as the runtime writes them); in
``state.json`` only ``last_conversation_id`` (when it names no folder),
``agent_id_counter`` (only ever raised) and, when one of them changes,
``updated_at`` (only ever moved forward, to the latest conversation's) are
derived; ``version``, ``created_at`` and anything else are kept. Files are
written as the runtime writes them (2-space indent, UTF-8 as is, no final
newline), and only when their JSON value differs from the derived one, so a
second run changes nothing. An absent index is not created.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent_lint.config import Config
from agent_lint.fixer import Blocked, Edit, read_derived, target_problem
from agent_lint.index import RepoIndex
from agent_lint.profiles.astrion.checks import (
    agents_in_use,
    count_readings,
    disputed_count,
    own_ids,
)
from agent_lint.profiles.astrion.facts import AstrionFacts, facts_of
from agent_lint.validators.identity import renamed_folders
from agent_lint.validators.indexes import same_value

_ENTRY_FIELDS = ("title", "created_at", "updated_at", "agent_count")


def render(value: Any) -> bytes:
    """The bytes the runtime writes for ``value``: 2-space indent, UTF-8, no final newline."""
    return json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8")


_STATE_ORDER = ("version", "last_conversation_id", "agent_id_counter", "created_at", "updated_at")


def derived_index(
    facts: AstrionFacts,
    current: dict[str, Any],
    ids: dict[str, str] | None = None,
    renamed: Mapping[str, str] | None = None,
    config: Config | None = None,
) -> dict[str, Any]:
    """``conversations/index.json`` as the conversation folders' metadata says it.

    A folder whose ``metadata.json`` cannot be read (it does not parse, or it
    is absent while the folder holds other files), or has errors of its own,
    keeps its ``current`` entry, if any: nothing says the entry is wrong, and the
    index never copies a value its record has wrong; nor does an entry copy an
    ``agent_count`` in doubt (:func:`~agent_lint.profiles.astrion.checks.disputed_count`).
    A time the entry holds that is the record's moment written another way stays as
    written. ``ids`` are the folders whose metadata carries another id, by that id
    (:func:`~agent_lint.profiles.astrion.checks.own_ids`): such a folder keeps the key
    its entry has, its name or that id.
    """
    names = {name: own for own, name in (ids or {}).items()}
    entries: dict[str, Any] = {}
    for name in sorted(facts.conversations):
        conversation = facts.conversations[name]
        meta, own = conversation.meta, names.get(name, name)
        key = own if own in current and name not in current else name
        held = current.get(key)
        if meta is not None and conversation.meta_clean:
            entry = {field: meta[field] for field in _ENTRY_FIELDS if field in meta}
            if isinstance(held, dict):
                for field in ("created_at", "updated_at"):
                    if field in held and same_value(held[field], entry.get(field)):
                        entry[field] = held[field]
                doubt = disputed_count(conversation, renamed or {}, config)
                readings = count_readings(conversation, renamed or {}) if doubt else ()
                if "agent_count" in held and held["agent_count"] in readings:
                    entry["agent_count"] = held["agent_count"]  # the doubt's, not a fix
            entries[key] = entry
        elif held is not None:
            entries[key] = held
    return dict(sorted(entries.items()))


def _latest(facts: AstrionFacts) -> tuple[str, str] | None:
    """The conversation updated last, as ``(updated_at, id)`` (ties: the greatest id)."""
    stamps = [
        (meta["updated_at"], name)
        for name, conversation in facts.conversations.items()
        if (meta := conversation.meta) is not None and isinstance(meta.get("updated_at"), str)
    ]
    return max(stamps) if stamps else None


def derived_state(
    facts: AstrionFacts,
    state: dict[str, Any],
    ids: dict[str, str] | None = None,
    renamed: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``state`` with its derived fields brought in line with the conversation folders.

    A ``last_conversation_id`` that is one of ``ids`` (a folder's id as its metadata
    carries it, see :func:`derived_index`) stands.
    """
    fixed = dict(state)
    latest = _latest(facts)
    last = state.get("last_conversation_id")
    if isinstance(last, str) and last not in facts.conversations and last not in (ids or {}):
        fixed["last_conversation_id"] = latest[1] if latest is not None else None
    counter = state.get("agent_id_counter")
    used = agents_in_use(facts, renamed)
    if isinstance(counter, int) and not isinstance(counter, bool) and used:
        fixed["agent_id_counter"] = max(counter, max(used))
    stamp = state.get("updated_at")
    if fixed != state and latest is not None and isinstance(stamp, str) and latest[0] > stamp:
        fixed["updated_at"] = latest[0]
    ordered = {key: fixed[key] for key in _STATE_ORDER if key in fixed}
    ordered.update(fixed)
    return ordered


def _write(index: RepoIndex, path: str, value: Any, current: Any) -> Edit | Blocked | None:
    if value == current:
        return None
    problem = target_problem(index.root, path)
    if problem is not None:
        return Blocked(path, problem, (path,))
    try:
        before = read_derived(index.root / path)
    except OSError as exc:
        return Blocked(path, f"it cannot be read ({exc})", (path,))
    after = render(value)
    return None if before == after else Edit(index.root, path, before, after, (path,))


def plan_derived_files(index: RepoIndex, unsafe: bool = False) -> tuple[list[Edit], list[Blocked]]:
    """``state.json`` and ``conversations/index.json`` to rewrite, or why they cannot be."""
    facts = facts_of(index)
    planned: list[Edit | Blocked | None] = []
    ids, renamed = own_ids(index), renamed_folders(index)
    if facts.index is not None:
        current = facts.index.data
        value = derived_index(facts, current, ids, renamed, index.config)
        planned.append(_write(index, facts.index.path, value, current))
    if facts.state is not None:
        value = derived_state(facts, facts.state.data, ids, renamed)
        planned.append(_write(index, facts.state.path, value, facts.state.data))
    edits = [item for item in planned if isinstance(item, Edit)]
    blocked = [item for item in planned if isinstance(item, Blocked)]
    return edits, blocked
