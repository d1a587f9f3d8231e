"""Read a file of the repository without ever waiting on it or reading too much.

A FIFO, socket or device is never read (opening one for reading could block
the run, or have effects), and a file is read only up to a size limit. The
check is made on the open descriptor, so a file swapped after it was listed
is caught too.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

#: Open flags that never block on a FIFO and never make a terminal ours.
READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)


class NotRead(Exception):
    """Why a file was not read: ``kind`` is ``special``, ``large`` or ``unreadable``."""

    def __init__(self, kind: str, reason: str, size: int = 0) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        self.size = size


def check_regular(info: os.stat_result, max_bytes: int) -> None:
    """Raise :class:`NotRead` unless ``info`` is a regular file of at most ``max_bytes``."""
    if not stat.S_ISREG(info.st_mode):
        raise NotRead("special", "not a regular file (a FIFO, socket or device)")
    if info.st_size > max_bytes:
        raise NotRead("large", f"{info.st_size} bytes", info.st_size)


def read_regular(path: Path | str, max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``max_bytes``), or :class:`NotRead`."""
    try:
        fd = os.open(path, READ_FLAGS)
    except OSError as exc:
        raise NotRead("unreadable", exc.strerror or type(exc).__name__) from exc
    try:
        info = os.fstat(fd)
        check_regular(info, max_bytes)
        # One read of the size fstat gave plus one byte: a read that returns exactly
        # that size stopped at the end of the file. Otherwise (the file grew or shrank
        # since, or its size is not known, as in /proc) it is read on in small chunks
        # to its end, never past one byte over the limit.
        first = os.read(fd, info.st_size + 1)
        chunks, size = [first], len(first)
        while size != info.st_size and size <= max_bytes:
            chunk = os.read(fd, min(1 << 16, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise NotRead("unreadable", exc.strerror or type(exc).__name__) from exc
    finally:
        os.close(fd)
    if size > max_bytes:
        raise NotRead("large", f"more than {max_bytes} bytes", size)
    return first if len(chunks) == 1 else b"".join(chunks)


def read_in_folder(path: Path | str, max_bytes: int) -> bytes:
    """Like :func:`read_regular`, refusing a symbolic link that leads out of the file's folder.

    For files named by a setting rather than found in the tree (a baseline, a
    user schema): the change under review may carry both the setting and the file.
    """
    try:
        real = os.path.realpath(path)
        leaves = os.path.dirname(real) != os.path.realpath(os.path.dirname(os.path.abspath(path)))
    except (OSError, ValueError):
        real, leaves = "", True
    if leaves:
        raise NotRead("outside", "a symbolic link out of its folder; not read")
    return read_regular(real, max_bytes)


def work_tree_top(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` holding a ``.git`` (the top of the git
    work tree it is in, as written: links are not resolved), or None outside any."""
    return next((f for f in (folder, *folder.parents) if os.path.lexists(f / ".git")), None)


def in_git_dir(path: str, root: str) -> bool:
    """Whether ``path`` (resolved, inside ``root``) lies in a ``.git`` folder of the repository.

    Git's own folders hold its configuration and, on CI runners, credentials; they
    are not repository content, so no link into one is followed. Compared without
    case: macOS and Windows file systems take ``.GIT`` for ``.git``.
    """
    parts = os.path.relpath(path, root).split(os.sep)
    return any(part.lower() == ".git" for part in parts)


def content_digest(raw: bytes) -> str:
    """The content hash of a file's bytes: what the cache keeps a file's entry under."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()
