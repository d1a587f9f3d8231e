"""Problems the engine meets, as typed values; validators turn them into findings.

Loading (:mod:`agent_lint.loading`) and the per-file step report what they met
reading a file as :class:`ParseProblem` values, the walk
(:mod:`agent_lint.discovery`) what it met at an entry of the store as
:class:`EntryProblem` values, and the append-only gate
(:mod:`agent_lint.gitgate`) what a change did to merged files as
:class:`GateProblem` values. Functions of :mod:`agent_lint.validators` make
each the finding of its rule (:func:`~agent_lint.validators.files.diagnose`,
:func:`~agent_lint.validators.files.diagnose_entry`,
:func:`~agent_lint.validators.history.diagnose`), so every code is emitted
from one layer: the validators and the profiles' checks.
"""

from __future__ import annotations

import enum
from typing import Generic, TypeVar

from agent_lint.frozen import frozen


class ParseIssue(str, enum.Enum):
    """What went wrong reading a file's text."""

    INVALID_UTF8 = "invalid-utf8"
    BYTE_ORDER_MARK = "byte-order-mark"
    EMPTY_FILE = "empty-file"
    INVALID_JSON = "invalid-json"
    INVALID_YAML = "invalid-yaml"
    DUPLICATE_KEY = "duplicate-key"
    LIMIT_EXCEEDED = "limit-exceeded"


@frozen(repr=False)
class ParseProblem:
    """One problem of one file: what, the words that say it, and where.

    ``pointer`` and ``target`` place it in the document (a duplicate key is a
    ``key``); ``line``/``column`` (1-based) and the end place it in the text.
    """

    issue: ParseIssue
    path: str
    message: str
    pointer: str = ""
    target: str = "value"
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None


class EntryIssue(str, enum.Enum):
    """What the walk met at an entry of the store: why it is not read, or a name to fix."""

    SYMLINK_ESCAPE = "symlink-escape"
    NOT_A_REGULAR_FILE = "not-a-regular-file"
    FILE_TOO_LARGE = "file-too-large"
    UNREADABLE = "unreadable"
    TEMPORARY_FILE = "leftover-temporary-file"
    STALE_LOCK = "stale-lock"
    NAME_COLLISION = "name-collision"
    UNPORTABLE_NAME = "unportable-name"
    SYMLINK_INSIDE = "symlink-in-agent-dir"
    AGENT_DIR_OUTSIDE = "agent-dir-outside-repository"
    LINKED_FOLDER = "linked-folder-in-agent-dir"


class GateIssue(str, enum.Enum):
    """What a change did to an append-only or write-once file of the merge-base."""

    MODIFIED = "handoff-modified"
    DELETED = "handoff-deleted"
    RENAMED = "handoff-renamed"
    BACKDATED = "handoff-backdated"
    NUMBERING = "handoff-numbering"
    WRITE_ONCE_CHANGED = "write-once-changed"
    REPLACED = "handoff-replaced"
    AGENT_DIR_REMOVED = "agent-dir-removed"
    GITLINK = "gitlink-in-agent-dir"
    TWIN = "handoff-twin"
    NOT_COMPARED = "handoff-not-compared"
    LINKED_FOLDER = "linked-folder-in-agent-dir"


IssueT = TypeVar("IssueT", EntryIssue, GateIssue)


@frozen(repr=False)
class Problem(Generic[IssueT]):
    """One problem at one path: what (the issue), the words that say it, and where.

    ``path`` is the repository path the finding names (POSIX form);
    ``line``/``column`` (1-based) are set when it is about the file, folder or
    link as a whole (1:1) or a line of it (where a merged file first differs);
    ``pointer``, when it is about one value of the file (a JSON pointer).
    """

    issue: IssueT
    path: str
    message: str
    line: int | None = None
    column: int | None = None
    pointer: str = ""


#: A problem the walk met at an entry of the store (a file, a folder, a link, the store).
EntryProblem = Problem[EntryIssue]
#: A problem of the change the append-only gate found, in words naming the base's commits.
GateProblem = Problem[GateIssue]
