"""Compare the agent dir with a git base: append-only handoffs, write-once files.

The base tree is read as raw git objects (GitPython over ``git cat-file``):
nothing is checked out, and no hook, clean/smudge filter, textconv or
fsmonitor of the repository runs. The git index is parsed, not refreshed. The
one other git command (``git log``, naming the commit that merged a file) runs
with hooks and fsmonitor disabled and prints no diffs.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import subprocess
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent_lint.config import ConfigError
from agent_lint.diagnostics import Diagnostic
from agent_lint.handoffs import handoff_number
from agent_lint.kinds import Format, History, Kind, classify
from agent_lint.validators.history import (
    BACKDATED,
    DELETED,
    MODIFIED,
    NUMBERING,
    RENAMED,
    WRITE_ONCE_CHANGED,
)


def blob_sha(data: bytes) -> str:
    """The git blob id of ``data`` (what ``git hash-object`` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass
class Snapshot:
    """Files under the agent dir: blob ids by agent-dir-relative path (lazily for the worktree)."""

    shas: dict[str, str | None] = field(default_factory=dict)
    reader: dict[str, Path] = field(default_factory=dict)

    def sha(self, relpath: str) -> str | None:
        """The blob id of a file, hashing a worktree file on first use."""
        if self.shas.get(relpath) is None and relpath in self.reader:
            try:
                self.shas[relpath] = blob_sha(self.reader[relpath].read_bytes())
            except OSError:
                self.shas[relpath] = None
        return self.shas.get(relpath)

    def paths(self) -> set[str]:
        """Every path in the snapshot."""
        return set(self.shas) | set(self.reader)


def _open_repo(root: Path):  # type: ignore[no-untyped-def]
    import git

    try:
        return git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise ConfigError(f"--base needs a git repository, and {root} is not in one") from exc


def _shallow(repo) -> set[str]:  # type: ignore[no-untyped-def]
    path = Path(repo.git_dir) / "shallow"
    return set(path.read_text().split()) if path.is_file() else set()


@dataclass
class Gate:
    """The git side of one lint run: the base tree and the current files."""

    root: Path
    agent_dir: Path
    base: str
    staged: bool = False

    def __post_init__(self) -> None:
        import git

        self.repo = _open_repo(self.root)
        top = Path(self.repo.working_tree_dir or self.root).resolve()
        self.prefix = Path(os.path.relpath(self.agent_dir.resolve(), top)).as_posix()
        self.prefix = "" if self.prefix == "." else self.prefix
        self.repo_prefix = Path(os.path.relpath(self.agent_dir.resolve(), self.root.resolve()))
        self.shallow = _shallow(self.repo)
        try:
            self.commit = self.repo.commit(self.base)
            self.commit.tree.hexsha  # noqa: B018 - a shallow clone may lack the object
        except (git.BadName, git.BadObject, ValueError, IndexError) as exc:
            hint = (
                " The clone is shallow: check out with `fetch-depth: 0` (actions/checkout) "
                "or run `git fetch --unshallow`."
                if self.shallow
                else f" Fetch it first (for example `git fetch origin {self.base.split('/')[-1]}`)"
                " or, on GitHub Actions, check out with `fetch-depth: 0`."
            )
            raise ConfigError(
                f"--base {self.base!r} is not a commit in this repository.{hint}"
            ) from exc

    def repo_path(self, relpath: str) -> str:
        """An agent-dir-relative path as a repository-root-relative one."""
        prefix = self.repo_prefix.as_posix()
        return relpath if prefix == "." else f"{prefix}/{relpath}"

    def base_snapshot(self) -> Snapshot:
        """Blob ids of the files under the agent dir in the base tree."""
        snapshot = Snapshot()
        tree = self.commit.tree
        if self.prefix:
            try:
                tree = tree / self.prefix
            except KeyError:
                return snapshot
        for item in tree.traverse():
            if item.type == "blob":
                relpath = item.path[len(self.prefix) + 1 :] if self.prefix else item.path
                snapshot.shas[relpath] = item.hexsha
        return snapshot

    def current_snapshot(self) -> Snapshot:
        """The files the next commit will contain (``staged``) or the working tree."""
        snapshot = Snapshot()
        if self.staged:
            lead = self.prefix + "/" if self.prefix else ""
            for (path, stage), entry in self.repo.index.entries.items():
                if stage == 0 and path.startswith(lead):
                    snapshot.shas[path[len(lead) :]] = entry.hexsha
            return snapshot
        agent = str(self.agent_dir)
        for current, dirs, names in os.walk(agent, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d != ".git")
            for name in names:
                full = os.path.join(current, name)
                if os.path.isfile(full) and not os.path.islink(full):
                    relpath = Path(os.path.relpath(full, agent)).as_posix()
                    snapshot.reader[relpath] = Path(full)
        return snapshot

    def base_bytes(self, relpath: str) -> bytes:
        """The content of a base file."""
        path = f"{self.prefix}/{relpath}" if self.prefix else relpath
        blob = self.commit.tree / path
        data: bytes = blob.data_stream.read()
        return data

    def merged_in(self, relpath: str) -> str:
        """``a1b2c3d ("subject")``: the base commit that added the file."""
        path = f"{self.prefix}/{relpath}" if self.prefix else relpath
        command = [
            "git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
            "--no-pager", "log", "--no-ext-diff", "--no-textconv", "--diff-filter=A",
            "--format=%H%x00%h%x00%s", "-1", self.commit.hexsha, "--", path,
        ]  # fmt: skip
        environment = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
        try:
            done = subprocess.run(
                command,
                cwd=self.repo.working_tree_dir,
                capture_output=True,
                text=True,
                check=True,
                env=environment,
                timeout=60,
            )
        except (OSError, subprocess.SubprocessError):
            return f"the base {self.base}"
        full, _, rest = done.stdout.strip().partition("\0")
        short, _, subject = rest.partition("\0")
        if not full:
            return f"the base {self.base}"
        named = f'{short} ("{subject}")' if subject else short
        if full in self.shallow:
            return f"{named} or earlier (the clone is shallow; history before it is missing)"
        return named


def _sort_key(kind: Kind, relpath: str) -> tuple[int, str]:
    stem = posixpath.basename(relpath).rsplit(".", 1)[0]
    number = handoff_number(stem) if kind.name == "conversation-handoff" else None
    return (number if number is not None else -1, stem)


def check(gate: Gate) -> tuple[list[Diagnostic], set[str]]:
    """AL6xx findings against the base, and the repository paths that changed."""
    base, current = gate.base_snapshot(), gate.current_snapshot()
    found: list[Diagnostic] = []
    changed: set[str] = set()
    base_paths, current_paths = set(base.shas), current.paths()
    new_paths = current_paths - base_paths
    for relpath in sorted(base_paths | current_paths):
        if base.sha(relpath) != (current.sha(relpath) if relpath in current_paths else None):
            changed.add(gate.repo_path(relpath))
    by_sha: dict[str, list[str]] = defaultdict(list)
    for relpath in sorted(new_paths):
        sha = current.sha(relpath)
        if sha is not None:
            by_sha[sha].append(relpath)
    for relpath in sorted(base_paths):
        match = classify(relpath)
        if match is None or match.kind.history is History.FREE:
            continue
        found.extend(_protected(gate, match.kind, relpath, base, current, current_paths, by_sha))
    # A renamed handoff is reported once, at its old path, not again as a new file.
    renamed = {
        target
        for relpath in base_paths - current_paths
        for target in by_sha.get(base.sha(relpath) or "", [])[:1]
    }
    found.extend(_appended(gate, base_paths, new_paths - renamed))
    return found, changed


def _protected(
    gate: Gate,
    kind: Kind,
    relpath: str,
    base: Snapshot,
    current: Snapshot,
    current_paths: set[str],
    by_sha: dict[str, list[str]],
) -> Iterator[Diagnostic]:
    path = gate.repo_path(relpath)
    base_sha = base.sha(relpath)
    now = current.sha(relpath) if relpath in current_paths else None
    if now == base_sha:
        return
    if kind.history is History.WRITE_ONCE:
        try:
            pinned = json.loads(gate.base_bytes(relpath)).get("file")
        except (ValueError, AttributeError, KeyError):
            pinned = None
        if pinned is None and now is not None:
            return  # the first time the reference is set
        what = "deleted" if now is None else "changed"
        yield WRITE_ONCE_CHANGED.at(
            path,
            f"{posixpath.basename(relpath)} was pinned to {json.dumps(pinned)} in "
            f"{gate.merged_in(relpath)} and is write-once; it was {what}",
            line=1,
            column=1,
        )
        return
    merged = gate.merged_in(relpath)
    name = posixpath.basename(relpath)
    if now is None:
        renamed = by_sha.get(base_sha or "", [])
        if renamed:
            yield RENAMED.at(
                path,
                f"{name} was merged in {merged} and is append-only; it was renamed to "
                f"{gate.repo_path(renamed[0])}",
                line=1,
                column=1,
            )
        else:
            yield DELETED.at(
                path,
                f"{name} was merged in {merged} and is append-only; it was deleted",
                line=1,
                column=1,
            )
        return
    yield MODIFIED.at(
        path,
        f"{name} was merged in {merged} and is append-only; it was modified "
        "(write a new handoff instead)",
        line=_first_difference(gate, relpath, current),
        column=1,
    )


def _first_difference(gate: Gate, relpath: str, current: Snapshot) -> int:
    try:
        old = gate.base_bytes(relpath).splitlines()
        reader = current.reader.get(relpath)
        new = reader.read_bytes().splitlines() if reader else []
    except (OSError, KeyError):
        return 1
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return number
    return min(len(old), len(new)) + 1 if new else 1


def _handoff_record(relpath: str) -> Kind | None:
    """The kind of an append-only JSON handoff record (notes are not ordered)."""
    match = classify(relpath)
    if match is None or match.kind.history is not History.APPEND_ONLY:
        return None
    return match.kind if match.kind.format is Format.JSON else None


def _appended(gate: Gate, base_paths: set[str], new_paths: set[str]) -> Iterator[Diagnostic]:
    """New handoffs sort after the base's newest in their folder and continue its numbers."""
    newest: dict[str, tuple[tuple[int, str], str]] = {}
    for relpath in base_paths:
        kind = _handoff_record(relpath)
        if kind is None:
            continue
        folder = posixpath.dirname(relpath)
        key = _sort_key(kind, relpath)
        if folder not in newest or key > newest[folder][0]:
            newest[folder] = (key, relpath)
    expected: dict[str, int] = {}
    for relpath in sorted(new_paths, key=lambda p: (posixpath.dirname(p), p)):
        kind = _handoff_record(relpath)
        folder = posixpath.dirname(relpath)
        if kind is None or folder not in newest:
            continue
        key = _sort_key(kind, relpath)
        top_key, top = newest[folder]
        name = posixpath.basename(relpath)
        if key < top_key:
            yield BACKDATED.at(
                gate.repo_path(relpath),
                f"new handoff {name} sorts before {posixpath.basename(top)}, the newest handoff "
                f"on {gate.base} in this folder: handoffs are appended, never inserted",
                line=1,
                column=1,
            )
            continue
        if kind.name == "conversation-handoff" and key[0] >= 0:
            want = expected.get(folder, top_key[0] + 1)
            if key[0] != want:
                yield NUMBERING.at(
                    gate.repo_path(relpath),
                    f"new handoff {name} does not continue the numbering of {gate.base}: "
                    f"the next handoff is H-{want:03d}",
                    line=1,
                    column=1,
                )
            expected[folder] = key[0] + 1
