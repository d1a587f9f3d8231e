"""Find the agent dir and walk it safely.

The walk never follows a symbolic link out of the repository, never opens a
device, socket or pipe, and never reads a file larger than
:data:`MAX_FILE_BYTES`; each such entry becomes a finding instead.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_lint.config import Config, ConfigError, load_config
from agent_lint.diagnostics import Diagnostic
from agent_lint.kinds import KIND_FOLDERS
from agent_lint.validators import files as rules

MAX_FILE_BYTES = 16 * 1024 * 1024
AGENT_DIR_NAME = ".agent"
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__"})


@dataclass(frozen=True)
class Target:
    """A repository to lint: its root, its agent dir and its settings."""

    root: Path
    agent_dir: Path
    config: Config


def _looks_like_agent_dir(path: Path) -> bool:
    return any((path / folder).is_dir() for folder in KIND_FOLDERS)


def find_target(path: Path, explicit_config: Path | None = None) -> Target:
    """Locate the agent dir for ``path`` (a repository, an agent dir, or inside one)."""
    if not path.exists():
        raise ConfigError(f"{path}: no such file or directory")
    start = path.resolve()
    if start.is_file():
        start = start.parent
    fallback: Target | None = None
    for folder in [start, *start.parents]:
        if folder.name == AGENT_DIR_NAME:
            root = folder.parent
            return Target(root, folder, load_config(root, explicit_config))
        config = load_config(folder, explicit_config)
        if config.agent_dir and fallback is None:
            agent_dir = folder / config.agent_dir
            if agent_dir.is_dir():
                return Target(folder, agent_dir, config)
            raise ConfigError(f"{config.source}: `agent-dir` {config.agent_dir!r} is not a folder")
        if (folder / AGENT_DIR_NAME).is_dir() and fallback is None:
            return Target(folder, folder / AGENT_DIR_NAME, config)
        if _looks_like_agent_dir(folder):
            if folder == start:
                # The repository may be the agent dir; unless an ancestor is one and
                # this is a record folder inside it (a conversation has handoffs/).
                fallback = Target(folder, folder, config)
            elif start.relative_to(folder).parts[0] in KIND_FOLDERS:
                return Target(folder, folder, config)
        if (folder / ".git").exists():
            break
    if fallback is not None:
        return fallback
    raise ConfigError(
        f"{path}: no {AGENT_DIR_NAME}/ directory found here or in its parent folders "
        "(pass the repository root or the agent dir)"
    )


@dataclass(frozen=True)
class Entry:
    """A file to read (``problem`` is None) or a finding about an unsafe entry."""

    path: Path
    relpath: str
    problem: Diagnostic | None = None


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def walk(target: Target) -> Iterator[Entry]:
    """Yield the agent dir's files in sorted order, or a finding for unsafe ones."""
    root_real = os.path.realpath(target.root)
    agent = str(target.agent_dir)
    for current, dirs, names in os.walk(agent, followlinks=False):
        dirs.sort()
        kept = []
        for name in dirs:
            full = os.path.join(current, name)
            if name in _SKIP_DIRS:
                continue
            if os.path.islink(full):
                problem = _link_problem(target, full, root_real)
                if problem:
                    yield Entry(Path(full), relative(full, agent), problem)
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            full = os.path.join(current, name)
            relpath = relative(full, agent)
            if os.path.islink(full):
                problem = _link_problem(target, full, root_real)
                if problem:
                    yield Entry(Path(full), relpath, problem)
                    continue
            try:
                info = os.stat(full)
            except OSError:
                continue
            repo_path = relative(full, str(target.root))
            if not stat.S_ISREG(info.st_mode):
                yield Entry(
                    Path(full),
                    relpath,
                    rules.NOT_A_REGULAR_FILE.at(
                        repo_path, "not a regular file (a FIFO, socket or device); not read"
                    ),
                )
                continue
            if info.st_size > MAX_FILE_BYTES:
                yield Entry(
                    Path(full),
                    relpath,
                    rules.FILE_TOO_LARGE.at(
                        repo_path,
                        f"file is {info.st_size} bytes; agent-lint reads record files of at "
                        f"most {MAX_FILE_BYTES} bytes",
                        line=1,
                        column=1,
                    ),
                )
                continue
            yield Entry(Path(full), relpath)


def relative(full: str, base: str) -> str:
    """``full`` relative to ``base``, in POSIX form."""
    prefix = base.rstrip(os.sep) + os.sep
    if full.startswith(prefix):
        return full[len(prefix) :].replace(os.sep, "/")
    return Path(os.path.relpath(full, base)).as_posix()


def _link_problem(target: Target, full: str, root_real: str) -> Diagnostic | None:
    resolved = os.path.realpath(full)
    repo_path = relative(full, str(target.root))
    if not os.path.exists(resolved):
        return rules.SYMLINK_ESCAPE.at(
            repo_path, "symbolic link points to a path that does not exist; not followed"
        )
    if not _inside(resolved, root_real):
        return rules.SYMLINK_ESCAPE.at(
            repo_path, "symbolic link leads outside the repository; not followed"
        )
    return None


def read_bytes(path: Path) -> bytes:
    """Read a file that :func:`walk` approved."""
    with open(path, "rb") as handle:
        return handle.read(MAX_FILE_BYTES + 1)
