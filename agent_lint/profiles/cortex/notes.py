"""AL314-AL315: links and record ids in Markdown notes."""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from urllib.parse import unquote

from agent_lint.diagnostics import Diagnostic, Rule, Severity
from agent_lint.fileio import NotRead, in_git_dir
from agent_lint.filesystem import DISK, FileSystem
from agent_lint.frozen import replace
from agent_lint.index import NoteFacts, RepoIndex, slug_stems
from agent_lint.jsontext import clip, quote
from agent_lint.markdown import Token, scan
from agent_lint.validators.references import (
    Absent,
    PathChecker,
    Resolver,
    in_history,
    in_renamed_folder,
    path_checker_of,
    path_diagnostic,
    resolver_of,
)

BROKEN_LINK = Rule(
    "AL314",
    "broken-link",
    "A relative link in a Markdown note leads nowhere",
    "Reports a relative link in `summary.md`, `decisions.md`, `artifacts.md`, a handoff "
    "note or a mission note whose file does not exist, or whose `#anchor` names no heading "
    "of the linked Markdown file (anchors as GitHub renders them). Links with a scheme "
    "(`https:`, `mailto:`) are not checked. A link repeated in one note is one finding "
    "with the count. Handoff notes are append-only once merged: a merged note's links are "
    "checked against the commit that added it (a heading or file renamed later is no "
    "finding; a link already broken then is a warning), a note not merged yet is judged like "
    'any other, and without git a broken link is a warning. With `completeness = "partial"` '
    "a link to a missing file is a warning.",
    "[design](../docs/desing.md)  or  [state](summary.md#curent-state)",
    "[design](../docs/design.md)  or  [state](summary.md#current-state)",
)
UNKNOWN_ID_IN_NOTE = Rule(
    "AL315",
    "unknown-id-in-note",
    "A Markdown note mentions a record id that does not exist",
    "Reports an id written in a note (`D-…`, `M-…`, `C-…`, `WP-…`, and `H-…` in the notes of "
    "a conversation) that names no record, once per note and id, with the count and the "
    "first position. Notes number their own items with the same letters (deviations "
    "`D-1`…`D-3`, item 4 of a proposal `D-FAE-002-4`), so a mention is checked only when "
    "it has the shape of the repository's own ids of that kind: the same prefix and the "
    "same sequence of segments, each a short number (1-2 digits), a long number (3 or "
    "more), an upper-case word, a lower-case word or a mixed one, after dropping a "
    "trailing lower-case `-slug`. With `D-001` and `D-TCP-004-add-dsh-host` on disk, "
    "`D-002` and `D-TCP-009` are checked, `D-1` and `D-FAE-002-4` are not; a mention one "
    "character from an existing id (`D-0O1` for `D-001`) is checked too. Kinds with no "
    "record in the repository are not checked, and an id followed by a `-slug` resolves "
    "to the record it starts with. Ids in code are ignored. A warning by default (notes "
    "are prose); `strict = true` checks every mention that contains a digit. With "
    '`completeness = "partial"` unknown ids are summed up in one info finding per kind.',
    "Approved in D-0012 (the decision is D-012)",
    "Approved in D-012",
    severity=Severity.WARNING,
)

RULES = (BROKEN_LINK, UNKNOWN_ID_IN_NOTE)

_PREFIXES = {"D": "decision", "M": "mission", "C": "conversation", "WP": "waitpoint"}
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
_DIGIT = re.compile(r"[0-9]")
_MAX_NOTE_BYTES = 4 * 1024 * 1024


class _Anchors:
    """Heading anchors of Markdown files: from the index, or read once on demand.

    Only regular files that resolve inside the repository (not into a ``.git``
    folder) are read, opened
    without blocking and up to a size limit: a link to anything else (a FIFO,
    a device, a file outside) is checked for existence alone. ``fs`` is where
    they are read (the run's file system, or the tree of an older commit).
    """

    def __init__(self, index: RepoIndex, fs: FileSystem | None = None) -> None:
        self.index = index
        self.fs = fs or index.fs or DISK
        own = fs is None or fs is index.fs
        self.cache: dict[str, set[str] | None] = dict(index.anchors) if own else {}
        self.root_real = self.fs.realpath(str(index.root)).rstrip(os.sep) + os.sep
        self._others: dict[int, _Anchors] = {}

    def on(self, fs: FileSystem) -> _Anchors:
        """The anchors as ``fs`` holds them (one reader per file system)."""
        if fs is self.fs:
            return self
        if id(fs) not in self._others:
            self._others[id(fs)] = _Anchors(self.index, fs)
        return self._others[id(fs)]

    def of(self, path: str) -> set[str] | None:
        """Anchors of the Markdown file at ``path``; None when it is not read."""
        if path not in self.cache:
            self.cache[path] = self._read(path)
        return self.cache[path]

    def _read(self, path: str) -> set[str] | None:
        full = os.path.join(self.index.root, path)
        try:
            real = self.fs.realpath(full)
        except (OSError, ValueError):
            return None
        if not real.startswith(self.root_real) or in_git_dir(real, self.root_real):
            return None
        try:
            raw = self.fs.read(full, _MAX_NOTE_BYTES)
        except NotRead:
            return None
        return scan(raw.decode("utf-8", errors="replace")).anchors


def _report(rule: Rule, path: str, message: str, token: Token) -> Diagnostic:
    return rule.at(
        path,
        message,
        line=token.line,
        column=token.column,
        end_line=token.line,
        end_column=token.end_column,
    )


def _grouped(findings: list[Diagnostic], keys: list[str]) -> Iterator[Diagnostic]:
    """One finding per key: the first, with how often the key occurs in the note."""
    groups: dict[str, list[Diagnostic]] = defaultdict(list)
    for key, finding in zip(keys, findings, strict=True):
        groups[key].append(finding)
    for key, items in groups.items():
        first = items[0]
        if len(items) == 1:
            yield replace(first, key=key)
        else:
            yield replace(
                first,
                message=f"{first.message} ({len(items)} times in this note; first here)",
                key=key,
            )


def _links(
    index: RepoIndex,
    facts: NoteFacts,
    checker: PathChecker,
    anchors: _Anchors,
    broken: dict[tuple[int, int], str],
) -> Iterator[Diagnostic]:
    """AL314 for the note's links; ``broken`` gets where each reported link is, and its
    file name."""
    found: list[Diagnostic] = []
    keys: list[str] = []
    for link in facts.note.links:
        finding = _link_finding(facts.path, link, checker, anchors)
        if finding is not None and finding.code == BROKEN_LINK.code and facts.append_only:
            then = _fine_then(facts.path, link, checker, anchors)
            finding = in_history(index, facts.path, finding, then)
        if finding is None:
            continue
        broken[link.line, link.column] = posixpath.basename(link.text.split("#", 1)[0])
        if finding.key == "missing" and index.config.partial:
            finding = replace(finding, severity=Severity.WARNING)
        found.append(finding)
        keys.append(link.text)
    yield from _grouped(found, keys)


def _fine_then(
    path: str, link: Token, checker: PathChecker, anchors: _Anchors
) -> Callable[[FileSystem], bool]:
    """Whether the link led where it says in the files of an older commit."""
    return lambda old: _link_finding(path, link, checker.on(old), anchors.on(old)) is None


def _target(path: str, link: Token) -> tuple[str, str] | None:
    """The repository path a relative link leads to, and its anchor (None for a URL)."""
    if _SCHEME.match(link.text):
        return None
    target, _, anchor = link.text.partition("#")
    # A query (``?plain=1``, GitHub's source view) is no part of the file's name, as
    # for a browser (a ``?`` the name holds is written ``%3F``); its anchors are that
    # view's (``#L3``), not the rendered note's headings.
    target, queried, _ = target.partition("?")
    target = unquote(target)
    anchor = "" if queried else anchor
    if not target:
        return path, anchor
    if target.startswith("/"):
        return target.lstrip("/"), anchor  # repository-root relative, as GitHub renders it
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), target)), anchor


def _link_finding(
    path: str, link: Token, checker: PathChecker, anchors: _Anchors
) -> Diagnostic | None:
    """What is wrong with one link of the note at ``path`` (None: it leads where it says)."""
    found = _target(path, link)
    if found is None:
        return None
    resolved, anchor = found
    problem = checker.problem(resolved)
    if problem == "ignored":
        checker.index.ignored_targets.add(resolved)
        return None  # kept out of git on purpose: a clone has no file there to judge
    if problem == "missing" and in_renamed_folder(checker, resolved):
        return None  # the folder's rename is its record's AL202
    if problem == "missing":
        return replace(
            _report(
                BROKEN_LINK,
                path,
                f"link target {quote(link.text)} does not exist ({clip(resolved)})",
                link,
            ),
            key="missing",
        )
    if problem is not None:
        return path_diagnostic(
            problem,
            path,
            f"link target {quote(link.text)}",
            line=link.line,
            column=link.column,
            end_column=link.end_column,
        )
    if anchor and resolved.endswith(".md"):
        known = anchors.of(resolved)
        if known is not None and unquote(anchor).lower() not in known:
            return _report(
                BROKEN_LINK,
                path,
                f"link anchor {quote('#' + anchor)} names no heading of {clip(resolved)}",
                link,
            )
    return None


#: Longest id that a mention followed by a slug is tried as (bounds the work per mention).
_MAX_SLUGGED_ID = 256


def _resolves(resolver: Resolver, namespace: str, scope: str, token: str) -> bool:
    if resolver.exists(namespace, scope, token):
        return True
    # An id followed by a slug (D-001-storage-engine) names the record D-001.
    # The slug is cut to a bounded length first: a mention can be any length.
    stems = slug_stems(token[: _MAX_SLUGGED_ID + 1])
    return any(resolver.exists(namespace, scope, stem) for stem in stems)


def _segment(text: str) -> str:
    if text.isascii() and text.isdigit():
        return "9" if len(text) <= 2 else "999"
    if text.isalpha():
        return "A" if text.isupper() else "a" if text.islower() else "Aa"
    return "x"


def id_shape(token: str) -> tuple[str, ...]:
    """The shape of an id: its prefix and the class of each segment, slug dropped.

    ``D-TCP-004-add-dsh-host`` -> ``("D", "A", "999")``; ``D-1`` -> ``("D", "9")``;
    ``D-FAE-002-4`` -> ``("D", "A", "999", "9")``.
    """
    prefix, _, rest = token.partition("-")
    segments = rest.split("-")
    while len(segments) > 1 and segments[-1].isalpha() and segments[-1].islower():
        segments.pop()
    return (prefix, *(_segment(segment) for segment in segments))


def _shapes(resolver: Resolver) -> dict[str, set[tuple[str, ...]]]:
    """The id shapes of the records present, per namespace."""
    shapes: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for (namespace, _), values in (*resolver.ids.items(), *resolver.named.items()):
        for value in values:
            if "-" in value:
                shapes[namespace].add(id_shape(value))
    return shapes


def _checked(
    index: RepoIndex,
    resolver: Resolver,
    shapes: Callable[[], dict[str, set[tuple[str, ...]]]],
    namespace: str,
    text: str,
) -> bool:
    """Whether a mention is judged at all (see the AL315 rule).

    ``shapes`` gives the id shapes of the records present (computed on first
    use: only a mention that resolves to no record needs them).
    """
    if not _DIGIT.search(text):
        return False
    if index.config.strict:
        return resolver.keeps_records(namespace) or index.config.strict_references
    return id_shape(text) in shapes().get(namespace, set()) or _typo(resolver, namespace, text)


def _typo(resolver: Resolver, namespace: str, text: str) -> bool:
    """A mention one character (or a look-alike) away from an existing id: ``D-0O1``."""
    if not resolver.keeps_records(namespace):
        return False
    suggestion = resolver.suggest(namespace, "", text)
    return suggestion is not None and len(suggestion) == len(text)


def check_notes(index: RepoIndex) -> Iterator[Diagnostic]:
    """Relative links and record ids in Markdown notes resolve (AL314, AL315)."""
    checker = path_checker_of(index)
    anchors = _Anchors(index)
    resolver = resolver_of(index)
    shapes = functools.cache(functools.partial(_shapes, resolver))
    absent = Absent()
    anchors.fs.prefetch(
        full
        for facts in index.notes
        for link in facts.note.links
        if (target := _target(facts.path, link)) is not None
        and (full := checker.full(target[0])) is not None
    )
    checker.settle(
        target[0]
        for facts in index.notes
        for link in facts.note.links
        if (target := _target(facts.path, link)) is not None
    )
    for facts in index.notes:
        broken: dict[tuple[int, int], str] = {}
        yield from _links(index, facts, checker, anchors, broken)
        found: list[Diagnostic] = []
        keys: list[str] = []
        # A handoff's note names its own handoff: when that is missing, the note's AL417
        # says so once, not again at each mention.
        own = posixpath.basename(facts.path).removesuffix(".md") if facts.conversation else None
        for mention in facts.note.ids:
            if mention.text == own:
                continue
            # The id that ends a link's text, ``[D-003](../decisions/D-003.json)``, when that
            # link is reported and leads to a file of that name: one link, one finding.
            linked = broken.get((mention.line, mention.end_column + 2))
            if linked is not None and mention.text in linked:
                continue
            prefix = mention.text.split("-", 1)[0]
            if prefix == "H":
                if not facts.conversation:
                    continue
                namespace, scope = "conversation-handoff", facts.conversation
            else:
                namespace, scope = _PREFIXES[prefix], ""
            if _resolves(resolver, namespace, scope, mention.text):
                continue
            if not _checked(index, resolver, shapes, namespace, mention.text):
                continue
            hint = resolver.hint(namespace, scope, mention.text)
            where = f" in conversation {scope}" if scope else ""
            finding = _report(
                UNKNOWN_ID_IN_NOTE,
                facts.path,
                f"{quote(mention.text)} does not name an existing "
                f"{namespace.replace('-', ' ')}{where}{hint}",
                mention,
            )
            if index.config.partial and not scope:
                folder = posixpath.join(index.agent_prefix, index.namespaces[namespace].folder)
                absent.add(folder, mention.text, finding)
                continue
            found.append(finding)
            keys.append(mention.text)
        yield from _grouped(found, keys)
    yield from absent.summaries()
