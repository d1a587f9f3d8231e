"""Safe, read-only access to a git repository through git's plumbing commands.

Every git process agent-lint starts goes through :func:`Repository.run`. It
runs the ``git`` executable with an environment and ``-c`` options that
neutralise every program a repository or a user's git configuration can name:
no fsmonitor, hook, clean/smudge filter, textconv, external diff, pager, gpg,
credential helper or askpass program runs, and no transport is allowed, so
nothing is fetched (not even the lazy fetch of a partial clone). The commands
used only read objects and the index: ``rev-parse``, ``ls-tree -r -z``,
``ls-files -s -z``, ``cat-file --batch``, ``merge-base``, ``rev-list`` and
``log``, and ``hash-object`` (without ``-w``, only for a file that has no
filter attribute). Nothing is checked out and no file of the work tree is
written.

Which repository git works on is never left to git's discovery: a change
under review can commit plain files that look like a bare repository
(``HEAD``, ``config``, ``objects/``, ``refs/``) in any folder. The repository
is the nearest folder at or above a path that holds a ``.git`` (which no
commit can contain), and every command names it with ``--git-dir`` and
``--work-tree``; ``safe.bareRepository=explicit`` backs that up.

Paths are bytes in git; they are decoded with ``surrogateescape`` so every
byte sequence in a file name round-trips.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import IO, NamedTuple, cast

from agent_lint.frozen import field, frozen

#: ``-c`` settings given to every git command. Each one switches off a
#: program that configuration could otherwise make git run.
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),  # no fsmonitor hook or daemon
    ("core.hooksPath", os.devnull),  # no hook (a path under which no hook exists)
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value clears the list of helpers
    ("protocol.allow", "never"),  # no transport: no fetch, no ssh, no lazy fetch
    ("log.showSignature", "false"),  # no gpg/ssh signature verification
    ("core.virtualFilesystem", ""),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("color.ui", "never"),
    ("submodule.recurse", "false"),
    ("safe.bareRepository", "explicit"),  # a folder of plain files is never a repository
    ("core.safecrlf", "false"),  # hash-object reports, never refuses, line-ending round trips
)

#: Environment variables kept from the caller's environment; every other
#: ``GIT_*`` variable (GIT_DIR, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND,
#: GIT_CONFIG_PARAMETERS, GIT_EXEC_PATH, …) is dropped.
_KEPT_GIT_VARIABLES = frozenset(
    {
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    }
)

#: Modes of entries in git trees and the index.
MODE_GITLINK = "160000"
MODE_SYMLINK = "120000"
MODE_TREE = "040000"
REGULAR_MODES = frozenset({"100644", "100755", "100664"})

#: Skip-worktree flag of an index entry as ``ls-files --debug`` prints it.
_SKIP_WORKTREE = 0x40000000
_TIMEOUT_SECONDS = 120


#: ``rev-parse`` options that print the one revision following them, or nothing (exit 1).
_VERIFY = ("--verify", "--quiet", "--end-of-options")
_OBJECT_ID = re.compile(r"\A(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")


class GitError(Exception):
    """A git command failed or git is not available."""


def environment(
    index_file: str | None = None, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of every git command (see the module docstring)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") or key in _KEPT_GIT_VARIABLES
    }
    env.pop("SSH_ASKPASS", None)
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_ASKPASS="",  # set but empty: git then runs no askpass program at all
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_OPTIONAL_LOCKS="0",  # never refresh and write the index as a side effect
        GIT_NO_LAZY_FETCH="1",
        GIT_LITERAL_PATHSPECS="1",  # a path is a path, never a glob or magic
        GIT_NO_REPLACE_OBJECTS="1",
        LC_ALL="C",
    )
    if index_file is not None:
        env["GIT_INDEX_FILE"] = index_file
    env.update(extra or {})
    return env


def command(*args: str, git_dir: Path | None = None, work_tree: Path | None = None) -> list[str]:
    """The full argument list of a safe git command (in the named repository, if given)."""
    options = [f"{key}={value}" for key, value in SAFE_CONFIG]
    where = []
    if git_dir is not None:
        where.append(f"--git-dir={git_dir}")
    if work_tree is not None:
        where.append(f"--work-tree={work_tree}")
    return ["git", "--no-pager", *where, *(part for o in options for part in ("-c", o)), *args]


def _run(
    args: Sequence[str],
    cwd: Path,
    stdin: bytes | None = None,
    index_file: str | None = None,
    *,
    git_dir: Path | None = None,
    work_tree: Path | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            command(*args, git_dir=git_dir, work_tree=work_tree),
            cwd=cwd,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            env=environment(index_file, extra_env),
            timeout=_TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (it is needed for --base)") from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git {args[0]} failed: {exc}") from exc


def ignored_untracked(top: Path, folder: str) -> list[str] | None:
    """Paths under ``folder`` (a path of the work tree at ``top``) that git's ignore rules
    exclude and the index does not track, folders ending in ``/``; one git process, None
    when ``top`` holds no repository git can read."""
    args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]
    done = _run([*args, "--", folder], top, git_dir=top / ".git", work_tree=top)
    if done.returncode != 0:
        return None
    return [decode(name) for name in done.stdout.split(b"\0") if name]


def ignored_among(top: Path, paths: Sequence[str]) -> set[str]:
    """Which of ``paths`` (of the work tree at ``top``; they need not exist) git's ignore
    rules exclude when not tracked: one git process for all of them."""
    if not paths:
        return set()
    done = _run(
        ["check-ignore", "-z", "--stdin"],
        top,
        stdin=b"".join(encode(path) + b"\0" for path in paths),
        git_dir=top / ".git",
        work_tree=top,
        # check-ignore takes paths, not pathspecs: the literal-pathspec guard does not apply.
        extra_env={"GIT_LITERAL_PATHSPECS": "0"},
    )
    if done.returncode not in (0, 1):  # 1: none of them is ignored
        raise GitError(f"git check-ignore failed: {decode(done.stderr).strip()}")
    return {decode(name) for name in done.stdout.split(b"\0") if name}


def decode(raw: bytes) -> str:
    """A path from git's output; undecodable bytes survive as surrogates."""
    return raw.decode("utf-8", errors="surrogateescape")


def encode(path: str) -> bytes:
    """A path for git's input (the inverse of :func:`decode`)."""
    return path.encode("utf-8", errors="surrogateescape")


class TreeEntry(NamedTuple):
    """An entry of a tree or the index: its mode, object id and (for blobs) size.

    ``size`` is -1 when it was not asked for, and for trees and gitlinks. A named
    tuple: a tree of a large store has tens of thousands.
    """

    mode: str
    sha: str
    size: int = -1

    @property
    def is_regular(self) -> bool:
        """A regular file (not a symlink, gitlink or folder)."""
        return self.mode in REGULAR_MODES

    @property
    def kind(self) -> str:
        """What the entry is, in words."""
        if self.mode == MODE_GITLINK:
            return "a submodule (gitlink)"
        if self.mode == MODE_SYMLINK:
            return "a symbolic link"
        if self.mode == MODE_TREE:
            return "a folder"
        return "a regular file"


class IndexEntry(NamedTuple):
    """A stage-0 index entry with the stat data git recorded for it."""

    mode: str
    sha: str
    mtime_ns: int
    size: int
    skip_worktree: bool
    ctime_ns: int = 0
    ino: int = 0
    dev: int = 0
    uid: int = 0
    gid: int = 0


def _split_z(data: bytes) -> Iterator[bytes]:
    for record in data.split(b"\0"):
        if record:
            yield record


@frozen
class Repository:
    """A git repository: its work tree and git directory.

    ``found_head`` is the commit HEAD named when :meth:`discover` found the
    repository (the same git process told both), None when not known.
    """

    top: Path
    git_dir: Path
    found_head: str | None = field(default=None, compare=False)

    def _git(
        self,
        args: Sequence[str],
        stdin: bytes | None = None,
        index_file: str | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        return _run(
            args,
            self.top,
            stdin,
            index_file,
            git_dir=self.git_dir,
            work_tree=self.top,
            extra_env=extra_env,
        )

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        index_file: str | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> bytes:
        """Run a safe git command in this repository; its stdout, or :class:`GitError`."""
        done = self._git(args, stdin, index_file, extra_env)
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {args[0]}: {message[-1] if message else 'failed'}")
        return done.stdout

    def succeeds(self, *args: str) -> bool:
        """Whether a safe git command exits 0."""
        return self._git(args).returncode == 0

    @classmethod
    def discover(cls, path: Path) -> Repository | None:
        """The repository whose work tree holds ``path`` (None outside one).

        It is the nearest folder at or above ``path`` (links resolved, as git
        resolves the current folder) holding a ``.git`` that names a valid
        repository. No folder is ever taken for a bare repository, whatever
        files it holds. ``GIT_CEILING_DIRECTORIES`` and a file-system boundary
        end the search as they end git's (``GIT_DISCOVERY_ACROSS_FILESYSTEM``
        lifts the latter).
        """
        start = Path(os.path.realpath(path if path.is_dir() else path.parent))
        ceilings = _ceilings(start)
        across = _truthy(os.environ.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", ""))
        device = _device(start)
        for folder in [start, *start.parents]:
            crossed = not across and _device(folder) != device
            if folder != start and (folder in ceilings or crossed):
                return None
            dot_git = folder / ".git"
            if os.path.lexists(dot_git):
                found = cls._at(folder, dot_git)
                if found is not None:
                    return found
        return None

    @classmethod
    def _at(cls, top: Path, dot_git: Path) -> Repository | None:
        """The repository at ``top`` that ``dot_git`` (a folder or a gitfile) names.

        None when it names none: git's discovery then goes on up, and so does
        :meth:`discover`. The same process tells the commit HEAD names, if any
        (exit status 1 and no second line when there is none).
        """
        args = ["rev-parse", "--absolute-git-dir", *_VERIFY, "HEAD^{commit}"]
        done = _run(args, top, git_dir=dot_git, work_tree=top)
        lines = done.stdout.rstrip(b"\n").split(b"\n")
        if done.returncode not in (0, 1) or not lines[0]:
            message = done.stderr.decode("utf-8", "replace").strip()
            if "not a git repository" in message or "gitfile" in message:
                return None
            last = message.splitlines()
            raise GitError(f"git: {last[-1] if last else 'cannot read the repository'}")
        git_dir = decode(lines[0])
        head = lines[1].decode("ascii", "replace") if done.returncode == 0 else ""
        return cls(top, Path(git_dir), head if len(lines) == 2 and _OBJECT_ID.match(head) else None)

    @classmethod
    def from_environment(cls) -> Repository | None:
        """The repository that ``GIT_DIR`` (with ``GIT_WORK_TREE``) names; None when unset.

        The caller's environment is the user's or the workflow's, never the
        linted repository's, so it is honoured; relative values are relative
        to the current folder, as for git.
        """
        value = os.environ.get("GIT_DIR")
        if not value:
            return None
        git_dir = Path(os.path.abspath(value))
        tree = os.environ.get("GIT_WORK_TREE")
        work_tree = Path(os.path.abspath(tree)) if tree else None
        args = ["rev-parse", "--absolute-git-dir", "--show-toplevel"]
        done = _run(args, Path.cwd(), git_dir=git_dir, work_tree=work_tree)
        lines = done.stdout.rstrip(b"\n").split(b"\n")
        if done.returncode != 0 or len(lines) != 2 or not lines[1]:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = message[-1] if message else "it has no work tree"
            raise GitError(f"GIT_DIR={value} names no repository with a work tree ({detail})")
        return cls(Path(decode(lines[1])), Path(decode(lines[0])))

    def holds(self, path: Path) -> bool:
        """Whether ``path`` (links resolved) is in this repository's work tree."""
        real, top = os.path.realpath(path), os.path.realpath(self.top)
        return real == top or real.startswith(top.rstrip(os.sep) + os.sep)

    def same_as(self, other: Repository) -> bool:
        """Whether ``other`` names the same git directory."""
        return os.path.realpath(self.git_dir) == os.path.realpath(other.git_dir)

    def index_file(self) -> str | None:
        """The index file git works with, when it is not the repository's own ``index``.

        A hook gets ``GIT_INDEX_FILE`` from git (``git commit --only`` and
        ``git commit -a`` hand it a temporary index, and a tool may commit
        from an index file anywhere). It is resolved as git resolves it, from
        the current folder, and honoured when it lies in this repository's git
        directory or when git works on this repository (the one ``GIT_DIR``
        names, else the one holding the current folder): it is then the index
        being committed, wherever it is. Otherwise it is another repository's
        (a hook of a project around a nested agent repository) and not read.
        """
        return self._environment_index

    @cached_property
    def _environment_index(self) -> str | None:
        value = os.environ.get("GIT_INDEX_FILE")
        if not value:
            return None
        candidate = os.path.abspath(value)
        git_dir = os.path.realpath(self.git_dir).rstrip(os.sep) + os.sep
        if os.path.realpath(candidate).startswith(git_dir):
            return candidate
        working = Repository.from_environment() or Repository.discover(Path.cwd())
        return candidate if working is not None and working.same_as(self) else None

    def index_path(self) -> Path:
        """The file of the index in use."""
        chosen = self.index_file()
        return Path(chosen) if chosen else self.git_dir / "index"

    def shallow_commits(self) -> set[str]:
        """The commits at the boundary of a shallow clone (empty when not shallow)."""
        path = self.git_dir / "shallow"
        try:
            return set(path.read_text(encoding="ascii").split())
        except (OSError, UnicodeDecodeError):
            return set()

    def head(self) -> str | None:
        """The commit HEAD names, or None when there is no commit yet."""
        return self.found_head or self.commit("HEAD")

    def commit(self, revision: str) -> str | None:
        """The commit id ``revision`` names, or None."""
        done = self._git(["rev-parse", *_VERIFY, f"{revision}^{{commit}}"])
        if done.returncode != 0:
            return None
        return done.stdout.decode("ascii", "replace").strip() or None

    def symbolic_name(self, revision: str) -> str | None:
        """The short ref name of ``revision`` (``@{upstream}`` -> ``origin/x``), or None."""
        args = ["rev-parse", "--abbrev-ref", "--verify", "--quiet", "--end-of-options", revision]
        done = self._git(args)
        name = decode(done.stdout).strip() if done.returncode == 0 else ""
        return name or None

    def pushed_to(self) -> str | None:
        """The remote whose branch of the same name is the current branch's upstream (its
        own copy, as ``git push -u`` sets it up); None when the upstream is another branch,
        a local one, or there is none."""
        done = self._git(["symbolic-ref", "-q", "HEAD"])
        ref = decode(done.stdout).strip() if done.returncode == 0 else ""
        if not ref.startswith("refs/heads/"):
            return None
        listed = self._git(
            ["for-each-ref", "--format=%(upstream:remotename)%00%(upstream:remoteref)", ref]
        )
        remote, _, merged = decode(listed.stdout).strip().partition("\0")
        return remote if remote not in ("", ".") and merged == ref else None

    def remotes(self) -> list[str]:
        """The names of the configured remotes."""
        return decode(self.run("remote")).split()

    def merge_bases(self, a: str, b: str) -> list[str]:
        """Every best common ancestor of two commits (more than one after criss-cross
        merges), git's own choice first; empty when they share no history."""
        done = self._git(["merge-base", "--all", "--end-of-options", a, b])
        if done.returncode != 0:
            return []
        return done.stdout.decode("ascii").split()

    def only_in(self, tips: Sequence[str], excluded: Sequence[str]) -> set[str]:
        """The commits reachable from ``tips`` but from none of ``excluded``."""
        out = self.run("rev-list", *tips, "--not", *excluded, "--")
        return set(out.decode("ascii").split())

    def parents_not_in(self, head: str, excluded: str) -> tuple[dict[str, list[str]], set[str]]:
        """Commits reachable from ``head`` but not from ``excluded``, with their parents; and
        the boundary: the commits reachable from ``excluded`` that are parents of those."""
        out = self.run("rev-list", "--parents", "--boundary", head, "--not", excluded, "--")
        graph: dict[str, list[str]] = {}
        boundary: set[str] = set()
        for line in out.decode("ascii").splitlines():
            commit, *parents = line.split()
            if commit.startswith("-"):
                boundary.add(commit[1:])
            else:
                graph[commit] = parents
        return graph, boundary

    def ls_tree(self, commit: str, prefix: str, recursive: bool = True) -> dict[str, TreeEntry]:
        """Entries of ``commit``'s tree under ``prefix``: every file below it (submodules
        as gitlinks), or with ``recursive=False`` the entries of the folder itself."""
        args = ["ls-tree", "-z", "--full-tree", commit]
        if recursive:
            args.insert(1, "-r")
        if prefix:
            args += ["--", prefix if recursive else prefix + "/"]
        entries: dict[str, TreeEntry] = {}
        for record in _split_z(self.run(*args)):
            meta, _, path = record.partition(b"\t")
            mode, _kind, sha = meta.decode("ascii").split()
            entries[decode(path)] = TreeEntry(mode, sha)
        return entries

    def list_tree(
        self, commit: str, folders: Iterable[str], recursive: bool = False
    ) -> dict[str, TreeEntry]:
        """Entries of ``commit``'s tree in ``folders`` (``""`` is the top), with blob sizes.

        Each folder's own entries are listed (``recursive``: every entry below
        it, folders included), and the folders on the way to it. A folder that
        is not a folder in the tree lists nothing. Paths are passed as literal
        pathspecs, a few kilobytes per git process.
        """
        wanted = sorted(set(folders))
        entries: dict[str, TreeEntry] = {}
        base = ["ls-tree", "-z", "-l", "-t", "--full-tree", *(["-r"] if recursive else []), commit]
        if "" in wanted:
            # The top cannot share a process with folders below it: git would
            # descend into those instead of listing them as entries of the top.
            entries.update(_tree_records(self.run(*base)))
            wanted.remove("")
        for chunk in _chunks([f if recursive else f + "/" for f in wanted], 16384):
            entries.update(_tree_records(self.run(*base, "--", *chunk)))
        return entries

    def additions(self, commit: str, prefix: str) -> dict[str, tuple[str, str]]:
        """For every file under ``prefix`` ever added up to ``commit``: the newest commit
        that added it, as ``(full id, short id)``. One ``git log`` process.

        Merge commits add nothing of their own (the commit on the merged branch
        that added a file is named), as ``git log --diff-filter=A`` reports them.
        """
        args = ["log", "--no-show-signature", "--no-ext-diff", "--no-textconv", "--no-renames",
                "--no-notes", "--diff-filter=A", "--format=%x00%x00%H %h", "--name-only", "-z",
                commit, "--"]  # fmt: skip
        found = _additions(self.run(*args, *([prefix] if prefix else [])))
        return cast("dict[str, tuple[str, str]]", found)

    def blob_reader(self) -> BlobReader:
        """A :class:`BlobReader` on this repository (one ``cat-file --batch`` process)."""
        return BlobReader(self.top, self.git_dir)

    def ls_index(self, prefixes: Iterable[str], icase: bool = False) -> IndexListing:
        """Stage-0 entries of the index under ``prefixes``, with their stat data.

        ``ls-files`` reads every index format git writes (versions 2-4, split
        and sparse indexes, which it expands) and runs no filter. With
        ``icase``, a prefix matches whatever its letter case.
        """
        args = ["ls-files", "-s", "-z", "--debug"]
        wanted = [p for p in prefixes if p]
        extra: dict[str, str] = {}
        if icase and wanted:
            extra = {"GIT_LITERAL_PATHSPECS": "0", "GIT_ICASE_PATHSPECS": "1"}
            wanted = [f":(literal){p}" for p in wanted]
        if wanted:
            args += ["--", *wanted]
        out = self.run(*args, index_file=self.index_file(), extra_env=extra)
        return _index_records(out)

    def is_ancestor(self, ancestor: str, commit: str) -> bool:
        """Whether ``ancestor`` is ``commit`` or in its history."""
        return self.succeeds("merge-base", "--is-ancestor", "--end-of-options", ancestor, commit)

    def hash_work_file(self, path: str, data: bytes) -> str | None:
        """The blob id git would store for ``data`` at ``path`` (``hash-object --stdin --path``).

        Git applies the path's check-in conversions (line endings, ``ident``,
        ``working-tree-encoding`` with every encoding its iconv knows). Call
        it only for a path with no ``filter`` attribute: a filter is a
        program. Nothing is written. None when git cannot hash it.
        """
        done = self._git(["hash-object", "--stdin", f"--path={path}"], stdin=data)
        sha = done.stdout.decode("ascii", "replace").strip()
        return sha if done.returncode == 0 and len(sha) in (40, 64) else None

    def read_blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        """The contents of blobs by id (one ``cat-file --batch`` process); missing ones left out."""
        wanted = sorted(set(shas))
        if not wanted:
            return {}
        out = self.run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in wanted).encode())
        blobs: dict[str, bytes] = {}
        position = 0
        while position < len(out):
            end = out.index(b"\n", position)
            header = out[position:end].decode("ascii", "replace").split()
            position = end + 1
            if len(header) != 3:
                continue  # "<name> missing"
            sha, kind, size = header[0], header[1], int(header[2])
            if kind == "blob":
                blobs[sha] = out[position : position + size]
            position += size + 1
        return blobs

    def config_value(self, key: str) -> str | None:
        """One value of git configuration (``git config --get``), or None."""
        done = self._git(["config", "--get", "--end-of-options", key])
        return decode(done.stdout).strip() if done.returncode == 0 else None

    def attributes(self, paths: Sequence[str], names: Sequence[str]) -> dict[str, dict[str, str]]:
        """Git attributes of ``paths`` (``check-attr``; reads .gitattributes, runs nothing)."""
        if not paths:
            return {}
        out = self.run(
            "check-attr", "-z", "--stdin", *names, stdin=b"".join(encode(p) + b"\0" for p in paths)
        )
        fields = out.split(b"\0")
        found: dict[str, dict[str, str]] = {}
        for i in range(0, len(fields) - 2, 3):
            path, name, value = decode(fields[i]), decode(fields[i + 1]), decode(fields[i + 2])
            found.setdefault(path, {})[name] = value
        return found

    def added_in_each(self, commit: str, paths: Iterable[str]) -> dict[str, tuple[str, str, str]]:
        """:meth:`added_in` for many paths, with one ``git log`` per few kilobytes of paths.

        History is simplified for the paths together, so a file added on two
        lines of history may be named by the other line's commit than
        :meth:`added_in` would name.
        """
        found: dict[str, tuple[str, str, str]] = {}
        for chunk in _chunks(sorted(set(paths)), 16384):
            out = self.run(
                "log", "--no-show-signature", "--no-ext-diff", "--no-textconv", "--no-renames",
                "--no-notes", "--diff-filter=A", "--format=%x00%x00%H %h %s", "--name-only",
                "-z", commit, "--", *chunk,
            )  # fmt: skip
            wanted = set(chunk)
            for path, (full, short, subject) in _additions(out, keep=3).items():
                if path in wanted:
                    found.setdefault(path, (full, short, subject))
        return found

    def added_in(self, commit: str, path: str, changes: str = "A") -> tuple[str, str, str] | None:
        """``(full id, short id, subject)``: the newest commit up to ``commit`` adding ``path``
        (``changes="AM"``: adding or modifying it, its last change)."""
        done = self._git(
            ["log", "--no-show-signature", "--no-ext-diff", "--no-textconv", "--no-renames",
             "--no-notes", f"--diff-filter={changes}", "--format=%H%x00%h%x00%s", "-1", commit,
             "--", path],
        )  # fmt: skip
        if done.returncode != 0:
            return None
        full, _, rest = decode(done.stdout).strip().partition("\0")
        short, _, subject = rest.partition("\0")
        return (full, short, subject) if full else None


def _truthy(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def _device(folder: Path) -> int | None:
    try:
        return os.stat(folder).st_dev
    except OSError:
        return None


def _ceilings(start: Path) -> set[Path]:
    """The folders of ``GIT_CEILING_DIRECTORIES`` above ``start`` (git never enters them)."""
    found = set()
    for value in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep):
        if value and os.path.isabs(value):
            folder = Path(os.path.realpath(value))
            if folder != start and folder in start.parents:
                found.add(folder)
    return found


def _tree_records(out: bytes) -> dict[str, TreeEntry]:
    """Parse ``ls-tree -z -l`` output: ``<mode> <type> <id> <size>\t<path>`` records."""
    entries: dict[str, TreeEntry] = {}
    for record in _split_z(out):
        meta, _, path = record.partition(b"\t")
        mode, _kind, sha, size = meta.decode("ascii").split()
        entries[decode(path)] = TreeEntry(mode, sha, int(size) if size.isdigit() else -1)
    return entries


def _chunks(items: Sequence[str], budget: int) -> Iterator[list[str]]:
    """``items`` in runs whose encoded length stays under ``budget`` bytes (argv limits)."""
    chunk: list[str] = []
    used = 0
    for item in items:
        size = len(encode(item)) + 1
        if chunk and used + size > budget:
            yield chunk
            chunk, used = [], 0
        chunk.append(item)
        used += size
    if chunk:
        yield chunk


class BlobReader:
    """Reads blobs on demand through one long-lived ``git cat-file --batch`` process.

    The process starts at the first read and runs with the same environment
    and settings as every other git command (:func:`command`); it only reads
    objects. A read that takes longer than the git timeout ends the process
    and raises :class:`GitError`. Close it with :meth:`close` (or use it as a
    context manager).
    """

    def __init__(self, top: Path, git_dir: Path) -> None:
        self.top = top
        self.git_dir = git_dir
        self._process: subprocess.Popen[bytes] | None = None
        self._busy_since: float | None = None
        self._lock = threading.Lock()
        self._watcher: tuple[threading.Thread, threading.Event] | None = None
        self.reads = 0

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _start(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            try:
                self._process = subprocess.Popen(
                    command("cat-file", "--batch", git_dir=self.git_dir, work_tree=self.top),
                    cwd=self.top,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=environment(),
                )
            except OSError as exc:
                raise GitError(f"git cat-file failed: {exc}") from exc
            stop = threading.Event()
            watcher = threading.Thread(target=self._watch, args=(self._process, stop), daemon=True)
            watcher.start()
            self._watcher = (watcher, stop)
        return self._process

    def _watch(self, process: subprocess.Popen[bytes], stop: threading.Event) -> None:
        """End the process when one read hangs (git never should on local objects); stop
        at once when the reader is closed, so the run has no thread left (and can fork)."""
        while not stop.wait(1) and process.poll() is None:
            with self._lock:
                since = self._busy_since
            if since is not None and time.monotonic() - since > _TIMEOUT_SECONDS:
                process.kill()
                return

    def read(self, sha: str) -> bytes | None:
        """The content of blob ``sha``, or None when it is missing or not a blob."""
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        with self._lock:
            self._busy_since = time.monotonic()
        try:
            process.stdin.write(sha.encode("ascii") + b"\n")
            process.stdin.flush()
            header = process.stdout.readline().split()
            if len(header) != 3:
                if not header:
                    raise GitError("git cat-file ended unexpectedly")
                return None  # "<name> missing" or "<name> ambiguous"
            size = int(header[2])
            data = _read_exactly(process.stdout, size + 1)[:size]
        except (OSError, ValueError) as exc:
            raise GitError(f"git cat-file failed: {exc}") from exc
        finally:
            with self._lock:
                self._busy_since = None
        self.reads += 1
        return data if header[1] == b"blob" else None

    def close(self) -> None:
        """End the process (it exits when its input closes) and its watcher."""
        process, self._process = self._process, None
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher[1].set()
            watcher[0].join()
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=_TIMEOUT_SECONDS)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        finally:
            if process.stdout is not None:
                process.stdout.close()


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise GitError("git cat-file ended in the middle of an object")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _additions(out: bytes, keep: int = 2) -> dict[str, tuple[str, ...]]:
    """Parse ``log -z --name-only`` output whose format is ``%x00%x00%H %h`` (with
    ``keep=3``: ``%x00%x00%H %h %s``, the subject last).

    Two empty fields in a row only occur at a commit's header (a path is
    never empty), so no file name can pass for one.
    """
    added: dict[str, tuple[str, ...]] = {}
    fields = out.split(b"\0")
    commit: tuple[str, ...] | None = None
    position = 0
    while position < len(fields):
        part = fields[position]
        if part == b"" and position + 2 < len(fields) and fields[position + 1] == b"":
            parts = decode(fields[position + 2]).split(" ", keep - 1)
            commit = tuple(parts + [""] * (keep - len(parts)))
            position += 3
            if position < len(fields) and fields[position].startswith(b"\n"):
                fields[position] = fields[position][1:]
            continue
        if part and commit is not None:
            added.setdefault(decode(part), commit)  # the newest addition comes first
        position += 1
    return added


#: One ``ls-files -s -z --debug`` record, as git's ``print_debug`` writes it.
_INDEX_RECORD = re.compile(
    rb"([0-7]+) ([0-9a-f]+) ([0-3])\t([^\0]*)\0"
    rb"  ctime: (\d+):(\d+)\n  mtime: (\d+):(\d+)\n  dev: (\d+)\tino: (\d+)\n"
    rb"  uid: (\d+)\tgid: (\d+)\n  size: (\d+)\tflags: ([0-9a-f]+)\n"
)


class IndexListing(Mapping[str, IndexEntry]):
    """Stage-0 entries of the index by path, each built from git's record when first asked.

    The index of a large store has tens of thousands of entries, and the gate
    needs the stat data of the few it compares; every entry's mode and
    skip-worktree flag are known without building it (:meth:`mode`,
    :meth:`skips_worktree`).
    """

    def __init__(self, records: dict[str, re.Match[bytes] | IndexEntry]) -> None:
        self._records = records

    def __getitem__(self, path: str) -> IndexEntry:
        found = self._records[path]
        if isinstance(found, IndexEntry):
            return found
        entry = self._records[path] = _index_entry(found)
        return entry

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def mode(self, path: str) -> str:
        """The mode of the entry at ``path`` (KeyError when the index has none)."""
        found = self._records[path]
        if isinstance(found, IndexEntry):
            return found.mode
        return found[1].decode("ascii")

    def skips_worktree(self, path: str) -> bool:
        """Whether the entry at ``path`` is outside a sparse checkout (skip-worktree)."""
        found = self._records[path]
        if isinstance(found, IndexEntry):
            return found.skip_worktree
        return bool(int(found[14], 16) & _SKIP_WORKTREE)


def _index_entry(match: re.Match[bytes]) -> IndexEntry:
    """The entry of one record of :data:`_INDEX_RECORD`."""
    mode, sha, _, _, cs, cn, ms, mn, dev, ino, uid, gid, size, flags = match.groups()
    return IndexEntry(
        mode.decode("ascii"),
        sha.decode("ascii"),
        int(ms) * 1_000_000_000 + int(mn),
        int(size),
        bool(int(flags, 16) & _SKIP_WORKTREE),
        ctime_ns=int(cs) * 1_000_000_000 + int(cn),
        ino=int(ino),
        dev=int(dev),
        uid=int(uid),
        gid=int(gid),
    )


def _index_records(out: bytes) -> IndexListing:
    """Parse ``ls-files -s -z --debug`` output: stage-0 entries with their stat data.

    Records in git's fixed layout are read with one pattern, each entry built
    when asked (:class:`IndexListing`); output in any other shape (another
    git's spacing) is read field by field.
    """
    records: dict[str, re.Match[bytes] | IndexEntry] = {}
    position = 0
    for match in _INDEX_RECORD.finditer(out):
        if match.start() != position:
            return _index_records_by_field(out)
        position = match.end()
        if match[3] == b"0":
            records[decode(match[4])] = match
    if position != len(out):
        return _index_records_by_field(out)
    return IndexListing(records)


def _index_records_by_field(out: bytes) -> IndexListing:
    """:func:`_index_records` for output whose spacing differs: each field by its name."""
    entries: dict[str, re.Match[bytes] | IndexEntry] = {}
    position = 0
    while position < len(out):
        end = out.index(b"\0", position)
        meta, _, path = out[position:end].partition(b"\t")
        position = end + 1
        stat: dict[str, int] = {}
        for _ in range(5):  # ctime, mtime, dev/ino, uid/gid, size/flags
            line_end = out.index(b"\n", position)
            for part in out[position:line_end].decode("ascii").split("\t"):
                name, _, value = part.strip().partition(": ")
                stat[name] = _stat_value(name, value)
            position = line_end + 1
        mode, sha, stage = meta.decode("ascii").split()
        if stage != "0":
            continue
        entries[decode(path)] = IndexEntry(
            mode,
            sha,
            stat.get("mtime", 0),
            stat.get("size", 0),
            bool(stat.get("flags", 0) & _SKIP_WORKTREE),
            ctime_ns=stat.get("ctime", 0),
            ino=stat.get("ino", 0),
            dev=stat.get("dev", 0),
            uid=stat.get("uid", 0),
            gid=stat.get("gid", 0),
        )
    return IndexListing(entries)


def _stat_value(name: str, value: str) -> int:
    """A number of ``ls-files --debug`` output (``sec:nsec`` times in nanoseconds)."""
    if name in ("ctime", "mtime"):
        seconds, _, nanos = value.partition(":")
        return int(seconds) * 1_000_000_000 + int(nanos or 0)
    if name == "flags":
        return int(value, 16)
    try:
        return int(value)
    except ValueError:
        return 0
