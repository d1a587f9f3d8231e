"""AL6xx: what a change may do to the files its git base already has (``--base REF``).

The gate (:mod:`agent_lint.gitgate`) compares the change with its base and
returns typed problems; this module declares the rules, the protected
patterns they document, and :func:`diagnose`, which makes a problem its
finding. Which files are append-only is the kind registry's ``history``
policy (:mod:`agent_lint.kinds`);
:data:`PROTECTED_PATTERNS` lists them for people, and a test keeps the two in
step.
"""

from __future__ import annotations

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.problems import GateIssue, GateProblem
from agent_lint.selection import RANK
from agent_lint.validators.files import finding
from agent_lint.validators.identity import ID_NAME_MISMATCH
from agent_lint.validators.storage import LINKED_FOLDER

#: Append-only files, relative to the agent dir: ``(pattern, what it is)``.
#: ``<C>`` is a conversation folder, ``<M>`` a mission folder.
PROTECTED_PATTERNS: tuple[tuple[str, str], ...] = (
    ("conversations/<C>/handoffs/H-NNN.json", "conversation handoff"),
    ("conversations/<C>/handoffs/H-NNN.md", "its note"),
    ("handoffs/H-*.json", "project handoff"),
    ("handoffs/H-*.md", "its note"),
    ("handoffs/YYYYMMDD-HHMMSS-<focus>.json", "project handoff, runtime naming"),
    ("handoffs/YYYYMMDD-HHMMSS-<focus>.md", "its note"),
    ("missions/<M>/handoffs/H-*.json", "mission handoff"),
    ("missions/<M>/handoffs/H-*.md", "its note"),
    ("missions/<M>/handoffs/YYYYMMDD-HHMMSS-<focus>.json", "mission handoff, runtime naming"),
    ("missions/<M>/handoffs/YYYYMMDD-HHMMSS-<focus>.md", "its note"),
)

#: Write-once files: ``(pattern, what it is)``.
WRITE_ONCE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("**/session-ref.json", "pinned session reference"),
)


def _listing(patterns: tuple[tuple[str, str], ...]) -> str:
    return "; ".join(f"`{pattern}` ({what})" for pattern, what in patterns)


MODIFIED = Rule(
    "AL601",
    "handoff-modified",
    "A handoff merged on the base branch was modified",
    "Reports a handoff file (conversation, project or mission scope, `.json` or its `.md` "
    "note) that the merge-base of the change and the base holds and that differs in the "
    "change, compared as git blobs (line-ending conversion of a checkout is not a change). "
    "Handoffs are a record of what was handed over; rewriting one changes history that other "
    "agents already resumed from. Write a new handoff instead. The finding names the commit "
    "that merged the file and points at the first changed line. Protected files, relative to "
    f"the agent dir: {_listing(PROTECTED_PATTERNS)}. The agent dir and the AL6xx settings "
    "(select, ignore, severity, per-file-ignores, agent-dir) are read from the merge-base's "
    "configuration, never from the change",
    "editing conversations/C-1/handoffs/H-002.json in a pull request",
    "adding conversations/C-1/handoffs/H-004.json",
)
DELETED = Rule(
    "AL602",
    "handoff-deleted",
    "A handoff merged on the base branch was deleted",
    "Reports a handoff file of the merge-base that the change deletes. The chain of "
    "handoffs loses a link for good. A file the base gained after the change branched off "
    "is not the change's to keep, so it is never reported.",
    "git rm conversations/C-1/handoffs/H-002.json",
    "keep merged handoffs; supersede them with a new handoff",
)
RENAMED = Rule(
    "AL603",
    "handoff-renamed",
    "A handoff merged on the base branch was renamed",
    "Reports a handoff file of the merge-base that the change moves to another path "
    "(detected by identical content). References and numbering point at the old name. A "
    "folder whose merged files all moved into one new folder (a conversation renamed) is "
    "one finding at the folder.",
    "git mv handoffs/H-002.json handoffs/H-005.json",
    "leave H-002.json where it is",
)
BACKDATED = Rule(
    "AL604",
    "handoff-backdated",
    "A new handoff sorts before a handoff the branch already had",
    "Reports a handoff added by the change that sorts before the newest handoff its folder "
    "held where the change branched off the base (by number for conversation handoffs, by "
    "the `YYYYMMDD-HHMMSS` time in the name for project and mission handoffs): it was "
    "back-dated or inserted into history. Handoffs that reached the base in parallel, and a "
    "base merged into the branch, do not count; after a rebase the branch starts at the "
    "rebased-onto commit.",
    "the branch started from H-20261103-120000-x.json; the change adds H-20261101-090000-y.json",
    "the change adds H-20261104-090000-y.json",
)
NUMBERING = Rule(
    "AL605",
    "handoff-numbering",
    "A new conversation handoff does not continue the base's numbering",
    "Reports a conversation handoff added by the change whose number is not the next one "
    "after the newest of the merge-base (merge-base H-003: the change must add H-004, then "
    "H-005, …).",
    "the merge-base has H-001..H-003; the change adds H-005",
    "the change adds H-004",
    covers=("AL401",),  # the same gap, said against the merge-base
    per_file=True,
)
WRITE_ONCE_CHANGED = Rule(
    "AL606",
    "write-once-changed",
    "A write-once file pinned on the base was changed or deleted",
    "Reports a write-once file such as `session-ref.json` whose value the merge-base already "
    'pinned (`{"file": "/abs/path"}`) and that the change rewrites or deletes. It may go '
    'from `{"file": null}` to a path once; after that its value never changes (the same '
    "value written again, formatted another way, is no change). Write-once files: "
    f"{_listing(WRITE_ONCE_PATTERNS)}.",
    'base {"file": "/sessions/a.jsonl"}; change {"file": "/sessions/b.jsonl"}',
    'base {"file": null}; change {"file": "/sessions/a.jsonl"}',
)
REPLACED = Rule(
    "AL607",
    "handoff-replaced",
    "A merged handoff, or a folder holding merged handoffs, is no longer a regular file or folder",
    "Reports a path of the merge-base that held append-only files and that the change "
    "turns into a symbolic link, a submodule (gitlink), a nested repository or a file (a "
    "merged handoff also into a folder): the agent dir moved elsewhere and linked back, a "
    "handoffs folder made a submodule, a handoff replaced by a link. Git then no longer "
    "records the handoffs' content at their paths, so a later change could rewrite them "
    "unseen. A new handoff (or note, or other append-only file) the change adds as a "
    "symbolic link, or a merged link it points elsewhere, is reported too: once merged, "
    "what it leads to could be rewritten without a change at its path. One finding per "
    "replaced path.",
    "git mv .agent state && ln -s state .agent",
    "keep the agent dir and its handoffs as regular folders and files",
)
AGENT_DIR_REMOVED = Rule(
    "AL608",
    "agent-dir-removed",
    "The agent dir that holds merged handoffs was removed or moved",
    "Reports that nothing is left at the agent dir named by the merge-base's configuration "
    "while the merge-base holds append-only files there: the directory was deleted or moved "
    "(also when the change's configuration names a new `agent-dir`, which takes effect only "
    "once merged). When the merge-base keeps the agent dir as a symbolic link to a folder "
    "of the repository, a change that leads it elsewhere (another folder, a folder of its "
    "own in the link's place, or nowhere) is reported too: the merged records are no longer "
    "the agent dir's. One finding for the whole directory.",
    'git mv .agent state, and agent-dir = "state" in .agent-lint.toml',
    "keep the agent dir where the base has it; move it in a change of its own, reviewed as such",
)
GITLINK = Rule(
    "AL609",
    "gitlink-in-agent-dir",
    "A submodule or nested git repository inside the agent dir",
    "Reports a gitlink (submodule) or a folder with its own `.git` inside the agent dir that "
    "the change adds or points at another commit. Its files are not part of this "
    "repository's history: the append-only gate cannot see them, and bumping the submodule "
    "could rewrite handoffs unseen. A gitlink the merge-base already has, at the same commit, "
    "is not the change's doing: one notice names such gitlinks. Keep agent state in the "
    "repository itself (or run agent-lint in the nested repository: when the agent dir "
    "itself has a `.git`, the gate uses that repository).",
    "git submodule add ../handoffs .agent/conversations/C-1/handoffs",
    "commit the handoff files themselves",
)

TWIN = Rule(
    "AL610",
    "handoff-twin",
    "A new name differs from a merged handoff, or a folder holding some, only in case or "
    "Unicode normalisation",
    "Reports a path the change adds whose name equals a merged append-only file, or a folder "
    "on the way to one (the agent dir included), except for letter case or Unicode "
    "normalisation (NFC/NFD): `h-001.json` beside `H-001.json`, `.Agent/` beside `.agent/`. "
    "A case-insensitive or normalising file system (macOS, Windows) holds one file for both "
    "names, and a checkout there shows whichever git writes last: the merged handoff can be "
    "replaced on those machines while it looks untouched on Linux. Decided, like every AL6xx "
    "rule, by the merge-base's settings; one finding per twin name.",
    "adding conversations/C-1/handoffs/h-001.json beside the merged H-001.json",
    "adding conversations/C-1/handoffs/H-004.json",
)
NOT_COMPARED = Rule(
    "AL611",
    "handoff-not-compared",
    "The gate could not compare a merged handoff with the change",
    "Reports a merged append-only file, or a folder holding some, that the change has but "
    "the gate cannot read: a file or folder of the work tree without read permission, or a "
    "file whose `working-tree-encoding` git itself cannot convert; or a handoff the "
    "merge-base already keeps as a symbolic link, whose content git does not record at its "
    "path (replace the link with the file, in a change of its own). The gate fails closed "
    "instead of calling such files deleted or unchanged. One finding per unreadable path.",
    "chmod 000 .agent/conversations/C-1/handoffs",
    "make the files readable by the user running agent-lint",
)

RULES = (
    MODIFIED,
    DELETED,
    RENAMED,
    BACKDATED,
    NUMBERING,
    WRITE_ONCE_CHANGED,
    REPLACED,
    AGENT_DIR_REMOVED,
    GITLINK,
    TWIN,
    NOT_COMPARED,
)

_BY_ISSUE: dict[GateIssue, Rule] = {
    GateIssue.MODIFIED: MODIFIED,
    GateIssue.DELETED: DELETED,
    GateIssue.RENAMED: RENAMED,
    GateIssue.BACKDATED: BACKDATED,
    GateIssue.NUMBERING: NUMBERING,
    GateIssue.WRITE_ONCE_CHANGED: WRITE_ONCE_CHANGED,
    GateIssue.REPLACED: REPLACED,
    GateIssue.AGENT_DIR_REMOVED: AGENT_DIR_REMOVED,
    GateIssue.GITLINK: GITLINK,
    GateIssue.TWIN: TWIN,
    GateIssue.NOT_COMPARED: NOT_COMPARED,
    # A link the change adds inside the merge-base's agent dir, seen by the gate whatever
    # the change's own settings walk: the walk's AL707 (one finding when both see it).
    GateIssue.LINKED_FOLDER: LINKED_FOLDER,
}


def diagnose(problem: GateProblem) -> Diagnostic:
    """The finding (AL6xx) a problem the append-only gate found in the change is."""
    return finding(_BY_ISSUE[problem.issue], problem)


def numbering_names_the_id(findings: list[Diagnostic]) -> list[Diagnostic]:
    """The findings less the AL202 of a new handoff whose AL605 is placed at its id.

    A new ``H-005.json`` holding ``handoff_id: "H-003"`` where H-003 is next
    is one fact, a wrong name, which its AL605 states ("rename it to
    H-003.json"). That AL605 is placed at the id field; the AL202 at the same
    field, no more severe, says the same thing again. An AL605 of a file that
    holds another id is placed at the file: both facts stand then.
    """
    placed = {
        (d.path, d.pointer): RANK[d.severity]
        for d in findings
        if d.code == NUMBERING.code and d.pointer
    }
    if not placed:
        return findings
    return [
        d
        for d in findings
        if d.code != ID_NAME_MISMATCH.code or placed.get((d.path, d.pointer), -1) < RANK[d.severity]
    ]
