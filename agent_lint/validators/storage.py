"""AL7xx: storage hygiene of the agent dir, judged from names and links alone.

Agents write their state with atomic writes (a temporary file renamed over
the target) and short directory locks; an interrupted write or a crashed
agent leaves these behind. Checkouts on macOS and Windows fold case and
Unicode normalisation and refuse some names. The walk
(:mod:`agent_lint.discovery`), which sees every name of every folder once, asks
the functions here to judge each name; they return typed problems
(:class:`~agent_lint.problems.EntryProblem`), which
:func:`agent_lint.validators.files.diagnose_entry` makes findings.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator

from agent_lint.diagnostics import Rule, Severity
from agent_lint.jsontext import quote
from agent_lint.problems import EntryIssue, EntryProblem

TEMPORARY_FILE = Rule(
    "AL701",
    "leftover-temporary-file",
    "A temporary file of an interrupted write or an editor is in the agent dir",
    "Reports a temporary file of an atomic write (`*.tmp`, `.*.tmp`, `*.temp`) or an editor's "
    "swap, backup or lock file (`.*.swp`, `*~`, `#*#`, `.#*`). An atomic write creates the "
    "temporary file and renames it over the record; one left behind means the write was "
    "interrupted, and the record beside it may be older than the agent believes. It is a "
    "warning because an editor holds such files while it is open.",
    "conversations/C-1/messages.json.tmp next to messages.json",
    "messages.json alone (check it holds the latest content, then delete the .tmp file)",
    severity=Severity.WARNING,
)
STALE_LOCK = Rule(
    "AL702",
    "stale-lock",
    "A lock folder is present in the agent dir",
    "Reports a `.control` folder: the short directory lock agents take around a "
    "read-modify-write of shared control records. A lock in a commit, or left by a crashed "
    "agent, makes every agent that takes it wait or fail. Stop the agents that use it, then "
    "delete the folder; it is never meant to be committed.",
    "subagents/.control/ committed with the records",
    "no .control folder (add it to .gitignore)",
    severity=Severity.WARNING,
)
NAME_COLLISION = Rule(
    "AL703",
    "name-collision",
    "Two names in one folder differ only in case or Unicode normalisation",
    "Reports names of one folder that become the same name on a case-insensitive or "
    "normalising file system (`H-003.json` and `h-003.json`; `T-café` written with a "
    "precomposed `é` and with `e` plus a combining accent). A checkout on macOS or Windows "
    "keeps only one of them, so agents there read a different record. Each group of twins "
    "is reported once.",
    "handoffs/H-003.json and handoffs/h-003.json",
    "one file per record, each name distinct after case folding and NFC normalisation",
)
UNPORTABLE_NAME = Rule(
    "AL704",
    "unportable-name",
    "A name cannot be checked out on Windows",
    'Reports a file or folder name that Windows refuses: it contains `:` `\\` `*` `?` `"` '
    "`<` `>` `|` or a control character, ends with a dot or a space, or is a reserved device "
    "name (`CON`, `PRN`, `AUX`, `NUL`, `COM1`-`COM9`, `LPT1`-`LPT9`, with any extension). "
    "git cannot check such a path out there, so an agent on Windows cannot resume. It is a "
    'warning: a team without Windows machines may ignore it (`ignore = ["AL704"]`).',
    "decisions/approve:release-1.2.json",
    "decisions/approve-release-1.2.json",
    severity=Severity.WARNING,
)
SYMLINK_INSIDE = Rule(
    "AL705",
    "symlink-in-agent-dir",
    "A symbolic link is part of the agent dir",
    "Reports a symbolic link to a file in the agent dir (or the agent dir itself being one) "
    "that stays inside the repository. The linked file, or the folder the agent dir leads "
    "to, is read and checked. In place of a handoff merged on the base, the append-only gate "
    "reports the link instead (AL607). Links become plain text files in Windows checkouts "
    "and let one record change under another name; commit the file itself. A link to a "
    "folder inside the agent dir is an error (AL707); a link that leaves the repository is "
    "one too (AL007).",
    "decisions/D-001.json -> ../shared/D-001.json",
    "decisions/D-001.json as a regular file",
    severity=Severity.WARNING,
)
LINKED_FOLDER = Rule(
    "AL707",
    "linked-folder-in-agent-dir",
    "A folder inside the agent dir is a symbolic link",
    "Reports a symbolic link inside the agent dir that leads to a folder of the repository. "
    "The folder is not walked: the files behind the link count as present, so references to "
    "them resolve, but none of them is checked, and once merged, the append-only gate does "
    "not see their handoffs change, since the gate compares the agent dir's own paths. It is "
    "an error because a change could otherwise bring in records no check reads, or move "
    "merged handoffs out of the gate's reach; the link also becomes a plain text file in a "
    "Windows checkout, where the next agent cannot resume. Commit the folder itself. With "
    "`--base`, the merge-base's settings decide it, the gate also finds the links a change "
    "adds inside the merge-base's agent dir, and no baseline hides it. (The agent dir being "
    "a link is AL705: its folder is read.)",
    "conversations/C-7 -> ../../docs/C-7",
    "conversations/C-7/ as a folder committed in the agent dir",
)
AGENT_DIR_OUTSIDE = Rule(
    "AL706",
    "agent-dir-outside-repository",
    "The agent dir resolves to a folder outside the repository",
    "Reports an agent dir (`.agent`, or the configured `agent-dir`) that is a symbolic link, "
    "or lies under one, leading outside the repository. agent-lint reads nothing there: on a "
    "pull request from a fork it would expose files of the machine running the check. "
    "Nothing else is checked until the agent dir is a real folder of the repository.",
    ".agent -> /home/me/agent-state",
    ".agent/ as a folder committed in the repository",
)

RULES = (
    TEMPORARY_FILE,
    STALE_LOCK,
    NAME_COLLISION,
    UNPORTABLE_NAME,
    SYMLINK_INSIDE,
    AGENT_DIR_OUTSIDE,
    LINKED_FOLDER,
)

#: Name of seed 001's short directory lock.
LOCK_FOLDER = ".control"

_ATOMIC = re.compile(r"\.te?mp(?:[.-][A-Za-z0-9]+)?\Z", re.ASCII | re.IGNORECASE)
_SWAP = re.compile(r"\.sw[a-p]\Z", re.ASCII)
_FORBIDDEN = frozenset('<>:"\\|?*') | {chr(code) for code in range(32)}
_ANY_FORBIDDEN = re.compile('[<>:"\\\\|?*\x00-\x1f]')
_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"{port}{n}" for port in ("COM", "LPT") for n in (*"123456789", "¹", "²", "³")}
)


#: The rule of each problem the walk meets with a name or a link.
BY_ISSUE: dict[EntryIssue, Rule] = {
    EntryIssue.TEMPORARY_FILE: TEMPORARY_FILE,
    EntryIssue.STALE_LOCK: STALE_LOCK,
    EntryIssue.NAME_COLLISION: NAME_COLLISION,
    EntryIssue.UNPORTABLE_NAME: UNPORTABLE_NAME,
    EntryIssue.SYMLINK_INSIDE: SYMLINK_INSIDE,
    EntryIssue.AGENT_DIR_OUTSIDE: AGENT_DIR_OUTSIDE,
    EntryIssue.LINKED_FOLDER: LINKED_FOLDER,
}


def _named(issue: EntryIssue, path: str, message: str) -> EntryProblem:
    """A problem with a name as a whole, placed at line 1, column 1 of ``path``."""
    return EntryProblem(issue, path, message, line=1, column=1)


def temporary_kind(name: str) -> str | None:
    """What left the file ``name`` behind, if it is a temporary file; else None."""
    if _ATOMIC.search(name):
        return "a temporary file of an interrupted atomic write"
    if _SWAP.search(name) and name.startswith("."):
        return "an editor swap file"
    if name.endswith("~") or (len(name) > 2 and name.startswith("#") and name.endswith("#")):
        return "an editor backup file"
    if name.startswith(".#"):
        return "an editor lock file"
    return None


def temporary_file(repo_path: str, name: str) -> EntryProblem | None:
    """AL701 for a temporary or editor file, else None."""
    kind = temporary_kind(name)
    if kind is None:
        return None
    return _named(
        EntryIssue.TEMPORARY_FILE,
        repo_path,
        f"{name} is {kind}; not read. Delete it once the record it belongs to is known "
        "to be complete",
    )


def lock_folder(repo_path: str) -> EntryProblem:
    """AL702 for a ``.control`` lock folder."""
    return _named(
        EntryIssue.STALE_LOCK,
        repo_path,
        f"lock folder {LOCK_FOLDER} is present: an agent holds the lock or crashed holding it; "
        "stop the agents that use it, then delete the folder (it is not walked)",
    )


def unportable_reason(name: str) -> str | None:
    """Why Windows refuses ``name``, or None when it does not."""
    bad = sorted({ch for ch in name if ch in _FORBIDDEN}) if _ANY_FORBIDDEN.search(name) else []
    if bad:
        shown = ", ".join(quote(ch) if ord(ch) < 32 else f"`{ch}`" for ch in bad)
        return f"contains {shown}"
    if name.endswith((".", " ")):
        return "ends with a dot or a space"
    if name.split(".", 1)[0].rstrip(" ").upper() in _DEVICES:
        return f"is the reserved device name {name.split('.', 1)[0].upper()}"
    return None


def unportable_name(repo_path: str, name: str) -> EntryProblem | None:
    """AL704 for a name Windows refuses, else None."""
    reason = unportable_reason(name)
    if reason is None:
        return None
    return _named(
        EntryIssue.UNPORTABLE_NAME,
        repo_path,
        f"name {quote(name)} {reason}: it cannot be checked out on Windows",
    )


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def collisions(folder: str, names: Iterable[str]) -> Iterator[EntryProblem]:
    """AL703 once per group of names in ``folder`` that fold to the same name.

    ``folder`` is the repository path of the folder ("" for the root); the
    finding is placed at the first name of the group in sorted order.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for name in names:
        groups[_fold(name)].append(name)
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort()
        first, others = group[0], group[1:]
        composed = {unicodedata.normalize("NFC", name) for name in group}
        ways = []
        if len(composed) > 1:
            ways.append("case")
        if len(composed) < len(group):
            ways.append("Unicode normalisation (NFC/NFD)")
        listed = ", ".join(quote(name) for name in others)
        path = f"{folder}/{first}" if folder else first
        yield _named(
            EntryIssue.NAME_COLLISION,
            path,
            f"{quote(first)} and {listed} differ only in {' and '.join(ways)}: a checkout on macOS "
            "or Windows keeps only one of them",
        )


def symlink_inside(repo_path: str, target: str, agent_dir: bool = False) -> EntryProblem:
    """AL705 for a symbolic link to a file that stays inside the repository (``agent_dir``:
    the agent dir itself, whose folder is read)."""
    what = (
        "the agent dir; the folder it leads to is read"
        if agent_dir
        else "the file it names is read"
    )
    return _named(
        EntryIssue.SYMLINK_INSIDE,
        repo_path,
        f"symbolic link to {target} ({what}); links break in Windows checkouts, so commit "
        "the file or folder itself",
    )


def linked_folder(repo_path: str, target: str) -> EntryProblem:
    """AL707 for a symbolic link inside the agent dir that leads to a folder of the repository."""
    return _named(EntryIssue.LINKED_FOLDER, repo_path, linked_folder_message(target))


def linked_folder_message(target: str) -> str:
    """AL707's words for a link to the folder ``target`` (the walk's and the gate's)."""
    return (
        f"symbolic link to the folder {target}: the files behind it are neither walked nor "
        "checked, and the append-only gate does not follow it; commit the folder itself"
    )


def agent_dir_outside(repo_path: str, into_git: bool = False) -> EntryProblem:
    """AL706 for an agent dir that resolves outside the repository (or into its ``.git``
    folder, git's own files, which are not the repository's)."""
    where = "into a .git folder" if into_git else "to a folder outside the repository"
    return _named(
        EntryIssue.AGENT_DIR_OUTSIDE,
        repo_path,
        f"the agent dir {repo_path} resolves {where}; nothing in it is read",
    )
