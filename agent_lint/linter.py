"""The lint run: one pass over files, then the repo-wide checks, then selection.

Each file is read and parsed once; per-file checks run on the parsed data;
the facts repo-wide checks need go into a :class:`RepoIndex`; the data is
dropped. Positions are computed afterwards, only for files with findings.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import posixpath
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from agent_lint import gitignored, workers
from agent_lint.config import Config, ConfigError, Limits, load_config
from agent_lint.diagnostics import GATE_PREFIX, Diagnostic, Fix, Severity, change_cannot_waive
from agent_lint.discovery import (
    Entry,
    LeavesRepository,
    NoProfile,
    SeveralProfiles,
    Target,
    find_target,
    profile_for,
    read_file,
    relative,
    top_folders,
    walk,
)
from agent_lint.fileio import content_digest, work_tree_top
from agent_lint.filestep import FileOutcome, check_file
from agent_lint.filesystem import DISK, FileSystem, Origins
from agent_lint.frozen import field, record, replace
from agent_lint.index import RepoIndex, present_facts
from agent_lint.jsontext import listed
from agent_lint.kinds import Format, Match
from agent_lint.loading import split_front_matter
from agent_lint.problems import EntryIssue, EntryProblem, GateIssue
from agent_lint.profile import AsMerged, Profile, extend, user_schemas
from agent_lint.result import LintResult
from agent_lint.rules import rule_for
from agent_lint.schemas import SchemaStore
from agent_lint.selection import (
    RANK,
    configured,
    is_enabled,
    is_selected,
    reported_as_error,
    without_covered,
)
from agent_lint.validators import FileCheck
from agent_lint.validators.files import UNPARSED, diagnose_entry
from agent_lint.validators.history import (
    NOT_COMPARED,
    REPLACED,
    TWIN,
    numbering_names_the_id,
)
from agent_lint.validators.history import diagnose as diagnose_gate
from agent_lint.validators.identity import (
    UNCLASSIFIED_FILE,
    mirrored_ids_once,
    names_a_kind,
    rename_targets_taken,
)
from agent_lint.validators.storage import LINKED_FOLDER, NAME_COLLISION, SYMLINK_INSIDE

if TYPE_CHECKING:
    # Loaded when a run needs them: the gate with a base, the fixer for a fixable
    # finding, positions for a finding to place. A clean run loads none of them.
    from agent_lint import fixer, gitgate
    from agent_lint.cache import Cache, RunCache, Span
    from agent_lint.filesystem import AddedIn, Standing
    from agent_lint.gittree import RecordHistory
    from agent_lint.positions import Locations

__all__ = ["LintResult", "configured", "is_enabled", "is_selected", "lint_paths", "lint_target"]

T = TypeVar("T")
#: Thresholds of the cyclic garbage collector while a repository is linted. The pass builds
#: a large index that lives to the end; with Python's defaults the full collections walk
#: it again and again (7% of a run at 100,000 records), while its garbage cycles are short-
#: lived and die young. Full collections stay, rarer; the peak memory is unchanged.
RUN_GC_THRESHOLD = (50_000, 20, 1_000)
#: Where a run reads a file again to place its findings, by format and whether it parsed,
#: for the files read at the repository root joined with their repository path (every file
#: of a walk on disk): one shared value each, so a run of 100,000 files keeps no path twice.
_AT_ROOT = {(fmt, parsed): (fmt, "", parsed) for fmt in Format for parsed in (False, True)}


@record
class Replay:
    """What one run's pass over the files saw, so ``--fix`` checks again only what it wrote.

    ``entries`` are the walk's entries in order (with their repository paths and
    kinds), ``outcomes`` the outcome of
    each file read and checked, by path, with its format in ``formats`` (and its
    content hash in ``digests`` when the run has a cache),
    and ``passed`` the pass itself. A run given a replay walks nothing and reads
    only the ``rewritten`` files; every other file's outcome is merged as the
    first pass merged it, in the same order (with nothing rewritten, the pass
    stands as it was), and the repo-wide checks and the gate run on the result.
    """

    entries: list[tuple[Entry, str, Match | None]] = field(default_factory=list)
    outcomes: dict[str, FileOutcome] = field(default_factory=dict)
    formats: dict[str, Format] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    rewritten: frozenset[str] = frozenset()
    passed: _Passed | None = None

    def again(self, target: Target, rewritten: set[str]) -> Replay | None:
        """This replay for a run after ``rewritten`` (paths of the repository) were written;
        None when the writes could change more than those files' own outcomes.

        A written file must have been read and checked as JSON (whose YAML budget it
        does not spend) and still fit the run's file-size limit: then the walk
        would see the same entries and every other file would read the same.
        """
        limit = target.config.limits.max_file_bytes
        for path in rewritten:
            if path not in self.outcomes or self.formats.get(path) is not Format.JSON:
                return None
            try:
                if os.lstat(os.path.join(target.root, *path.split("/"))).st_size > limit:
                    return None
            except OSError:
                return None
        return replace(self, rewritten=frozenset(rewritten))


def _one_finding_per_link(findings: list[Diagnostic], root: str) -> list[Diagnostic]:
    """One finding per symbolic link: a link the gate reports in place of a merged file or
    folder (AL607), or as a merged handoff it cannot compare (AL611), is not reported
    again as a link inside the repository (AL705, AL707), and a linked folder both the
    walk and the gate see is one AL707.

    A link is one place under two names when the merge-base keeps the agent dir as a link
    (the gate names ``agentstate/...``, the walk ``.agent/...``), so links are compared by
    the folder they are in, where that leads (two links to one folder stay two).
    """

    def place(path: str) -> str:
        folder, name = os.path.split(os.path.join(root, path))
        return os.path.join(os.path.realpath(folder), name)

    replaced = {place(d.path) for d in findings if d.code in (REPLACED.code, NOT_COMPARED.code)}
    links = (SYMLINK_INSIDE.code, LINKED_FOLDER.code)
    seen: set[str] = set()
    kept = []
    for d in findings:
        if d.code in links and (replaced or d.code == LINKED_FOLDER.code):
            here = place(d.path)
            if here in replaced or (d.code == LINKED_FOLDER.code and here in seen):
                continue
            seen.add(here)
        kept.append(d)
    return kept


def _undecided(
    profile: Profile, relpath: str, problem: EntryProblem, named_store: bool = True
) -> bool:
    """Whether a problem with an entry not read keeps the run from calling the layout foreign.

    An unsafe or unreadable entry where records live may be the record that
    would show the profile's state; a store that leads outside the repository
    (AL706) or cannot be listed is never looked into at all. Both are
    reported, never hidden behind the foreign-layout notice. ``relpath`` is
    the entry's path in the store, ``""`` for the store itself. A folder link
    counts only in a ``named_store`` (``.agent/``, a configured ``agent-dir``): in a
    folder taken for a store by its record folders' names alone (a repository's top
    with ``agents -> templates/agents``), a linked one is no sign of agent state.
    """
    if relpath == "":
        return problem.issue in (EntryIssue.AGENT_DIR_OUTSIDE, EntryIssue.UNREADABLE)
    if problem.issue is EntryIssue.LINKED_FOLDER:
        # A link on the way to a folder the profile walks (``.pi -> pistore``) hides the store.
        on_the_way = f"{relpath}/"
        if any(f"{folder}/".startswith(on_the_way) for folder in profile.walk_folders):
            return True
        if not named_store:
            return False
    return profile.in_record_folder(relpath + "/")


def _named_store(target: Target, profile: Profile) -> bool:
    """Whether the store is named as one (a marker's folder, ``.agent``, or the configured
    ``agent-dir``), not only taken for one by the record folders it holds."""
    if target.config.agent_dir:
        return True
    where = Path(os.path.relpath(target.agent_dir, target.root)).as_posix()
    return any(m.store and m.store == where for m in profile.markers)


def _not_read(profile: Profile, relpath: str) -> str:
    for prefix, reason in profile.unread_reasons:
        if relpath.startswith(prefix):
            return reason
    if not profile.in_record_folder(relpath):
        return "not read: outside the record folders"
    if relpath.lower().endswith(".md"):
        return "not read: a Markdown file that is not a note kind"
    return "not read: not a record or note file"


def lint_target(
    target: Target,
    only: Sequence[Path] = (),
    unsafe_fixes: bool = False,
    base: str | None = None,
    staged: bool = False,
    gate: gitgate.Request | None = None,
    *,
    new_only: bool = False,
    fs: FileSystem = DISK,
    history: Origins | None = None,
    positions: bool = True,
    replay: Replay | None = None,
    record: Replay | None = None,
    cache: Cache | None = None,
    jobs: int | None = 1,
) -> LintResult:
    """Lint one repository; report only under ``only`` paths when given.

    With ``unsafe_fixes``, findings of rules with an unsafe fix are marked
    fixable too. With ``base`` (a git revision, or ``auto``), the change since
    its merge-base with the base is checked as well (AL6xx): the working tree,
    or the git index if ``staged``; ``gate`` carries the command line's
    settings for it (AL6xx follow the merge-base's configuration, not the
    change's). A check runs only when one of its codes is selected; a file
    counts as clean enough to judge other files when it has no error after
    the configuration (selection and ``[severity]``) is applied.

    With ``new_only`` (which needs a base), findings already present at the
    merge-base are left out and counted (AL6xx are always reported). ``fs``
    is where files are read (the disk, or a git tree when the merge-base
    itself is linted); ``history`` tells where the paths of append-only
    records are checked (by default, git's history of the work tree). Without
    ``positions``, findings that carry only a JSON pointer are placed at 1:1
    (files are not read again to place them). ``record`` collects what the pass over
    files saw and ends the run there: the result holds the index, not the findings,
    which a run given the ``replay`` of it reports (see :class:`Replay`); ``--fix``
    plans its writes in between, so the repo-wide checks and the gate run once.
    With ``cache``, a file whose outcome is kept for its content is not checked
    again (see :mod:`agent_lint.cache`); the output is the same. ``jobs`` is how
    many processes may check files (None: ``auto``; see :mod:`agent_lint.workers`);
    the output is the same for any number.
    """
    base = base or _configured_base(target)
    if staged and not base:
        raise ConfigError("--staged compares the git index with a base: add --base REF")
    if new_only and not base:
        raise ConfigError(
            "--new-only reports what a change adds to its merge-base with a base: add --base REF"
        )
    own = _WorkTreeHistory(target, base) if history is None and fs.on_disk else None
    collector = gc.get_threshold()
    started_off = not gc.isenabled()
    if started_off:
        # The command loaded the engine with the collector off (see cli.main): what it
        # loaded lives as long as the process, so the pass's collections never walk it.
        # The pass turns the collector on (see _RunCollector).
        gc.freeze()
    gc.set_threshold(*RUN_GC_THRESHOLD)
    forked = contextlib.ExitStack()  # worker processes end with the run, however it ends
    try:
        return _lint_target(
            target,
            only,
            unsafe_fixes,
            base,
            staged,
            gate,
            new_only,
            fs,
            history or own,
            positions,
            replay,
            record,
            cache,
            jobs,
            forked,
            _RunCollector(started_off),
        )
    finally:
        forked.close()
        gc.set_threshold(*collector)
        if started_off:
            gc.disable()
            gc.unfreeze()
        if own is not None:
            own.close()


class _RunCollector:
    """The cyclic garbage collector during the pass over files of a run that manages it.

    A run started with the collector off (the command, see :func:`lint_target`)
    keeps it off while the pass only walks files and takes their outcomes from
    the cache: that makes values that live to the end of the run (entries,
    outcomes, the index) and no garbage cycles, and each collection would walk
    them all again (a twentieth of a warm run at 10,000 records). It starts
    before the pass checks a file (parsing makes short-lived cycles) or forks a
    process, and what the pass made until then is frozen out of its reach (the
    run unfreezes it when it ends), as are the outcomes the cache decodes after
    (:attr:`RunCache.freeze_decoded`): a run with one file edited costs what a
    warm run does. When the pass ends, what it made is frozen too and the
    collector runs for the repo-wide checks. A run that does not manage the
    collector leaves it as it is.
    """

    def __init__(self, managed: bool) -> None:
        self.managed = managed

    def start(self) -> None:
        """Collect from now on; what the pass made so far lives to its end: frozen."""
        if self.managed and not gc.isenabled():
            gc.freeze()
            gc.enable()

    def pass_done(self) -> None:
        """The pass is over: freeze what it made, and collect from now on."""
        if self.managed:
            gc.freeze()
            gc.enable()


class _WorkTreeHistory:
    """The work tree's git history (:class:`~agent_lint.gittree.RecordHistory`), loaded when asked.

    Only a broken path of an append-only record asks where it stands, so a run
    without one loads neither git's plumbing nor the gate.
    """

    def __init__(self, target: Target, base: str | None) -> None:
        self._target, self._base = target, base
        self._history: RecordHistory | None = None

    def _loaded(self) -> RecordHistory:
        if self._history is None:
            from agent_lint.gittree import RecordHistory

            self._history = RecordHistory(self._target, self._base)
        return self._history

    def origin(self, record: str) -> Standing | AddedIn:
        """How ``record`` stands in git's history (see :meth:`RecordHistory.origin`)."""
        return self._loaded().origin(record)

    def edited(self, record: str) -> str | None:
        """``record``'s path from the repository's top when it differs from its last commit
        (see :meth:`RecordHistory.edited`)."""
        return self._loaded().edited(record)

    def close(self) -> None:
        """End the git process the history started, if it started one."""
        if self._history is not None:
            self._history.close()


def _lint_target(
    target: Target,
    only: Sequence[Path],
    unsafe_fixes: bool,
    base: str | None,
    staged: bool,
    gate: gitgate.Request | None,
    new_only: bool,
    fs: FileSystem,
    history: Origins | None,
    positions: bool,
    replay: Replay | None = None,
    record: Replay | None = None,
    cache: Cache | None = None,
    jobs: int | None = 1,
    forked: contextlib.ExitStack | None = None,
    collector: _RunCollector | None = None,
) -> LintResult:
    config = target.config
    collector = collector or _RunCollector(False)
    gate_request: gitgate.Request | None = None
    if base:
        from agent_lint import gitgate

        gate_request = replace(gate or gitgate.Request(base, staged), base=base, staged=staged)
    profile = extend(profile_for(target), config.kinds)
    schemas = SchemaStore(
        config.schema_dirs, folder=profile.schema_folder, files=user_schemas(config.kinds)
    )
    stored = cache.for_run(target, profile, config, schemas) if cache is not None else None
    if stored is not None:
        stored.freeze_decoded = collector.managed
    repo_checks = [c for c in profile.repo_checks if any(is_enabled(x, config) for x in c.codes)]
    if replay is not None and replay.passed is not None and not replay.rewritten:
        passed = replay.passed  # nothing was written: the pass over files stands as it was
        passed.index.history = history  # the git history of this run, which ends with it
    else:
        passed = _pass_over_files(
            target,
            profile,
            schemas,
            stored,
            fs,
            history,
            replay,
            record,
            jobs,
            forked,
            gate_request,
            collector,
        )
    collector.pass_done()
    if record is not None:
        # ``--fix`` plans its writes from the index; the findings come with the replay.
        record.passed = passed
        if gate_request is not None:
            # What the change did to merged history: nothing is derived from those files.
            outcome = _gate_outcome(target, gate_request, passed.early_gate)
            passed.index.history_edited.update(_edits_refused(outcome, config))
            passed.early_gate = None
        return LintResult(root=target.root, indexes=[passed.index], limits=_roots(only))
    result = LintResult(
        root=target.root, files_checked=passed.files_checked, files=list(passed.files)
    )
    index, formats, digests = passed.index, passed.formats, passed.digests
    found, holds_state = list(passed.found), passed.holds_state
    agent_prefix = Path(os.path.relpath(target.agent_dir, target.root)).as_posix()
    root_prefix = str(target.root).rstrip(os.sep) + os.sep
    limits = config.limits
    foreign = ""  # the notice of a store of another design, said once the gate is done
    if not holds_state:
        name = agent_prefix if agent_prefix != "." else target.agent_dir.name
        where = f"in {name}/" if os.path.lexists(target.agent_dir) else f"here (no {name}/ folder)"
        foreign = f"no {profile.title} agent state found {where}; nothing checked"
        result.notices.append(foreign)
        result.files_checked = 0
        found = []  # findings about files of another design are not ours to make
    for repo_check in repo_checks if holds_state else ():
        found.extend(repo_check.run(index))
    if index.ignored_targets:
        result.notices.append(_ignored_notice(index.ignored_targets))
    gate_config = config
    located: gitgate.Located | None = None
    merged: dict[str, bytes | None] = {}
    if gate_request is not None:
        # The append-only gate runs even then: a change that deletes every record
        # must not turn the gate off.
        outcome = _gate_outcome(target, gate_request, passed.early_gate)
        found.extend(diagnose_gate(problem) for problem in outcome.problems)
        result.changed = outcome.changed
        result.notices.extend(outcome.notices)
        gate_config = outcome.config or config
        located = outcome.located
        merged = outcome.merged
        if foreign and located is not None:  # it compared with a merge-base
            result.notices[result.notices.index(foreign)] += "; the append-only gate still ran"
        index.history_edited.update(_edits_refused(outcome, config))
    roots = _roots(only)
    result.limits = roots
    kept_findings = []
    for diagnostic in found:
        limited = roots and not diagnostic.code.startswith(GATE_PREFIX)
        if limited and not any(_within(target.root / diagnostic.path, limit) for limit in roots):
            continue  # the gate's verdict is on the whole store, whatever path was named
        rules = gate_config if change_cannot_waive(diagnostic.code) else config
        shown = configured(diagnostic, rules)
        if shown is None:
            continue
        if rule_for(shown.code).fix is Fix.UNSAFE:
            # Planned as --unsafe-fixes would plan it; without that flag, told as a hint.
            shown = shown.with_fixable(True)
        kept_findings.append(shown)
    kept_findings = rename_targets_taken(without_covered(kept_findings), index)
    kept_findings = numbering_names_the_id(kept_findings)
    kept_findings = mirrored_ids_once(kept_findings, index)
    if profile.refine is not None and holds_state:
        kept_findings = profile.refine(kept_findings, index)
    if merged:
        view = profile.restore(index, merged) if profile.restore and holds_state else None
        kept_findings = _as_merged(kept_findings, view, merged, config)
    kept_findings = _one_finding_per_link(kept_findings, str(target.root))
    # A twin of a merged file the gate reports (AL610) is not a name collision again (AL703).
    if any(d.code == TWIN.code for d in kept_findings):
        from agent_lint.gitgate.snapshots import fold

        twins = {fold(d.path) for d in kept_findings if d.code == TWIN.code}
        kept_findings = [
            d for d in kept_findings if d.code != NAME_COLLISION.code or fold(d.path) not in twins
        ]
    if fs.on_disk and any(d.fixable or d.code in UNPARSED for d in kept_findings):
        kept_findings = _fixable_as_planned(kept_findings, index, True, roots)
    if not unsafe_fixes:
        kept_findings = [_unsafe_as_hint(d) for d in kept_findings]
    places = (stored, digests) if stored is not None else None
    result.diagnostics = sorted(
        _locate(kept_findings, formats if positions else {}, limits, fs, places, root_prefix),
        key=Diagnostic.sort_key,
    )
    result.indexes.append(index)
    if new_only:
        _leave_out_pre_existing(result, target, only, located, cache)
    return result


#: The gate's findings that restoring the merged file undoes (AL601, AL602, AL603).
_UNDONE = frozenset({"AL601", "AL602", "AL603", "AL607"})
_RENAMED = "AL603"


def _as_merged(
    findings: list[Diagnostic],
    view: AsMerged | None,
    merged: Mapping[str, bytes | None],
    config: Config,
) -> list[Diagnostic]:
    """The findings less what a change's edit to merged history alone causes: one fact, one
    finding.

    Only where the gate reports the edit at least as severely. A file the change renamed
    a merged one to (None in ``merged``; the same bytes) is that rename's finding alone. In
    the folders ``view`` judged, a finding of its codes that the repository as merged does
    not have (restoring the merged files clears it) is left out; one it has too is said as
    the merged repository says it (what to restore to), and one inside a place it reports
    as a whole stands; neither is offered a fix, since a fix would follow the edited file.
    """
    folders = view.folders if view is not None else ()

    def home(path: str) -> str | None:
        return next((f for f in folders if path.startswith(f"{f}/")), None)

    rank: dict[str | None, int] = {}
    renamed = -1
    for d in findings:
        if d.code in _UNDONE:
            rank[home(d.path)] = max(rank.get(home(d.path), -1), RANK[d.severity])
        if d.code == _RENAMED:
            renamed = max(renamed, RANK[d.severity])
    twins = {_identity(d): d for d in view.findings} if view is not None else {}
    kept = []
    for d in findings:
        if d.code.startswith(GATE_PREFIX):
            kept.append(d)
            continue
        if d.path in merged and merged[d.path] is None and RANK[d.severity] <= renamed:
            continue  # a file renamed from a merged one: restoring the name clears it
        folder = home(d.path)
        if view is None or folder is None or d.code not in view.codes:
            kept.append(d)
            continue
        if RANK[d.severity] > rank.get(folder, -1):
            kept.append(d)
            continue
        twin = twins.get(_identity(d))
        if twin is not None:
            shown = configured(twin, config) or d
            kept.append(shown.with_severity(d.severity).with_fixable(False))
        elif any((d.code, d.path, above) in twins for above in _above(d.pointer)):
            # The merged conversation says it as a whole (meta.json's handoffs[] as a list):
            # each of the change's findings inside it stands, in the change's words.
            kept.append(d.with_fixable(False))
        # else: restoring the merged files clears it, and the gate's finding says it
    return kept


def _identity(finding: Diagnostic) -> tuple[str, str, str]:
    """What a finding is about: its code, file and pointer; a ``per_file`` rule's, its file."""
    pointer = "" if rule_for(finding.code).per_file else finding.pointer
    return finding.code, finding.path, pointer


def _above(pointer: str) -> Iterator[str]:
    """The JSON pointers that hold ``pointer``: ``/a/0/b`` -> ``/a/0``, ``/a``, ``""``."""
    while pointer:
        pointer = pointer.rpartition("/")[0]
        yield pointer


@record
class _Passed:
    """What the pass over one repository's files found, for the repo-wide stage.

    The index of every file's facts, the per-file findings in order, where
    each file is read again to place them (``formats``), the content hashes
    of the files read (``digests``), whether a file showed the profile's state,
    and the files with how each was read.
    """

    index: RepoIndex
    found: list[Diagnostic] = field(default_factory=list)
    formats: dict[str, tuple[Format, str, bool]] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    holds_state: bool = False
    files: list[tuple[str, str]] = field(default_factory=list)
    files_checked: int = 0
    early_gate: workers.InChild[gitgate.Outcome | ConfigError] | None = None


def _configured_base(target: Target) -> str | None:
    """The ``base`` setting, refused where the run may judge a change (a pull request on
    CI, see :mod:`agent_lint.cienv`) and a file inside the checkout holds it.

    There the file is the change under review's own: it could name a commit of its own
    (``base = "HEAD"``) and pass the append-only gate. Locally, and on a push build, the
    change is the user's.
    """
    config = target.config
    if config.base is None or config.source is None:
        return config.base
    from agent_lint import cienv

    why = cienv.judges_a_change()
    if why is None:
        return config.base
    real = Path(os.path.realpath(target.root))
    top = str(work_tree_top(real) or real)  # the checkout, not only the store's folder
    source = os.path.realpath(config.source)
    try:
        outside = os.path.commonpath([source, top]) != top
    except ValueError:  # another drive (Windows): outside the checkout
        outside = True
    if outside:
        return config.base  # a configuration kept outside the checkout
    shown = os.path.relpath(source, top).replace(os.sep, "/")
    raise ConfigError(
        f"`base` in {shown} is read from the change under review, and this run may be "
        f"{why}: the change could name a commit of its own and pass the append-only gate. "
        "Name the base on the command line (--base origin/main; on GitHub the agent-lint "
        "Action passes the pull request's base, or its base-ref input), or keep that "
        "configuration outside the checkout"
    )


def _ignored_notice(paths: set[str]) -> str:
    """The notice naming the files records or notes name that git ignores (not judged)."""
    one = len(paths) == 1
    return (
        f"{len(paths)} {'file' if one else 'files'} that records or notes name and git "
        f"ignores (.gitignore) {'was' if one else 'were'} not judged, there or missing, as "
        f"a clone has none of them: {listed(sorted(paths), most=3, limit=None)}"
    )


def _roots(only: Sequence[Path]) -> list[Path]:
    """The resolved paths findings are limited to (empty: everything)."""
    return [p.resolve() for p in only]


def _pass_over_files(
    target: Target,
    profile: Profile,
    schemas: SchemaStore,
    stored: RunCache | None,
    fs: FileSystem,
    history: Origins | None,
    replay: Replay | None,
    record: Replay | None,
    jobs: int | None,
    forked: contextlib.ExitStack | None,
    gate_request: gitgate.Request | None = None,
    collector: _RunCollector | None = None,
) -> _Passed:
    """Read and check every file of the walk (or a replay's) and build the repository index.

    With ``gate_request``, the append-only gate may run in the first forked process that
    checks files, once its share is checked, or in a forked child of its own beside a
    pass of one process (``_start_gate``); its outcome is taken after the pass.
    """
    config = target.config
    collector = collector or _RunCollector(False)
    agent_prefix = Path(os.path.relpath(target.agent_dir, target.root)).as_posix()
    index = RepoIndex(
        root=target.root,
        agent_prefix="" if agent_prefix == "." else agent_prefix,
        config=config,
        fs=fs,
        history=history,
        profile=profile,
        folders=top_folders(target, fs),
    )
    result = _Passed(index)
    file_checks = [c for c in profile.file_checks if any(is_enabled(x, config) for x in c.codes)]
    digests = result.digests  # content hashes of the files read, for the cache
    found = result.found
    formats = result.formats  # full path "": the root's + the path
    root_prefix = str(target.root).rstrip(os.sep) + os.sep
    holds_state = False
    named_store = _named_store(target, profile)
    unclassified: list[tuple[str, Diagnostic]] = []  # their findings that name a record
    limits = config.limits
    yaml_spent = 0  # the run's YAML budget (max-yaml-total-bytes), spent file by file
    steps: Iterable[tuple[Entry, str, Match | None]] = _steps(target, fs, profile, replay)
    top = gitignored.rules_top(target.agent_dir) if fs.on_disk else None
    if top is not None:
        index.git_ignores = gitignored.GitIgnores(top, target.root)
    if top is not None and replay is None:
        ignored = gitignored.ignored_files(target.root, target.agent_dir, top)
        if ignored:
            steps = gitignored.tracked_only(steps, ignored, result.files)
    ahead = _CheckedAhead()  # files other processes check while this loop runs
    if jobs != 1 and replay is None and fs.on_disk:
        steps = list(steps)
        check = _FileChecker(profile, config, schemas, file_checks, stored)
        pending = [step for step in steps if check.wanted(step)]
        if pending or gate_request is not None:
            collector.start()  # files are checked, here or in forked children
        # The gate runs in the first process that checks files, once its share is done;
        # without one, in a child of its own (_start_gate).
        gate = None if gate_request is None else functools.partial(_gate, target, gate_request)
        ahead = _CheckedAhead(pending, jobs, check, gate if forked is not None else None)
        del pending  # the loop drops each step once taken (_consumed): none is kept here
        if forked is not None:
            forked.callback(ahead.close)
        if gate_request is not None:
            result.early_gate = ahead.later() or _start_gate(
                target, gate_request, jobs, len(steps), forked
            )
            if result.early_gate is not None and forked is not None:
                forked.callback(result.early_gate.close)
        steps = _consumed(steps)
    for step in steps:
        if record is not None:
            record.entries.append(step)
        entry, path, match = step
        index.file_names[posixpath.basename(path)].append(path)
        if entry.problem is None and not entry.unread:
            index.walked.add(path)
        if entry.problem is None and entry.unread:
            result.files.append((path, "not read: behind a linked folder"))
            if match is not None:
                index.add(present_facts(profile, path, entry.relpath, match, False))
            continue
        if entry.unlisted:
            index.unlisted.add(path)  # nothing is concluded missing that it may hold
        if entry.problem is not None:
            holds_state = holds_state or _undecided(
                profile, entry.relpath, entry.problem, named_store
            )
            found.append(diagnose_entry(entry.problem))
            if not entry.noted:  # a noted name or link is read all the same, listed then
                result.files.append((path, f"not read: {entry.problem.message}"))
            if entry.unread and match is not None:
                # Present but not read: it exists for every check that asks.
                index.add(present_facts(profile, path, entry.relpath, match, False))
            continue
        if match is not None:
            fmt = match.kind.format
        elif profile.is_data_file(entry.relpath):
            fmt = profile.data_format(entry.relpath)
        else:
            support = (
                profile.support_file(entry.relpath)
                if profile.in_record_folder(entry.relpath)
                else None
            )
            result.files.append((path, support or _not_read(profile, entry.relpath)))
            continue
        checked = _replayed(replay, path)
        if checked is not None and replay is not None and path in replay.digests:
            digests[path] = replay.digests[path]
        if checked is None and stored is not None:
            # A file whose stamp is the one kept with its entry is not read again.
            fresh = stored.fresh(path, entry.stamp, yaml_spent)
            if fresh is not None:
                digests[path], checked = fresh
        early = ahead.take(path) if checked is None else None
        if early is not None:
            if stored is not None:
                digests[path] = early.digest
                checked = stored.get(path, early.digest, yaml_spent, entry.stamp)
            if checked is None:
                checked = early.outcome_at(yaml_spent, limits)
                if checked is not None and stored is not None:
                    stored.put(path, early.digest, yaml_spent, checked, entry.stamp)
        if checked is None:
            collector.start()
            raw, unreadable = read_file(entry.path, path, limits.max_file_bytes, fs)
            if raw is None:
                assert unreadable is not None
                holds_state = holds_state or _undecided(profile, entry.relpath, unreadable)
                found.append(diagnose_entry(unreadable))
                result.files.append((path, f"not read: {unreadable.message}"))
                if match is not None:
                    index.add(present_facts(profile, path, entry.relpath, match, False))
                continue
            if stored is not None:
                digests[path] = digest = content_digest(raw)
                checked = stored.get(path, digest, yaml_spent, entry.stamp)
            if checked is None:
                checked = check_file(
                    profile,
                    config,
                    schemas,
                    file_checks,
                    path,
                    entry.relpath,
                    match,
                    raw,
                    yaml_spent,
                )
                if stored is not None:
                    stored.put(path, digests[path], yaml_spent, checked, entry.stamp)
        if record is not None:
            record.outcomes[path] = checked
            record.formats[path] = fmt
            if path in digests:
                record.digests[path] = digests[path]
        yaml_spent = checked.yaml_spent
        if entry.path == root_prefix + path.replace("/", os.sep):
            formats[path] = _AT_ROOT[fmt, checked.parsed]
        else:
            formats[path] = (fmt, entry.path, checked.parsed)
        result.files_checked += 1
        found.extend(checked.diagnostics)
        result.files.append((path, checked.title))
        if match is None:
            index.unclassified_paths.add(path)
            unclassified.extend((path, d) for d in checked.diagnostics if d.key)
            # A file whose AL205 names the record name it should have shows the profile's
            # state, misnamed as it is: it is reported, not taken for another design's.
            holds_state = holds_state or any(names_a_kind(d) for d in checked.diagnostics)
            continue
        holds_state = holds_state or checked.shows_state
        for facts in checked.facts:
            index.add(facts)
    ahead.close()
    _stand_ins(index, profile, unclassified)
    result.holds_state = holds_state
    return result


def _stand_ins(
    index: RepoIndex, profile: Profile, unclassified: list[tuple[str, Diagnostic]]
) -> None:
    """A file that holds a record under a name no kind matches (``decisions/export.json``
    holding ``D-003``) stands for the record its AL205 names (``decisions/D-003.json``):
    references to its id, the index entry and the links that name that file are judged by
    its AL205 (one fact, one finding), while AL205 is reported on it and that file does
    not exist."""
    prefix = f"{index.agent_prefix}/" if index.agent_prefix else ""
    for path, finding in unclassified:
        if finding.code != UNCLASSIFIED_FILE.code or not finding.key:
            continue
        named = prefix + finding.key
        match = profile.classify(finding.key)
        if match is None or named in index.walked or named in index.stand_ins:
            continue
        if not reported_as_error(UNCLASSIFIED_FILE.code, index.config, path):
            continue
        index.stand_ins[named] = path
        index.add(present_facts(profile, named, finding.key, match, False))


def _gate(target: Target, request: gitgate.Request) -> gitgate.Outcome | ConfigError:
    """The append-only gate's outcome, or the usage error that stops the run."""
    from agent_lint import gitgate

    try:
        return gitgate.run(target, request)
    except ConfigError as exc:
        return exc


def _start_gate(
    target: Target,
    request: gitgate.Request,
    jobs: int | None,
    files: int,
    forked: contextlib.ExitStack | None,
) -> workers.InChild[gitgate.Outcome | ConfigError] | None:
    """The gate run by a forked child of its own while a pass of one process over ``files``
    walked files runs; None when the run's own process is to run it after the pass.

    A pass that forks processes to check files on every core hands the gate to the first
    of them, which runs it once its own files are checked (:meth:`_CheckedAhead.later`):
    this process, which merges every file's outcome, has the most to do. Otherwise (a
    pass of one process, or processes that leave a core free) a child is forked for the
    gate for ``--jobs N`` above 1, and for ``auto`` on more than one core
    (:func:`workers.gate_beside`): the gate's git processes and its own work then use
    another core while this process parses; the fork costs a few milliseconds of CPU
    time. With ``--jobs 1`` (or one core) this process runs it. The walk is done and the
    cache folder exists, and nothing of the work tree changes until the gate's outcome
    is taken, so it is the outcome the gate gives after the pass.
    """
    if forked is None or not workers.gate_beside(jobs, files):
        return None
    return workers.InChild(lambda: _gate(target, request))


def _edits_refused(outcome: gitgate.Outcome, config: Config) -> set[str]:
    """The merged files the gate reports as errors that the change modified, deleted or
    renamed: ``--fix`` derives nothing from what they hold now (where the base's
    configuration lets the change edit history, a warning, the mirrors follow it)."""
    rules = outcome.config or config
    refused = set()
    for problem in outcome.problems:
        shown = configured(diagnose_gate(problem), rules)
        if shown is None or shown.severity is not Severity.ERROR:
            continue
        if shown.path in outcome.merged:
            refused.add(shown.path)
        elif problem.issue is GateIssue.RENAMED:  # a folder renamed: each merged file in it
            inside = f"{shown.path}/"
            refused.update(p for p in outcome.merged if p.startswith(inside))
        if problem.issue is GateIssue.RENAMED:
            # Nor from the files renamed from merged ones (None: the same bytes elsewhere).
            refused.update(p for p, held in outcome.merged.items() if held is None)
    return refused


def _gate_outcome(
    target: Target,
    request: gitgate.Request,
    early: workers.InChild[gitgate.Outcome | ConfigError] | None,
) -> gitgate.Outcome:
    """The gate's outcome: the forked child's, else computed here (the same either way)."""
    found = early.result() if early is not None else None
    if found is None:
        found = _gate(target, request)
    if isinstance(found, ConfigError):
        raise found
    return found


def _steps(
    target: Target, fs: FileSystem, profile: Profile, replay: Replay | None
) -> Iterator[tuple[Entry, str, Match | None]]:
    """The walk's entries with their repository paths and kinds (a replay's, as recorded)."""
    if replay is not None:
        for entry, path, match in replay.entries:
            if path in replay.rewritten:
                # Its stamp was taken before the write: the cache must not serve it by that.
                entry = entry._replace(stamp=None)
            yield entry, path, match
        return
    root = str(target.root)
    for entry in walk(target, fs, profile.walk_folders):
        yield entry, relative(entry.path, root), profile.classify(entry.relpath)


def _consumed(items: list[T]) -> Iterator[T]:
    """The items in order, each dropped from the list once taken (a walk's entries are not
    all kept to the end of the loop)."""
    items.reverse()
    while items:
        yield items.pop()


class _CheckedAhead:
    """The results of the files other processes check, taken in the loop's order.

    The files the loop will check (:meth:`_FileChecker.wanted`) are dealt out
    to ``jobs`` processes (see :mod:`agent_lint.workers`); the loop asks
    :meth:`take` for each file it is about to check and checks it itself when
    the answer is None: its own share, a file a child could not read or check.
    """

    def __init__(
        self,
        pending: Sequence[tuple[Entry, str, Match | None]] = (),
        jobs: int | None = 1,
        check: _FileChecker | None = None,
        then: Callable[[], gitgate.Outcome | ConfigError] | None = None,
    ) -> None:
        self.paths = deque(path for _, path, _ in pending)
        processes = 1 if check is None else workers.processes_for(jobs, len(pending))
        if processes < workers.available_cores():
            then = None  # a core is left free: the gate gets a process of its own there
        self.results: workers.Ahead[Checked | None] = workers.Ahead(
            check or _nothing, pending, processes, then
        )

    def later(self) -> workers.InChild[gitgate.Outcome | ConfigError] | None:
        """The ``then`` of the first other process, once its files are checked; None when no
        other process was started, or when the processes leave a core free (``then`` is
        then not given to them)."""
        return self.results.later()

    def take(self, path: str) -> Checked | None:
        """What another process found for ``path``, the loop's next file to check; None when
        the loop checks it itself."""
        if self.results.processes == 1 or not self.paths or self.paths[0] != path:
            return None
        self.paths.popleft()
        return self.results.take()

    def close(self) -> None:
        """End the worker processes."""
        self.results.close()


def _nothing(steps: Sequence[tuple[Entry, str, Match | None]]) -> Iterator[Checked | None]:
    """No results (a run of one process forks no worker)."""
    return iter(())


class Checked(NamedTuple):
    """A file read and checked ahead of the loop, by any process of the run.

    ``digest`` is its content hash when the run has a cache (else ``""``);
    ``outcome`` is None when the cache holds one for that content; ``spent``
    is the YAML budget its process had spent before it.
    """

    digest: str
    outcome: FileOutcome | None
    spent: int

    def outcome_at(self, spent: int, limits: Limits) -> FileOutcome | None:
        """The outcome as the loop would get it with ``spent`` of the YAML budget spent
        before the file; None when the budget could make it differ (the loop checks again).

        The rule is the cache's: the outcome stands when its YAML was charged and
        still fits, or when no YAML document could have gone past the budget.
        """
        if self.outcome is None:
            return None
        charge = self.outcome.yaml_spent - self.spent
        total = limits.max_yaml_total_bytes
        if charge <= 0 and self.spent + limits.max_yaml_bytes > total:
            return None
        if spent + charge > total:
            return None
        return self.outcome._replace(yaml_spent=spent + charge)


class _FileChecker:
    """The per-file step of the loop for a slice of files, as worker processes run it.

    It reads, hashes and checks each file as the loop would, spending its own
    YAML budget from zero (see :meth:`Checked.at`); a file it cannot read is
    left to the loop (None), which reports it.
    """

    def __init__(
        self,
        profile: Profile,
        config: Config,
        schemas: SchemaStore,
        checks: Sequence[FileCheck],
        stored: RunCache | None,
    ) -> None:
        self.profile = profile
        self.config = config
        self.schemas = schemas
        self.checks = checks
        self.stored = stored

    def wanted(self, step: tuple[Entry, str, Match | None]) -> bool:
        """Whether the loop would read and check this step's file (its outcome is not kept)."""
        entry, path, match = step
        if entry.problem is not None or entry.unread:
            return False
        if match is None and not self.profile.is_data_file(entry.relpath):
            return False
        return self.stored is None or self.stored.unchanged(path, entry.stamp) is None

    def __call__(
        self, steps: Sequence[tuple[Entry, str, Match | None]]
    ) -> Iterator[Checked | None]:
        """One result per step, in order."""
        limit = self.config.limits.max_file_bytes
        spent = 0
        for entry, path, match in steps:
            raw, _ = read_file(entry.path, path, limit)
            if raw is None:
                yield None
                continue
            digest = ""
            if self.stored is not None:
                digest = content_digest(raw)
                if self.stored.holds(path, digest):
                    yield Checked(digest, None, spent)
                    continue
            outcome = check_file(
                self.profile,
                self.config,
                self.schemas,
                self.checks,
                path,
                entry.relpath,
                match,
                raw,
                spent,
            )
            yield Checked(digest, outcome, spent)
            spent = outcome.yaml_spent


def _replayed(replay: Replay | None, path: str) -> FileOutcome | None:
    """The first pass's outcome of a file the replay does not read again."""
    if replay is None or path in replay.rewritten:
        return None
    return replay.outcomes.get(path)


def _leave_out_pre_existing(
    result: LintResult,
    target: Target,
    only: Sequence[Path],
    located: gitgate.Located | None,
    cache: Cache | None = None,
) -> None:
    """``--new-only``: drop the findings the merge-base already has, and count them.

    The merge-base's tree is linted from git objects with the same
    configuration and compared by fingerprint (see :mod:`agent_lint.baseline`),
    each finding of the merge-base hiding one identical finding of the change.
    The gate's findings (AL6xx) are about the change itself and always stay.
    """
    if located is None:
        result.notices.append(
            "--new-only found no merge-base to compare with: every finding is reported"
        )
        return
    known = _merge_base_findings(target, only, located, cache)
    gate = [d for d in result.diagnostics if d.code.startswith(GATE_PREFIX)]
    from agent_lint.baseline import apply as apply_baseline

    kept = apply_baseline((d for d in result.diagnostics if d not in gate), known)
    result.diagnostics = sorted([*kept.new, *gate], key=Diagnostic.sort_key)
    result.pre_existing = kept.known
    result.merge_base = f"{located.merge_base[:12]} of {located.base_name}"


def _merge_base_findings(
    target: Target, only: Sequence[Path], located: gitgate.Located, cache: Cache | None = None
) -> Counter[str]:
    """The fingerprints of the findings of the merge-base's tree, linted from git objects."""
    from agent_lint import gittree
    from agent_lint.baseline import fingerprint
    from agent_lint.gitplumbing import GitError

    session = gittree.GitSession(located.repo, target)
    known: Counter[str] = Counter()
    try:
        tree = gittree.base_tree(session, located.merge_base)
        if tree.lexists(str(target.agent_dir)):  # else the change adds the agent dir
            history = gittree.RecordHistory(target, session=session, reference=located.merge_base)
            at_base = lint_target(
                target, only, fs=tree, history=history, positions=False, cache=cache
            )
            known.update(fingerprint(d) for d in at_base.diagnostics)
    except GitError as exc:
        raise ConfigError(f"--new-only cannot read the merge-base: {exc}") from exc
    finally:
        session.close()
    return known


def fix_allowed(edit: fixer.Edit, roots: Sequence[Path]) -> bool:
    """Whether ``--fix`` writes ``edit`` in a run limited to ``roots`` (``--fix PATH``)."""
    return not roots or any(_within(edit.root / edit.path, limit) for limit in roots)


def _unsafe_as_hint(diagnostic: Diagnostic) -> Diagnostic:
    """A finding only ``--fix --unsafe-fixes`` resolves, as a run without that flag shows it:
    not fixable by this run's ``--fix``, ``unsafe_fixable`` when a write is planned for it."""
    if not diagnostic.fixable or rule_for(diagnostic.code).fix is not Fix.UNSAFE:
        return diagnostic
    return diagnostic._replace(fixable=False, unsafe_fixable=True)


def _fixable_as_planned(
    diagnostics: list[Diagnostic], index: RepoIndex, unsafe: bool, roots: Sequence[Path]
) -> list[Diagnostic]:
    """Keep a finding fixable only if ``--fix`` has a write planned that resolves it.

    A derived file that does not parse (or is empty) and that ``--fix`` writes
    anew from its sources has that finding fixable too.

    When the file cannot be written (a symbolic link, a folder, a special
    file, a read-only folder, a value JSON cannot hold), the finding says so
    instead of promising a fix; a write outside the paths of the run
    (``--fix PATH``) is not made, so its findings are not fixable in that run.
    """
    from agent_lint import fixer

    edits, blocked = fixer.plan_all(index, unsafe)
    allowed = [edit for edit in edits if fix_allowed(edit, roots)]
    resolved = {path for edit in allowed for path in edit.resolves}
    regenerated = {edit.path for edit in allowed if edit.regenerates}
    reasons = {path: block for block in blocked for path in block.resolves}
    kept = []
    for diagnostic in diagnostics:
        if diagnostic.path in regenerated and diagnostic.code in UNPARSED:
            diagnostic = diagnostic.with_fixable(True)  # written anew, it parses
        if diagnostic.fixable and diagnostic.path not in resolved:
            from agent_lint.baseline import normalised_message

            block = reasons.get(diagnostic.path)
            message = diagnostic.message
            if block is not None:
                message += f" (--fix cannot write {block.path}: {block.reason})"
            # The reason is no part of the finding's identity: baselines and SARIF
            # fingerprints match whether or not the fix is blocked.
            key = diagnostic.key or normalised_message(diagnostic)
            diagnostic = replace(diagnostic, message=message, fixable=False, key=key)
        kept.append(diagnostic)
    return kept


def _within(path: Path, limit: Path) -> bool:
    resolved = Path(os.path.abspath(path))
    return resolved == limit or limit in resolved.parents


def _locate(
    diagnostics: list[Diagnostic],
    formats: dict[str, tuple[Format, str, bool]],
    limits: Limits,
    fs: FileSystem = DISK,
    places: tuple[RunCache, dict[str, str]] | None = None,
    root_prefix: str = "",
) -> list[Diagnostic]:
    """Fill in line and column for findings that carry only a JSON pointer.

    Each file with such findings is read again (at the full path ``formats``
    gives, or when that is empty, at ``root_prefix`` followed by the file's
    repository path); in a JSON file that parsed,
    only the places of its findings' pointers are computed. With ``places``
    (a run cache and the content hashes of the files read), places kept for
    a file's content are taken from the cache, and new ones kept there.
    """
    pending: dict[str, list[Diagnostic]] = defaultdict(list)
    located: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if diagnostic.line is None and diagnostic.path in formats:
            pending[diagnostic.path].append(diagnostic)
        elif diagnostic.line is None:
            located.append(diagnostic.with_position(1, 1, None, None))
        else:
            located.append(diagnostic)
    for path, items in pending.items():
        spans = _kept_spans(places, path, items)
        if spans is None:
            fmt, full, parsed = formats[path]
            full = full or root_prefix + path.replace("/", os.sep)
            wanted = [(d.pointer, d.target) for d in items] if parsed else None
            raw, _ = read_file(full, path, limits.max_file_bytes, fs)
            locations = _locations(fmt, raw, limits, wanted)
            spans = []
            for diagnostic in items:
                span = locations.find(diagnostic.pointer, diagnostic.target)
                spans.append(
                    None
                    if span is None
                    else (span.line, span.column, span.end_line, span.end_column)
                )
            _keep_spans(places, path, items, spans, raw)
        for diagnostic, place in zip(items, spans, strict=True):
            located.append(diagnostic.with_position(*(place or (1, 1, None, None))))
    return located


def _kept_spans(
    places: tuple[RunCache, dict[str, str]] | None, path: str, items: list[Diagnostic]
) -> list[Span | None] | None:
    """The places of ``items`` in ``path`` from the cache, or None unless all are kept."""
    if places is None or path not in places[1]:
        return None
    stored, digests = places
    return stored.spans(path, digests[path], [(d.pointer, d.target) for d in items])


def _keep_spans(
    places: tuple[RunCache, dict[str, str]] | None,
    path: str,
    items: list[Diagnostic],
    spans: list[Span | None],
    raw: bytes | None,
) -> None:
    """Keep the places of ``items``, found in ``raw``, with the content the pass read: only
    when ``raw`` is that content (a file changed since the pass placed nothing of it)."""
    if places is not None and path in places[1]:
        stored, digests = places
        if raw is not None and content_digest(raw) == digests[path]:
            stored.put_spans(path, digests[path], [(d.pointer, d.target) for d in items], spans)


def _locations(
    fmt: Format, raw: bytes | None, limits: Limits, wanted: list[tuple[str, str]] | None = None
) -> Locations:
    """Where the values of a file of bytes ``raw`` are; only the ``wanted`` pointers in JSON."""
    from agent_lint.positions import (
        Locations,
        ScanError,
        locate_json,
        locate_json_pointers,
        locate_parsed_json,
        locate_yaml,
    )

    if fmt is Format.JSON and wanted is not None:
        # Placed on the bytes: a large index is never decoded whole for a finding or two.
        found = locate_parsed_json(raw or b"", wanted)
        if found is not None:
            return found
    try:
        text = (raw or b"").decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return Locations()
    try:
        if fmt is Format.JSON:
            if wanted is None:
                return locate_json(text)
            return locate_json_pointers(text, wanted, parsed=True)
        if fmt is Format.MARKDOWN:
            front, offset = split_front_matter(text)
            return locate_yaml(front, offset, limits) if front is not None else Locations()
        return locate_yaml(text, limits=limits)
    except (ScanError, RecursionError):
        return Locations()


def _written_in(paths: Collection[str], targets: Sequence[Target]) -> dict[Path, set[str]] | None:
    """The written ``paths`` of each target's repository, as paths of that repository;
    None when one of them lies in none of the targets."""
    found: dict[Path, set[str]] = {target.root: set() for target in targets}
    for path in paths:
        full = os.path.realpath(path)
        holders = []
        for target in targets:
            root = os.path.realpath(target.root)
            if full.startswith(root.rstrip(os.sep) + os.sep):
                holders.append(target.root)
                found[target.root].add(os.path.relpath(full, root).replace(os.sep, "/"))
        if not holders:
            return None
    return found


def lint_paths(
    paths: Sequence[Path],
    explicit_config: Path | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    unsafe_fixes: bool = False,
    base: str | None = None,
    staged: bool = False,
    *,
    strict: bool = False,
    partial: bool = False,
    new_only: bool = False,
    profile: str | None = None,
    record: bool = False,
    replay: LintResult | None = None,
    rewritten: Collection[str] = (),
    cache: Cache | None = None,
    jobs: int | None = 1,
    list_changed: bool = False,
) -> LintResult:
    """Lint every repository named by ``paths`` (default: the current directory).

    A path inside an agent dir lints the whole repository (references need
    the whole graph) but reports only findings under that path. Results of
    several repositories are merged, their paths relative to the first root.
    ``profile`` (``--profile``) names the profile; by default it is detected.
    A path where no profile's markers match is a notice, not an error.
    ``cache`` keeps per-file outcomes between runs (the caller saves it).
    ``jobs`` is how many processes may check files (None: ``auto``).
    ``list_changed`` has the gate list the files the change touched
    (:attr:`LintResult.changed`, for the job summary).

    With ``record``, the result keeps what each repository's pass over files
    saw (:attr:`LintResult.replays`) and its index, and has no findings yet.
    Given such a result as ``replay`` and
    the files written since (``rewritten``: their paths), a repository whose
    writes allow it is checked from that record, reading only the written
    files (see :class:`Replay`); a written file no repository of the run
    holds makes every repository be checked afresh.
    """
    groups: dict[Path, tuple[Target, list[Path], Path]] = {}
    nothing: list[NoProfile] = []
    for path in paths or [Path(".")]:
        try:
            target = find_target(path, explicit_config, profile)
        except (SeveralProfiles, LeavesRepository):
            # Not a store that is gone: a second layout beside the first (which the gate
            # alone, picking one, could not protect; the user chooses), or a path that
            # leaves its repository (nothing behind it is read).
            raise
        except (ConfigError, NoProfile) as exc:
            from agent_lint import gitgate

            # No store here, but the merge-base may hold one: the gate still runs.
            moved = gitgate.gate_target(path, explicit_config, base, profile)
            if moved is not None:
                target = moved
            elif isinstance(exc, ConfigError):
                raise
            elif base or load_config(exc.root, explicit_config).base:
                # A change that removes the whole store must not switch the gate off.
                raise ConfigError(
                    f"{path}: no profile's markers match here, so the append-only gate has "
                    "nothing to compare (a change that deletes the store is refused)"
                ) from None
            else:
                nothing.append(exc)
                continue
        settings = target.config.with_cli(select, ignore, strict=strict, partial=partial)
        target = Target(target.root, target.agent_dir, settings, target.profile)
        entry = groups.setdefault(target.agent_dir.resolve(), (target, [], path))
        resolved = path.resolve()
        whole = resolved in (target.root.resolve(), target.agent_dir.resolve())
        entry[1].append(target.root.resolve() if whole else resolved)
    merged: LintResult | None = None
    written = _written_in(rewritten, [target for target, _, _ in groups.values()])
    for key, (target, limits, named) in groups.items():
        whole = target.root.resolve() in limits
        request = None
        if base or target.config.base:  # the command line's settings for the gate
            from agent_lint import gitgate

            request = gitgate.Request(
                base or "",
                staged,
                select,
                ignore,
                explicit_config,
                list_changed,
                Path(os.path.abspath(named)),  # as written, whatever the change made it
            )
        prior = replay.replays.get(key) if replay is not None and written is not None else None
        kept = Replay() if record else None
        result = lint_target(
            target,
            () if whole else limits,
            unsafe_fixes,
            base,
            staged,
            request,
            new_only=new_only,
            replay=prior.again(target, written[target.root]) if prior and written else None,
            record=kept,
            cache=cache,
            jobs=jobs,
        )
        if kept is not None:
            result.replays[key] = kept
        if merged is None:
            merged = result
            continue
        merged.files_checked += result.files_checked
        if result.pre_existing:
            same = merged.merge_base in ("", result.merge_base)
            merged.merge_base = result.merge_base if same else "of each repository"
            merged.pre_existing += result.pre_existing
        merged.indexes.extend(result.indexes)
        merged.replays.update(result.replays)
        merged.limits.extend(result.limits)
        offset = Path(os.path.relpath(result.root, merged.root)).as_posix()
        merged.notices.extend(f"{offset}: {notice}" for notice in result.notices)
        merged.diagnostics.extend(replace(d, path=f"{offset}/{d.path}") for d in result.diagnostics)
        merged.files.extend((f"{offset}/{path}", how) for path, how in result.files)
    if merged is None:
        merged = LintResult(root=nothing[0].root)
    merged.notices.extend(exc.message for exc in nothing)
    merged.diagnostics.sort(key=Diagnostic.sort_key)
    return merged
