"""A commit's tree read as a file system, and what history says about append-only records.

:class:`TreeFileSystem` answers a lint run's questions about files (see
:mod:`agent_lint.filesystem`) from git objects, for the same absolute paths
a checkout of the commit in place of the work tree would have: folder
listings and sizes from ``ls-tree``, contents from one ``cat-file --batch``
process, symbolic links resolved inside the tree the way
:func:`os.path.realpath` resolves them on disk. Nothing is checked out,
nothing is written, no filter, hook or other program runs (every git command
goes through :mod:`agent_lint.gitplumbing`). The tree is as untrusted as the
change: a link that leaves the repository is never followed (the path it
names outside is computed, never opened), a submodule (gitlink) is an empty
folder as in a fresh checkout, and every read is bounded by the run's limits.

Only what is asked is read: the agent dir's listing in one ``ls-tree -r``,
other folders on demand (a batch of them per process with :meth:`prefetch`),
and the blobs of the files that are read.

:class:`RecordHistory` tells, for an append-only record, whether it is
merged and which commit added it, so its paths are checked against that
commit's tree (a rename elsewhere never forces a rewrite of history).
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections import defaultdict, deque
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lint.config import ConfigError
from agent_lint.discovery import Target
from agent_lint.fileio import NotRead
from agent_lint.filesystem import DISK, AddedIn, DirEntry, FileSystem, Standing
from agent_lint.frozen import frozen
from agent_lint.gitplumbing import (
    MODE_GITLINK,
    MODE_SYMLINK,
    MODE_TREE,
    REGULAR_MODES,
    BlobReader,
    GitError,
    Repository,
    TreeEntry,
)

if TYPE_CHECKING:
    # The gate is loaded only when git is asked something: a clean run never needs it.
    from agent_lint.gitgate.snapshots import WorkTreeSnapshot

#: Links followed on the way to one path before it counts as a loop (Linux's ELOOP limit).
MAX_LINKS = 40
#: Longest link target followed (PATH_MAX); a longer one cannot be resolved.
MAX_LINK_BYTES = 4095
_TOP = TreeEntry(MODE_TREE, "")


def tree_path(top: str, path: str) -> str | None:
    """``path`` (absolute) as a path of the tree whose work-tree folder is ``top``, or None."""
    if path == top:
        return ""
    prefix = top.rstrip(os.sep) + os.sep
    if not path.startswith(prefix):
        return None
    rest = path[len(prefix) :].replace(os.sep, "/")
    return rest.replace(os.altsep, "/") if os.altsep else rest


@frozen
class _Found:
    """Where a path leads: its absolute path, its tree path (None beyond the tree), its entry,
    and whether following it met more links than a loop-free path has (``MAX_LINKS``)."""

    path: str
    git: str | None
    entry: TreeEntry | None
    looped: bool = False


class _Entry:
    """An entry of a tree folder, shaped like :class:`os.DirEntry`."""

    def __init__(self, name: str, path: str, entry: TreeEntry, fs: TreeFileSystem) -> None:
        self._name, self._path, self._entry, self._fs = name, path, entry, fs

    @property
    def name(self) -> str:
        """The entry's name."""
        return self._name

    @property
    def path(self) -> str:
        """The listed folder's path joined with the name."""
        return self._path

    def is_symlink(self) -> bool:
        """Whether the entry is a symbolic link."""
        return self._entry.mode == MODE_SYMLINK

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        """Whether the entry is a folder (a submodule is an empty one)."""
        if follow_symlinks and self.is_symlink():
            return self._fs.isdir(self._path)
        return self._entry.mode in (MODE_TREE, MODE_GITLINK)


class TreeFileSystem:
    """The files of one commit, at the paths a checkout in place of the work tree would have.

    ``top`` is the repository's work-tree folder. Paths outside it are asked
    of ``beyond`` when given (an agent dir that is its own repository, nested
    in the project, sees the project's files on disk, as a checkout of it
    would), else nothing exists there.
    """

    def __init__(
        self,
        repo: Repository,
        commit: str,
        reader: BlobReader,
        beyond: FileSystem | None = None,
    ) -> None:
        self.repo, self.commit, self.reader, self.beyond = repo, commit, reader, beyond
        self.top = os.path.realpath(repo.top)
        self.entries: dict[str, TreeEntry] = {"": _TOP}
        self.children: dict[str, dict[str, TreeEntry]] = defaultdict(dict)
        self.complete: set[str] = set()
        self._links: dict[str, str] = {}
        self._resolved: dict[tuple[str, bool], _Found] = {}  # a tree never changes

    @property
    def on_disk(self) -> bool:
        """False: nothing is ever written to a tree."""
        return False

    # -- paths ---------------------------------------------------------------

    def git_path(self, path: str) -> str | None:
        """The tree path of an absolute path, or None when it is outside the work tree."""
        return tree_path(self.top, path)

    def _absolute(self, git: str) -> str:
        return os.path.join(self.top, *git.split("/")) if git else self.top

    # -- listings ------------------------------------------------------------

    def seed(self, folder: str) -> None:
        """List everything under tree folder ``folder`` in one process (the agent dir)."""
        found = self.repo.list_tree(self.commit, [folder], recursive=True)
        self._add(found)
        self.complete.add(folder)
        self.complete.update(
            path
            for path, entry in found.items()
            if entry.mode == MODE_TREE and (not folder or path.startswith(folder + "/"))
        )

    def _add(self, found: dict[str, TreeEntry]) -> None:
        for path, entry in found.items():
            self.entries[path] = entry
            self.children[posixpath.dirname(path)][posixpath.basename(path)] = entry

    def _list(self, folders: Iterable[str]) -> None:
        wanted = [f for f in set(folders) if f not in self.complete]
        if wanted:
            self._add(self.repo.list_tree(self.commit, wanted))
            self.complete.update(wanted)

    def entry(self, path: str) -> TreeEntry | None:
        """The entry at tree path ``path`` itself (links on the way not followed), or None."""
        found = self.entries.get(path)
        if found is None:
            parent = posixpath.dirname(path)
            if parent not in self.complete:
                self._list([parent])
                found = self.entries.get(path)
        return found

    def prefetch(self, paths: Iterable[str]) -> None:
        """List the folders on the way to ``paths`` with one git process."""
        folders: set[str] = set()
        for path in paths:
            git = self.git_path(path)
            if git is None:
                continue
            parts = [p for p in posixpath.normpath(git).split("/") if p not in ("", ".")]
            if ".." in parts:
                continue
            folders.update("/".join(parts[:i]) for i in range(len(parts)))
        self._list(folders)

    # -- resolution ----------------------------------------------------------

    def _link_target(self, entry: TreeEntry) -> str:
        """The text of a symbolic link (its blob); OSError when no checkout could hold it."""
        if entry.sha not in self._links:
            if entry.size > MAX_LINK_BYTES:
                raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
            data = self.reader.read(entry.sha)
            if data is None or b"\0" in data or not data:
                raise OSError(errno.EIO, "symbolic link target cannot be read")
            self._links[entry.sha] = data.decode("utf-8", errors="surrogateescape")
        return self._links[entry.sha]

    def _resolve(self, git: str, follow_last: bool) -> _Found:
        """Resolve ``git`` like :func:`os.path.realpath` would in a checkout.

        Components are looked up one at a time; a symbolic link is replaced by
        its target (relative to its folder, or absolute); a missing component
        makes the rest of the path lexical; ``..`` above the top continues
        outside the tree. A path that needs more than :data:`MAX_LINKS` links
        is left unresolved at the link, which then does not exist.
        """
        pending = deque(git.split("/"))
        done: list[str] = []
        missing: int | None = None  # components of ``done`` from this index on do not exist
        hops = 0
        while pending:
            part = pending.popleft()
            if part in ("", "."):
                continue
            if part == "..":
                if not done:
                    jumped = self._jump(os.path.dirname(self.top), pending)
                    if jumped is None:
                        return self._beyond(os.path.dirname(self.top), pending)
                    pending = jumped
                    continue
                done.pop()
                if missing is not None and len(done) <= missing:
                    missing = None
                continue
            here = "/".join([*done, part])
            entry = None if missing is not None else self.entry(here)
            if entry is None:
                missing = len(done) if missing is None else missing
                done.append(part)
                continue
            if entry.mode == MODE_SYMLINK and (pending or follow_last):
                hops += 1
                if hops > MAX_LINKS:
                    return _Found(os.path.join(self._absolute(here), *pending), here, None, True)
                target = self._link_target(entry)
                if target.startswith("/"):
                    jumped = self._jump(os.path.normpath(target), pending)
                    if jumped is None:
                        return self._beyond(os.path.normpath(target), pending)
                    done, missing, pending = [], None, jumped
                    continue
                pending = deque([*target.split("/"), *pending])
                continue
            done.append(part)
            if pending and entry.mode != MODE_TREE:
                missing = len(done)  # a file or a submodule holds no entries
        path = "/".join(done)
        entry = None if missing is not None else self.entry(path) if path else _TOP
        return _Found(self._absolute(path), path, entry)

    def _jump(self, start: str, rest: Iterable[str]) -> deque[str] | None:
        """Components from the top for the path ``start``/``rest`` when it is inside the tree."""
        whole = os.path.normpath(os.path.join(start, *rest))
        git = self.git_path(whole)
        if git is None:
            return None
        return deque(git.split("/") if git else [])

    def _beyond(self, start: str, rest: Iterable[str]) -> _Found:
        """A path that leaves the tree: resolved on disk for a nested repository, else lexical."""
        whole = os.path.normpath(os.path.join(start, *rest))
        if self.beyond is not None:
            return _Found(self.beyond.realpath(whole), None, None)
        return _Found(whole, None, None)

    def _find(self, path: str, follow_last: bool = True) -> _Found:
        git = self.git_path(path)
        if git is None:
            return _Found(path, None, None)
        key = (git, follow_last)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(git, follow_last)
        return self._resolved[key]

    # -- the FileSystem interface -------------------------------------------

    def scandir(self, folder: str) -> list[DirEntry]:
        """The entries of ``folder`` (links on the way followed)."""
        found = self._find(folder)
        if found.git is None:
            if self.beyond is not None:
                return self.beyond.scandir(found.path)
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), folder)
        entry = found.entry
        if entry is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), folder)
        if entry.mode == MODE_GITLINK:
            return []
        if entry.mode != MODE_TREE:
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), folder)
        self._list([found.git])
        listing = self.children.get(found.git, {})
        return [_Entry(name, os.path.join(folder, name), e, self) for name, e in listing.items()]

    def stat(self, path: str) -> os.stat_result:
        """Mode and size of what ``path`` leads to."""
        found = self._find(path)
        if found.git is None and self.beyond is not None:
            return self.beyond.stat(found.path)
        entry = found.entry
        if entry is None and found.looped:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
        if entry is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        if entry.mode in (MODE_TREE, MODE_GITLINK):
            return os.stat_result((stat.S_IFDIR | 0o755, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        mode = 0o755 if entry.mode == "100755" else 0o644
        return os.stat_result((stat.S_IFREG | mode, 0, 0, 0, 0, 0, max(entry.size, 0), 0, 0, 0))

    def realpath(self, path: str) -> str:
        """``path`` with every link resolved, inside the tree or beyond it."""
        found = self._find(path)
        if found.git is None and self.git_path(path) is None and self.beyond is not None:
            return self.beyond.realpath(path)
        return found.path

    def islink(self, path: str) -> bool:
        """Whether ``path`` is a symbolic link in the tree."""
        found = self._find(path, follow_last=False)
        if found.git is None:
            return self.beyond.islink(found.path) if self.beyond is not None else False
        return found.entry is not None and found.entry.mode == MODE_SYMLINK

    def isdir(self, path: str) -> bool:
        """Whether ``path`` leads to a folder (a submodule is one)."""
        found = self._find(path)
        if found.git is None:
            return self.beyond.isdir(found.path) if self.beyond is not None else False
        return found.entry is not None and found.entry.mode in (MODE_TREE, MODE_GITLINK)

    def exists(self, path: str) -> bool:
        """Whether ``path`` leads to an entry."""
        found = self._find(path)
        if found.git is None:
            return self.beyond.exists(found.path) if self.beyond is not None else False
        return found.entry is not None

    def lexists(self, path: str) -> bool:
        """Whether ``path`` is an entry (a dangling link counts).

        A path that a link on the way leads out of the repository counts as
        existing: what is out there is never looked at, and the question that
        matters is answered by :meth:`realpath` (it leads outside).
        """
        found = self._find(path, follow_last=False)
        if found.git is None:
            if self.beyond is not None:
                return self.beyond.lexists(found.path)
            return self.git_path(path) is not None
        return found.entry is not None

    def read(self, path: str | Path, max_bytes: int) -> bytes:
        """The blob ``path`` leads to, at most ``max_bytes`` of it (or :class:`NotRead`)."""
        found = self._find(str(path))
        if found.git is None and self.beyond is not None:
            return self.beyond.read(found.path, max_bytes)
        entry = found.entry
        if entry is None:
            raise NotRead("unreadable", os.strerror(errno.ENOENT))
        if entry.mode not in REGULAR_MODES:
            raise NotRead("special", "not a regular file (a FIFO, socket or device)")
        if entry.size > max_bytes:
            raise NotRead("large", f"{entry.size} bytes", entry.size)
        try:
            data = self.reader.read(entry.sha)
        except GitError as exc:
            raise NotRead("unreadable", str(exc)) from exc
        if data is None:
            raise NotRead("unreadable", "the object is missing from the repository")
        if len(data) > max_bytes:
            raise NotRead("large", f"{len(data)} bytes", len(data))
        return data


class GitSession:
    """The trees of one repository a run reads, sharing one ``cat-file`` process.

    Paths of the linted repository (relative to ``target.root``) map to tree
    paths; when the agent dir is a repository of its own nested in the
    project, the project's other files are read from disk.
    """

    def __init__(self, repo: Repository, target: Target) -> None:
        self.repo, self.target = repo, target
        self.reader = repo.blob_reader()
        self.trees: dict[str, TreeFileSystem] = {}
        root = os.path.realpath(target.root)
        self.top = top = os.path.realpath(repo.top)
        nested = root != top and not root.startswith(top.rstrip(os.sep) + os.sep)
        self.beyond: FileSystem | None = DISK if nested else None
        self._shallow: set[str] | None = None

    def tree(self, commit: str) -> TreeFileSystem:
        """The file system of ``commit`` (one per commit)."""
        if commit not in self.trees:
            self.trees[commit] = TreeFileSystem(self.repo, commit, self.reader, self.beyond)
        return self.trees[commit]

    def git_path(self, path: str) -> str | None:
        """The tree path of a path of the linted repository (None outside the tree)."""
        full = os.path.join(self.target.root, *path.split("/")) if path else str(self.target.root)
        return self.tree_path(full)

    def tree_path(self, full: str) -> str | None:
        """The tree path of an absolute path (None outside the tree)."""
        return tree_path(self.top, full)

    @property
    def shallow(self) -> set[str]:
        """Boundary commits of a shallow clone (they seem to add every file)."""
        if self._shallow is None:
            self._shallow = self.repo.shallow_commits()
        return self._shallow

    def close(self) -> None:
        """End the ``cat-file`` process."""
        self.reader.close()


def base_tree(session: GitSession, commit: str) -> TreeFileSystem:
    """``commit``'s tree with the agent dir listed in one process, ready to be linted."""
    fs = session.tree(commit)
    prefix = session.tree_path(str(session.target.agent_dir))
    if prefix is not None:
        fs.seed(prefix)
    return fs


class RecordHistory:
    """Where the paths of append-only records are checked (the run's ``Origins``).

    A record is merged when the reference commit holds it with the same
    content; its paths are then checked in the tree of the commit that added
    it (:class:`AddedIn`). The reference is the merge-base with the base when
    one is given, else HEAD. A record that is not merged is ``UNMERGED``;
    without git (or in a shallow clone whose history stops before the record
    was added) it is ``UNKNOWN``. Git is asked nothing until a record's
    history is needed.
    """

    def __init__(
        self,
        target: Target,
        base: str | None = None,
        session: GitSession | None = None,
        reference: str | None = None,
    ) -> None:
        self.target, self.base = target, base
        self.session, self.reference = session, reference
        self._owned = session is None
        self._ready: bool | None = None
        self._additions: dict[str, tuple[str, str]] = {}
        self._additions_loaded = False
        self._work_tree: WorkTreeSnapshot | None = None
        self._merged_everything = session is not None  # linting the reference's own tree

    def origin(self, record: str) -> Standing | AddedIn:
        """How ``record`` stands: unknown, not merged, or added in a commit."""
        try:
            return self._origin(record)
        except (GitError, ConfigError, OSError):
            return Standing.UNKNOWN

    def _origin(self, record: str) -> Standing | AddedIn:
        if not self._prepare():
            return Standing.UNKNOWN
        session, reference = self.session, self.reference
        assert session is not None
        if reference is None:
            return Standing.UNMERGED  # no commit yet: nothing is merged
        git = session.git_path(record)
        if git is None:
            return Standing.UNKNOWN
        if not self._merged_everything and not self._unchanged(session, reference, git):
            return Standing.UNMERGED
        self._load_additions()
        added = self._additions.get(git)
        if added is None or added[0] in session.shallow:
            return Standing.UNKNOWN
        return AddedIn(added[1], session.tree(added[0]))

    def edited(self, record: str) -> str | None:
        """The path in the repository (from its top) of ``record`` when HEAD (in a run
        without a base) holds it with other content than the work tree: an
        edit since it was committed, which may be a merged record's. None without git, or
        where the commit does not hold it. No history is walked: one tree entry, one hash."""
        try:
            if self.base or not self._prepare() or self.reference is None:
                return None  # with a base the gate tells what the change did to merged files
            if self._merged_everything:
                return None
            session = self.session
            assert session is not None
            git = session.git_path(record)
            if git is None:
                return None
            entry = session.tree(self.reference).entry(git)
            if entry is None or entry.mode not in REGULAR_MODES:
                return None
            return None if self._unchanged(session, self.reference, git) else git
        except (GitError, ConfigError, OSError):
            return None

    def _unchanged(self, session: GitSession, reference: str, git: str) -> bool:
        """Whether the work tree's record is the reference commit's (same blob)."""
        tree = session.tree(reference)
        entry = tree.entry(git)
        if entry is None or entry.mode not in REGULAR_MODES:
            return False
        if self._work_tree is None:
            from agent_lint.gitgate.snapshots import WorkTreeSnapshot

            prefix = session.tree_path(str(self.target.agent_dir)) or ""
            self._work_tree = WorkTreeSnapshot(session.repo, [prefix])
        return self._work_tree.sha(git) == entry.sha

    def _prepare(self) -> bool:
        """Find the repository and the reference commit once; False without git."""
        if self._ready is None:
            self._ready = False  # stays so if git fails on the way
            self._ready = self._find()
        return self._ready

    def _find(self) -> bool:
        if self.session is None:
            from agent_lint import gitgate

            repo = gitgate.choose_repository(self.target.agent_dir, self.target.root)
            if repo is None:
                return False
            reference = None
            if self.base:
                located = gitgate.locate(self.target, self.base)
                if isinstance(located, gitgate.Located):
                    reference = located.merge_base
            self.reference = reference or repo.head()
            self.session = GitSession(repo, self.target)
        return True

    def _load_additions(self) -> None:
        """The commits that added each record, read once (a walk of the store's history:
        only a record's origin needs it, never :meth:`edited`)."""
        if self._additions_loaded or self.reference is None or self.session is None:
            return
        self._additions_loaded = True
        prefix = self.session.tree_path(str(self.target.agent_dir)) or ""
        self._additions = self.session.repo.additions(self.reference, prefix)

    def close(self) -> None:
        """End the git process this history started (a shared session is closed by its owner)."""
        if self._owned and self.session is not None:
            self.session.close()
