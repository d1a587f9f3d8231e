"""The two sides of the comparison, as git sees them: trees, the index, the work tree.

A snapshot lists the entries under some folders of a repository (repository
paths in POSIX form, with their git modes) and gives each regular file's blob
id and content. Trees and the index give blob ids straight from git. The work
tree gives the blob id git *would store* for each file, without running any
program: an untouched file (its size and modification time as the index
recorded them) has the index's blob id; any other file is hashed after the
check-in conversions git applies from attributes and ``core.autocrlf`` (CRLF
to LF, ``ident``, ``working-tree-encoding``), done in Python. A clean/smudge
filter is a program and is never run: a file with a filter attribute that was
touched since checkout is hashed as it is.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import os
import re
import stat
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from agent_lint.gitplumbing import (
    MODE_GITLINK,
    MODE_SYMLINK,
    MODE_TREE,
    REGULAR_MODES,
    IndexEntry,
    Repository,
    TreeEntry,
)

MODE_FILE = "100644"
MODE_EXECUTABLE = "100755"
#: Stands for a FIFO, socket or device in the work tree (git cannot store one).
MODE_SPECIAL = "000000"

_ATTRIBUTES = ("text", "eol", "crlf", "ident", "filter", "working-tree-encoding")
_IDENT = re.compile(rb"\$Id:[^$\n]*\$")


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
        self._blobs: dict[str, bytes] = {}

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
        shas = {sha for sha in (self.sha(p) for p in paths) if sha and sha not in self._blobs}
        self._blobs.update(self.repo.read_blobs(shas))

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
        for folder in ancestors(path):
            mode = self.mode_of(folder)
            if mode is not None:
                return folder, mode
        return None

    def has_entries_under(self, prefix: str) -> bool:
        """Whether anything is stored at or under ``prefix``."""
        return any(under(path, prefix) for path in self.modes)


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


class IndexSnapshot(Snapshot):
    """The git index: exactly what the next commit will contain."""

    def __init__(self, repo: Repository, prefixes: Iterable[str]) -> None:
        super().__init__(repo, prefixes)
        self.entries = repo.ls_index(self.prefixes)
        self._modes = {path: entry.mode for path, entry in self.entries.items()}

    def _entry_at(self, path: str) -> str | None:
        entry = self.repo.ls_index([path]).get(path)
        return entry.mode if entry is not None else None


class WorkTreeSnapshot(Snapshot):
    """The work tree, as git would store it (see the module docstring)."""

    def __init__(self, repo: Repository, prefixes: Iterable[str]) -> None:
        super().__init__(repo, prefixes)
        self.index = repo.ls_index(self.prefixes)
        try:
            self._index_mtime = os.stat(repo.index_path()).st_mtime_ns
        except OSError:
            self._index_mtime = 0
        self._stats: dict[str, os.stat_result] = {}
        for prefix in self.prefixes:
            self._walk(prefix)
        for path, entry in self.index.items():
            if entry.mode == MODE_GITLINK:
                self._modes[path] = MODE_GITLINK  # a submodule, checked out or not
            elif entry.skip_worktree and path not in self._modes:
                self._modes[path] = entry.mode  # outside a sparse checkout: as staged
        self._shas: dict[str, str | None] = {}
        self._attributes: dict[str, dict[str, str]] | None = None
        self._autocrlf: str | None = None

    def _walk(self, prefix: str) -> None:
        start = self.repo.top / prefix if prefix else self.repo.top
        mode = _disk_mode(start, nested=bool(prefix))
        if mode != "dir":
            if mode is not None:
                self._modes[prefix] = mode
            return
        for current, dirs, names in os.walk(start, followlinks=False):
            base = os.path.relpath(current, self.repo.top).replace(os.sep, "/")
            base = "" if base == "." else base
            kept = []
            for name in sorted(dirs):
                path = f"{base}/{name}" if base else name
                if name == ".git":
                    continue
                found = _disk_mode(Path(current, name), nested=True)
                if found is None:
                    continue
                if found == "dir":
                    kept.append(name)
                else:
                    self._modes[path] = found
            dirs[:] = kept
            for name in names:
                path = f"{base}/{name}" if base else name
                full = os.path.join(current, name)
                try:
                    info = os.lstat(full)
                except OSError:
                    continue
                self._modes[path] = _file_mode(info)
                if stat.S_ISREG(info.st_mode):
                    self._stats[path] = info

    def _entry_at(self, path: str) -> str | None:
        mode = _disk_mode(self.repo.top / path, nested=True)
        if mode == "dir":
            entry = self.index.get(path)
            return MODE_GITLINK if entry is not None and entry.mode == MODE_GITLINK else None
        if mode is None:
            entry = self.repo.ls_index([path]).get(path)
            return entry.mode if entry is not None and entry.skip_worktree else None
        return mode

    def _clean(self, path: str) -> IndexEntry | None:
        """The index entry when the file is untouched since git recorded it."""
        entry, info = self.index.get(path), self._stats.get(path)
        if entry is None or entry.mode not in (MODE_FILE, MODE_EXECUTABLE):
            return None
        if info is None:
            return entry if entry.skip_worktree else None
        racy = entry.mtime_ns >= self._index_mtime  # written in the same tick as the index
        if entry.size == info.st_size and entry.mtime_ns == info.st_mtime_ns and not racy:
            return entry
        return None

    def sha(self, path: str) -> str | None:
        """The blob id git would store for the file."""
        if path not in self._shas:
            clean = self._clean(path)
            if clean is not None:
                self._shas[path] = clean.sha
            else:
                data = self.content(path)
                self._shas[path] = blob_sha(data) if data is not None else None
        return self._shas[path]

    def content(self, path: str) -> bytes | None:
        """The file's bytes after git's check-in conversions."""
        if self._modes.get(path) not in (MODE_FILE, MODE_EXECUTABLE):
            return None
        clean = self._clean(path)
        if clean is not None and path not in self._stats:
            return super().content(path)  # outside a sparse checkout: as the index has it
        try:
            data = (self.repo.top / path).read_bytes()
        except OSError:
            return None
        return to_git(data, self._attributes_of(path), self.autocrlf, lambda: self._staged(path))

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

    def _attributes_of(self, path: str) -> dict[str, str]:
        if self._attributes is None:
            dirty = [p for p in self._stats if self._clean(p) is None]
            self._attributes = self.repo.attributes(dirty, _ATTRIBUTES)
        if path not in self._attributes:
            self._attributes.update(self.repo.attributes([path], _ATTRIBUTES))
        return self._attributes.get(path, {})


def _file_mode(info: os.stat_result) -> str:
    if stat.S_ISLNK(info.st_mode):
        return MODE_SYMLINK
    if stat.S_ISREG(info.st_mode):
        return MODE_EXECUTABLE if info.st_mode & 0o111 else MODE_FILE
    return MODE_SPECIAL


def _disk_mode(path: Path, nested: bool) -> str | None:
    """``"dir"`` for a plain folder, a git mode for anything else, None when absent.

    A folder holding a ``.git`` is another repository (mode of a gitlink)
    when ``nested``.
    """
    try:
        info = os.lstat(path)
    except OSError:
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
    if encoding not in ("unspecified", "unset", "set"):
        with contextlib.suppress(LookupError, UnicodeError):
            data = data.decode(codecs.lookup(encoding).name).encode("utf-8")
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
