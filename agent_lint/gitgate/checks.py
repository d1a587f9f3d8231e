"""What the change did to the append-only files of the merge-base, as typed problems.

Works on snapshots only (:mod:`agent_lint.gitgate.snapshots`); git is not
asked anything here except, through ``merged_in``, which commit merged a file.
Each problem is a :class:`~agent_lint.problems.GateProblem`;
:func:`agent_lint.validators.history.diagnose` makes it its AL6xx finding.
"""

from __future__ import annotations

import functools
import json
import posixpath
import shlex
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from agent_lint.frozen import field, record
from agent_lint.gitgate.snapshots import (
    Snapshot,
    TreeSnapshot,
    fold,
    prefetch_together,
    under,
)
from agent_lint.gitplumbing import MODE_GITLINK, MODE_SYMLINK, REGULAR_MODES
from agent_lint.jsontext import quote
from agent_lint.kinds import Format, History, Kind, Match, PathPattern
from agent_lint.positions import Span, locate_json_pointers
from agent_lint.problems import GateIssue, GateProblem
from agent_lint.profile import Profile
from agent_lint.validators.storage import linked_folder_message


def describe(mode: str) -> str:
    """What an entry of the given git mode is, in words."""
    if mode == MODE_GITLINK:
        return "a submodule (gitlink) or nested git repository"
    if mode == MODE_SYMLINK:
        return "a symbolic link"
    if mode in REGULAR_MODES:
        return "a regular file"
    return "a special file"


class Provenance(Protocol):
    """Names the base commit that added a file (``a1b2c3d ("subject")``)."""

    def __call__(self, path: str) -> str:
        """The commit that added ``path``, as messages name it."""

    def prefetch(self, paths: Iterable[str]) -> None:
        """A hint: ``paths`` will be named soon (one git process for them all)."""

    def last_changed(self, path: str) -> str:
        """The commit that last added or modified ``path`` (where a pin was set)."""


@record(repr=True)
class Comparison:
    """The two sides the gate compares and how to name things in messages.

    ``prefix`` is the agent dir the merge-base's configuration names (a
    repository path, ``""`` for the whole repository); ``base`` is the
    merge-base's tree under it, ``fork`` the tree where the change's own line
    of history left the base (the merge-base unless the change merged the base
    in), ``change`` the index or the work tree. ``relinked``, when the merge-base
    keeps its agent dir as a link to ``prefix`` and the change leads it elsewhere:
    that agent dir's path, and the folder it leads to in the change (None: none).
    """

    base_name: str
    prefix: str
    change_prefix: str
    base: TreeSnapshot
    fork: TreeSnapshot
    change: Snapshot
    profile: Profile
    display: Callable[[str], str]
    merged_in: Provenance
    notices: list[str] = field(default_factory=list)
    relinked: tuple[str, str | None] | None = None
    _kinds: dict[str, Match | None] = field(default_factory=dict, repr=False)

    def relative(self, path: str) -> str:
        """A repository path relative to the base's agent dir."""
        return path[len(self.prefix) + 1 :] if self.prefix else path

    def protected_kind(self, path: str) -> Match | None:
        """The profile's kind of the file at repository path ``path`` when that kind is
        append-only or write-once; None for any other file (asked once per path).

        The profile classifies only a path that one of those kinds' own patterns
        matches: a path none of them matches cannot be of such a kind, whichever
        kind it is, so most files of a store are passed over with a few pattern tests.
        """
        if path in self._kinds:
            return self._kinds[path]
        relpath = self.relative(path)
        match = None
        for pattern in self._protected_patterns:
            if pattern.match(relpath):
                match = self.profile.classify(relpath)
                if match is not None and match.kind.history is History.FREE:
                    match = None
                break
        self._kinds[path] = match
        return match

    @functools.cached_property
    def _protected_patterns(self) -> tuple[PathPattern, ...]:
        return tuple(k.path for k in self.profile.kinds if k.history is not History.FREE)


def protected_files(comparison: Comparison) -> dict[str, Kind]:
    """The merge-base's append-only and write-once files (regular files only), by path."""
    found = {}
    for path, mode in comparison.base.modes.items():
        if mode not in REGULAR_MODES:
            continue
        match = comparison.protected_kind(path)
        if match is not None:
            found[path] = match.kind
    return found


def check(
    comparison: Comparison, list_changed: bool = True
) -> tuple[list[GateProblem], set[str] | None, dict[str, bytes | None]]:
    """Every problem of the change (AL6xx), the reported paths of the files it changed
    (with ``list_changed``; else None: finding them asks for every file's blob id), and
    what restoring the append-only files it modified, deleted or renamed takes: each such
    file's merged bytes by its reported path, and None for where one was renamed to."""
    c = comparison
    protected = protected_files(c)
    found: list[GateProblem] = list(_twins(c, protected))
    replaced_at: set[str] = set()
    unread: dict[str, list[str]] = defaultdict(list)
    for path in sorted(protected):
        folder = next((u for u in sorted(c.change.unreadable) if under(path, u)), None)
        if folder is not None:
            unread[folder].append(path)
    for folder, paths in sorted(unread.items()):
        found.append(_not_compared(c, folder, paths, protected))
        for path in paths:
            del protected[path]
    if protected and (c.relinked is not None or _agent_dir_gone(c)):
        found.append(_agent_dir_removed(c, protected))
        protected = {}
    groups: dict[str, list[str]] = defaultdict(list)
    for path in sorted(protected):
        replaced = c.change.replaced(path)
        if replaced is not None:
            groups[replaced[0]].append(path)
    for folder, paths in sorted(groups.items()):
        replaced_at.add(folder)
        found.append(_folder_replaced(c, folder, paths, protected))
    grouped = {path for paths in groups.values() for path in paths}
    kept = {p: k for p, k in protected.items() if p not in grouped}
    new_paths = {
        path
        for path, mode in c.change.modes.items()
        if mode in REGULAR_MODES and path not in c.base.modes and under(path, c.prefix)
    }
    by_sha: dict[str, list[str]] = defaultdict(list)
    missing = [p for p in kept if c.change.modes.get(p) is None]
    # The files whose blob ids the change is asked for below: one git process reads the
    # attributes of those among them to hash.
    asked = [*kept, *(new_paths if missing else ()), *(c.change.modes if list_changed else ())]
    c.change.will_ask(asked)
    if missing:
        wanted = {c.base.sha(p) for p in missing}
        for path in sorted(new_paths):
            sha = c.change.sha(path)
            if sha is not None and sha in wanted:
                by_sha[sha].append(path)
    # What the findings below read, with one git process each: the commits that added the
    # files the change touched, and both sides' contents of the files it modified.
    touched = [p for p in kept if c.change.modes.get(p) not in REGULAR_MODES]
    modified = [p for p in kept if p not in touched and c.change.sha(p) != c.base.sha(p)]
    c.merged_in.prefetch([*touched, *modified])
    pinned = (p for p in kept if kept[p].history is History.WRITE_ONCE)
    gone = [p for p in missing if kept[p].history is History.APPEND_ONLY]
    prefetch_together([(c.base, [*modified, *pinned, *gone]), (c.change, modified)])
    renamed_to: set[str] = set()
    renames: dict[str, str] = {}
    merged: dict[str, bytes | None] = {}
    for path in sorted(kept):
        problem = _protected(c, kept[path], path, by_sha)
        if problem is not None:
            found.append(problem)
            if problem.issue is GateIssue.RENAMED:
                target = by_sha.get(c.base.sha(path) or "", [])[:1]
                renamed_to.update(target)
                renames.update((path, t) for t in target)
                merged.update((c.display(t), None) for t in target)
            if problem.issue in _RESTORABLE and kept[path].history is History.APPEND_ONLY:
                merged[c.display(path)] = c.base.content(path)
            if problem.issue is GateIssue.REPLACED:
                replaced_at.add(path)
    found, moved = _folders_renamed(c, found, renames, protected)
    for folder, now in moved:
        # A folder renamed and nothing else: what it holds now (its meta.json too) is that
        # rename's alone. A file edited or added in it keeps its own findings (all do).
        inside = {p: f"{folder}{p[len(now) :]}" for p in c.change.modes if under(p, now)}
        if all(_same_file(c, path, was) for path, was in inside.items()):
            merged.update((c.display(path), None) for path in inside)
    found.extend(_appended(c, new_paths - renamed_to))
    found.extend(_linked_records(c, replaced_at))
    found.extend(_unlinked(c))
    found.extend(_gitlinks(c, replaced_at))
    found.extend(_linked_folders(c, replaced_at))
    return found, _changed(c) if list_changed else None, merged


def _linked_folders(c: Comparison, replaced_at: set[str]) -> Iterator[GateProblem]:
    """AL707 for each symbolic link the change adds (or points elsewhere) inside the
    merge-base's agent dir that leads to a folder of the repository, as the index or the
    work tree holds it: the change's own settings (another ``agent-dir`` or ``profile``)
    may keep the walk from seeing it, and nothing behind it would be compared once merged.
    Links are followed as the file system (or the index) follows them; one that leaves the
    repository or leads into ``.git`` is the walk's AL007."""
    links = [
        path
        for path, mode in c.change.modes.items()
        if mode == MODE_SYMLINK
        and path != c.prefix
        and path not in replaced_at
        and under(path, c.prefix)
        and _walked(c, path)
    ]
    new = [path for path in links if not _merged_link(c, path)]
    for path, folder in sorted(c.change.folder_links(new).items()):
        yield GateProblem(
            GateIssue.LINKED_FOLDER,
            c.display(path),
            linked_folder_message(c.display(folder) or "."),
            line=1,
            column=1,
        )


def _same_file(c: Comparison, path: str, was: str) -> bool:
    """Whether the change's ``path`` is the merge-base's ``was``: a regular file with the
    same blob (a link or a gitlink moved along is judged on its own)."""
    mode = c.change.modes.get(path)
    if mode not in REGULAR_MODES or mode != c.base.modes.get(was):
        return False
    return c.change.sha(path) == c.base.sha(was)


def _moved_folder(path: str, target: str) -> tuple[str, str] | None:
    """The folders ``path`` and ``target`` are in, once the names they end in alike are
    taken off (``C-1/handoffs/H-001.json`` to ``C-2/handoffs/H-001.json``: ``C-1`` and
    ``C-2``), or None when the two differ in their file name or in no folder."""
    old, new = path.split("/"), target.split("/")
    if old[-1] != new[-1]:
        return None
    while len(old) > 1 and len(new) > 1 and old[-1] == new[-1]:
        old.pop()
        new.pop()
    if old[-1] == new[-1]:
        return None
    return "/".join(old), "/".join(new)


def _folders_renamed(
    c: Comparison,
    found: list[GateProblem],
    renames: dict[str, str],
    protected: dict[str, Kind],
) -> tuple[list[GateProblem], list[tuple[str, str]]]:
    """The problems with the AL603s of every merged file of a folder the change renamed,
    each file to the same name in one new folder, made one AL603 at the folder: one
    ``git mv`` of a conversation folder is one fact. Also each such folder with its new
    path."""
    moves: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path, target in renames.items():
        pair = _moved_folder(path, target)
        if pair is not None:
            moves[pair].append(path)
    folded: set[str] = set()
    grouped: list[GateProblem] = []
    moved: list[tuple[str, str]] = []
    for (folder, now), paths in sorted(moves.items()):
        inside = [p for p in protected if under(p, folder)]
        if len(paths) < 2 or sorted(inside) != sorted(paths):
            continue  # a file or two renamed, or the folder holds merged files left in place
        if c.change.has_entries_under(folder) or c.base.has_entries_under(now):
            continue  # files moved between folders that stay: each file's own AL603
        folded.update(c.display(p) for p in paths)
        moved.append((folder, now))
        paths.sort()
        grouped.append(
            GateProblem(
                GateIssue.RENAMED,
                c.display(folder),
                f"{c.display(folder)} holds {_held((protected[p] for p in paths), len(paths))} "
                f"merged on {c.base_name} (such as {posixpath.basename(paths[0])}, merged in "
                f"{c.merged_in(paths[0])}); the change renamed it to {c.display(now)}. Merged "
                "files stay at the paths they were merged at: rename it back",
                line=1,
                column=1,
            )
        )
    if not folded:
        return found, moved
    kept = [p for p in found if not (p.issue is GateIssue.RENAMED and p.path in folded)]
    return kept + grouped, moved


def _linked_records(c: Comparison, replaced_at: set[str]) -> Iterator[GateProblem]:
    """AL607 for each append-only or write-once file that the change adds as a symbolic
    link, or whose merged link it points elsewhere: git records the link, not what it
    leads to, so once merged the content behind it could be rewritten without the gate
    seeing a change at the handoff's path. (A merged regular file made a link is
    :func:`_protected`'s AL607.) A link the merge-base already had, which the change
    keeps, is AL611: the gate cannot compare what it leads to."""
    for path, mode in sorted(c.change.modes.items()):
        if mode != MODE_SYMLINK or path in replaced_at or not under(path, c.prefix):
            continue
        merged = c.base.modes.get(path)
        if merged in REGULAR_MODES:
            continue  # a merged file made a link: _protected's AL607
        match = c.protected_kind(path)
        if match is None:
            continue
        if merged == MODE_SYMLINK and _merged_link(c, path):
            yield GateProblem(
                GateIssue.NOT_COMPARED,
                c.display(path),
                f"{posixpath.basename(path)} was merged in {c.merged_in(path)} as a symbolic "
                f"link and is {match.kind.history.value}: git records the link, not the "
                "content it leads to, so the gate cannot tell whether the change rewrote "
                "that content. Replace the link with the file it leads to, in a change of "
                "its own",
                line=1,
                column=1,
            )
            continue
        now = "points a merged one elsewhere" if merged == MODE_SYMLINK else "adds it as one"
        yield GateProblem(
            GateIssue.REPLACED,
            c.display(path),
            f"{posixpath.basename(path)} is {match.kind.history.value} and a symbolic link "
            f"(the change {now}): git records the link, not the content it leads to, so "
            "once merged that content could be rewritten without the gate seeing it. "
            "Commit the file itself",
            line=1,
            column=1,
        )


def _link_target(c: Comparison, path: str) -> str | None:
    """The repository path the merge-base's symbolic link at ``path`` names (one hop, inside
    the repository), or None."""
    sha = c.base.symlink_blob(path)
    data = c.base.repo.read_blobs([sha]).get(sha) if sha else None
    try:
        target = data.decode("utf-8") if data else ""
    except UnicodeDecodeError:
        return None
    if not target or target.startswith("/") or "\\" in target:
        return None
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return None if resolved in (".", "..") or resolved.startswith("../") else resolved


def _unlinked(c: Comparison) -> Iterator[GateProblem]:
    """AL601 for each append-only file the merge-base keeps as a symbolic link and the
    change replaces with a regular file holding other bytes than the file the link led to
    (AL611 when the gate cannot tell what that was: a link out of the tree, or to a link).
    Replacing the link with the very file it led to is what AL611 asks for, and passes."""
    for path, mode in sorted(c.base.modes.items()):
        if mode != MODE_SYMLINK or c.change.modes.get(path) not in REGULAR_MODES:
            continue
        match = c.protected_kind(path)
        if match is None:
            continue
        target = _link_target(c, path)
        merged = c.base.blob_anywhere(target) if target is not None else None
        if merged is not None and c.change.sha(path) == merged:
            continue
        name, kept = posixpath.basename(path), match.kind.history.value
        if merged is None:
            yield GateProblem(
                GateIssue.NOT_COMPARED,
                c.display(path),
                f"{name} was merged in {c.merged_in(path)} as a symbolic link and is {kept}; "
                "the change replaces it with a file, and the gate cannot tell what the link "
                "led to (no file of the merged tree), so it cannot compare the two",
                line=1,
                column=1,
            )
            continue
        yield GateProblem(
            GateIssue.MODIFIED,
            c.display(path),
            f"{name} was merged in {c.merged_in(path)} as a symbolic link to "
            f"{c.display(target or '')} and is {kept}; the change replaces it with a file "
            f"that does not hold what the link led to on {c.base_name}: restore that "
            "content",
            line=1,
            column=1,
        )


def _merged_link(c: Comparison, path: str) -> bool:
    """Whether the merge-base has the same symbolic link at ``path`` (the same target)."""
    merged = c.base.entries.get(path)
    if merged is None or merged.mode != MODE_SYMLINK:
        return False
    return merged.sha == c.change.symlink_blob(path)


def _walked(c: Comparison, path: str) -> bool:
    """Whether the profile's walk of the agent dir meets ``path``: anywhere, or with
    ``walk_folders`` only inside one of them or on the way to one (``.pi`` of ``.pi/pbot``)."""
    if not c.profile.walk_folders:
        return True
    inner = c.relative(path) + "/"
    return any(
        inner.startswith(f"{folder}/") or f"{folder}/".startswith(inner)
        for folder in c.profile.walk_folders
    )


#: What the change did to a merged file that restoring its merged bytes undoes.
_RESTORABLE = (GateIssue.MODIFIED, GateIssue.DELETED, GateIssue.RENAMED, GateIssue.REPLACED)


def _agent_dir_gone(c: Comparison) -> bool:
    """Nothing is left at the base's agent dir: no files, and no link or file in its place."""
    if c.change.has_entries_under(c.prefix):
        return False
    probe = f"{c.prefix}/-" if c.prefix else "-"
    return c.change.replaced(probe) is None


def _held(kinds: Iterable[Kind], count: int) -> str:
    """``3 append-only files``: the protected files counted, named by how their kinds are kept."""
    ways = sorted({kind.history.value for kind in kinds})
    return f"{count} {' and '.join(ways)} file{'s' if count != 1 else ''}"


def _agent_dir_removed(c: Comparison, protected: dict[str, Kind]) -> GateProblem:
    folder = c.display(c.prefix) or "."
    held = _held(protected.values(), len(protected))
    newest = max(protected)
    such_as = f"such as {c.relative(newest)}, merged in {c.merged_in(newest)}"
    if c.relinked is not None:
        link, leads = c.relinked
        now = "is gone or leads to no folder of the repository"
        if leads == link:
            now = "is a folder of its own"
        elif leads is not None:
            now = f"leads to {c.display(leads) or '.'}"
        return GateProblem(
            GateIssue.AGENT_DIR_REMOVED,
            c.display(link),
            f"the agent dir {c.display(link)} is a symbolic link to {folder} on "
            f"{c.base_name}, which holds {held} merged there ({such_as}); in the change it "
            f"{now}, so "
            "those records are no longer the agent dir's, and the gate cannot compare "
            "what it holds now with them. Keep the link, or move the agent dir in a change "
            "of its own, reviewed as such",
            line=1,
            column=1,
        )
    moved = ""
    if c.change_prefix != c.prefix:
        moved = f"; the change's agent dir is {c.change_prefix or 'the repository root'}"
    return GateProblem(
        GateIssue.AGENT_DIR_REMOVED,
        folder,
        f"the agent dir {c.prefix or '.'} holds {held} merged on {c.base_name} ({such_as}); "
        "the change removes or "
        f"moves it{moved}. The gate protects the agent dir that {c.base_name} holds there "
        "(named by its configuration, or found at the folder this run was given)",
        line=1,
        column=1,
    )


def _folder_replaced(
    c: Comparison, folder: str, paths: list[str], protected: dict[str, Kind]
) -> GateProblem:
    mode = c.change.mode_of(folder) or ""
    held = _held((protected[p] for p in paths), len(paths))
    return GateProblem(
        GateIssue.REPLACED,
        c.display(folder),
        f"{folder} holds {held} merged on "
        f"{c.base_name} (such as {posixpath.basename(paths[0])}, merged in "
        f"{c.merged_in(paths[0])}); in the change it is {describe(mode)}, not a folder, so "
        "they are no longer files of this repository",
        line=1,
        column=1,
    )


def _same_json(merged: bytes | None, changed: bytes | None) -> bool:
    """Whether two JSON documents hold the same value, each read strictly: UTF-8, no key
    repeated, no NaN or Infinity, and the values alike in kind (``1`` is not ``1.0`` nor
    ``true``). Anything else (None, unparsable, ambiguous) is not the same."""
    if merged is None or changed is None:
        return False
    try:
        return _strict_json(merged) == _strict_json(changed)
    except (ValueError, RecursionError):
        return False


def _strict_json(data: bytes) -> str:
    """A canonical text of a strictly read JSON document (see :func:`_same_json`)."""

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        if len({key for key, _ in items}) != len(items):
            raise ValueError("a key repeats")
        return dict(items)

    def constant(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    value = json.loads(data.decode("utf-8"), object_pairs_hook=pairs, parse_constant=constant)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _repinned(content: bytes | None) -> tuple[str, Span | None]:
    """How a pinned write-once reference changed, and where its ``file`` key is, if it is."""
    try:
        record = json.loads(content or b"null")
    except (ValueError, RecursionError):
        return "changed", None
    if not isinstance(record, dict) or "file" not in record:
        return "changed", None
    try:  # the change's own bytes, which the work tree's file may not be (--staged)
        place = locate_json_pointers((content or b"").decode("utf-8"), [("/file", "key")])
        span = place.find("/file", "key")
    except (ValueError, RecursionError):
        span = None
    if record["file"] is None:
        return "changed: cleared to null", span
    return f"changed: re-pointed to {quote(record['file'])}", span


def _protected(
    c: Comparison, kind: Kind, path: str, by_sha: dict[str, list[str]]
) -> GateProblem | None:
    base_sha = c.base.sha(path)
    mode = c.change.modes.get(path)
    name = posixpath.basename(path)
    shown = c.display(path)
    if mode is not None and mode not in REGULAR_MODES:
        return GateProblem(
            GateIssue.REPLACED,
            shown,
            f"{name} was merged in {c.merged_in(path)} as a regular file and is "
            f"{kind.history.value}; in the change it is {describe(mode)}",
            line=1,
            column=1,
        )
    now = c.change.sha(path) if mode is not None else None
    staged = c.change.staged_sha(path) if now is not None else None
    if now == base_sha and staged is not None and staged != base_sha:
        # The work tree hashes to the merged blob after git's conversions (a line-ending
        # attribute added since), but the index, what the change's commit holds, does not.
        return GateProblem(
            GateIssue.MODIFIED,
            shown,
            f"{name} was merged in {c.merged_in(path)} and is {kind.history.value}; the "
            "index (what the change's commit records) holds other bytes, though the work "
            "tree matches the merged file after git's conversions: restore the merged "
            f"file and stage it ({_restore(c, path)})",
            line=1,
            column=1,
        )
    if now == base_sha:
        return None
    if mode is None and c.change.is_folder(path):
        return GateProblem(
            GateIssue.REPLACED,
            shown,
            f"{name} was merged in {c.merged_in(path)} as a regular file and is "
            f"{kind.history.value}; in the change it is a folder",
            line=1,
            column=1,
        )
    if now is None and path in c.change.unreadable:
        return _not_compared(c, path, [path], {path: kind})
    if kind.history is History.WRITE_ONCE:
        try:
            pinned = json.loads(c.base.content(path) or b"null").get("file")
        except (ValueError, AttributeError, RecursionError):  # not a JSON object: no pin
            pinned = None
        if pinned is None and now is not None:
            return None  # the first time the reference is set
        if now is not None and _same_json(c.base.content(path), c.change.content(path)):
            return None  # written again with the same value (its formatting is no value)
        how, span = _repinned(c.change.content(path)) if now else ("deleted", None)
        # A changed value is placed at its key, in the change's own bytes; else the file.
        return GateProblem(
            GateIssue.WRITE_ONCE_CHANGED,
            shown,
            f"{name} was pinned to {quote(pinned)} in {c.merged_in.last_changed(path)} and is "
            f"write-once; it was {how}",
            line=span.line if span is not None else 1,
            column=span.column if span is not None else 1,
        )
    if now is None:
        targets = by_sha.get(base_sha or "", [])
        if targets:
            return GateProblem(
                GateIssue.RENAMED,
                shown,
                f"{name} was merged in {c.merged_in(path)} and is append-only; it was renamed "
                f"to {c.display(targets[0])}",
                line=1,
                column=1,
            )
        return GateProblem(
            GateIssue.DELETED,
            shown,
            f"{name} was merged in {c.merged_in(path)} and is append-only; it was deleted: "
            f"restore it ({_restore(c, path)})",
            line=1,
            column=1,
        )
    merged, changed = c.base.content(path), c.change.content(path)
    how = f"modified: restore it ({_restore(c, path)}) and write a new {kind.title} instead"
    if merged is not None and changed is not None and _same_but_line_ends(merged, changed):
        how = (
            "modified in its line endings only (CRLF where the merged file has LF, or the "
            "reverse, and git converts nothing): restore it, or set `* text=auto` in "
            ".gitattributes in a change of its own"
        )
    return GateProblem(
        GateIssue.MODIFIED,
        shown,
        f"{name} was merged in {c.merged_in(path)} and is append-only; it was {how}",
        line=_first_difference(merged, changed),
        column=1,
    )


def _restore(c: Comparison, path: str) -> str:
    """The command that puts the merged ``path`` back, quoted for a shell; ``:/`` names
    the path from the repository's top, so it works from any folder of the checkout."""
    return f"git checkout {shlex.quote(c.base_name)} -- {shlex.quote(':/' + path)}"


def _same_but_line_ends(merged: bytes, changed: bytes) -> bool:
    """Whether two contents differ only in CRLF against LF line endings."""
    return merged.replace(b"\r\n", b"\n") == changed.replace(b"\r\n", b"\n")


def _not_compared(
    c: Comparison, path: str, paths: list[str], protected: dict[str, Kind]
) -> GateProblem:
    """AL611: the change has ``path`` but the gate cannot read it."""
    files = _held((protected[p] for p in paths), len(paths))
    what = "it" if paths == [path] else f"the {files}"
    held = (
        f"{posixpath.basename(path)} was merged in {c.merged_in(path)} and is "
        f"{protected[path].history.value}"
        if paths == [path]
        else f"{path} holds {files} merged on "
        f"{c.base_name} (such as {posixpath.basename(paths[0])}, merged in "
        f"{c.merged_in(paths[0])})"
    )
    return GateProblem(
        GateIssue.NOT_COMPARED,
        c.display(path),
        f"{held}; the gate could not compare {what} with the change: {path} "
        f"{c.change.unreadable[path]}",
        line=1,
        column=1,
    )


def _twins(c: Comparison, protected: dict[str, Kind]) -> Iterator[GateProblem]:
    """AL610: names the change adds that a case-insensitive or normalising file system
    takes for a merged append-only file or a folder on the way to one."""
    if not protected:
        return
    merged: dict[str, set[str]] = defaultdict(set)
    exact: set[str] = set()  # the merged files and every folder on the way to one
    for path in protected:
        name = path
        while name and name not in exact:  # a folder seen before has its own folders seen
            exact.add(name)
            merged[fold(name)].add(name)
            name = name.rpartition("/")[0]
    candidates = set(c.change.modes) | set(c.change.twins(c.prefix))
    reported: set[str] = set()
    for path in sorted(candidates - c.base.modes.keys()):
        # A name the base holds, and so every folder on the way to it, is never a twin.
        if path in exact:
            continue  # a merged file itself, and so every folder on the way to it
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):
            name = "/".join(parts[:depth])
            if name in exact:
                continue  # folding ``name`` finds it among its own originals
            originals = merged.get(fold(name))
            if not originals:
                break
            if name in originals:
                continue
            # A twin of a name the change removed collides with nothing (AL602/AL603 say it).
            kept = sorted(o for o in originals if c.change.has_entries_under(o))
            if kept and name not in reported and not c.base.holds(name):
                reported.add(name)
                yield _twin(c, name, kept[0], protected)
            break


def _twin(c: Comparison, name: str, original: str, protected: dict[str, Kind]) -> GateProblem:
    if unicodedata.normalize("NFC", name) == unicodedata.normalize("NFC", original):
        ways = "Unicode normalisation (NFC/NFD)"
    elif name.casefold() == original.casefold():
        ways = "letter case"
    else:
        ways = "letter case and Unicode normalisation (NFC/NFD)"
    if original in protected:
        what = f"the merged {posixpath.basename(original)} (merged in {c.merged_in(original)})"
        held, kept = "file", f"the merged {protected[original].title}"
    else:
        inside = sorted(p for p in protected if under(p, original))
        first = inside[0]
        how = " and ".join(sorted({protected[p].history.value for p in inside}))
        what = (
            f"{c.display(original) or '.'}, which holds {how} files merged on "
            f"{c.base_name} (such as {posixpath.basename(first)}, merged in {c.merged_in(first)})"
        )
        held, kept = "folder", "the merged files in it"
    return GateProblem(
        GateIssue.TWIN,
        c.display(name),
        f"{posixpath.basename(name)} differs from {what} only in {ways}: on macOS and Windows "
        f"both names are one {held}, and a checkout there shows whichever git writes last, so "
        f"{kept} can change unseen. Use the merged name",
        line=1,
        column=1,
    )


def _first_difference(old: bytes | None, new: bytes | None) -> int:
    """The 1-based number of the first line that differs (line endings aside)."""
    if old is None or new is None:
        return 1
    before, after = old.splitlines(), new.splitlines()
    for number, (a, b) in enumerate(zip(before, after, strict=False), start=1):
        if a != b:
            return number
    if len(after) > len(before):
        return len(before) + 1  # lines added at the end: the first of them
    if len(after) < len(before):
        return max(len(after), 1)  # lines removed at the end: the last line left
    return 1  # only line endings differ: the whole file


def sort_key(kind: Kind, path: str) -> tuple[int, str] | None:
    """Where an append-only record sorts in its folder (by number, or the time in its name).

    None for a kind that is not ordered or a name that carries neither, which
    is never compared.
    """
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    return kind.order(stem) if kind.order is not None else None


def _ordered_record(c: Comparison, path: str) -> tuple[Kind, tuple[int, str]] | None:
    """The kind and sort key of an append-only JSON handoff record (notes are not ordered)."""
    match = c.protected_kind(path)
    if match is None or match.kind.history is not History.APPEND_ONLY:
        return None
    if match.kind.format is not Format.JSON:
        return None
    key = sort_key(match.kind, path)
    return (match.kind, key) if key is not None else None


def _newest(c: Comparison, snapshot: TreeSnapshot) -> dict[str, tuple[tuple[int, str], str]]:
    newest: dict[str, tuple[tuple[int, str], str]] = {}
    for path, mode in snapshot.modes.items():
        ordered = _ordered_record(c, path) if mode in REGULAR_MODES else None
        if ordered is None:
            continue
        folder = posixpath.dirname(path)
        if folder not in newest or ordered[1] > newest[folder][0]:
            newest[folder] = (ordered[1], path)
    return newest


def _appended(c: Comparison, new_paths: set[str]) -> Iterator[GateProblem]:
    """New append-only records sort after the newest one of the fork point and continue the
    base's numbers (handoffs, and user kinds that declare an order)."""
    at_fork = _newest(c, c.fork)
    at_base = at_fork if c.fork is c.base else _newest(c, c.base)
    expected: dict[str, int] = {}
    for path in sorted(new_paths, key=lambda p: (posixpath.dirname(p), p)):
        ordered = _ordered_record(c, path)
        if ordered is None:
            continue
        kind, key = ordered
        folder, name = posixpath.dirname(path), posixpath.basename(path)
        if folder in at_fork and key < at_fork[folder][0]:
            yield GateProblem(
                GateIssue.BACKDATED,
                c.display(path),
                f"new {kind.title} {name} sorts before {posixpath.basename(at_fork[folder][1])}, "
                f"which this folder already held where the change branched off {c.base_name}: "
                "append-only files are added after the newest, never inserted",
                line=1,
                column=1,
            )
            continue
        if kind.next_name is not None and folder in at_base:
            want = expected.get(folder, at_base[folder][0][0] + 1)
            if key[0] != want:
                next_name = kind.next_name(want)
                held = _holds_id(c, kind, path, next_name)
                words = (
                    f"new {kind.title} {name} does not continue the numbering of "
                    f"{c.base_name}: the next one is {next_name}"
                )
                if held is None:
                    yield GateProblem(GateIssue.NUMBERING, c.display(path), words, line=1, column=1)
                else:  # the id it holds is the right one: only its name is wrong
                    yield GateProblem(
                        GateIssue.NUMBERING,
                        c.display(path),
                        f"{words}, the {kind.id_field} it holds: rename it to {next_name}.json",
                        line=held.line,
                        column=held.column,
                        pointer=f"/{kind.id_field}",
                    )
            expected[folder] = key[0] + 1


def _holds_id(c: Comparison, kind: Kind, path: str, wanted: str) -> Span | None:
    """Where a new record's id field is when it holds ``wanted``: a misnamed file (its
    AL202) that is the next one by its id, not by its name; None otherwise."""
    content = c.change.content(path)
    if not content or not kind.id_field:
        return None
    try:
        text = content.decode("utf-8")
        if json.loads(text).get(kind.id_field) != wanted:
            return None
        return locate_json_pointers(text, [(f"/{kind.id_field}", "value")]).find(
            f"/{kind.id_field}", "value"
        )
    except (ValueError, RecursionError, AttributeError):
        return None


def _gitlinks(c: Comparison, reported: set[str]) -> Iterator[GateProblem]:
    """Submodules and nested repositories inside the agent dir (not the agent dir itself)
    that the change adds or points at another commit; one notice names the others."""
    kept: list[str] = []
    for path, mode in sorted(c.change.modes.items()):
        if mode != MODE_GITLINK or path in reported or path in (c.prefix, c.change_prefix):
            continue
        if not (under(path, c.prefix) or under(path, c.change_prefix)):
            continue
        merged = c.base.link_sha(path)
        if merged is not None and merged == c.change.link_sha(path):
            kept.append(path)
            continue
        yield GateProblem(
            GateIssue.GITLINK,
            c.display(path),
            f"{posixpath.basename(path)} is a submodule (gitlink) or nested git repository inside "
            "the agent dir: its files are not part of this repository's history, so the "
            "append-only gate cannot see what happens to them",
            line=1,
            column=1,
        )
    if kept:
        more = f" and {len(kept) - 1} more" if len(kept) > 1 else ""
        c.notices.append(
            f"{c.display(kept[0])}{more}: a submodule inside the agent dir that {c.base_name} "
            "already has, unchanged by this change; the append-only gate cannot see its files"
        )


def _changed(c: Comparison) -> set[str]:
    paths = {p for p, m in c.base.modes.items() if m in REGULAR_MODES}
    paths |= {p for p, m in c.change.modes.items() if m in REGULAR_MODES}
    return {
        c.display(path)
        for path in paths
        if c.base.sha(path) != (c.change.sha(path) if path in c.change.modes else None)
    }
