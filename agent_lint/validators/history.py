"""AL6xx: what a change may do to files a git base already has (``--base REF``).

The checks themselves run in :mod:`agent_lint.gitgate`; this module declares
the rules.
"""

from __future__ import annotations

from agent_lint.diagnostics import Rule

MODIFIED = Rule(
    "AL601",
    "handoff-modified",
    "A handoff merged on the base branch was modified",
    "Reports a handoff file (conversation, project or mission scope, `.json` or its `.md` "
    "note) that exists on the base and differs in the change. Handoffs are a record of what "
    "was handed over; rewriting one changes history that other agents already resumed from. "
    "Write a new handoff instead. The finding names the commit that merged the file.",
    "editing conversations/C-1/handoffs/H-002.json in a pull request",
    "adding conversations/C-1/handoffs/H-004.json",
)
DELETED = Rule(
    "AL602",
    "handoff-deleted",
    "A handoff merged on the base branch was deleted",
    "Reports a handoff file present on the base that the change deletes. The chain of "
    "handoffs loses a link for good.",
    "git rm conversations/C-1/handoffs/H-002.json",
    "keep merged handoffs; supersede them with a new handoff",
)
RENAMED = Rule(
    "AL603",
    "handoff-renamed",
    "A handoff merged on the base branch was renamed",
    "Reports a handoff file present on the base that the change moves to another path "
    "(detected by identical content). References and numbering point at the old name.",
    "git mv handoffs/H-002.json handoffs/H-005.json",
    "leave H-002.json where it is",
)
BACKDATED = Rule(
    "AL604",
    "handoff-backdated",
    "A new handoff sorts before the newest handoff on the base",
    "Reports a handoff added by the change that sorts before the newest handoff the base "
    "has in the same folder (by number for conversation handoffs, by the time in the id "
    "for project and mission handoffs): it was back-dated or inserted into history.",
    "base has H-20261103-120000-x.json; the change adds H-20261101-090000-y.json",
    "the change adds H-20261104-090000-y.json",
)
NUMBERING = Rule(
    "AL605",
    "handoff-numbering",
    "A new conversation handoff does not continue the base's numbering",
    "Reports a conversation handoff added by the change whose number is not the next one "
    "after the base's newest (base H-003: the change must add H-004, then H-005, …).",
    "base has H-001..H-003; the change adds H-005",
    "the change adds H-004",
)
WRITE_ONCE_CHANGED = Rule(
    "AL606",
    "write-once-changed",
    "A write-once file pinned on the base was changed or deleted",
    "Reports a write-once file such as `session-ref.json` whose value the base already "
    'pinned (`{"file": "/abs/path"}`) and that the change rewrites or deletes. It may go '
    'from `{"file": null}` to a path once; after that it never changes.',
    'base {"file": "/sessions/a.jsonl"}; change {"file": "/sessions/b.jsonl"}',
    'base {"file": null}; change {"file": "/sessions/a.jsonl"}',
)

RULES = (MODIFIED, DELETED, RENAMED, BACKDATED, NUMBERING, WRITE_ONCE_CHANGED)
