"""``--fix``: regenerate derived files, and with ``--unsafe-fixes`` mirror fields in meta.json.

Fixes are planned from the repository index as :class:`Edit` values (path,
old bytes, new bytes); :func:`apply` writes them atomically. Handoff files
are never written: they are the agents' records.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lint.handoffs import Conversation
from agent_lint.index import RepoIndex
from agent_lint.jsonedit import EditError, set_values


@dataclass(frozen=True)
class Edit:
    """A planned write: ``path`` (repository-relative) goes from ``before`` to ``after``."""

    root: Path
    path: str
    before: bytes | None
    after: bytes


class FixError(Exception):
    """A planned file cannot be written safely."""


def render_state(state: dict[str, Any]) -> bytes:
    """The canonical bytes of a state.json: stable key order, 2-space indent, final newline."""
    return (json.dumps(state, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _inside(root: Path, path: str) -> Path | None:
    """The absolute target if writing it cannot leave the repository, else None."""
    target = root / path
    if target.is_symlink():
        return None
    real_root = os.path.realpath(root)
    real_parent = os.path.realpath(target.parent)
    if real_parent != real_root and not real_parent.startswith(real_root + os.sep):
        return None
    return target


def _read(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None


def _state_edit(index: RepoIndex, conversation: Conversation) -> Edit | None:
    derived = conversation.derived_state()
    if derived is None:
        return None
    path = conversation.state_path or f"{conversation.folder}/handoffs/state.json"
    target = _inside(index.root, path)
    if target is None:
        return None
    try:
        after = render_state(derived)
    except UnicodeEncodeError:
        return None  # a value that is not valid Unicode is never written
    before = _read(target)
    return None if before == after else Edit(index.root, path, before, after)


def _meta_changes(conversation: Conversation) -> list[tuple[str, Any]]:
    meta, latest = conversation.meta, conversation.latest()
    if meta is None or latest is None or conversation.broken:
        return []
    changes: list[tuple[str, Any]] = []
    mirrors = [h.entry() for h in conversation.ordered()]
    entries = meta.get("handoffs")
    if not isinstance(entries, list) or [
        e.get("handoff_id") if isinstance(e, dict) else None for e in entries
    ] != [m["handoff_id"] for m in mirrors]:
        changes.append(("/handoffs", mirrors))
    else:
        for position, (entry, mirror) in enumerate(zip(entries, mirrors, strict=True)):
            for key, value in mirror.items():
                if entry.get(key) != value or key not in entry:
                    changes.append((f"/handoffs/{position}/{key}", value))
    if meta.get("active_agent") != latest.active_agent():
        changes.append(("/active_agent", latest.active_agent()))
    state = meta.get("state")
    if isinstance(state, dict) and state.get("checksum") != latest.checksum:
        changes.append(("/state/checksum", latest.checksum))
    return changes


def _meta_edit(index: RepoIndex, conversation: Conversation) -> Edit | None:
    changes = _meta_changes(conversation)
    if not changes or conversation.meta_path is None:
        return None
    target = _inside(index.root, conversation.meta_path)
    before = _read(target) if target is not None else None
    if before is None:
        return None
    try:
        after = set_values(before.decode("utf-8"), changes).encode("utf-8")
    except (EditError, UnicodeDecodeError, ValueError):
        return None
    return None if before == after else Edit(index.root, conversation.meta_path, before, after)


def plan(index: RepoIndex, unsafe: bool = False) -> Iterator[Edit]:
    """The edits ``--fix`` makes: state.json files, and meta.json mirrors when ``unsafe``."""
    for name in sorted(index.conversations):
        conversation = index.conversations[name]
        edit = _state_edit(index, conversation)
        if edit is not None:
            yield edit
        if unsafe:
            meta = _meta_edit(index, conversation)
            if meta is not None:
                yield meta


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` via a temporary file in the same folder.

    The temporary file is flushed and fsynced, renamed over the target, and
    the folder is fsynced, so a crash leaves either the old or the new file.
    """
    if target.is_symlink():
        raise FixError(f"{target} is a symbolic link; not written")
    folder = target.parent
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
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


def apply(edits: list[Edit]) -> list[str]:
    """Write every edit; return the repository-relative paths written."""
    written = []
    for edit in edits:
        write_atomically(edit.root / edit.path, edit.after)
        written.append(edit.path)
    return written
