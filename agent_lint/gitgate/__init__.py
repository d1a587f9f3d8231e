"""The append-only gate (AL6xx): what a change did to the files its base already merged.

What is protected is what the *merge-base* of the change and the base holds:
a branch that is behind its base is judged on what it branched from, never on
files the base gained since. The settings that decide the gate (which codes,
severities, per-file ignores, the agent dir) come from the merge-base's
configuration, read out of git, so the change under review cannot switch the
gate off; when the change edits them, a notice says so. The change is the work
tree, or with ``staged`` the git index. Git is only ever asked through
:mod:`agent_lint.gitplumbing`, which lets no configured program run.

Which repository is judged is decided by :func:`choose_repository`: never by
files the change under review can commit, so a fake repository in the tree
cannot redirect the gate.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from agent_lint.config import (
    CONFIG_FILE,
    Config,
    ConfigError,
    gate_config_from_text,
    gate_settings,
    load_config,
)
from agent_lint.discovery import Target, profile_for
from agent_lint.frozen import field, frozen, record
from agent_lint.gitgate.checks import Comparison, check
from agent_lint.gitgate.snapshots import (
    MAX_LINK_TARGET,
    IndexSnapshot,
    Snapshot,
    TreeSnapshot,
    WorkTreeSnapshot,
)
from agent_lint.gitplumbing import MODE_SYMLINK, MODE_TREE, GitError, Repository, TreeEntry
from agent_lint.problems import GateProblem
from agent_lint.profile import Profile, extend
from agent_lint.profiles import builtin, get, names

#: ``--base auto``: the upstream of the current branch, else the remote's default branch.
AUTO = "auto"
#: The default branches ``auto`` looks for on a remote, in order.
DEFAULT_BRANCHES = ("HEAD", "main", "master")
#: The head commit of the change under review, when the caller knows it (the Action sets
#: it from the event): the gate refuses a checkout whose HEAD does not contain it.
CHANGE_HEAD_VARIABLE = "AGENT_LINT_CHANGE_HEAD"
_SHA = re.compile(r"^[0-9a-fA-F]{7,64}$")
NO_COMMIT = "no commit yet"


@frozen
class Request:
    """What the command line asked of the gate.

    ``list_changed`` asks for the paths of every file the change touched
    (:attr:`Outcome.changed`, which the job summary shows handoff chains of).
    """

    base: str
    staged: bool = False
    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    explicit_config: Path | None = None
    list_changed: bool = False
    #: The folder the command line named, as written (links in it not followed): the gate
    #: protects the store the merge-base holds there, wherever the change's tree leads.
    anchor: Path | None = None


@record(repr=True)
class Outcome:
    """The gate's problems, the paths the change touched, notices, and its settings.

    ``config`` holds the AL6xx settings (the merge-base's configuration with
    the command line's ``--select``/``--ignore``); None when the gate did not run.
    ``changed`` is None unless the request asked for it (``list_changed``).
    ``located`` is where the change branched (None when there was no base).
    ``merged`` holds what restoring the merged append-only files the change
    modified, deleted or renamed takes: their merged bytes by reported path,
    None where one was renamed to.
    """

    problems: list[GateProblem] = field(default_factory=list)
    changed: set[str] | None = None
    notices: list[str] = field(default_factory=list)
    config: Config | None = None
    located: Located | None = None
    merged: dict[str, bytes | None] = field(default_factory=dict)


def run(target: Target, request: Request) -> Outcome:
    """Compare the change with the merge-base of HEAD and ``request.base``."""
    try:
        return _run(target, request)
    except GitError as exc:
        raise ConfigError(str(exc)) from exc


@frozen
class Located:
    """Where the change under review branched: repository, HEAD, base and merge-base, and
    the fork point (see :func:`fork_point`; the merge-base when the walk finds none).

    ``other_bases`` are the further merge-bases of HEAD and the base after criss-cross
    merges: each holds merged files, so the gate compares the change with each."""

    repo: Repository
    head: str
    base: str
    base_name: str
    merge_base: str
    fork: str
    other_bases: tuple[str, ...] = ()


#: The most merge-bases the gate compares a change with, each in full: ordinary criss-cross
#: histories have two or three; a change that merges many old tips of the base on purpose
#: would make the run as many times longer.
MAX_MERGE_BASES = 16


def locate(target: Target, spec: str) -> Located | list[str]:
    """The merge-base of HEAD and the base ``spec`` (``auto`` allowed), or why there is none.

    Returns the notices of a run that has nothing to compare with (``auto``
    found no base, no commit yet, no shared history); raises
    :class:`ConfigError` when an explicit base cannot be used.
    """
    try:
        return _locate(target, spec)
    except GitError as exc:
        raise ConfigError(str(exc)) from exc


def _locate(target: Target, spec: str) -> Located | list[str]:
    auto = spec == AUTO
    repo = choose_repository(target.agent_dir, target.root)
    if repo is None:
        if auto:
            return [f"{target.agent_dir} is not in a git repository"]
        raise ConfigError(f"--base needs a git repository, and {target.agent_dir} is not in one")
    resolved = resolve_base(repo, spec)
    if resolved is None:
        return ["no base branch to compare with (no upstream branch, origin/HEAD, "
                "origin/main or origin/master)"]  # fmt: skip
    base, base_name = resolved
    head = base if spec == "HEAD" else repo.head()
    if head is None:
        return [NO_COMMIT]
    _check_change_head(repo, head)
    # One walk of the change's own commits tells the merge-base in the usual cases (the
    # base is HEAD, or contains it, or HEAD contains the base); git is asked otherwise.
    graph: dict[str, list[str]] = {}
    merge_base: str | None = head
    others: list[str] = []
    if head != base:
        graph, boundary = repo.parents_not_in(head, base)
        if base in boundary:
            merge_base = base  # a parent of a commit of the change: HEAD contains the base
        elif graph:
            bases = repo.merge_bases(head, base)
            if len(bases) > MAX_MERGE_BASES:
                raise ConfigError(
                    f"HEAD and --base {base_name!r} have {len(bases)} merge-bases (criss-cross "
                    f"merges); the append-only gate compares with each, and at most "
                    f"{MAX_MERGE_BASES}: merge {base_name} into the change, or rebase it"
                )
            merge_base, others = (bases[0] if bases else None), bases[1:]
            _check_not_cut_off(repo, (head, base), bases, base_name)
    if merge_base is None:
        shallow = bool(repo.shallow_commits())
        if auto and not shallow:
            return [f"HEAD shares no history with {base_name}"]
        if shallow:
            raise ConfigError(
                f"HEAD and --base {base_name!r} have no common commit in this shallow clone. "
                "Fetch more history (`git fetch --deepen=100`, or `git fetch --unshallow`), or "
                "on GitHub Actions let the agent-lint action fetch it."
            )
        raise ConfigError(f"HEAD and --base {base_name!r} share no history: nothing to compare")
    fork = fork_point(head, graph) or merge_base
    return Located(repo, head, base, base_name, merge_base, fork, tuple(others))


def _check_not_cut_off(
    repo: Repository, tips: tuple[str, str], bases: list[str], base_name: str
) -> None:
    """Refuse merge-bases a shallow clone may have got wrong.

    Past a shallow boundary the parents are unknown, so a commit seen there may hide a
    better common ancestor (one holding more merged handoffs): the merge-bases are
    trusted only when no commit reachable from HEAD or the base but from none of them
    lies at the boundary (a change can be built so that the first one met is old).
    """
    shallow = repo.shallow_commits()
    if not shallow or not bases:
        return
    cut = [side for side, tip in zip(("HEAD's", f"{base_name}'s"), tips, strict=True)
           if shallow & repo.only_in([tip], bases)]  # fmt: skip
    if not cut:
        return
    raise ConfigError(
        f"HEAD and --base {base_name!r} meet at {bases[0][:12]} in this shallow clone, but "
        f"{' and '.join(cut)} history stops at the shallow boundary past it, where a later "
        "common commit may be, so the merge-base is not known. Fetch the whole history "
        "(`git fetch --unshallow`, or `fetch-depth: 0` with actions/checkout), or on "
        "GitHub Actions let the agent-lint action fetch what it needs."
    )


def _skipped(reasons: list[str]) -> list[str]:
    """The gate's notices when there is nothing to compare with."""
    return [f"{NO_COMMIT}: nothing is merged, so the append-only gate (AL6xx) has nothing to "
            "protect" if reason == NO_COMMIT else
            f"{reason}: the append-only gate (AL6xx) was skipped"
            for reason in reasons]  # fmt: skip


def _run(target: Target, request: Request) -> Outcome:
    found = _locate(target, request.base)
    if isinstance(found, list):
        return Outcome(notices=_skipped(found))
    outcome = _compare(target, request, found, found.merge_base, found.fork)
    if not found.other_bases:
        return outcome
    # After criss-cross merges, files merged in any merge-base are merged: the change is
    # compared with each, and a file's problem reported once (from git's own choice first).
    outcome.notices.append(
        f"HEAD and {found.base_name} have {1 + len(found.other_bases)} merge-bases "
        "(criss-cross merges); the append-only gate (AL6xx) compared the change with each"
    )
    seen = {(p.issue, p.path, p.pointer) for p in outcome.problems}
    for other in found.other_bases:
        more = _compare(target, request, found, other, other)
        for problem in more.problems:
            if (problem.issue, problem.path, problem.pointer) not in seen:
                seen.add((problem.issue, problem.path, problem.pointer))
                outcome.problems.append(problem)
        if outcome.changed is not None and more.changed is not None:
            outcome.changed |= more.changed
        outcome.merged = {**more.merged, **outcome.merged}
        outcome.notices.extend(n for n in more.notices if n not in outcome.notices)
    return outcome


def _compare(
    target: Target, request: Request, found: Located, merge_base: str, fork: str
) -> Outcome:
    """The gate's outcome comparing the change with one merge-base (and fork point)."""
    repo, base_name = found.repo, found.base_name
    settings = _Settings(repo, target, request, merge_base)
    config, notices = settings.gate_config()
    prefix = settings.agent_prefix(config)
    change_prefix = settings.change_prefix
    linked = settings.followed(prefix)
    relinked: tuple[str, str | None] | None = None
    if linked != prefix:
        # The merge-base keeps its agent dir as a link to a folder of the repository: the
        # merged records are in that folder, which the gate then compares in full.
        shown, there = settings.display(prefix), settings.display(linked)
        notices.append(
            f"{shown} is a symbolic link to {there} in the merge-base; the append-only "
            f"gate (AL6xx) compares {there}/"
        )
        # Where the same agent dir leads in the change: elsewhere (another folder, a folder
        # in the link's place, nowhere) the merged records are no longer the agent dir's,
        # whatever the change left in the folder the link led to (AL608), and whichever
        # store the change's own tree shows (a decoy beside it).
        leads = (
            settings.followed_in_index(prefix)
            if request.staged
            else settings.followed_in_work_tree(prefix)
        )
        if leads != linked:
            relinked = (prefix, leads)
        if change_prefix == prefix:
            change_prefix = leads or linked
        prefix = linked
    prefixes = {prefix, change_prefix}
    base_tree = TreeSnapshot(repo, merge_base, [prefix])
    fork_tree = base_tree if fork == merge_base else TreeSnapshot(repo, fork, [prefix])
    change: Snapshot = (
        IndexSnapshot(repo, prefixes) if request.staged else WorkTreeSnapshot(repo, prefixes)
    )
    comparison = Comparison(
        base_name=base_name,
        prefix=prefix,
        change_prefix=change_prefix,
        base=base_tree,
        fork=fork_tree,
        change=change,
        display=settings.display,
        merged_in=_MergedIn(repo, merge_base, base_name),
        profile=settings.profile(config),
        relinked=relinked,
    )
    problems, changed, merged = check(comparison, request.list_changed)
    return Outcome(problems, changed, notices + comparison.notices, config, found, merged)


def choose_repository(agent_dir: Path, root: Path | None = None) -> Repository | None:
    """The repository the gate reads, never one that files of the change can fake.

    - ``GIT_DIR`` in the environment (set by the user, or by git for a
      command run with ``--git-dir``) names the repository git works on: it
      is used, and an agent dir outside its work tree is an error.
    - An agent dir that leads outside ``root`` through a symbolic link is
      never looked into: the repository at ``root`` is read, where the link
      is a finding.
    - Otherwise the repository is the nearest folder at or above the agent
      dir holding a ``.git`` (a folder of plain files is never taken for a
      bare repository, and no commit can contain a ``.git``). When that is
      a repository nested in another one, it is judged only if the outer
      repository does not see it as its own: neither its index nor its
      ``HEAD`` holds anything at or under that folder (a submodule's gitlink
      included). A nested repository the outer one records is the outer
      repository's business, where a gitlink or nested repository inside the
      agent dir is a finding.
    """
    environment = Repository.from_environment()
    inside = root is None or _resolves_inside(agent_dir, root)
    if environment is not None:
        if environment.holds(agent_dir if inside or root is None else root):
            return environment
        raise GitError(
            f"GIT_DIR names the repository at {environment.top}, which does not hold "
            f"{agent_dir}: the gate judges the repository git works on; unset GIT_DIR or lint "
            "an agent dir of that repository"
        )
    if not inside and root is not None:
        return Repository.discover(root)
    nearest = Repository.discover(agent_dir)
    if nearest is None or nearest.top.parent == nearest.top:
        return nearest
    outer = Repository.discover(nearest.top.parent)
    if outer is not None and _tracks(outer, nearest.top):
        return outer
    return nearest


def _tracks(repo: Repository, folder: Path) -> bool:
    """Whether ``repo``'s index or ``HEAD`` holds ``folder`` or anything under it."""
    path = _relative(folder, repo.top)
    if not path:
        return False
    if repo.ls_index([path]):
        return True
    head = repo.head()
    return head is not None and bool(repo.ls_tree(head, path))


def gate_target(
    path: Path, explicit_config: Path | None, base: str | None, profile: str | None = None
) -> Target | None:
    """A target for the gate alone, when ``path`` holds no agent dir to lint.

    The change may have moved or removed the agent dir (``git mv .agent
    state``): the merge-base still has it, and the gate must say so (AL608)
    rather than find nothing to lint. The profile is the one named
    (``profile``, or the configuration's), else the first whose named store
    git still tracks, else the first registered. None when no gate is asked
    for or ``path`` is not in a git repository.
    """
    if not os.path.lexists(path):
        return None
    folder = Path(os.path.abspath(path))
    if not folder.is_dir():
        folder = folder.parent
    repo = Repository.discover(folder)
    if repo is None:
        return None
    config = load_config(folder, explicit_config)
    if not (base or config.base):
        return None
    root = Path(os.path.realpath(folder))
    name = profile or config.profile
    candidates = [get(name)] if name is not None else list(builtin())
    stores = [(p, m.store) for p in candidates for m in p.markers if m.store]
    tracked = [(p, store) for p, store in stores if _tracks(repo, root / store)]
    chosen, store = (tracked or stores or [(candidates[0], "")])[0]
    return Target(root, root / (config.agent_dir or store), config, chosen)


def _check_change_head(repo: Repository, head: str) -> None:
    """Refuse a checkout that is not the change under review (see CHANGE_HEAD_VARIABLE)."""
    expected = os.environ.get(CHANGE_HEAD_VARIABLE, "").strip()
    if not expected or repo.is_ancestor(expected, head):
        return
    raise ConfigError(
        f"the checkout is not the change under review: HEAD {head[:12]} does not contain the "
        f"change's head commit {expected[:12]}, so the gate would judge other files. On "
        "pull_request_target, actions/checkout checks out the base branch: check out the pull "
        "request's head commit (with: ref: the event's pull_request.head.sha) or run on "
        "pull_request"
    )


def _resolves_inside(path: Path, root: Path) -> bool:
    try:
        real, top = os.path.realpath(path), os.path.realpath(root)
    except (OSError, ValueError):
        return False
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def resolve_base(repo: Repository, spec: str) -> tuple[str, str] | None:
    """The base commit and how to name it; None when ``auto`` finds nothing.

    Raises :class:`ConfigError` with a hint fitting the situation when an
    explicit revision does not resolve.
    """
    if spec == AUTO:
        for candidate in auto_candidates(repo):
            commit = repo.commit(candidate)
            if commit is not None:
                return commit, repo.symbolic_name(candidate) or candidate
        return None
    # HEAD, or HEAD's own commit id, was resolved when the repository was found.
    commit = repo.head() if spec in ("HEAD", repo.found_head) else repo.commit(spec)
    if commit is None:
        hint = _hint(repo, spec)
        raise ConfigError(f"--base {spec!r} is not a commit in this repository. {hint}")
    return commit, spec


def auto_candidates(repo: Repository) -> list[str]:
    """The revisions ``--base auto`` tries, in order: the current branch's upstream, then
    ``origin``'s default branch.

    An upstream that is the branch's own copy on a remote (what ``git push -u`` sets up)
    is no base: the commits pushed there are not merged, so the default branch of that
    remote is tried instead, after ``origin``'s. An upstream that is another branch (the
    one ``git checkout -b x origin/develop`` made it from) or a local one is the base.
    """
    own_remote = repo.pushed_to()
    first = [] if own_remote is not None else ["@{upstream}"]
    remotes = ["origin"] + ([own_remote] if own_remote not in (None, "origin") else [])
    return first + [f"{remote}/{branch}" for remote in remotes for branch in DEFAULT_BRANCHES]


def _hint(repo: Repository, spec: str) -> str:
    remotes = repo.remotes()
    if repo.commit("HEAD") is None:
        return ("There is no commit yet; with `--base auto` the gate passes until a base "
                "branch exists.")  # fmt: skip
    what = _fetched(spec, remotes)
    if repo.shallow_commits():
        fetch = f"git fetch --unshallow {what}" if what else "git fetch --unshallow"
        return (f"The clone is shallow and may lack it: fetch it with its history (`{fetch}`), "
                "or check out with `fetch-depth: 0` (actions/checkout).")  # fmt: skip
    if not remotes:
        return ("This repository has no remote to fetch it from: name a local branch, tag or "
                "commit, or use `--base auto`.")  # fmt: skip
    if what:
        return f"Fetch it first: `git fetch {what}`."
    return ("Name a branch, tag or commit of this repository (such as origin/main), or use "
            "`--base auto`.")  # fmt: skip


def _fetched(spec: str, remotes: list[str]) -> str | None:
    """What to fetch for a base that is not here: a remote's branch into its remote-tracking
    ref (in a single-branch clone, as ``--depth 1`` makes, ``git fetch origin main`` fills
    FETCH_HEAD alone), or a commit id from the first remote."""
    remote, _, branch = spec.partition("/")
    if branch and remote in remotes:
        return f"{remote} {branch}:refs/remotes/{remote}/{branch}"
    if _SHA.match(spec) and remotes:
        return f"{remotes[0]} {spec}"
    return None


def fork_point(head: str, graph: dict[str, list[str]]) -> str | None:
    """Where the change's own line of history left the base.

    Walks back from ``head`` through ``graph``, the commits the base does not
    contain with their parents; at a merge it follows a parent the base does
    not contain, so a base merged into the branch (or GitHub's test merge of a
    pull request) is looked through. The first commit the base contains is the
    fork point. None when the walk ends at a root or the edge of a shallow clone.
    """
    graph = dict(graph)
    commit = head
    while commit in graph:
        parents = graph.pop(commit)
        if not parents:
            return None
        own = [p for p in parents if p in graph]
        commit = own[0] if own else parents[0]
    return commit


def _as_written(path: Path, top: Path) -> str | None:
    """``path`` (absolute, as the command line names it) as a repository path of ``top``,
    with no link below the top followed: a change that makes the folder, or one on the
    way, a link does not move it. Links above the top (a workspace reached through one)
    are followed to find where the top begins; None outside it."""
    top_real = os.path.realpath(top)
    parts = Path(os.path.normpath(path)).parts
    current = Path(parts[0]) if parts else Path(os.sep)
    if str(current) == top_real:
        return "/".join(parts[1:])
    for position, part in enumerate(parts[1:], start=1):
        current = current / part
        if os.path.islink(current):
            current = Path(os.path.realpath(current))
        if str(current) == top_real:
            return "/".join(parts[position + 1 :])
    return _relative(path, top)


def _relative(path: Path, top: Path) -> str | None:
    """``path`` as a repository path of ``top`` (its parent folders resolved), or None outside."""
    full = Path(os.path.realpath(path.parent)) / path.name if path.name else path
    rel = os.path.relpath(full, os.path.realpath(top))
    if rel == os.curdir:
        return ""
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return rel.replace(os.sep, "/")


class _Settings:
    """The gate's configuration and folders, from the merge-base and the target."""

    def __init__(self, repo: Repository, target: Target, request: Request, merge_base: str):
        self.repo, self.target, self.request, self.merge_base = repo, target, request, merge_base
        self.root = _relative(target.root, repo.top)
        change = _relative(target.agent_dir, repo.top)
        self.change_prefix = change if change is not None else ""
        outside = os.path.relpath(os.path.realpath(repo.top), os.path.realpath(target.root))
        self._top_from_root = outside.replace(os.sep, "/")
        self._folders: dict[str, dict[str, TreeEntry]] = {}

    def _folder(self, folder: str) -> dict[str, TreeEntry]:
        """The entries of one folder of the merge-base (read once)."""
        if folder not in self._folders:
            self._folders[folder] = self.repo.ls_tree(self.merge_base, folder, recursive=False)
        return self._folders[folder]

    def display(self, path: str) -> str:
        """A repository path as reported: relative to the linted repository root."""
        if self.root is None:
            return posixpath.join(self._top_from_root, path) if path else self._top_from_root
        if not self.root:
            return path
        return posixpath.relpath(path or ".", self.root)

    def gate_config(self) -> tuple[Config, list[str]]:
        """The merge-base's gate settings with the command line's, and notices about them."""
        current = self.target.config
        sources = self._config_sources()
        if sources is None:
            return current, []  # the configuration is not part of the change under review
        short = self.merge_base[:12]
        notices: list[str] = []
        base = Config()
        for path in sources:
            found = self._folder(path.rpartition("/")[0]).get(path)
            if found is None or not found.is_regular:
                continue
            data = self.repo.read_blobs([found.sha]).get(found.sha, b"")
            try:
                label = Path(f"{path}@{short}")
                parsed = gate_config_from_text(data, posixpath.basename(path), label)
            except ConfigError as exc:
                notices.append(f"the merge-base's configuration cannot be read ({exc}); the "
                               "append-only gate uses the default settings")  # fmt: skip
                break
            if parsed is not None:
                base = parsed
                break
        request = self.request
        base = base.with_cli(
            list(request.select) if request.select is not None else None, list(request.ignore or ())
        )
        changed = [
            key
            for key, value in gate_settings(current).items()
            if gate_settings(base)[key] != value
        ]
        if changed:
            notices.append(
                f"the change edits agent-lint settings that decide the append-only gate "
                f"({', '.join(changed)}); until it is merged, the gate (AL6xx, and AL707) "
                f"follows the configuration of the merge-base {short}"
            )
        return base, notices

    def _config_sources(self) -> list[str] | None:
        """Repository paths of the configuration files, in precedence order; None if untracked."""
        explicit = self.request.explicit_config
        if explicit is not None:
            path = _relative(explicit.absolute(), self.repo.top)
            return [path] if path else None
        if self.root is None:
            return None
        folder = f"{self.root}/" if self.root else ""
        return [f"{folder}{CONFIG_FILE}", f"{folder}pyproject.toml"]

    def followed(self, path: str) -> str:
        """``path``, or the folder of the merge-base it leads to when the merge-base keeps
        it as a symbolic link inside the repository (a few links deep at most)."""
        for _ in range(8):
            if not path:
                return path
            entry = self._folder(posixpath.dirname(path)).get(path)
            if entry is None or entry.mode != MODE_SYMLINK:
                return path
            resolved = self._link_leads(path, entry.sha)
            if resolved is None:
                return path  # outside the repository (the lint's AL706), or no real link
            folder = self._folder(posixpath.dirname(resolved)).get(resolved)
            if folder is None or folder.mode not in (MODE_TREE, MODE_SYMLINK):
                return path
            path = resolved
        return path

    def followed_in_index(self, path: str) -> str | None:
        """The folder of the index that ``path`` leads to (links followed, a few deep at
        most), when it stays inside the repository and holds entries."""
        for _ in range(8):
            entry = self.repo.ls_index([path]).get(path)
            if entry is None or entry.mode != MODE_SYMLINK:
                return path if path and self.repo.ls_index([path]) else None
            resolved = self._link_leads(path, entry.sha)
            if resolved is None:
                return None
            path = resolved
        return None

    def _link_leads(self, link: str, sha: str) -> str | None:
        """The repository path the link at ``link`` (its blob ``sha``) names; None when it
        leaves the repository or holds what no file system makes a link of."""
        target = self.repo.read_blobs([sha]).get(sha, b"")
        if len(target) > MAX_LINK_TARGET or b"\0" in target:
            return None
        text = target.decode("utf-8", "replace")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(link), text))
        if text.startswith("/") or resolved in (".", "..") or resolved.startswith("../"):
            return None
        return resolved

    def followed_in_work_tree(self, path: str) -> str | None:
        """The folder of the work tree that ``path`` leads to, when it stays inside."""
        top = os.path.realpath(self.repo.top)
        real = os.path.realpath(os.path.join(top, path))
        relative = os.path.relpath(real, top).replace(os.sep, "/")
        if relative == "." or relative.startswith("../") or not os.path.isdir(real):
            return None
        return relative

    def agent_prefix(self, config: Config) -> str:
        """The agent dir the merge-base's configuration names, as a repository path.

        Without an ``agent-dir`` setting it is the profile's named store
        (``.agent``) when the merge-base has one, else the repository root when
        that holds the profile's record folders, else the change's own agent
        dir (the base protects nothing there yet).
        """
        if self.root is None:
            return self.change_prefix
        join = (lambda name: f"{self.root}/{name}") if self.root else (lambda name: name)
        anchored = self._anchored_store(config)
        if anchored is not None:
            return anchored  # nearest the folder named: before a setting further up
        if config.agent_dir:
            return posixpath.normpath(join(config.agent_dir))
        listing = self._folder(self.root)
        folders = {posixpath.basename(p) for p, e in listing.items() if e.mode == MODE_TREE}
        profile = self.profile(config)
        for marker in profile.markers:
            if marker.store and (marker.store in folders or join(marker.store) in listing):
                return join(marker.store)
        if folders & profile.record_folders:
            return self.root
        return self.change_prefix

    def _anchored_store(self, config: Config) -> str | None:
        """The named store the merge-base holds nearest the folder the command line named,
        when the change's tree led the run to another root (None: the same root, or none).

        A change cannot move the gate off a merged store by adding a store above the
        named folder (``services/.agent`` for ``services/pay``) or by making the named
        folder a link to a decoy: the merge-base's store there is compared, and its
        removal is AL608."""
        anchor = self.request.anchor
        path = _as_written(anchor, self.repo.top) if anchor is not None else None
        if path is None or path == self.root:
            return None
        stores = [m.store for m in self.profile(config).markers if m.store]
        folder = path
        while True:
            named = self._base_agent_dir(folder)
            if named is not None:
                return named  # the merge-base's configuration there names its agent dir
            for store in stores:
                if (folder == store or folder.endswith(f"/{store}")) and self._is_tree(folder):
                    return folder  # the named folder is inside this store
                candidate = posixpath.join(folder, store) if folder else store
                if self._is_tree(candidate):
                    return candidate
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def _base_agent_dir(self, folder: str) -> str | None:
        """The agent dir the merge-base's configuration in ``folder`` names (``agent-dir``),
        when the merge-base holds it as a folder; None otherwise."""
        prefix = f"{folder}/" if folder else ""
        for name in (CONFIG_FILE, "pyproject.toml"):
            found = self._folder(folder).get(prefix + name)
            if found is None or not found.is_regular:
                continue
            data = self.repo.read_blobs([found.sha]).get(found.sha, b"")
            try:
                parsed = gate_config_from_text(data, name, Path(f"{prefix}{name}"))
            except ConfigError:
                return None
            if parsed is None:
                continue
            if parsed.agent_dir:
                named = posixpath.normpath(prefix + parsed.agent_dir)
                return named if self._is_tree(named) else None
            return None
        return None

    def _is_tree(self, path: str) -> bool:
        """Whether the merge-base holds a folder at repository path ``path``, or a link
        there (an agent dir kept behind one, which :meth:`followed` follows)."""
        entry = self._folder(posixpath.dirname(path)).get(path)
        return entry is not None and entry.mode in (MODE_TREE, MODE_SYMLINK)

    def profile(self, config: Config) -> Profile:
        """The profile whose kinds the gate protects, with the kinds the merge-base's
        configuration declares: the merge-base's ``profile`` setting if it has one, else the
        one profile whose markers hold in the merge-base, else the run's.

        A change cannot move the gate onto another layout's kinds, by naming a profile or
        by making another layout's markers the ones its own tree shows (deleting ``.agent/``
        and adding a ``.pi/pbot/`` store)."""
        if config.profile is not None and config.profile in names():
            return extend(get(config.profile), config.kinds)
        run = profile_for(self.target)
        if self.root is None or self._marked_at_base(run):
            return extend(run, config.kinds)
        found = [profile for profile in builtin() if self._marked_at_base(profile)]
        return extend(found[0] if len(found) == 1 else run, config.kinds)

    def _marked_at_base(self, profile: Profile) -> bool:
        """Whether one of ``profile``'s markers holds at the repository root of the merge-base."""
        join = (lambda name: f"{self.root}/{name}") if self.root else (lambda name: name)

        def exists(path: str) -> bool:
            folder = path.endswith("/")
            path = join(path.rstrip("/")) if path else (self.root or "")
            parent = posixpath.dirname(path)
            entry = self._folder(parent).get(path)
            return entry is not None and (entry.mode == MODE_TREE) == folder

        for marker in profile.markers:

            def inside(entry: str, store: str = marker.store) -> bool:
                return exists(posixpath.join(store, entry))

            if (not marker.store or exists(f"{marker.store}/")) and marker.holds(inside):
                return True
        return False


class _MergedIn:
    """Names the base commit that added a file: ``a1b2c3d ("subject")``."""

    def __init__(self, repo: Repository, merge_base: str, base_name: str) -> None:
        self.repo, self.merge_base, self.base_name = repo, merge_base, base_name
        self.shallow = repo.shallow_commits()
        self.cache: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        if path not in self.cache:
            try:
                found = self.repo.added_in(self.merge_base, path)
            except GitError:
                found = None
            self.cache[path] = self._named(found)
        return self.cache[path]

    def last_changed(self, path: str) -> str:
        """The base commit that last added or modified a file (where a write-once file was
        pinned), named as :meth:`__call__` names the one that added it."""
        try:
            found = self.repo.added_in(self.merge_base, path, "AM")
        except GitError:
            found = None
        return self._named(found)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Name the commits that added several files with one ``git log``."""
        wanted = {path for path in paths if path not in self.cache}
        if len(wanted) < 2:
            return  # one file: ``git log -1`` for it stops at the first match
        try:
            found = self.repo.added_in_each(self.merge_base, wanted)
        except GitError:
            return  # each is asked on its own
        for path in wanted:
            self.cache[path] = self._named(found.get(path))

    def _named(self, found: tuple[str, str, str] | None) -> str:
        if found is None:
            return f"the merge-base of {self.base_name}"
        full, short, subject = found
        named = f'{short} ("{subject}")' if subject else short
        if full in self.shallow:
            return f"{named} or earlier (the clone is shallow; history before it is missing)"
        return named
