"""The cache's folder and its secret key, touched without following a symbolic link.

The repository being linted may come from a fork: a ``.agent_lint_cache``
it commits may be a symbolic link meant to make agent-lint write elsewhere,
and files it commits there may be forged. So the folder is opened component
by component below the repository root, refusing links; every file in it is
opened relative to that folder, never through a link, and replaced
atomically (a temporary file, then a rename in the same folder). What is read
is trusted only when its MAC checks out with a key kept outside the
repository (:func:`secret_key`). Every failure here is a reason the run goes
on without a cache, never an error.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

#: The cache folder's name at the repository root (git-ignored by the file it writes inside).
DEFAULT_DIR = ".agent_lint_cache"
#: The environment variables that choose the cache folder, and that switch the cache off.
DIR_VARIABLE = "AGENT_LINT_CACHE_DIR"
OFF_VARIABLE = "AGENT_LINT_NO_CACHE"
KEY_BYTES = 32
#: The largest cache file read (a 100,000-record repository writes about a fifth of this).
MAX_CACHE_BYTES = 512 << 20
GITIGNORE = b"# Written by agent-lint: its cache is never committed.\n*\n"
#: https://bford.info/cachedir/: backup tools skip a folder holding this file.
CACHEDIR_TAG = (
    b"Signature: 8a477f597d28d172789f06886806bc55\n"
    b"# This file is a cache directory tag created by agent-lint.\n"
    b"# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: Opening relative to a folder's descriptor, so no path is resolved twice (POSIX).
_AT = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd


class Unavailable(Exception):
    """Why the run goes without a cache (shown once, as a note)."""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class CacheDir:
    """An open cache folder: files are read, written and listed only inside it.

    On POSIX every operation goes through the folder's descriptor with
    ``O_NOFOLLOW``; elsewhere, through its path after checking that neither
    the folder nor the file is a link.
    """

    def __init__(self, path: str, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    def close(self) -> None:
        """Release the folder's descriptor."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _where(self, name: str) -> tuple[str, dict[str, int]]:
        if self._fd is not None:
            return name, {"dir_fd": self._fd}
        full = os.path.join(self.path, name)
        if os.path.islink(full):
            raise OSError(f"{full} is a symbolic link")
        return full, {}

    def read(self, name: str) -> bytes | None:
        """The bytes of regular file ``name``; None when it does not exist."""
        return self.read_range(name, 0, MAX_CACHE_BYTES + 1)

    def read_range(self, name: str, offset: int, size: int) -> bytes | None:
        """At most ``size`` bytes of regular file ``name`` from ``offset``; None when it
        does not exist."""
        where, at = self._where(name)
        try:
            fd = os.open(where, os.O_RDONLY | _NOFOLLOW | _BINARY | _NONBLOCK, **at)
        except FileNotFoundError:
            return None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CACHE_BYTES:
                raise OSError(f"{name} is not a regular file of at most {MAX_CACHE_BYTES} bytes")
            handle.seek(offset)
            # Never more than the file holds (plus one byte: a file that grew is seen).
            return handle.read(min(size, max(info.st_size - offset, 0) + 1))

    def create(self, name: str, data: bytes) -> bool:
        """Write ``name`` unless it exists; True when written."""
        where, at = self._where(name)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
            fd = os.open(where, flags, 0o644, **at)
        except FileExistsError:
            return False
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return True

    def replace(self, name: str, data: bytes | Callable[[BinaryIO], None]) -> None:
        """Write ``name`` atomically: a new temporary file, then a rename over it.

        ``data`` is the file's bytes, or a function that writes them to the
        temporary file (a large file is then never whole in memory).
        """
        temporary = f".{name}.{secrets.token_hex(8)}.tmp"
        where, at = self._where(temporary)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
        fd = os.open(where, flags, 0o600, **at)
        try:
            with os.fdopen(fd, "wb") as handle:
                if callable(data):
                    data(handle)
                else:
                    handle.write(data)
            if self._fd is not None:
                os.replace(temporary, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
            else:
                os.replace(where, self._where(name)[0])
        except BaseException:
            self.remove(temporary)
            raise

    def remove(self, name: str) -> None:
        """Delete ``name`` if it is there (a link is removed, never followed)."""
        try:
            if self._fd is not None:
                os.unlink(name, dir_fd=self._fd)
            else:
                os.unlink(os.path.join(self.path, name))
        except OSError:
            pass

    def files(self) -> Iterator[tuple[str, float]]:
        """The regular files of the folder (links left out) with their modification times."""
        with os.scandir(self._fd if self._fd is not None else self.path) as listing:
            for entry in listing:
                try:
                    if entry.is_file(follow_symlinks=False):
                        yield entry.name, entry.stat(follow_symlinks=False).st_mtime
                except OSError:
                    continue


def cache_location(root: Path, explicit: Path | None) -> tuple[str, list[str], bool]:
    """The trusted folder the cache folder is opened from, and the names below it.

    The default folder, and a chosen one inside the repository, are reached
    from the repository root one name at a time (any of them may be a link
    the change under review commits). A chosen folder outside the repository
    is the user's own: its parent is taken as it is (the third value: whether
    the folder is inside the repository).
    """
    base = os.path.abspath(root)
    if explicit is None:
        return base, [DEFAULT_DIR], True
    chosen = os.path.abspath(explicit)
    if _inside(chosen, base) and chosen != base:
        return base, os.path.relpath(chosen, base).split(os.sep), True
    parent, name = os.path.split(chosen)
    if not name or chosen == base:
        raise Unavailable(f"cannot keep the cache in {chosen}")
    return parent, [name], False


def open_cache_dir(root: Path, explicit: Path | None) -> CacheDir:
    """Open (creating it) the cache folder; :class:`Unavailable` when it cannot be used.

    A new folder gets a ``.gitignore`` that ignores everything in it and a
    ``CACHEDIR.TAG``, as other tools' caches have.
    """
    base, names, inside = cache_location(root, explicit)
    shown = os.path.join(base, *names)
    try:
        if not inside:
            os.makedirs(base, exist_ok=True)
        folder = _open_below(base, names) if _AT else _check_below(base, names)
    except Unavailable:
        raise
    except OSError as exc:
        raise Unavailable(f"cannot use {shown}: {exc.strerror or exc}") from None
    try:
        folder.create(".gitignore", GITIGNORE)
        folder.create("CACHEDIR.TAG", CACHEDIR_TAG)
    except OSError as exc:
        folder.close()
        raise Unavailable(f"cannot write in {shown}: {exc.strerror or exc}") from None
    return folder


def _open_below(base: str, names: list[str]) -> CacheDir:
    fd = os.open(base, os.O_RDONLY | _DIRECTORY)
    try:
        for name in names:
            if name in ("", ".", ".."):
                raise Unavailable(f"cannot keep the cache in {os.path.join(base, *names)}")
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o755, dir_fd=fd)
            try:
                inner = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                link = os.path.islink(os.path.join(base, *names[: names.index(name) + 1]))
                if link:
                    raise Unavailable(
                        f"{os.path.join(base, *names)} goes through a symbolic link; not used"
                    ) from None
                raise exc
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return CacheDir(os.path.join(base, *names), fd)


def _check_below(base: str, names: list[str]) -> CacheDir:
    """Where folders cannot be opened by descriptor: create and check each name on the way."""
    path = base
    for name in names:
        if name in ("", ".", ".."):
            raise Unavailable(f"cannot keep the cache in {os.path.join(base, *names)}")
        path = os.path.join(path, name)
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o755)
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode) or _is_junction(path):
            raise Unavailable(f"{path} is a symbolic link; not used")
        if not stat.S_ISDIR(info.st_mode):
            raise Unavailable(f"{path} is not a folder")
    return CacheDir(path, None)


def _is_junction(path: str) -> bool:
    check = getattr(os.path, "isjunction", None)
    return bool(check(path)) if check is not None else False


def key_path() -> Path:
    """Where the cache's secret key lives: the user's cache folder, never a repository."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "agent-lint" / "key"


def secret_key(root: Path) -> bytes:
    """The key that authenticates cache files, created (0600) on first use.

    A key the repository could hold (inside it), that is not a private
    regular file of this user, or that cannot be created is
    :class:`Unavailable`: a forged cache could then pass for a real one.
    """
    try:
        path = key_path()
    except RuntimeError as exc:  # no home folder
        raise Unavailable(f"no place for the cache's key: {exc}") from None
    where = os.path.realpath(path.parent)
    if _inside(where, os.path.realpath(root)):
        raise Unavailable(f"the cache's key would be inside the repository ({path})")
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise Unavailable(f"cannot read the cache's key {path}: {exc.strerror or exc}") from None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
        fd = os.open(path, flags, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
    except FileExistsError:
        pass  # another run created it first
    except OSError as exc:
        raise Unavailable(f"cannot create the cache's key {path}: {exc.strerror or exc}") from None
    try:
        return _read_key(path)
    except OSError as exc:
        raise Unavailable(f"cannot read the cache's key {path}: {exc.strerror or exc}") from None


def _read_key(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _BINARY | _NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if os.name == "posix" and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            raise OSError(f"{path} must belong to this user and be readable by no one else")
        key = handle.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise OSError(f"{path} is not a key of {KEY_BYTES} bytes")
    return key
