"""``--fix``: write the derived files a profile's fixers plan, atomically.

Each profile's fixers plan from the repository index as :class:`Edit` values
(path, old bytes, new bytes) or :class:`Blocked` ones (a write that cannot be
made, and why); :func:`apply` writes the edits atomically. Records agents
write are never touched: only derived files.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_lint.fileio import NotRead, read_regular
from agent_lint.frozen import frozen
from agent_lint.index import RepoIndex
from agent_lint.jsonedit import set_values
from agent_lint.jsontext import dumps


@frozen(repr=False, eq=False)
class Edit:
    """A planned write: ``path`` (repository-relative) goes from ``before`` to ``after``.

    ``resolves`` lists the paths whose fixable findings the write repairs.
    ``regenerates`` tells that ``after`` is rendered from the file's sources
    alone, whatever ``path`` held: a finding that it does not parse goes too.
    """

    root: Path
    path: str
    before: bytes | None
    after: bytes
    resolves: tuple[str, ...] = ()
    regenerates: bool = False


@frozen(repr=False, eq=False)
class Blocked:
    """A derived file ``--fix`` should write but cannot, and why (one line)."""

    path: str
    reason: str
    resolves: tuple[str, ...] = ()


class FixError(Exception):
    """A planned file cannot be written safely."""


def render_state(state: dict[str, Any]) -> bytes:
    """The canonical bytes of a state.json: stable key order, 2-space indent, final newline."""
    return (dumps(state, indent=2) + "\n").encode("utf-8")


def target_problem(root: Path, path: str) -> str | None:
    """Why ``path`` (repository-relative) cannot be replaced by an atomic write, or None.

    The target must be a regular file or not exist; it must not be a link;
    its folder must lie inside the repository and be writable. Nothing is
    opened to find out.
    """
    target = root / path
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"it cannot be inspected ({exc.strerror})"
    if info is not None and stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if info is not None and stat.S_ISDIR(info.st_mode):
        return "it is a folder"
    if info is not None and not stat.S_ISREG(info.st_mode):
        return "it is not a regular file (a FIFO, socket or device)"
    try:
        real_root = os.path.realpath(root)
        real_parent = os.path.realpath(target.parent)
    except (OSError, ValueError) as exc:
        return f"its folder cannot be resolved ({exc})"
    if real_parent != real_root and not real_parent.startswith(real_root + os.sep):
        return "its folder leads outside the repository"
    if not os.path.isdir(real_parent):
        return "its folder does not exist"
    if not os.access(real_parent, os.W_OK | os.X_OK):
        return "its folder is not writable"
    return None


#: A derived file larger than this is not read back (it is rewritten whole).
_MAX_DERIVED_BYTES = 64 * 1024 * 1024


def read_derived(target: Path) -> bytes | None:
    """The bytes of a regular file, None if it does not exist; never opens anything else."""
    if not os.path.lexists(target):
        return None
    try:
        return read_regular(target, _MAX_DERIVED_BYTES)
    except NotRead as exc:
        raise OSError(exc.reason) from exc


def edit_json_bytes(before: bytes, changes: list[tuple[str, Any]]) -> bytes:
    """Apply ``changes`` to JSON file bytes, keeping a byte order mark and the line endings."""
    bom = "\ufeff"
    text = before.decode("utf-8")
    marked = text.startswith(bom)
    edited = set_values(text.removeprefix(bom), changes)
    return ((bom if marked else "") + edited).encode("utf-8")


def plan_all(index: RepoIndex, unsafe: bool = False) -> tuple[list[Edit], list[Blocked]]:
    """What ``--fix`` writes, and what it should write but cannot (with the reason).

    Each fixer of the run's profile plans its own derived files.
    """
    edits: list[Edit] = []
    blocked: list[Blocked] = []
    for fixer in index.profile.fixers if index.profile is not None else ():
        planned, cannot = fixer(index, unsafe)
        edits.extend(planned)
        blocked.extend(cannot)
    return edits, blocked


def plan(index: RepoIndex, unsafe: bool = False) -> Iterator[Edit]:
    """The edits ``--fix`` makes (every fixer of the run's profile)."""
    yield from plan_all(index, unsafe)[0]


#: Flags of a new temporary file: created here and now (never an existing file or a link
#: followed), write-only, not inherited by child processes.
_NEW_FILE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def create_temporary(folder: Path, name: str) -> tuple[int, str]:
    """Create a new, private file next to ``name`` in ``folder``: its descriptor and path.

    The name is ``.<name>.<random>.tmp``; an existing file of that name is never
    opened (``O_EXCL``), another random name is tried instead. This is what
    :func:`tempfile.mkstemp` does, without importing :mod:`tempfile` (and
    :mod:`shutil`, :mod:`random`) on every ``--fix`` that writes.
    """
    for _ in range(100):
        temporary = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(temporary, _NEW_FILE, 0o600), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(folder))


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` via a temporary file in the same folder.

    The temporary file is flushed and fsynced, renamed over the target, and
    the folder is fsynced, so a crash leaves either the old or the new file.
    """
    if target.is_symlink():
        raise FixError(f"{target} is a symbolic link; not written")
    if target.exists() and not target.is_file():
        raise FixError(f"{target} is not a regular file; not written")
    folder = target.parent
    fd, temporary = create_temporary(folder, target.name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o777)
        else:
            os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def apply(edits: list[Edit]) -> tuple[list[str], list[str]]:
    """Write every edit; return the paths written and a one-line error per failed path.

    A failed write (a read-only folder, a full disk, a file-size limit, a
    target that changed into a link or folder) leaves the old file as it was
    and no temporary file; the other edits are still made.
    """
    written, failed = [], []
    for edit in edits:
        problem = target_problem(edit.root, edit.path)
        try:
            if problem is not None:
                raise FixError(problem)
            write_atomically(edit.root / edit.path, edit.after)
        except (OSError, FixError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            failed.append(f"cannot write {edit.path}: {reason}; the file is unchanged")
            continue
        written.append(edit.path)
    return written, failed
