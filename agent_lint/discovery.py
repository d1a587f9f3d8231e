"""Find the agent dir and walk it safely.

The walk never leaves the repository: an agent dir that resolves outside it
is not read at all, and a symbolic link that leads outside is reported, not
followed. It never opens a device, socket or pipe, never reads a file larger
than the ``max-file-bytes`` limit, and turns every folder it cannot list and
every file it cannot open into a problem; the run goes on. Names are judged
on the way (temporary files, locks, twins, names Windows refuses). What it
meets is a typed :class:`~agent_lint.problems.EntryProblem`, never a finding:
:func:`agent_lint.validators.files.diagnose_entry` makes the finding.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from agent_lint.config import LIMITS, Config, ConfigError, in_git_folder, load_config, over_limit
from agent_lint.fileio import NotRead, check_regular, in_git_dir, work_tree_top
from agent_lint.filesystem import DISK, DirEntry, FileSystem
from agent_lint.frozen import frozen
from agent_lint.problems import EntryIssue, EntryProblem
from agent_lint.profile import Profile
from agent_lint.profiles import get, names, outline, outlines
from agent_lint.validators import storage

#: The default of the ``max-file-bytes`` limit.
MAX_FILE_BYTES = LIMITS["max-file-bytes"].default
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__"})
#: agent-lint's cache folder at the repository root (see :mod:`agent_lint.cache`).
CACHE_DIR = ".agent_lint_cache"


@frozen(repr=False, eq=False)
class Target:
    """A repository to lint: its root, its store (the agent dir), its settings and profile.

    ``profile`` is None only for a target built by hand; the linter then asks
    :func:`profile_for`.
    """

    root: Path
    agent_dir: Path
    config: Config
    profile: Profile | None = None


class NoProfile(Exception):
    """No profile's markers match: nothing to check (a notice, exit code 0)."""

    def __init__(self, root: Path, message: str) -> None:
        super().__init__(message)
        self.root = root
        self.message = message


class SeveralProfiles(ConfigError):
    """The markers of more than one profile match: the user must choose (a usage error,
    which the gate never takes for a store that is gone)."""


class LeavesRepository(ConfigError):
    """The path named leaves the repository that holds it through a link (a usage error;
    nothing there is read, by the lint or by the gate)."""


def _store_of(folder: Path, store: str) -> Path | None:
    """The repository root when ``folder`` is a store called ``store`` (``.agent``), else None."""
    parts = PurePosixPath(store).parts
    if len(folder.parts) <= len(parts) or folder.parts[-len(parts) :] != parts:
        return None
    return folder.parents[len(parts) - 1]


def _one(found: list[Target], where: Path) -> Target:
    """The single profile that matched, or a usage error naming the candidates."""
    seen: dict[str, Target] = {}
    for target in found:
        assert target.profile is not None
        seen.setdefault(target.profile.name, target)
    if len(seen) == 1:
        return next(iter(seen.values()))
    candidates = ", ".join(
        f"{name} ({relative(str(target.agent_dir), str(target.root)) or '.'}/)"
        for name, target in seen.items()
    )
    raise SeveralProfiles(
        f"{where}: the markers of several profiles match: {candidates}; choose one with "
        '--profile NAME or `profile = "NAME"` in the configuration'
    )


def _profiles(name: str | None) -> tuple[Profile, ...]:
    """The profiles to detect: their outlines (:func:`~agent_lint.profiles.outline`)."""
    if name is None:
        return outlines()
    try:
        return (outline(name),)
    except KeyError:
        known = ", ".join(names())
        raise ConfigError(f"unknown profile {name!r} (built-in profiles: {known})") from None


def profile_for(target: Target) -> Profile:
    """The profile of a target built by hand: the one whose markers hold in its store."""
    if target.profile is not None:
        return target.profile
    name = target.config.profile
    matching = [
        profile
        for profile in _profiles(name)
        if any(marker.holds_in(target.agent_dir) for marker in profile.markers)
    ]
    if not matching:
        matching = list(_profiles(name))
    return get(matching[0].name)


def _target(root: Path, store: Path, config: Config, candidate: Profile) -> Target:
    """A target of the profile ``candidate`` outlines, its modules loaded now that it matched."""
    return Target(root, store, config, get(candidate.name))


def find_target(
    path: Path, explicit_config: Path | None = None, profile: str | None = None
) -> Target:
    """Locate the store and its profile for ``path`` (a repository, a store, or inside one).

    ``profile`` (``--profile``) or the configuration's ``profile`` restricts
    the search to one profile; otherwise every built-in profile's markers are
    tried and exactly one must match. The search goes up from ``path`` as
    written, without resolving symbolic links, so a store that is a link is
    found as the link: :func:`walk` then refuses it if it leads outside the
    repository. The root itself is returned resolved. Raises
    :class:`NoProfile` when no profile's markers match.
    """
    if not os.path.lexists(path):
        raise ConfigError(f"{path}: no such file or directory")
    start = Path(os.path.abspath(path))
    left = _left_repository(start)
    if left is not None:
        raise LeavesRepository(
            f"{path}: leads outside the repository {left} through a symbolic link; a path "
            "that a repository holds is linted only where it lies inside it (lint the folder "
            "it leads to directly)"
        )
    if start.is_file():
        start = start.parent
    # A folder that looks like a store may be one, or a record folder inside one (a
    # conversation has handoffs/): the search goes on up to the repository's top, and an
    # ancestor named as a store (.agent) wins, then the outermost ancestor whose record
    # folder holds ``path``, then ``path`` itself.
    fallback: list[Target] = []
    outer: list[Target] = []
    top = start
    for folder in [start, *start.parents]:
        top = folder
        config = load_config(folder, explicit_config)
        chosen = _profiles(profile or config.profile)
        named = []
        for candidate in chosen:
            for marker in candidate.markers:
                root = _store_of(folder, marker.store) if marker.store else None
                if root is not None and marker.holds_in(folder):
                    real = Path(os.path.realpath(root))
                    store = real / marker.store
                    config_here = load_config(root, explicit_config)
                    named.append(_target(real, store, config_here, candidate))
                    break
        if named:
            return _one(named, folder)
        root = Path(os.path.realpath(folder))
        found = fallback or outer
        if config.agent_dir and not found:
            if not (folder / config.agent_dir).is_dir():
                raise ConfigError(
                    f"{config.source}: `agent-dir` {config.agent_dir!r} is not a folder"
                )
            store = root / config.agent_dir
            matching = [
                _target(root, store, config, candidate)
                for candidate in chosen
                if any(marker.holds_in(folder / config.agent_dir) for marker in candidate.markers)
            ]
            if not matching and len(chosen) == 1:
                matching = [_target(root, store, config, chosen[0])]
            if not matching:
                raise NoProfile(root, _nothing(f"{config.agent_dir}/", chosen))
            return _one(matching, folder)
        inside = []
        for candidate in chosen:
            for marker in candidate.markers:
                if marker.store and marker.holds_in(folder / marker.store):
                    inside.append(_target(root, root / marker.store, config, candidate))
                    break
        here, level = [], []  # the outermost folder whose record folder holds ``path`` wins
        for candidate in chosen:
            if not any(m.holds_in(folder) for m in candidate.markers if not m.store):
                continue
            if folder == start:
                here.append(_target(root, root, config, candidate))
            elif candidate.in_record_folder(start.relative_to(folder).as_posix() + "/"):
                level.append(_target(root, root, config, candidate))
        if inside and not found:
            # A named store here wins over this folder being a store of the same profile;
            # another profile whose markers hold here is a candidate too.
            taken = {target.profile.name for target in inside if target.profile is not None}
            others = [t for t in here if t.profile is not None and t.profile.name not in taken]
            return _one([*inside, *others], folder)
        fallback.extend(here)
        outer = level or outer
        if (folder / ".git").exists():
            break
    found = outer or fallback
    if found:
        return _one(found, start)
    named_profile = profile or load_config(top, explicit_config).profile
    if named_profile is not None:
        chosen = _profiles(named_profile)
        raise ConfigError(
            f"{path}: profile {named_profile!r} does not fit: no {chosen[0].title} store found "
            f"here or in its parent folders (looked for {chosen[0].where()})"
        )
    if (top / ".git").exists():
        shown = relative(str(start), str(top)) or "."  # from the repository's top
    else:  # no repository above: as the command line named it, not from "/"
        given = Path(path) if Path(path).is_dir() else Path(path).parent
        shown = given.as_posix().rstrip("/") or "."
    raise NoProfile(Path(os.path.realpath(top)), _nothing(f"{shown}/", outlines()))


def _left_repository(start: Path) -> Path | None:
    """The git repository that tracks a link on the way to ``start`` leading out of it
    (a change can commit ``services/pay``, or ``services``, as a link to any folder of
    the machine, another checkout included); None when every link on the way stays in
    the repository that holds it, or is tracked by none (a user's own link).

    The path is followed link by link from the top of the file system: each link is
    judged by the repository that physically holds it, so a link cannot lend the path
    another checkout's ``.git``, and a folder reached through links is still checked."""
    parts = start.parts
    current = Path(parts[0]) if parts else Path(os.sep)
    for part in parts[1:]:
        step = current / part
        if not os.path.islink(step):
            current = step
            continue
        target = Path(os.path.realpath(step))
        top = work_tree_top(current)
        inside = top is not None and (target == top or top in target.parents)
        if top is not None and not inside and _tracks_path(top, step):
            return top
        current = target
    return None


def _tracks_path(top: Path, path: Path) -> bool:
    """Whether the repository at ``top`` tracks ``path`` (in its index); True when git
    cannot tell, so that a link nothing vouches for is not followed."""
    from agent_lint.gitplumbing import GitError, Repository

    try:
        repo = Repository.discover(top)
        if repo is None:
            return True
        relative_path = os.path.relpath(path, os.path.realpath(repo.top)).replace(os.sep, "/")
        return bool(repo.ls_index([relative_path]))
    except (GitError, OSError):
        return True


def _nothing(where: str, profiles: tuple[Profile, ...]) -> str:
    return (
        f"no profile's markers match in {where}; nothing checked (profiles: "
        f"{', '.join(p.name for p in profiles)}; see --list-profiles)"
    )


class Entry(NamedTuple):
    """A file to read (``problem`` is None) or a problem met on the walk.

    ``path`` is the entry's absolute path, ``relpath`` its path in the agent
    dir (POSIX form; ``""`` for the agent dir itself). ``unread`` marks a file
    that exists but is not read: with a problem (a special file, an escaping
    link, a file too large or unreadable), or without one for a file under a
    linked folder (the link is the problem). Such a file is present for the
    checks that ask whether it exists. ``stamp`` is a file's size, modification
    time, inode and change time (ns) when it is a regular file on disk reached
    through no link: the cache's proof that it has not changed. ``noted`` marks a problem about an
    entry's name or link that does not keep it from being read or walked (a name
    Windows refuses, a link inside the repository, names that differ only in case).
    """

    path: str
    relpath: str
    problem: EntryProblem | None = None
    unread: bool = False
    unlisted: bool = False  # a folder that could not be listed: its contents are unknown
    stamp: tuple[int, int, int, int] | None = None
    noted: bool = False


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _realpath(path: str, fs: FileSystem = DISK) -> str | None:
    """``os.path.realpath``, or None when a link on the way cannot be resolved."""
    try:
        return fs.realpath(path)
    except (OSError, RuntimeError, ValueError):
        return None


def agent_dir_problem(target: Target, fs: FileSystem = DISK) -> EntryProblem | None:
    """AL706 when the agent dir resolves outside the repository (it is then never read)."""
    real = _realpath(str(target.agent_dir), fs)
    root_real = _realpath(str(target.root), fs) or str(target.root)
    shown = relative(str(target.agent_dir), str(target.root))
    if real is not None and _inside(real, root_real):
        if in_git_folder(real[len(root_real) :].split(os.sep)):
            return storage.agent_dir_outside(shown, into_git=True)
        return None
    return storage.agent_dir_outside(shown)


def top_folders(target: Target, fs: FileSystem = DISK) -> set[str]:
    """Names of the agent dir's top-level folders (empty when it cannot be listed)."""
    if agent_dir_problem(target, fs) is not None:
        return set()
    try:
        listing = fs.scandir(str(target.agent_dir))
        return {e.name for e in listing if e.is_dir(follow_symlinks=False)}
    except OSError:
        return set()


def _unreadable(repo_path: str, what: str, error: OSError) -> EntryProblem:
    reason = error.strerror or type(error).__name__
    return EntryProblem(
        EntryIssue.UNREADABLE,
        repo_path,
        f"{what} cannot be read ({reason}); nothing in it is checked",
        line=1,
        column=1,
    )


def walk(target: Target, fs: FileSystem = DISK, folders: Sequence[str] = ()) -> Iterator[Entry]:
    """Yield the agent dir's files in sorted order, and a finding for each unsafe entry.

    Paths are plain strings joined as the listing gives them; each entry costs
    its listing and, for a file, one ``stat`` (links are resolved once). With
    ``folders`` (a profile's ``walk_folders``), only those folders of the store
    are walked; one that leads outside the repository is a finding.
    """
    root = str(target.root)
    agent = str(target.agent_dir)
    outside = agent_dir_problem(target, fs)
    if outside is not None:
        yield Entry(agent, "", outside)
        return
    root_real = _realpath(root, fs) or root
    if fs.islink(agent):
        link_target = relative(_realpath(agent, fs) or agent, root_real)
        yield Entry(
            agent,
            "",
            storage.symlink_inside(relative(agent, root), link_target, agent_dir=True),
            noted=True,
        )
    max_bytes = target.config.limits.max_file_bytes
    # The agent dir's own path in the repository, "" when it is the root itself.
    top = relative(agent, root) if agent != root else ""
    top = "" if top == "." else top
    pending = [(agent, "")]
    if folders:
        pending = []
        linked: set[str] = set()
        for name in sorted(folders, reverse=True):
            folder = os.path.join(agent, *name.split("/"))
            if not fs.isdir(folder):
                continue
            if not _inside(_realpath(folder, fs) or "", root_real):
                yield Entry(
                    folder,
                    name,
                    EntryProblem(
                        EntryIssue.SYMLINK_ESCAPE,
                        relative(folder, root),
                        "folder leads outside the repository through a symbolic link; not read",
                    ),
                )
                continue
            link = _first_link(agent, name, fs)
            if link is not None:
                # Reached through a link inside the repository: a linked folder of the
                # store (AL707), whose files are present but not read, as anywhere else.
                link_name, link_full = link
                if link_name not in linked:
                    linked.add(link_name)
                    shown = relative(_realpath(link_full, fs) or link_full, root_real)
                    problem = storage.linked_folder(relative(link_full, root), shown)
                    yield Entry(link_full, link_name, problem)
                yield from _linked_files(folder, name, _realpath(folder, fs) or folder, fs)
                continue
            pending.append((folder, f"{name}/"))
    while pending:
        folder, inside = pending.pop()
        folder_path = f"{top}/{inside}".strip("/") if top else inside.rstrip("/")
        try:
            entries = sorted(fs.scandir(folder), key=_name)
        except OSError as exc:
            if folder == agent and isinstance(exc, FileNotFoundError):
                # No agent dir at all: only a gate run gets here (the change moved or
                # removed it, and the gate says so, AL608): nothing to walk, not a folder
                # that cannot be read.
                continue
            yield Entry(
                folder,
                inside.rstrip("/"),
                _unreadable(folder_path, "folder", exc),
                unlisted=True,
            )
            continue
        names = [entry.name for entry in entries]
        if not _distinct_ascii(names):
            for problem in storage.collisions(folder_path, names):
                yield Entry(folder, inside.rstrip("/"), problem, noted=True)
        repo_prefix = f"{folder_path}/" if folder_path else ""
        subfolders = []
        for entry in entries:
            relpath = inside + entry.name
            plain = _plain_file(entry, relpath, max_bytes, fs)
            if plain is not None:
                yield plain
                continue
            for found in _visit(entry, relpath, repo_prefix + entry.name, root_real, max_bytes, fs):
                if found is None:
                    subfolders.append((entry.path, relpath + "/"))
                else:
                    yield found
        pending.extend(reversed(subfolders))


def _first_link(agent: str, name: str, fs: FileSystem) -> tuple[str, str] | None:
    """The first folder on the way from ``agent`` to its folder ``name`` that is a symbolic
    link: its name relative to ``agent`` and its full path; None when there is none."""
    parts = name.split("/")
    for depth in range(1, len(parts) + 1):
        full = os.path.join(agent, *parts[:depth])
        if fs.islink(full):
            return "/".join(parts[:depth]), full
    return None


def _name(entry: DirEntry) -> str:
    return entry.name


def _distinct_ascii(names: list[str]) -> bool:
    """Whether ``names`` are ASCII and distinct without case: no two can collide (AL703).

    For ASCII, folding a name as :func:`agent_lint.validators.storage.collisions`
    does (NFC, case-folded) is lowering it.
    """
    return all(map(str.isascii, names)) and len({name.lower() for name in names}) == len(names)


#: A name no check of the walk has anything to say about: ASCII letters, digits, ``_``,
#: ``-`` and dots, not ending in a dot, no ``.tmp``/``.temp`` or ``.swX`` of a temporary
#: file, no stem a Windows device name could be (see :func:`ordinary_name`).
_ORDINARY_NAME = re.compile(
    r"(?!(?:con|prn|aux|nul|com|lpt))(?!.*\.te?mp)(?!.*\.sw[a-p]\Z)[A-Za-z0-9_.\-]*[A-Za-z0-9_\-]",
    re.ASCII | re.IGNORECASE,
)


def ordinary_name(name: str) -> bool:
    """Whether ``name`` is one :func:`~agent_lint.validators.storage.unportable_name` and
    :func:`~agent_lint.validators.storage.temporary_file` pass without a look.

    A shortcut for nearly every name of a store (``D-001.json``); any other name
    is judged by those checks.
    """
    return _ORDINARY_NAME.fullmatch(name) is not None


def _plain_file(entry: DirEntry, relpath: str, max_bytes: int, fs: FileSystem) -> Entry | None:
    """The entry of a file with an ordinary name, no link, within the limits; else None.

    The walk's shortcut for nearly every file of a store: what :func:`_visit`
    would yield for it, with none of the checks that cannot apply. Anything
    else (None) is judged by :func:`_visit`.
    """
    if _ORDINARY_NAME.fullmatch(entry.name) is None:
        return None
    try:
        if entry.is_symlink() or entry.is_dir(follow_symlinks=False):
            return None
        info = fs.stat(entry.path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
        return None
    stamp = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns) if fs.on_disk else None
    return Entry(entry.path, relpath, stamp=stamp)


def _visit(
    entry: DirEntry, relpath: str, repo_path: str, root_real: str, max_bytes: int, fs: FileSystem
) -> Iterator[Entry | None]:
    """Judge one directory entry: findings, the file to read, or None for a folder to walk."""
    full, name = entry.path, entry.name
    try:
        is_link = entry.is_symlink()
        is_dir = entry.is_dir(follow_symlinks=False)
    except OSError as exc:
        yield Entry(full, relpath, _unreadable(repo_path, "entry", exc), unread=True)
        return
    if is_dir and (name in _SKIP_DIRS or repo_path == CACHE_DIR):
        return  # agent-lint's own cache is no part of a store kept at the repository root
    ordinary = _ORDINARY_NAME.fullmatch(name) is not None
    unportable = None if ordinary else storage.unportable_name(repo_path, name)
    if unportable is not None:
        yield Entry(full, relpath, unportable, noted=True)
    if is_dir:
        if name == storage.LOCK_FOLDER:
            yield Entry(full, relpath, storage.lock_folder(repo_path))
        else:
            yield None
        return
    temporary = None if ordinary else storage.temporary_file(repo_path, name)
    if temporary is not None:
        yield Entry(full, relpath, temporary)
        return
    if is_link:
        resolved = _realpath(full, fs)
        problem = _link_problem(repo_path, resolved, root_real, fs)
        if problem is not None:
            yield Entry(full, relpath, problem, unread=True)
            return
        assert resolved is not None
        leads_to_folder = fs.isdir(resolved)
        shown = relative(resolved, root_real)
        if leads_to_folder:
            yield Entry(full, relpath, storage.linked_folder(repo_path, shown))
            yield from _linked_files(full, relpath, resolved, fs)
            return
        yield Entry(full, relpath, storage.symlink_inside(repo_path, shown), noted=True)
    try:
        info = fs.stat(full)
    except OSError as exc:
        yield Entry(full, relpath, _unreadable(repo_path, "file", exc), unread=True)
        return
    problem = _file_problem(repo_path, info, max_bytes)
    stamp = None
    if problem is None and not is_link and fs.on_disk:
        stamp = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
    yield Entry(full, relpath, problem, unread=problem is not None, stamp=stamp)


def _linked_files(link: str, relpath: str, real: str, fs: FileSystem) -> Iterator[Entry]:
    """The files under a linked folder, by name only: present, never read.

    The link is the finding (AL707); listing what it holds keeps records that
    live behind it from being reported missing by every reference to them.
    Nothing is listed when the folder holds the link (a loop), and links
    inside it are not followed.
    """
    if _inside(fs.realpath(os.path.dirname(link)), real):
        return
    pending = [("", real)]
    while pending:
        prefix, folder = pending.pop()
        try:
            entries = sorted(fs.scandir(folder), key=_name)
        except OSError:
            continue  # the link's finding already says its folder is not walked
        for entry in entries:
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in _SKIP_DIRS:
                        pending.append((f"{prefix}{entry.name}/", entry.path))
                    continue
            except OSError:
                continue
            name = f"{prefix}{entry.name}"
            yield Entry(os.path.join(link, name), f"{relpath}/{name}", unread=True)


def _file_problem(repo_path: str, info: os.stat_result, max_bytes: int) -> EntryProblem | None:
    """AL008 for a special file, AL009 for one over the size limit, else None."""
    try:
        check_regular(info, max_bytes)
    except NotRead as exc:
        return _not_read(repo_path, exc, max_bytes)
    return None


def _not_read(repo_path: str, reason: NotRead, max_bytes: int) -> EntryProblem:
    if reason.kind == "special":
        return EntryProblem(
            EntryIssue.NOT_A_REGULAR_FILE,
            repo_path,
            "not a regular file (a FIFO, socket or device); not read",
        )
    if reason.kind == "large":
        return EntryProblem(
            EntryIssue.FILE_TOO_LARGE,
            repo_path,
            f"file is {reason.reason}; not read: {over_limit('max-file-bytes', max_bytes)}",
            line=1,
            column=1,
        )
    return EntryProblem(
        EntryIssue.UNREADABLE,
        repo_path,
        f"file cannot be read ({reason.reason}); nothing in it is checked",
        line=1,
        column=1,
    )


def relative(full: str, base: str) -> str:
    """``full`` relative to ``base``, in POSIX form."""
    prefix = base.rstrip(os.sep) + os.sep
    if full.startswith(prefix):
        return full[len(prefix) :].replace(os.sep, "/")
    return Path(os.path.relpath(full, base)).as_posix()


def _link_problem(
    repo_path: str, resolved: str | None, root_real: str, fs: FileSystem
) -> EntryProblem | None:
    if resolved is None:
        return EntryProblem(
            EntryIssue.SYMLINK_ESCAPE,
            repo_path,
            "symbolic link whose target cannot be resolved; not followed",
        )
    if not _inside(resolved, root_real):
        return EntryProblem(
            EntryIssue.SYMLINK_ESCAPE,
            repo_path,
            "symbolic link leads outside the repository; not followed",
        )
    if in_git_dir(resolved, root_real):
        return EntryProblem(
            EntryIssue.SYMLINK_ESCAPE,
            repo_path,
            "symbolic link leads into a .git folder, which holds git's configuration and "
            "credentials, not repository content; not followed",
        )
    if not fs.exists(resolved):
        return EntryProblem(EntryIssue.SYMLINK_ESCAPE, repo_path, _unfollowable(resolved, fs))
    return None


def _unfollowable(resolved: str, fs: FileSystem) -> str:
    """Why a link that stays inside the repository leads nowhere: a loop, or a missing path."""
    try:
        fs.stat(resolved)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop: its target leads back through links to itself; not followed"
    return "symbolic link points to a path that does not exist; not followed"


def read_file(
    path: Path | str, repo_path: str, max_bytes: int = MAX_FILE_BYTES, fs: FileSystem = DISK
) -> tuple[bytes | None, EntryProblem | None]:
    """Read a regular file of at most ``max_bytes``, or return the finding saying why not.

    The file is opened without blocking and checked again on the open
    descriptor, so a file swapped for a FIFO after the walk is never waited on.
    """
    try:
        return fs.read(path, max_bytes), None
    except NotRead as exc:
        return None, _not_read(repo_path, exc, max_bytes)
