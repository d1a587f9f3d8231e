"""The two sides of the comparison, as git sees them: trees, the index, the work tree.

A snapshot lists the entries under some folders of a repository (repository
paths in POSIX form, with their git modes) and gives each regular file's blob
id and content. Trees and the index give blob ids straight from git. The work
tree gives the blob id git *would store* for each file, without running any
program: an untouched file (its size and modification time as the index
recorded them: size, modification and change times, inode, device, owner,
as git's own test) has the index's blob id; any other file is hashed after the
check-in conversions git applies from attributes and ``core.autocrlf`` (CRLF
to LF, ``ident``), done in Python. A file with a ``working-tree-encoding``
is hashed by git itself (``hash-object --stdin --path``, which knows every
encoding git's iconv knows and runs no program for a file without a filter
attribute). A clean/smudge filter is a program and is never run: a file with
a filter attribute that was touched since checkout is hashed as it is.

A folder or file of the work tree that cannot be read is recorded in
:attr:`Snapshot.unreadable`, never taken for absent: the gate cannot compare
what it cannot read.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import hashlib
import os
import re
import stat
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from agent_lint.config import LIMITS
from agent_lint.fileio import NotRead, read_regular
from agent_lint.gitplumbing import (
    MODE_GITLINK,
    MODE_SYMLINK,
    MODE_TREE,
    REGULAR_MODES,
    IndexEntry,
    Repository,
    TreeEntry,
    decode,
)

#: The longest symbolic link target followed (PATH_MAX on Linux).
MAX_LINK_TARGET = 4096
MODE_FILE = "100644"
MODE_EXECUTABLE = "100755"
#: Stands for a FIFO, socket or device in the work tree (git cannot store one).
MODE_SPECIAL = "000000"

#: The largest work-tree file the gate compares: the ceiling of ``max-file-bytes``. A
#: larger one in place of a merged handoff cannot be compared (fail closed).
MAX_COMPARED_BYTES = LIMITS["max-file-bytes"].ceiling
_ATTRIBUTES = ("text", "eol", "crlf", "ident", "filter", "working-tree-encoding")
_IDENT = re.compile(rb"\$Id:[^$\n]*\$")


def fold(path: str) -> str:
    """``path`` as a case-insensitive, normalising file system (macOS, Windows) sees it."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


def blob_sha(data: bytes) -> str:
    """The git blob id of ``data`` (what ``git hash-object --no-filters`` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def under(path: str, prefix: str) -> bool:
    """Whether repository path ``path`` is ``prefix`` or inside it (``""`` is the top)."""
    return not prefix or path == prefix or path.startswith(prefix + "/")


def ancestors(path: str) -> list[str]:
    """The folders that lead to ``path``, outermost first (``a/b/c`` -> ``a``, ``a/b``)."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


class Snapshot(ABC):
    """Entries of one side of the comparison under some folders of a repository.

    Subclasses fill :attr:`entries` (git's own entries) or override
    :meth:`sha` and :meth:`content`, and fill :attr:`modes`.
    """

    def __init__(self, repo: Repository, prefixes: Iterable[str]) -> None:
        self.repo = repo
        self.prefixes = sorted(set(prefixes))
        self.entries: Mapping[str, TreeEntry | IndexEntry] = {}
        self._modes: dict[str, str] = {}
        self._above: dict[str, str | None] = {}
        self._replaced: dict[str, tuple[str, str] | None] = {}
        self._folders: set[str] | None = None
        self._blobs: dict[str, bytes] = {}
        #: Paths that could not be read (folders and files): why, as a predicate.
        self.unreadable: dict[str, str] = {}

    @property
    def modes(self) -> dict[str, str]:
        """Every file, symlink and gitlink under the prefixes, by repository path."""
        return self._modes

    def sha(self, path: str) -> str | None:
        """The blob id of a regular file (None when it is absent or not a regular file)."""
        entry = self.entries.get(path)
        return entry.sha if entry is not None and entry.mode in REGULAR_MODES else None

    def content(self, path: str) -> bytes | None:
        """The bytes git holds (or would hold) for a regular file."""
        sha = self.sha(path)
        if sha is None:
            return None
        if sha not in self._blobs:
            self._blobs.update(self.repo.read_blobs([sha]))
        return self._blobs.get(sha)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read the blobs of several files with one git process."""
        prefetch_together([(self, paths)])

    def staged_sha(self, path: str) -> str | None:
        """The blob id the index records for ``path`` when this snapshot is the work tree
        (None otherwise, or when the index has no regular file there)."""
        return None

    def will_ask(self, paths: Iterable[str]) -> None:  # noqa: B027 (most snapshots need none)
        """A hint: the blob ids of ``paths`` are asked next (git's own ids need nothing)."""

    def blobs_wanted(self, paths: Iterable[str]) -> set[str]:
        """The ids of the blobs git holds for ``paths`` that are not read yet."""
        return {sha for sha in (self.sha(p) for p in paths) if sha and sha not in self._blobs}

    @abstractmethod
    def _entry_at(self, path: str) -> str | None:
        """The mode of a non-folder entry exactly at ``path`` (folders and absent: None)."""

    def mode_of(self, path: str) -> str | None:
        """The mode of the entry at ``path`` when it is not a folder, wherever it is."""
        if path in self.modes:
            return self.modes[path]
        if any(under(path, prefix) and path != prefix for prefix in self.prefixes):
            return None  # inside a listed folder: the listing is complete
        if path not in self._above:
            self._above[path] = self._entry_at(path)
        return self._above[path]

    def replaced(self, path: str) -> tuple[str, str] | None:
        """The outermost folder on the way to ``path`` that is not a folder here, with its mode."""
        parent = path.rpartition("/")[0]  # the answer is the same for every file in it
        if parent not in self._replaced:
            self._replaced[parent] = next(
                ((f, m) for f in ancestors(path) if (m := self.mode_of(f)) is not None), None
            )
        return self._replaced[parent]

    def is_folder(self, path: str) -> bool:
        """Whether ``path`` is a folder that holds an entry here (the folders are listed from
        :attr:`modes` once, when first asked)."""
        if self._folders is None:
            self._folders = {folder for entry in self.modes for folder in ancestors(entry)}
        return path in self._folders

    def has_entries_under(self, prefix: str) -> bool:
        """Whether anything is stored at or under ``prefix``."""
        return any(under(path, prefix) for path in self.modes)

    def link_sha(self, path: str) -> str | None:
        """The commit a gitlink records (None when ``path`` is no gitlink here)."""
        entry = self.entries.get(path)
        return entry.sha if entry is not None and entry.mode == MODE_GITLINK else None

    def twins(self, prefix: str) -> dict[str, str]:
        """Entries under a folder whose path equals ``prefix`` but for letter case (or
        Unicode normalisation), with their modes; ``prefix`` itself left out."""
        return {}

    def symlink_blob(self, path: str) -> str | None:
        """The blob id git stores for the symbolic link at ``path`` (None: no link here)."""
        entry = self.entries.get(path)
        return entry.sha if entry is not None and entry.mode == MODE_SYMLINK else None

    def folder_links(self, paths: Iterable[str]) -> dict[str, str]:
        """Those of ``paths`` that are symbolic links leading to a folder of the repository
        (outside ``.git``), each with that folder's path. Only the change's side is asked;
        a commit's tree answers none."""
        return {}


class TreeSnapshot(Snapshot):
    """The entries of a commit's tree."""

    def __init__(self, repo: Repository, commit: str, prefixes: Iterable[str]) -> None:
        super().__init__(repo, prefixes)
        self.commit = commit
        entries: dict[str, TreeEntry] = {}
        for prefix in self.prefixes:
            entries.update(repo.ls_tree(commit, prefix))
        self.entries = entries
        self._modes = {path: entry.mode for path, entry in entries.items()}

    def _entry_at(self, path: str) -> str | None:
        parent = path.rpartition("/")[0]
        entry = self.repo.ls_tree(self.commit, parent, recursive=False).get(path)
        return entry.mode if entry is not None and entry.mode != MODE_TREE else None

    def blob_anywhere(self, path: str) -> str | None:
        """The blob id of the regular file at ``path``, inside the listed prefixes or not
        (None: no regular file there)."""
        if any(under(path, prefix) for prefix in self.prefixes):
            return self.sha(path)
        parent = path.rpartition("/")[0]
        entry = self.repo.ls_tree(self.commit, parent, recursive=False).get(path)
        return entry.sha if entry is not None and entry.mode in REGULAR_MODES else None

    def holds(self, path: str) -> bool:
        """Whether the tree has an entry (a folder included) at exactly ``path``."""
        if path in self.modes or any(under(p, path) for p in self.modes):
            return True
        parent = path.rpartition("/")[0]
        return path in self.repo.ls_tree(self.commit, parent, recursive=False)


class IndexSnapshot(Snapshot):
    """The git index: exactly what the next commit will contain."""

    def __init__(self, repo: Repository, prefixes: Iterable[str]) -> None:
        super().__init__(repo, prefixes)
        listing = repo.ls_index(self.prefixes)
        self.entries = listing
        self._modes = {path: listing.mode(path) for path in listing}

    def _entry_at(self, path: str) -> str | None:
        entry = self.repo.ls_index([path]).get(path)
        return entry.mode if entry is not None else None

    def folder_links(self, paths: Iterable[str]) -> dict[str, str]:
        """Links of the index that lead to a folder of the index, followed component by
        component as a file system would, through the index's own links (two git
        processes, for the whole index, when any is asked)."""
        wanted = list(paths)
        if not wanted:
            return {}
        listing = self.repo.ls_index([])
        links = {p: listing[p].sha for p in listing if listing.mode(p) == MODE_SYMLINK}
        targets = self.repo.read_blobs(links.values())
        folders = {folder for p in listing for folder in ancestors(p)}
        # A folder named but for letter case is the folder in a macOS or Windows checkout.
        folded = {fold(folder): folder for folder in folders}
        followed = IndexLinks(links, targets)
        found = {}
        for path in wanted:
            resolved = followed.resolve(path)
            if resolved is not None and (resolved in folders or fold(resolved) in folded):
                found[path] = resolved if resolved in folders else folded[fold(resolved)]
        return found

    def twins(self, prefix: str) -> dict[str, str]:
        """Index entries under a case twin of ``prefix`` (git matches letter case only)."""
        if not prefix:
            return {}
        found = self.repo.ls_index([prefix], icase=True)
        return {path: found.mode(path) for path in found if not under(path, prefix)}


class WorkTreeSnapshot(Snapshot):
    """The work tree, as git would store it (see the module docstring)."""

    def __init__(self, repo: Repository, prefixes: Iterable[str]) -> None:
        super().__init__(repo, prefixes)
        self.index = repo.ls_index(self.prefixes)
        try:
            self._index_mtime = os.stat(repo.index_path()).st_mtime_ns
        except OSError:
            self._index_mtime = 0
        #: The regular files of the walk (their modes say "100644", executable or not).
        self._files: set[str] = set()
        self._top = str(repo.top)
        self._cleaned: dict[str, IndexEntry | None] = {}
        #: Folders holding tracked files: a ``.git`` in one does not make it another repository.
        self._tracked: set[str] = set()
        for path in self.index:
            folder = path.rpartition("/")[0]
            while folder and folder not in self._tracked:
                self._tracked.add(folder)
                folder = folder.rpartition("/")[0]
        for prefix in self.prefixes:
            self._walk(prefix, self._modes)
        recorded_links = []
        for path in self.index:
            mode = self.index.mode(path)
            if mode == MODE_GITLINK:
                self._modes[path] = MODE_GITLINK  # a submodule, checked out or not
            elif path not in self._modes and self.index.skips_worktree(path):
                self._modes[path] = mode  # outside a sparse checkout: as staged
            elif mode == MODE_SYMLINK and path in self._files:
                recorded_links.append(path)
        #: Links the index records that this checkout holds as plain files of their target
        #: (``core.symlinks`` false, as on Windows): git takes them for links, so does the gate.
        self._plain_links: dict[str, bytes] = {}
        if recorded_links and not self._checks_out_links():
            for path in recorded_links:
                self._modes[path] = MODE_SYMLINK
                self._files.discard(path)
                self._plain_links[path] = self._plain_link_target(path)
        self._shas: dict[str, str | None] = {}
        self._converted: dict[str, bytes | None] = {}
        self._attributes: dict[str, dict[str, str]] = {}
        self._autocrlf: str | None = None

    def _checks_out_links(self) -> bool:
        """Whether this checkout makes symbolic links (``core.symlinks``, true unless set
        false, as Git for Windows sets it)."""
        value = self.repo.config_value("core.symlinks")  # "" for a key without a value: true
        return value is None or value.strip().lower() not in ("false", "no", "off", "0")

    def _plain_link_target(self, path: str) -> bytes:
        """The target a link held as a plain file names: the file's bytes, as git stores
        them (b"" when it cannot be read or is longer than any target followed)."""
        try:
            return read_regular(self.repo.top / path, MAX_LINK_TARGET)
        except NotRead:
            return b""

    def _plain_links_everywhere(self) -> dict[str, bytes]:
        """Every link of the index that this checkout holds as a plain file, with its
        target (one git process): a link may lead through one outside the prefixes."""
        listing = self.repo.ls_index([])
        found = dict(self._plain_links)
        for path in listing:
            if path in found or listing.mode(path) != MODE_SYMLINK:
                continue
            with contextlib.suppress(OSError, ValueError):
                if stat.S_ISREG(os.lstat(os.path.join(self._top, path)).st_mode):
                    found[path] = self._plain_link_target(path)
        return found

    def _cannot_read(self, path: str, error: OSError) -> None:
        reason = error.strerror or type(error).__name__
        self.unreadable[path] = f"cannot be read ({reason}); make it readable and run again"

    def _walk(self, prefix: str, modes: dict[str, str]) -> None:
        """Record the modes of everything at or under ``prefix``; unreadable parts as such."""
        start = self.repo.top / prefix if prefix else self.repo.top
        try:
            mode = self._disk_mode(start, prefix, nested=bool(prefix))
        except OSError as error:
            self._cannot_read(prefix, error)
            return
        if mode != "dir":
            if mode is not None:
                modes[prefix] = mode
            return

        pending = [(str(start), prefix)]
        while pending:
            folder, base = pending.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError as error:
                self._cannot_read(base, error)
                continue
            for entry in entries:
                path = f"{base}/{entry.name}" if base else entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if is_dir:
                    if entry.name == ".git":
                        continue
                    nested = os.path.lexists(os.path.join(entry.path, ".git"))
                    if nested and path not in self._tracked:
                        modes[path] = MODE_GITLINK
                    else:
                        pending.append((entry.path, path))
                    continue
                try:
                    regular = entry.is_file(follow_symlinks=False)
                except OSError:
                    regular = False
                if regular:
                    # Its stat data (the executable bit included) is read when its blob id
                    # is asked (_untouched_entry): the gate compares contents, and asks for
                    # the few files it compares.
                    modes[path] = MODE_FILE
                    self._files.add(path)
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                except OSError as error:
                    self._cannot_read(path, error)
                    continue
                if entry.name == ".git" and stat.S_ISLNK(info.st_mode) and _is_dir(entry.path):
                    continue  # a link to another repository's git dir, as git skips it
                modes[path] = _file_mode(info)
                if stat.S_ISREG(info.st_mode):
                    self._files.add(path)

    def _disk_mode(self, full: Path, path: str, nested: bool) -> str | None:
        """The mode of ``full`` (see :func:`_disk_mode`); errors other than absence raised.

        A folder with a ``.git`` whose files the index tracks is a folder, as
        for git: it is another repository only for what the index does not track.
        """
        mode = _disk_mode(full, nested, strict=True)
        return "dir" if mode == MODE_GITLINK and path in self._tracked else mode

    def symlink_blob(self, path: str) -> str | None:
        """The blob id git would store for the symbolic link at ``path`` (its target)."""
        if self.modes.get(path) != MODE_SYMLINK:
            return None
        if path in self._plain_links:
            return blob_sha(self._plain_links[path])
        try:
            return blob_sha(os.readlink(os.fsencode(os.path.join(self._top, path))))
        except (OSError, ValueError):
            return None

    def folder_links(self, paths: Iterable[str]) -> dict[str, str]:
        """Links of the work tree that lead, as the system follows them, to a folder inside
        the repository and outside its ``.git``. A link held as a plain file (see
        :attr:`_plain_links`) is followed by its target, through the other such links, as a
        checkout that makes links would follow it."""
        top = os.path.realpath(self._top)
        wanted = list(paths)
        plain = IndexLinks({}, {})
        if any(path in self._plain_links for path in wanted):
            everywhere = self._plain_links_everywhere()
            plain = IndexLinks({p: p for p in everywhere}, everywhere)
        found = {}
        for path in wanted:
            if self.modes.get(path) != MODE_SYMLINK:
                continue
            leads = plain.resolve(path) if path in self._plain_links else path
            if leads is None:
                continue
            real = os.path.realpath(os.path.join(self._top, leads))
            try:
                inside = os.path.relpath(real, top).replace(os.sep, "/")
            except ValueError:  # another drive (Windows)
                continue
            if inside.split("/", 1)[0] not in (".", "..", ".git") and _is_dir(real):
                found[path] = inside
        return found

    def twins(self, prefix: str) -> dict[str, str]:
        """Entries under folders whose path folds to ``prefix`` (letter case and NFC/NFD)."""
        if not prefix:
            return {}
        parts = prefix.split("/")
        level = [""]
        for part in parts:
            wanted, following = fold(part), []
            for folder in level:
                full = self.repo.top / folder if folder else self.repo.top
                try:
                    names = os.listdir(full)
                except OSError:
                    continue
                following += [f"{folder}/{n}" if folder else n for n in names if fold(n) == wanted]
            level = following
        found: dict[str, str] = {}
        for path in level:
            if path != prefix:
                self._walk(path, found)
        return found

    def _entry_at(self, path: str) -> str | None:
        try:
            mode = self._disk_mode(self.repo.top / path, path, nested=True)
        except OSError:
            mode = None
        if mode == "dir":
            entry = self.index.get(path)
            return MODE_GITLINK if entry is not None and entry.mode == MODE_GITLINK else None
        if mode is None:
            entry = self.repo.ls_index([path]).get(path)
            return entry.mode if entry is not None and entry.skip_worktree else None
        return mode

    def _clean(self, path: str) -> IndexEntry | None:
        """The index entry when the file is untouched since git recorded it."""
        if path not in self._cleaned:
            self._cleaned[path] = self._untouched_entry(path)
        return self._cleaned[path]

    def _untouched_entry(self, path: str) -> IndexEntry | None:
        entry = self.index.get(path)
        if entry is None or entry.mode not in (MODE_FILE, MODE_EXECUTABLE):
            return None
        if path not in self._files:
            return entry if entry.skip_worktree else None
        try:
            info = os.lstat(os.path.join(self._top, path))
        except OSError:
            return None  # hashed: reading it tells whether it is absent or unreadable
        racy = entry.mtime_ns >= self._index_mtime  # written in the same tick as the index
        return entry if not racy and untouched(entry, info) else None

    def sha(self, path: str) -> str | None:
        """The blob id git would store for the file (None: absent, or not readable)."""
        if path in self._plain_links:
            return None  # a link, for git: no regular file
        if path not in self._shas:
            clean = self._clean(path)
            self._shas[path] = clean.sha if clean is not None else self._hash(path)
        return self._shas[path]

    def staged_sha(self, path: str) -> str | None:
        """The blob id the index records for the regular file at ``path``: what a commit of
        the change holds, whatever the work tree hashes to."""
        entry = self.index.get(path)
        return entry.sha if entry is not None and entry.mode in REGULAR_MODES else None

    def _hash(self, path: str) -> str | None:
        data = self._read(path)
        if data is None:
            return None
        attributes = self._attributes_of(path)
        # ``core.autocrlf`` matters only to a file that holds (or decodes to) a CR.
        encoded = attributes.get("working-tree-encoding", "unspecified") not in _NO_VALUE
        autocrlf = self.autocrlf if encoded or b"\r" in data else "false"
        converted = to_git(data, attributes, autocrlf, lambda: self._staged(path))
        if not encoded or attributes.get("filter", "unspecified") not in ("unspecified", "unset"):
            self._converted[path] = converted
            return blob_sha(converted)
        # Git knows encodings by iconv's names and its own: it hashes the file itself.
        sha = self.repo.hash_work_file(path, data)
        if sha is None:
            encoding = attributes["working-tree-encoding"]
            self.unreadable[path] = f"cannot be converted from its working-tree-encoding {encoding}"
            return None
        self._converted[path] = converted if blob_sha(converted) == sha else None
        return sha

    def _read(self, path: str) -> bytes | None:
        """The file's bytes (never waiting on it, never more than the ceiling), or None."""
        full = self.repo.top / path
        try:
            return read_regular(full, MAX_COMPARED_BYTES)
        except NotRead as problem:
            if _absent(full):
                return None
            reasons = {
                "large": f"is larger than {MAX_COMPARED_BYTES} bytes, the most the gate reads",
                "special": "is no longer a regular file",
            }
            unreadable = f"cannot be read ({problem.reason}); make it readable and run again"
            self.unreadable[path] = reasons.get(problem.kind, unreadable)
            return None

    def content(self, path: str) -> bytes | None:
        """The file's bytes after git's check-in conversions (None when not known)."""
        if self._modes.get(path) not in (MODE_FILE, MODE_EXECUTABLE):
            return None
        clean = self._clean(path)
        if clean is not None:
            return super().content(path)  # what the index has: the same blob
        if path not in self._converted:
            self.sha(path)
        return self._converted.get(path)

    def blobs_wanted(self, paths: Iterable[str]) -> set[str]:
        """The blobs of untouched files not read yet (a touched file's bytes are read from
        the work tree)."""
        return super().blobs_wanted(path for path in paths if self._clean(path) is not None)

    def _staged(self, path: str) -> bytes | None:
        entry = self.index.get(path)
        return self.repo.read_blobs([entry.sha]).get(entry.sha) if entry is not None else None

    @property
    def autocrlf(self) -> str:
        """``core.autocrlf`` as ``true``, ``input`` or ``false``."""
        if self._autocrlf is None:
            value = (self.repo.config_value("core.autocrlf") or "false").lower()
            truthy = value in ("true", "yes", "on", "1")
            self._autocrlf = "true" if truthy else "input" if value == "input" else "false"
        return self._autocrlf

    def link_sha(self, path: str) -> str | None:
        """The commit the index records for a gitlink (a checked-out submodule's own
        ``HEAD`` is not read)."""
        entry = self.index.get(path)
        return entry.sha if entry is not None and entry.mode == MODE_GITLINK else None

    def will_ask(self, paths: Iterable[str]) -> None:
        """A hint: the blob ids of ``paths`` are asked next. The attributes of the files
        among them that were touched since git recorded them (the ones to hash) are read
        with one ``check-attr``; an untouched file's id is the index's."""
        touched = [
            p
            for p in paths
            if p in self._files and p not in self._attributes and self._clean(p) is None
        ]
        if touched:
            self._attributes.update(self.repo.attributes(touched, _ATTRIBUTES))

    def _attributes_of(self, path: str) -> dict[str, str]:
        if path not in self._attributes:
            self._attributes.update(self.repo.attributes([path], _ATTRIBUTES))
        return self._attributes.get(path, {})


#: Links followed on the way to one path at most (Linux's own bound).
_MAX_HOPS = 40


class _Walk:
    """One path being followed: its components, how far, where it got, the links taken."""

    __slots__ = ("at", "done", "hops", "link", "parts")

    def __init__(self, link: str | None, path: str) -> None:
        self.link, self.parts, self.at = link, path.split("/"), 0
        self.done: list[str] = []
        self.hops = 0


class IndexLinks:
    """The index's links, each followed once whatever the paths asked: a change may stage
    thousands of links that lead through one another, so the work stays linear in the
    links' targets. Where each link leads is found with a stack of walks, not recursion.
    A path leads nowhere (None) when it leaves the repository or a link on the way cannot
    be followed: a loop, more than :data:`_MAX_HOPS` links, an absolute target or one no
    file system makes."""

    def __init__(self, links: Mapping[str, str], targets: Mapping[str, bytes]) -> None:
        self.links, self.targets = links, targets
        #: Where each link leads and how many links that took (itself included); None: it
        #: cannot be followed (a loop, an escape, a target no file system makes).
        self._leads: dict[str, tuple[str, int] | None] = {}

    def resolve(self, path: str) -> str | None:
        """Where ``path`` (relative to the top) leads, or None (see the class)."""
        found = self._follow(_Walk(None, path))
        return found[0] if found is not None and found[1] <= _MAX_HOPS else None

    def _follow(self, walk: _Walk) -> tuple[str, int] | None:
        stack = [walk]
        following: set[str] = set()
        result: tuple[str, int] | None = None
        while stack:
            top = stack[-1]
            step = self._step(top, following)
            if isinstance(step, _Walk):  # a link to follow first
                following.add(step.link or "")
                stack.append(step)
                continue
            stack.pop()  # done (a tuple) or failed (None)
            result = step if isinstance(step, tuple) else None
            if top.link is not None:
                following.discard(top.link)
                self._leads[top.link] = (result[0], result[1] + 1) if result else None
        return result

    def _step(self, walk: _Walk, following: set[str]) -> object:
        """Walk on until the end (its result), a failure (None), or a link whose
        destination is not known yet (its walk, to follow first)."""
        while walk.at < len(walk.parts):
            part = walk.parts[walk.at]
            if part in ("", "."):
                walk.at += 1
                continue
            if part == "..":
                if not walk.done:
                    return None
                walk.done.pop()
                walk.at += 1
                continue
            here = "/".join([*walk.done, part])
            if here not in self.links:
                walk.done.append(part)
                walk.at += 1
                continue
            if here in following:
                return None  # a loop
            if here not in self._leads:
                raw = self.targets.get(self.links[here], b"")
                if not 0 < len(raw) <= MAX_LINK_TARGET or b"\0" in raw or raw.startswith(b"/"):
                    self._leads[here] = None
                else:
                    folder = here.rpartition("/")[0]
                    target = decode(raw)
                    return _Walk(here, f"{folder}/{target}" if folder else target)
            leads = self._leads[here]
            if leads is None:
                return None
            walk.hops += leads[1]
            walk.done = leads[0].split("/") if leads[0] else []
            walk.at += 1
        return "/".join(walk.done), walk.hops


def prefetch_together(wanted: Iterable[tuple[Snapshot, Iterable[str]]]) -> None:
    """Read the blobs that snapshots of one repository will be asked for, with one git
    process for them all: ``(snapshot, paths)`` pairs."""
    asked = [(snapshot, snapshot.blobs_wanted(paths)) for snapshot, paths in wanted]
    if not asked:
        return
    blobs = asked[0][0].repo.read_blobs(set().union(*(shas for _, shas in asked)))
    for snapshot, shas in asked:
        snapshot._blobs.update((sha, blobs[sha]) for sha in shas if sha in blobs)


def untouched(entry: IndexEntry, info: os.stat_result) -> bool:
    """Whether a file's stat data is what the index recorded, as git's own test compares it.

    Size, modification and change times (to the nanosecond), inode, device,
    owner and the executable bit. A field git recorded as 0 (a platform
    without it) is not compared. Anything in doubt is "touched", and the
    file is hashed: correctness over speed.
    """
    executable = MODE_EXECUTABLE if info.st_mode & 0o111 else MODE_FILE
    return (
        entry.size == info.st_size
        and entry.mtime_ns == info.st_mtime_ns
        and entry.mode == executable
        and (not entry.ctime_ns or entry.ctime_ns == info.st_ctime_ns)
        and (not entry.ino or entry.ino == info.st_ino)
        and (not entry.dev or entry.dev == info.st_dev)
        and (not entry.uid or entry.uid == info.st_uid)
        and (not entry.gid or entry.gid == info.st_gid)
    )


def _file_mode(info: os.stat_result) -> str:
    if stat.S_ISLNK(info.st_mode):
        return MODE_SYMLINK
    if stat.S_ISREG(info.st_mode):
        return MODE_EXECUTABLE if info.st_mode & 0o111 else MODE_FILE
    return MODE_SPECIAL


def _absent(path: Path) -> bool:
    """Whether nothing is at ``path``: an error other than "no such file" is no absence."""
    try:
        os.lstat(path)
    except OSError as error:
        return error.errno in (errno.ENOENT, errno.ENOTDIR)
    return False


def _is_dir(path: str) -> bool:
    """Whether ``path`` leads to a folder (links followed; errors: no)."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _disk_mode(path: Path, nested: bool, strict: bool = False) -> str | None:
    """``"dir"`` for a plain folder, a git mode for anything else, None when absent.

    A folder holding a ``.git`` is another repository (mode of a gitlink)
    when ``nested``. With ``strict``, an error other than "absent" is raised.
    """
    try:
        info = os.lstat(path)
    except OSError as error:
        if strict and error.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise
        return None
    if stat.S_ISDIR(info.st_mode):
        return MODE_GITLINK if nested and os.path.lexists(path / ".git") else "dir"
    return _file_mode(info)


def crlf_action(attributes: dict[str, str], autocrlf: str) -> str:
    """How git converts line endings of a file on check-in: ``binary``, ``text`` or ``auto``.

    Follows git's rules: the ``text`` attribute, else the legacy ``crlf``
    attribute, else an ``eol`` attribute (which implies ``text``), else
    ``core.autocrlf``.
    """
    text = attributes.get("text", "unspecified")
    if text == "set":
        return "text"
    if text == "unset":
        return "binary"
    if text == "auto":
        return "auto"
    crlf = attributes.get("crlf", "unspecified")
    if crlf in ("set", "input"):
        return "text"
    if crlf == "unset":
        return "binary"
    if attributes.get("eol") in ("lf", "crlf"):
        return "text"
    return "auto" if autocrlf in ("true", "input") else "binary"


#: Attribute states that carry no value.
_NO_VALUE = ("unspecified", "unset", "set")
#: Git's own names for UTF-16/32 with a byte order mark, which iconv does not know:
#: (Python codec, the mark). Git writes the mark and strips it on check-in.
_GIT_BOM_ENCODINGS = {
    "UTF16LEBOM": ("utf-16-le", codecs.BOM_UTF16_LE),
    "UTF16BEBOM": ("utf-16-be", codecs.BOM_UTF16_BE),
    "UTF32LEBOM": ("utf-32-le", codecs.BOM_UTF32_LE),
    "UTF32BEBOM": ("utf-32-be", codecs.BOM_UTF32_BE),
}
#: iconv reads a mark in UTF-16/UTF-32 and, without one, big-endian (Python: the machine's).
_ICONV_MARKED = {
    "UTF16": ("utf-16", "utf-16-be", (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)),
    "UTF32": ("utf-32", "utf-32-be", (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)),
}


def from_working_tree_encoding(data: bytes, encoding: str) -> bytes | None:
    """``data`` in ``encoding`` (git's or iconv's name) as the UTF-8 git stores; None when
    Python cannot reproduce the conversion (git is asked instead)."""
    key = re.sub(r"[^0-9A-Z]", "", encoding.upper())
    try:
        if key in _GIT_BOM_ENCODINGS:
            codec, mark = _GIT_BOM_ENCODINGS[key]
            text = data.removeprefix(mark).decode(codec)
        elif key in _ICONV_MARKED:
            marked, bare, marks = _ICONV_MARKED[key]
            text = data.decode(marked if data.startswith(marks) else bare)
        else:
            text = data.decode(codecs.lookup(encoding).name)
    except (LookupError, UnicodeError):
        return None
    return text.encode("utf-8", errors="surrogatepass")


def looks_binary(data: bytes) -> bool:
    """Git's test for binary content: a NUL, a lone CR, or mostly control characters."""
    if b"\0" in data or data.count(b"\r") != data.count(b"\r\n"):
        return True
    body = data[:-1] if data.endswith(b"\x1a") else data
    controls = sum(body.count(bytes([c])) for c in range(32) if c not in (8, 9, 10, 12, 13, 27))
    controls += body.count(b"\x7f")
    return ((len(body) - controls) >> 7) < controls


def to_git(
    data: bytes,
    attributes: dict[str, str],
    autocrlf: str,
    staged: Callable[[], bytes | None],
) -> bytes:
    """The bytes git stores for a work-tree file (its check-in conversions, without filters).

    ``staged`` gives the blob in the index: git leaves CRLF alone under
    ``text=auto`` when the indexed blob already holds a CR.
    """
    encoding = attributes.get("working-tree-encoding", "unspecified")
    if encoding not in _NO_VALUE:
        decoded = from_working_tree_encoding(data, encoding)
        data = decoded if decoded is not None else data
    if b"\r\n" in data:
        action = crlf_action(attributes, autocrlf)
        convert = action == "text"
        if action == "auto" and not looks_binary(data):
            indexed = staged()
            convert = indexed is None or b"\r" not in indexed
        if convert:
            data = data.replace(b"\r\n", b"\n")
    if attributes.get("ident") == "set":
        data = _IDENT.sub(b"$Id$", data)
    return data
