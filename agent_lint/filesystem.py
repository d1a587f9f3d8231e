"""The file system a lint run reads: the disk, or a git tree seen as one.

Everything a run learns about files goes through a :class:`FileSystem`: the
walk of the agent dir (:func:`agent_lint.discovery.walk`), reading records,
whether a path written in a record exists, and the headings of a linked
Markdown file. :data:`DISK` answers from the disk. A git tree
(:class:`agent_lint.gittree.TreeFileSystem`) answers the same questions for
the same absolute paths from git objects, as a checkout of that commit would,
so ``--new-only`` lints the merge-base and history-aware path checks look at
the commit that added a record without checking anything out.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from agent_lint.fileio import read_regular
from agent_lint.frozen import frozen


class DirEntry(Protocol):
    """One entry of a folder listing (the part of :class:`os.DirEntry` a run uses)."""

    @property
    def name(self) -> str:
        """The entry's name."""

    @property
    def path(self) -> str:
        """The folder's path joined with the name."""

    def is_symlink(self) -> bool:
        """Whether the entry is a symbolic link."""

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        """Whether the entry is a folder."""


class FileSystem(Protocol):
    """What a lint run asks about files, with the meaning of the :mod:`os` functions."""

    @property
    def on_disk(self) -> bool:
        """True for the disk, where ``--fix`` can write."""

    def scandir(self, folder: str) -> list[DirEntry]:
        """The entries of ``folder`` (:func:`os.scandir`); OSError when it cannot be listed."""

    def stat(self, path: str) -> os.stat_result:
        """Mode and size of ``path``, links followed (:func:`os.stat`)."""

    def realpath(self, path: str) -> str:
        """``path`` with every symbolic link resolved (:func:`os.path.realpath`)."""

    def islink(self, path: str) -> bool:
        """Whether ``path`` is a symbolic link."""

    def isdir(self, path: str) -> bool:
        """Whether ``path`` is a folder, links followed."""

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists, links followed."""

    def lexists(self, path: str) -> bool:
        """Whether ``path`` exists as an entry (a dangling link counts)."""

    def read(self, path: str | Path, max_bytes: int) -> bytes:
        """The bytes of the regular file at ``path``; :class:`~agent_lint.fileio.NotRead`."""

    def prefetch(self, paths: Iterable[str]) -> None:
        """A hint: ``paths`` will be asked about soon (a git tree lists them in one go)."""


@frozen(repr=False)
class Disk:
    """The disk, through :mod:`os` (reads never block and are bounded: :mod:`fileio`)."""

    @property
    def on_disk(self) -> bool:
        """True: ``--fix`` writes here."""
        return True

    def scandir(self, folder: str) -> list[DirEntry]:
        """The entries of ``folder``."""
        with os.scandir(folder) as listing:
            return list(listing)

    def stat(self, path: str) -> os.stat_result:
        """:func:`os.stat`."""
        return os.stat(path)

    def realpath(self, path: str) -> str:
        """:func:`os.path.realpath`."""
        return os.path.realpath(path)

    def islink(self, path: str) -> bool:
        """:func:`os.path.islink`."""
        return os.path.islink(path)

    def isdir(self, path: str) -> bool:
        """:func:`os.path.isdir`."""
        return os.path.isdir(path)

    def exists(self, path: str) -> bool:
        """:func:`os.path.exists`."""
        return os.path.exists(path)

    def lexists(self, path: str) -> bool:
        """:func:`os.path.lexists`."""
        return os.path.lexists(path)

    def read(self, path: str | Path, max_bytes: int) -> bytes:
        """:func:`agent_lint.fileio.read_regular`."""
        return read_regular(path, max_bytes)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Nothing to do: the disk answers each question directly."""


#: The file system of an ordinary run.
DISK = Disk()


class Standing(enum.Enum):
    """What is known about an append-only record's history when it is not merged."""

    UNKNOWN = "unknown"  # no git: it may be merged, so its findings cannot be errors
    UNMERGED = "unmerged"  # new or changed since the last merged version: still fixable


@frozen(repr=False)
class AddedIn:
    """A merged append-only record: the commit that added it, and that commit's files."""

    commit: str
    fs: FileSystem


class Origins(Protocol):
    """Tells where the paths of an append-only record are to be checked (see ``AddedIn``)."""

    def origin(self, record: str) -> Standing | AddedIn:
        """How record ``record`` (a repository path) stands in git's history."""
