"""The conversations as merged: their checks run again with merged handoffs restored.

A change that modifies, deletes or renames a merged conversation handoff is
reported by the append-only gate (AL601-AL603). What that edit alone causes in
its conversation (state.json and meta.json naming the old handoff, a gap in
the numbers, a checksum, a broken chain) is not a second fact: restoring the
merged handoff clears it. :func:`restore` puts the merged bytes back into a
copy of each touched conversation's facts and runs the conversation checks on
it; the linter keeps a finding of the change only where the restored
conversation has it too (at the same file and place), and then says it as the
restored conversation does. Nothing is suspended: a mirror that disagrees
with the merged handoffs as well is still reported.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

from agent_lint.frozen import replace
from agent_lint.index import RepoIndex
from agent_lint.kinds import Format
from agent_lint.loading import parse
from agent_lint.profile import AsMerged
from agent_lint.profiles.cortex.facts import facts_of
from agent_lint.profiles.cortex.handoffs import Conversation, handoff_from, handoff_number
from agent_lint.validators import RepoCheck


def _copy(conversation: Conversation) -> Conversation:
    """A copy of ``conversation`` whose handoff lists and sets can change on their own."""
    restored = copy.copy(conversation)
    restored.handoffs = list(conversation.handoffs)
    restored.handoff_files = list(conversation.handoff_files)
    restored.notes = set(conversation.notes)
    restored.broken = set(conversation.broken)
    return restored


def _put_back(
    conversation: Conversation, path: str, content: bytes | None, index: RepoIndex
) -> bool:
    """Make ``path`` in ``conversation`` what it was when merged (None: absent); False when
    its merged bytes are not a handoff record, so the merged conversation cannot be judged."""
    name = path.rpartition("/")[2]
    if name.endswith(".md"):
        stem = name.removesuffix(".md")
        conversation.notes.discard(stem)
        if content is not None:
            conversation.notes.add(stem)
        return True
    conversation.handoffs = [h for h in conversation.handoffs if h.path != path]
    conversation.handoff_files = [f for f in conversation.handoff_files if f[1] != path]
    conversation.broken.discard(path)
    if content is None:
        return True
    stem = name.removesuffix(".json")
    conversation.handoff_files.append((handoff_number(stem), path))
    loaded = parse(path, Format.JSON, content, index.config.limits)
    if not loaded.ok or not isinstance(loaded.data, dict):
        return False
    # Taken as clean: the conversation is then judged in full, which keeps more of the
    # change's findings, never fewer.
    conversation.handoffs.append(handoff_from(path, stem, loaded.data, True))
    return True


def restore(
    index: RepoIndex, merged: Mapping[str, bytes | None], checks: Sequence[RepoCheck]
) -> AsMerged | None:
    """The findings of ``checks`` on the conversations whose merged handoffs ``merged``
    restores (merged bytes by repository path; None: where one was renamed to), or None
    when it restores none."""
    conversations = facts_of(index).conversations
    by_folder = {c.folder: c for c in conversations.values()}
    touched: dict[str, Conversation] = {}
    unjudged: set[str] = set()
    for path, content in sorted(merged.items()):
        folder, _, name = path.rpartition("/")
        home, _, handoffs = folder.rpartition("/")
        if handoffs != "handoffs" or not name.endswith((".json", ".md")) or home not in by_folder:
            continue
        if home not in touched:
            touched[home] = _copy(by_folder[home])
        if not _put_back(touched[home], path, content, index):
            unjudged.add(home)
    for home in unjudged:  # a merged handoff that does not parse: the change's findings stay
        del touched[home]
    if not touched:
        return None
    view = replace(index, stores={})  # the same facts, with the Cortex facts of its own
    facts_of(view).conversations.update((c.name, c) for c in touched.values())
    found = tuple(d for check in checks for d in check.run(view))
    codes = frozenset(code for check in checks for code in check.codes)
    return AsMerged(tuple(sorted(touched)), codes, found)
