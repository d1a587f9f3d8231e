"""Files git ignores and does not track: not part of what a repository commits.

The runtime's own ``.agent/.gitignore`` keeps ``sessions/S-*.json`` on each machine; a
clone or CI never has them, so the lint does not read them (``--show-files`` names
them), and a derived file a repository keeps out of git on purpose is not missing.
Git is asked only when an ignore file that applies holds a rule, and an ignore file is
read only as a regular file (never through a link or from a FIFO).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from agent_lint.fileio import NotRead, read_regular, work_tree_top

Step = TypeVar("Step", bound=tuple[object, str, object])


def rules_top(agent_dir: Path) -> Path | None:
    """The top of the git work tree holding ``agent_dir`` when an ignore file that applies
    to it holds a rule (``.gitignore`` files from the top down to the agent dir,
    ``.git/info/exclude``); None otherwise, and git is then not run for ignore rules."""
    folder = Path(os.path.realpath(agent_dir))
    top = work_tree_top(folder)
    if top is None:
        return None
    sources = [top / ".git" / "info" / "exclude"]
    while True:
        sources.append(folder / ".gitignore")
        if folder == top:
            break
        folder = folder.parent
    return top if any(_has_rules(source) for source in sources) else None


def ignored_files(root: Path, agent_dir: Path, top: Path) -> frozenset[str] | None:
    """The paths (relative to ``root``, folders ending in ``/``) under ``agent_dir`` that
    git's ignore rules exclude and the index does not track; None when git cannot tell
    (``top``: :func:`rules_top`)."""
    from agent_lint.gitplumbing import GitError, ignored_untracked

    inside = os.path.relpath(os.path.realpath(agent_dir), top).replace(os.sep, "/")
    try:
        listed = ignored_untracked(top, inside)
    except GitError:
        return None
    if listed is None:
        return None
    real_root = os.path.realpath(root)
    found = set()
    for name in listed:
        full = os.path.join(top, name.rstrip("/"))
        shown = os.path.relpath(full, real_root).replace(os.sep, "/")
        found.add(shown + "/" if name.endswith("/") else shown)
    return frozenset(found)


class GitIgnores:
    """Whether git's ignore rules exclude a path of the root (which need not exist): asked
    by checks of files a repository may keep out of git on purpose (a derived state.json,
    notes kept on each machine). Callers ask for their paths together (:meth:`among`):
    one git process answers each batch, so a repository of many such paths costs one."""

    def __init__(self, top: Path, root: Path) -> None:
        self.top, self.root = top, Path(os.path.realpath(root))
        self.answers: dict[str, bool] = {}
        self._folders: dict[str, bool] = {}  # folder: neither a link nor a nested repository

    def __call__(self, path: str) -> bool:
        """Whether git ignores ``path`` (relative to the root) when it is not tracked."""
        return path in self.among([path])

    def among(self, paths: Iterable[str]) -> set[str]:
        """Which of ``paths`` (relative to the root) git ignores when they are not tracked.

        A path beyond a symbolic link or inside a nested repository (a submodule) is not
        git's to answer for (``check-ignore`` refuses the whole batch): it is not ignored.
        A batch git could not answer is not remembered, and its paths count as not ignored.
        """
        paths = list(paths)
        asked = [path for path in dict.fromkeys(paths) if path not in self.answers]
        for path in [p for p in asked if not self._askable(p)]:
            self.answers[path] = False
            asked.remove(path)
        if asked:
            from agent_lint.gitplumbing import GitError, ignored_among

            inside = {
                os.path.relpath(self.root / path, self.top).replace(os.sep, "/"): path
                for path in asked
            }
            try:
                ignored = {inside[name] for name in ignored_among(self.top, list(inside))}
            except (GitError, KeyError):
                return {path for path in paths if self.answers.get(path)}
            for path in asked:
                self.answers[path] = path in ignored
        return {path for path in paths if self.answers.get(path)}

    def _askable(self, path: str) -> bool:
        """Whether no folder on the way to ``path`` below the work tree's top is a link or
        holds a ``.git`` (a submodule, a nested repository), nor leaves the top."""
        if "\0" in path:  # no file has that name; git's batch is NUL-separated
            return False
        full = os.path.normpath(self.root / path)
        top = str(self.top)
        if os.path.commonpath([full, top]) != top:
            return False
        folder = os.path.dirname(full)
        while folder != top and len(folder) > len(top):
            known = self._folders.get(folder)
            if known is None:
                known = self._folders[folder] = not os.path.islink(folder) and not (
                    os.path.lexists(os.path.join(folder, ".git"))
                )
            if not known:
                return False
            folder = os.path.dirname(folder)
        return True


def tracked_only(
    steps: Iterable[Step], ignored: frozenset[str], files: list[tuple[str, str]]
) -> Iterator[Step]:
    """The walk's steps (``(entry, path, match)``) less the files git ignores
    (:func:`ignored_files`), each named in ``files`` (``--show-files``)."""
    for step in steps:
        path = step[1]
        parts = path.split("/")
        if path in ignored or any(
            "/".join(parts[:n]) + "/" in ignored for n in range(1, len(parts))
        ):
            files.append((path, "not read: ignored by git (.gitignore), not committed"))
            continue
        yield step


def _has_rules(source: Path) -> bool:
    """Whether an ignore file holds a rule (``git init`` writes an ``info/exclude`` of
    comments only). A link, a FIFO or a device is never read (it could block the run): it
    counts as holding one, and git, which follows no link to an ignore file, decides."""
    if not os.path.lexists(source):
        return False
    if os.path.islink(source):
        return True
    try:
        text = read_regular(source, 1 << 20)
    except NotRead:
        return True
    return any(line.strip() and not line.lstrip().startswith(b"#") for line in text.splitlines())
