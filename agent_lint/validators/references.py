"""AL301-AL303: id references and path references.

All checks here run on the repository index after the one pass: each
reference is resolved with one hash look-up, so the work grows linearly with
the number of references.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

from agent_lint.config import in_git_folder, over_limit
from agent_lint.diagnostics import Diagnostic, Rule, Severity
from agent_lint.filesystem import DISK, AddedIn, FileSystem, Standing
from agent_lint.frozen import field, record, replace
from agent_lint.index import PathReference, RepoIndex
from agent_lint.jsontext import clip, quote
from agent_lint.suggest import Suggester
from agent_lint.validators.files import LIMIT_EXCEEDED

DANGLING_REFERENCE = Rule(
    "AL301",
    "dangling-reference",
    "A reference names a record that does not exist",
    "Reports an id in a reference field (`decisions_refs`, `mission_id`, `depends_on`, "
    "`handoffs[].handoff_id`, `current_run_id`, …) that names no record of the expected kind "
    "and scope: decisions, missions and the like anywhere in the repository, milestones in "
    "the same mission, handoffs in the same conversation. An agent following the reference "
    "finds nothing. A close existing id is suggested. References to a kind the repository "
    "keeps no records of (no `tasks/` folder, or one with only an index and schemas) are "
    'skipped unless `strict-references = true`. With `completeness = "partial"` the '
    "references to absent records are summed up in one info finding per folder. A value a "
    "more specific finding already reports at the same place is not reported again: "
    "state.json's `latest_handoff_id` (AL503), meta.json's `handoffs[]` (AL406), a handoff's "
    "`conversation_id` (AL403) or a mission handoff's `mission_id` (AL415); nor is a "
    "copy of a dangling id (meta.json's `state` lists, which copy the latest handoff's "
    "`context_pointer`: the handoff's AL301).",
    '{"mission_id": "M-0O4"}  (the mission is M-004)',
    '{"mission_id": "M-004"}',
)
MISSING_PATH = Rule(
    "AL302",
    "missing-path",
    "A path reference names a file that does not exist",
    "Reports a repository path in a record (`summary_ref`, `*_ref`, `evidence_refs`, "
    "`artifact_refs`, `artifacts.completed`, …) that does not exist. Paths are relative to "
    "the repository root; brace lists (`dir/{a,b}.json`) are expanded (the missing "
    "alternatives of one value are one finding); values with a URI "
    "scheme (`proposal:`, `https://`) are not paths unless `path-schemes` maps the scheme "
    "to a folder; values with `*` or `?` are patterns and are not checked; a note in "
    "parentheses after the path (`lib/x.js (712 lines)`) is not part of it. When a file of "
    "that name exists in another folder, or a close name in the same folder, it is "
    "suggested. Handoffs are append-only once merged: in a merged handoff a path is checked "
    "against the commit that added the handoff (renaming the file later is no finding; a "
    "path already missing then is a warning), in one not merged yet a missing path is an "
    "error, and without git a warning (always an error with `strict = true`). A decision's "
    "or waitpoint's "
    "`gate.resource_ref` names the gated resource (often a revision or a branch, not a "
    "file) and is checked as a path only with `strict = true`. With `completeness = "
    '"partial"` missing paths inside the agent dir are summed up in one info finding per '
    "folder, unless a file of that name exists elsewhere.",
    '{"summary_ref": ".agent/conversations/C-1/sumary.md"}',
    '{"summary_ref": ".agent/conversations/C-1/summary.md"}',
)
UNSAFE_PATH = Rule(
    "AL303",
    "unsafe-path",
    "A path reference is absolute or leads outside the repository",
    "Reports a path in a record or a Markdown link that is absolute, climbs out of the "
    "repository with `..`, or passes through a symbolic link that leaves it. Such a path "
    "means something different on every machine, and agent-lint never opens it.",
    '{"artifact_refs": ["/home/me/project/design.md", "../other-repo/notes.md"]}',
    '{"artifact_refs": ["docs/design.md"]}',
)
RULES = (DANGLING_REFERENCE, MISSING_PATH, UNSAFE_PATH)

_HINT = re.compile(r'; did you mean "[^"]*"\?')
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_BRACES = re.compile(r"\{([^{}]*)\}")
_REVISION = re.compile(r"@[0-9A-Fa-f]{7,64}\Z")
_DIGITS = frozenset("0123456789")


@record
class Resolver:
    """Answers "does this id exist in this namespace and scope?" with hash look-ups."""

    index: RepoIndex
    ids: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    suggesters: dict[tuple[str, str], Suggester] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for identity in self.index.identities:
            self.ids[(identity.namespace, identity.scope)].add(identity.id)
        self.named: dict[tuple[str, str], set[str]] = defaultdict(set)
        for namespace, scope, name in self.index.names:
            self.named[(namespace, scope)].add(name)
        self.present = {key[0] for key in self.ids} | {key[0] for key in self.named}

    def exists(self, namespace: str, scope: str, value: str) -> bool:
        """True when ``value`` is an id, or a record file's name, in that namespace and scope."""
        self.index.lookups += 1
        key = (namespace, scope)
        if value in self.ids.get(key, ()) or value in self.named.get(key, ()):
            return True
        return self.index.may_hide(namespace, scope)  # a folder not listed may hold it

    def keeps_records(self, namespace: str) -> bool:
        """Whether the repository keeps records of the namespace at all.

        A folder that holds no record (the runtime ships ``tasks/`` with only an
        index and schemas) does not count.
        """
        known = self.index.namespaces.get(namespace)
        if known is not None and known.within:
            return True
        return namespace in self.present

    def hint(self, namespace: str, scope: str, value: str) -> str:
        """``; did you mean "X"?`` for a likely typo of an existing id, else nothing.

        An existing id that differs only in its digits (``M-003`` for ``M-002``)
        is another record, not a typo, and is not suggested. When the existing id
        is the one that mixes a letter into its digits (``MS-0O2`` for the
        ``MS-002`` references name), the typo is likely its own: it is named as
        such, not suggested.
        """
        suggestion = self.suggest(namespace, scope, value)
        if suggestion is None or _other_number(suggestion, value):
            return ""
        if _as_digits(suggestion) == value and _as_digits(value) == value:
            return f'; the existing "{suggestion}" may be the typo'
        return f'; did you mean "{suggestion}"?'

    def known(self, namespace: str, scope: str, shown: int = 5) -> str:
        """The ids of a namespace and scope for a message: the first few, then how many more."""
        names = sorted(
            self.ids.get((namespace, scope), set()) | self.named.get((namespace, scope), set())
        )
        text = ", ".join(clip(name) for name in names[:shown])
        return f"{text} and {len(names) - shown} more" if len(names) > shown else text

    def suggest(self, namespace: str, scope: str, value: str) -> str | None:
        """A close existing id, built lazily per namespace and scope."""
        key = (namespace, scope)
        if key not in self.suggesters:
            suggester = Suggester(self.index.config.limits.max_suggestion_length)
            for existing in self.ids.get(key, set()) | self.named.get(key, set()):
                suggester.add(existing)
            self.suggesters[key] = suggester
        suggester = self.suggesters[key]
        before = suggester.probes
        suggestion = suggester.suggest(value)
        self.index.lookups += suggester.probes - before
        return suggestion


def without_note(value: str) -> str:
    """A path followed by a note in parentheses, without the note.

    ``"lib/x.js (712 lines, F-006)"`` -> ``"lib/x.js"``. Linear in the length
    of the value (the obvious pattern ``\\s+\\([^()]*\\)$`` backtracks over a long
    run of spaces).
    """
    if not value.endswith(")"):
        return value
    opening = value.rfind("(")
    if opening <= 0 or ")" in value[opening + 1 : -1]:
        return value
    head = value[:opening]
    kept = head.rstrip()
    return kept if len(kept) < len(head) else value


_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1"})


def _as_digits(text: str) -> str:
    """``text`` with the letters typed for digits among digits made digits: ``MS-0O2`` ->
    ``MS-002``; other letters stay (``D-OPS-1`` is not ``D-0PS-1``)."""
    chars = list(text)
    for position, ch in enumerate(chars):
        if ch in "OolI":
            before = chars[position - 1] if position else ""
            after = text[position + 1] if position + 1 < len(text) else ""
            if before in _DIGITS or after in _DIGITS:
                chars[position] = ch.translate(_LOOKALIKES)
    return "".join(chars)


def _other_number(a: str, b: str) -> bool:
    """Same length, and every differing character is a digit in both."""
    if len(a) != len(b) or a == b:
        return False
    return all(x in _DIGITS and y in _DIGITS for x, y in zip(a, b, strict=True) if x != y)


@record
class Lookups:
    """What the reference checks build once per run and share (a typed store of the index)."""

    resolver: Resolver | None = None
    paths: PathChecker | None = None
    folders: dict[str, list[str]] | None = None


def resolver_of(index: RepoIndex) -> Resolver:
    """The repository's :class:`Resolver`, built once and shared by the checks."""
    lookups = index.store(Lookups)
    if lookups.resolver is None:
        lookups.resolver = Resolver(index)
    return lookups.resolver


def path_checker_of(index: RepoIndex) -> PathChecker:
    """The repository's :class:`PathChecker`, built once and shared by the checks."""
    lookups = index.store(Lookups)
    if lookups.paths is None:
        lookups.paths = PathChecker(index)
    return lookups.paths


def _where(index: RepoIndex, namespace: str, scope: str) -> str:
    """Where a scoped id was looked for (`` in conversation C-1``), from the namespace."""
    known = index.namespaces.get(namespace)
    if known is None or not known.within:
        return ""
    return " " + known.within.format(scope=scope)


class Absent:
    """Findings about records a partial snapshot does not contain, summed up per folder.

    With ``completeness = "partial"``, each rule reports one info finding per
    folder of absent records, at the first place that points into it, with the
    count and the first few names.
    """

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str], list[tuple[Diagnostic, str]]] = defaultdict(list)

    def add(self, folder: str, name: str, diagnostic: Diagnostic) -> None:
        """Count ``diagnostic`` (about the absent ``name``) towards ``folder``."""
        self.groups[(diagnostic.code, folder.rstrip("/") or ".")].append((diagnostic, name))

    def summaries(self) -> Iterator[Diagnostic]:
        """One info finding per (rule, folder)."""
        for (_, folder), items in sorted(self.groups.items()):
            items.sort(key=lambda item: (item[0].path, item[0].line or 0, item[0].pointer))
            first, _ = items[0]
            said = _HINT.sub("", first.message)
            names = list(dict.fromkeys(name for _, name in items))
            shown = ", ".join(clip(name) for name in names[:3])
            shown += f" and {len(names) - 3} more" if len(names) > 3 else ""
            count = f"{len(items)} reference{'s' if len(items) != 1 else ''}"
            yield replace(
                first,
                severity=Severity.INFO,
                message=(
                    f"partial snapshot: {count} to {len(names)} "
                    f"name{'s' if len(names) != 1 else ''} absent from {folder}/ ({shown}); "
                    f"first: {said}"
                ),
                key=f"absent from {folder}",
            )


def check_references(index: RepoIndex) -> Iterator[Diagnostic]:
    """Every id in a declared reference field names an existing record (AL301)."""
    resolver = resolver_of(index)
    absent = Absent()
    for ref in index.references:
        if resolver.exists(ref.namespace, ref.scope, ref.value):
            continue
        title = index.namespaces[ref.namespace].title
        if not resolver.keeps_records(ref.namespace):
            if not index.config.strict_references:
                continue
            folder = posixpath.join(index.agent_prefix, index.namespaces[ref.namespace].folder)
            yield DANGLING_REFERENCE.at(
                ref.path,
                f"{ref.field} {quote(ref.value)} names a {title}, but the repository keeps no "
                f"{title} records (no {folder}/ folder)",
                pointer=ref.pointer,
            )
            continue
        files = index.namespaces[ref.namespace].files
        if files:
            said = (
                f"{ref.field} {quote(ref.value)} names no {title} file; expected one of "
                f"{resolver.known(ref.namespace, ref.scope)} ({files})"
            )
        else:
            hint = resolver.hint(ref.namespace, ref.scope, ref.value)
            said = (
                f"{ref.field} {quote(ref.value)} does not name an existing {title}"
                f"{_where(index, ref.namespace, ref.scope)}{hint}"
            )
        finding = DANGLING_REFERENCE.at(ref.path, said, pointer=ref.pointer)
        if index.config.partial and ref.scope == "":
            folder = posixpath.join(index.agent_prefix, index.namespaces[ref.namespace].folder)
            absent.add(folder, ref.value, finding)
        else:
            yield finding
    yield from absent.summaries()


class TooManyAlternatives(ValueError):
    """A brace list expands to more paths than the ``max-brace-alternatives`` limit."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} alternatives")
        self.count = count


def expand_braces(value: str, limit: int | None = None) -> list[str]:
    """Expand shell-style brace lists: ``a/{b,c}.json`` -> ``a/b.json``, ``a/c.json``.

    The number of paths is computed first; more than ``limit`` raises
    :class:`TooManyAlternatives` before any is built.
    """
    parts: list[list[str]] = []
    position = 0
    count = 1
    for match in _BRACES.finditer(value):
        choices = match.group(1).split(",")
        parts.extend(([value[position : match.start()]], choices))
        position = match.end()
        count *= len(choices)
        if limit is not None and count > limit:
            raise TooManyAlternatives(count)
    parts.append([value[position:]])
    return ["".join(combination) for combination in itertools.product(*parts)]


@record
class PathChecker:
    """Classifies repository paths without opening them; results are cached.

    Existence is asked of ``fs`` (the run's file system by default; a merged
    record's paths are checked in the tree of the commit that added it).
    """

    index: RepoIndex
    cache: dict[str, str | None] = field(default_factory=dict)
    fs: FileSystem | None = None

    def __post_init__(self) -> None:
        self.fs = self.fs or self.index.fs or DISK
        self.root = str(self.index.root)
        self.root_real = self.fs.realpath(self.root)
        self.schemes = dict(self.index.config.path_schemes)
        self._others: dict[int, PathChecker] = {}
        self.seen = self._seen() if self.fs is (self.index.fs or DISK) else frozenset()

    def _seen(self) -> frozenset[str]:
        """Repository paths the walk of this run already found inside the repository.

        Every file the walk judged safe to read, and the folders between the
        agent dir and it: the walk enters only real folders (never a link), and
        the agent dir itself resolves inside the repository, so each of these
        exists and resolves inside. A path not among them is asked of the file
        system as before.
        """
        seen = set(self.index.walked)
        top = self.index.agent_prefix
        for path in self.index.walked:
            folder = posixpath.dirname(path)
            while folder and folder not in seen and (not top or f"{folder}/".startswith(f"{top}/")):
                seen.add(folder)
                if folder == top:
                    break
                folder = posixpath.dirname(folder)
        return frozenset(seen)

    def on(self, fs: FileSystem) -> PathChecker:
        """The checker of the same repository asking ``fs`` (one per file system)."""
        if fs is self.fs:
            return self
        if id(fs) not in self._others:
            self._others[id(fs)] = PathChecker(self.index, fs=fs)
        return self._others[id(fs)]

    def full(self, path: str) -> str | None:
        """The absolute path of a repository path that can exist (None: absolute, outside)."""
        if path.startswith(("/", "\\")) or _DRIVE.match(path):
            return None
        normal = posixpath.normpath(path.replace("\\", "/"))
        if normal == ".." or normal.startswith("../"):
            return None
        return os.path.join(self.root, normal)

    def to_repo_path(self, value: str) -> str | None:
        """Map a record value to a repository path, or None when it is not a path."""
        scheme = _SCHEME.match(value)
        if scheme and not _DRIVE.match(value):
            folder = self.schemes.get(scheme.group(1).lower())
            if folder is None:
                return None
            rest = _REVISION.sub("", value[scheme.end() :].lstrip("/"))
            value = posixpath.join(folder, rest) if folder not in ("", ".") else rest
        if any(ch in value for ch in "*?"):
            return None
        value = self.index.in_repository(value.split("#", 1)[0])
        if self.index.config.strict:
            return value
        return without_note(value)

    def settle(self, paths: Iterable[str]) -> None:
        """Ask git once which of ``paths`` it ignores (a repository keeps its notes or
        summaries on each machine): such a path is not judged, there or missing, so a
        clone in CI and the work tree agree. Their :meth:`problem` is then ``ignored``."""
        ignores = self.index.git_ignores
        if ignores is None or not self.seen:
            return  # no ignore rule; or a commit's tree (what it holds is committed)
        unsure = {}
        for path in paths:
            if self.problem(path) in (None, "missing"):
                normal = posixpath.normpath(path.replace("\\", "/"))
                if normal not in self.seen:
                    unsure[path] = normal
        ignored = ignores.among(unsure.values())
        for path, normal in unsure.items():
            if normal in ignored:
                self.cache[path] = "ignored"

    def problem(self, path: str) -> str | None:
        """Why ``path`` (repository-relative) is unusable: absolute, outside, missing;
        ``ignored`` when :meth:`settle` found that git ignores it."""
        if path in self.cache:
            return self.cache[path]
        found: str | None = None
        if path.startswith(("/", "\\")) or _DRIVE.match(path):
            found = "absolute"
        else:
            normal = posixpath.normpath(path.replace("\\", "/"))
            if normal == ".." or normal.startswith("../"):
                found = "outside"
            elif in_git_folder(normal.split("/")):
                found = "git"  # git's own files: whether one exists is never told
            elif normal in self.seen:
                found = None
            else:
                fs = self.fs
                assert fs is not None
                full = os.path.join(self.root, normal)
                # Where the path leads is settled before whether it exists: a path that
                # leaves through a link gets the same answer whether or not its target
                # outside exists, so the run cannot probe the machine's file system.
                try:
                    real = fs.realpath(full)
                except (OSError, ValueError):
                    real = ""  # a link on the way cannot be resolved: not followed
                if real != self.root_real and not real.startswith(self.root_real + os.sep):
                    found = "symlink"
                elif real and in_git_folder(real[len(self.root_real) :].split(os.sep)):
                    found = "git"  # through a link into .git: no more told than directly
                elif not fs.exists(full):
                    found = "missing"
                if found == "missing" and self.index.hides(normal):
                    found = None  # in a folder that could not be listed: unknown, not missing
        self.cache[path] = found
        return found


_PATH_MESSAGES = {
    "absolute": "is an absolute path; paths in records are relative to the repository root",
    "outside": "climbs out of the repository; paths must stay inside it",
    "symlink": "passes through a symbolic link that leads outside the repository; not followed",
    "git": "points into a .git folder, git's own files, not a file of the repository",
}


def path_diagnostic(
    problem: str,
    path: str,
    subject: str,
    pointer: str = "",
    line: int | None = None,
    column: int | None = None,
    end_column: int | None = None,
    hint: str = "",
) -> Diagnostic:
    """The finding for a path ``problem`` reported by :class:`PathChecker`."""
    rule, text = (
        (MISSING_PATH, f"{subject} does not exist{hint}")
        if problem == "missing"
        else (UNSAFE_PATH, f"{subject} {_PATH_MESSAGES[problem]}")
    )
    return rule.at(
        path,
        text,
        pointer=pointer,
        line=line,
        column=column,
        end_line=line,
        end_column=end_column,
    )


def _shared_folders(a: str, b: str) -> int:
    """How many leading folders the paths ``a`` and ``b`` have in common."""
    shared = 0
    for left, right in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if left != right:
            break
        shared += 1
    return shared


def elsewhere(index: RepoIndex, path: str, referrer: str = "") -> str | None:
    """An existing file the missing ``path`` probably meant.

    A file of the same name in another folder of the agent dir, or a close
    name in the same folder: the path is wrong, the record is not absent.
    Of several files of that name, the nearest wins: the one sharing most
    folders with ``path``, then with the ``referrer`` (the record that holds
    the path), so a conversation's own file beats another conversation's. When
    several are equally near (a ``README.md`` in many folders), none is named:
    picking one would be a guess.
    """
    name = posixpath.basename(path)
    same = [p for p in index.file_names.get(name, ()) if p != path]
    if same:
        nearness = {p: (_shared_folders(p, path), _shared_folders(p, referrer)) for p in same}
        best = max(nearness.values())
        nearest = [p for p, near in nearness.items() if near == best]
        return nearest[0] if len(nearest) == 1 else None
    lookups = index.store(Lookups)
    if lookups.folders is None:
        folders: dict[str, list[str]] = defaultdict(list)
        for candidates in index.file_names.values():
            for candidate in candidates:
                folders[posixpath.dirname(candidate)].append(posixpath.basename(candidate))
        lookups.folders = folders
    folder = posixpath.dirname(path)
    siblings = [
        sibling
        for sibling in lookups.folders.get(folder, [])
        # D-002.json is another record, not a typo; nor is the record that names the path.
        if not _other_number(sibling, name) and posixpath.join(folder, sibling) != referrer
    ]
    import difflib  # loaded for a suggestion only

    close = difflib.get_close_matches(name, siblings, n=1, cutoff=0.8)
    return posixpath.join(folder, close[0]) if close else None


def in_history(
    index: RepoIndex, record: str, finding: Diagnostic, fine_in: Callable[[FileSystem], bool]
) -> Diagnostic | None:
    """A broken path or link of an append-only record, as its history has it reported.

    A merged record (see :class:`~agent_lint.filesystem.Origins`) is judged in
    the tree of the commit that added it: None when the path was fine there (it
    was renamed or removed since, which never forces a rewrite of history), a
    warning saying so when it was already broken. A record not merged yet can
    still be fixed: the finding keeps its rule's severity. Without git it is a
    warning. ``strict = true`` judges every record in the current tree.
    """
    if index.config.strict:
        return finding
    origin = index.history.origin(record) if index.history is not None else Standing.UNKNOWN
    if origin is Standing.UNMERGED:
        return finding
    if not isinstance(origin, AddedIn):
        return replace(finding, severity=Severity.WARNING)
    if fine_in(origin.fs):
        return None
    from agent_lint.baseline import normalised_message  # only for a record git added

    return replace(
        finding,
        severity=Severity.WARNING,
        message=f"{finding.message} (also in {origin.commit}, the commit that added "
        f"{posixpath.basename(record)})",
        key=finding.key or normalised_message(finding),
    )


def _exists_in(checker: PathChecker, path: str) -> Callable[[FileSystem], bool]:
    """Whether ``path`` existed in the files of an older commit."""
    return lambda old: checker.on(old).problem(path) is None


def _candidates(
    index: RepoIndex, checker: PathChecker
) -> Iterator[tuple[PathReference | Diagnostic, list[str]]]:
    """Each path reference with the paths it names, or with the finding that it names too many."""
    limit = index.config.limits.max_brace_alternatives
    # Records repeat the same paths many times: each distinct value is mapped once.
    named: dict[str, list[str] | int | None] = {}
    for ref in index.paths:
        if ref.strict_only and not index.config.strict:
            continue
        if ref.value not in named:
            target = checker.to_repo_path(ref.value)
            try:
                named[ref.value] = None if target is None else expand_braces(target, limit)
            except TooManyAlternatives as exc:
                named[ref.value] = exc.count
        paths = named[ref.value]
        if paths is None:
            continue
        if isinstance(paths, list):
            yield ref, paths
            continue
        yield (
            LIMIT_EXCEEDED.at(
                ref.path,
                f"{ref.field} expands to more than {limit} paths; not checked: "
                f"{over_limit('max-brace-alternatives', limit)}",
                pointer=ref.pointer,
            ),
            [],
        )


def in_renamed_folder(checker: PathChecker, path: str) -> bool:
    """Whether ``path`` names a record file by its id, which the record holds under a new
    name (:func:`~agent_lint.validators.identity.renamed_files`), or a file in the folder
    its record's id names, which the folder holds under its new name
    (:func:`~agent_lint.validators.identity.renamed_folders`)."""
    from agent_lint.validators.identity import renamed_files, renamed_folders

    if path in renamed_files(checker.index) or path in checker.index.stand_ins:
        return True
    for folder, named in renamed_folders(checker.index).items():
        if path.startswith(f"{named}/") and checker.problem(folder + path[len(named) :]) is None:
            return True
    return False


def check_paths(index: RepoIndex) -> Iterator[Diagnostic]:
    """Path references exist inside the repository (AL302, AL303)."""
    checker = path_checker_of(index)
    absent = Absent()
    items = list(_candidates(index, checker))
    fs = checker.fs
    assert fs is not None
    fs.prefetch(
        full for _, candidates in items for c in candidates if (full := checker.full(c)) is not None
    )
    checker.settle(
        c for ref, candidates in items if not isinstance(ref, Diagnostic) for c in candidates
    )
    for ref, candidates in items:
        if isinstance(ref, Diagnostic):
            yield ref
            continue
        missing: list[tuple[str, Diagnostic]] = []  # of this value's brace alternatives
        for candidate in candidates:
            problem = checker.problem(candidate)
            if problem == "ignored":
                index.ignored_targets.add(posixpath.normpath(candidate))
            if problem in (None, "ignored"):
                continue
            shown = f"{ref.field} {quote(candidate)}"
            if candidate != ref.value:
                shown += f" (from {quote(ref.value)})"
            if problem != "missing":
                yield path_diagnostic(problem, ref.path, shown, pointer=ref.pointer)
                break
            if in_renamed_folder(checker, posixpath.normpath(candidate)):
                continue  # the folder's rename is its record's AL202
            meant = elsewhere(index, posixpath.normpath(candidate), ref.path)
            hint = f'; did you mean "{meant}"?' if meant else ""
            finding = path_diagnostic(problem, ref.path, shown, pointer=ref.pointer, hint=hint)
            if ref.append_only:
                judged = in_history(index, ref.path, finding, _exists_in(checker, candidate))
                if judged is None:
                    continue
                finding = judged
            folder = posixpath.dirname(posixpath.normpath(candidate))
            in_agent_dir = not index.agent_prefix or f"{folder}/".startswith(
                f"{index.agent_prefix}/"
            )
            if index.config.partial and meant is None and in_agent_dir:
                absent.add(folder, candidate, finding)
            else:
                missing.append((candidate, finding))
        yield from _one_per_value(missing)
    yield from absent.summaries()


def _one_per_value(missing: list[tuple[str, Diagnostic]]) -> Iterator[Diagnostic]:
    """The findings of one path value's missing alternatives (``dir/{a,b}.md``): those of
    one code and severity as one finding, at the first, naming the others."""
    groups: dict[tuple[str, Severity], list[tuple[str, Diagnostic]]] = defaultdict(list)
    for candidate, finding in missing:
        groups[(finding.code, finding.severity)].append((candidate, finding))
    for group in groups.values():
        first = group[0][1]
        if len(group) > 1:
            others = [quote(candidate) for candidate, _ in group[1:]]
            verb = "does" if len(others) == 1 else "do"
            first = replace(first, message=f"{first.message}; nor {verb} {', '.join(others)}")
        yield first
