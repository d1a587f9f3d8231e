"""AL314-AL315: links and record ids in Markdown notes."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from urllib.parse import unquote

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.fileio import NotRead, read_regular
from agent_lint.index import RepoIndex
from agent_lint.markdown import Token, scan
from agent_lint.validators.references import (
    PathChecker,
    Resolver,
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
    "(`https:`, `mailto:`) are not checked.",
    "[design](../docs/desing.md)  or  [state](summary.md#curent-state)",
    "[design](../docs/design.md)  or  [state](summary.md#current-state)",
)
UNKNOWN_ID_IN_NOTE = Rule(
    "AL315",
    "unknown-id-in-note",
    "A Markdown note mentions a record id that does not exist",
    "Reports an id written in a note (`D-…`, `M-…`, `C-…`, `WP-…`, and `H-…` in the notes of "
    "a conversation) that names no record. A mention counts as an id when it contains a "
    "digit or names an existing record (so words like `C-level` are left alone); an id "
    "followed by a `-slug` resolves to the record it starts with. Ids in fenced code blocks "
    "and inline code are ignored.",
    "Approved in D-0012 (the decision is D-012)",
    "Approved in D-012",
)

RULES = (BROKEN_LINK, UNKNOWN_ID_IN_NOTE)

_PREFIXES = {"D": "decision", "M": "mission", "C": "conversation", "WP": "waitpoint"}
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
_DIGIT = re.compile(r"[0-9]")
_MAX_NOTE_BYTES = 4 * 1024 * 1024


class _Anchors:
    """Heading anchors of Markdown files: from the index, or read once on demand.

    Only regular files that resolve inside the repository are read, opened
    without blocking and up to a size limit: a link to anything else (a FIFO,
    a device, a file outside) is checked for existence alone.
    """

    def __init__(self, index: RepoIndex) -> None:
        self.index = index
        self.cache: dict[str, set[str] | None] = dict(index.anchors)
        self.root_real = os.path.realpath(index.root).rstrip(os.sep) + os.sep

    def of(self, path: str) -> set[str] | None:
        """Anchors of the Markdown file at ``path``; None when it is not read."""
        if path not in self.cache:
            self.cache[path] = self._read(path)
        return self.cache[path]

    def _read(self, path: str) -> set[str] | None:
        full = os.path.join(self.index.root, path)
        try:
            inside = os.path.realpath(full).startswith(self.root_real)
        except (OSError, ValueError):
            return None
        if not inside:
            return None
        try:
            raw = read_regular(full, _MAX_NOTE_BYTES)
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


def _links(
    index: RepoIndex, path: str, links: list[Token], checker: PathChecker, anchors: _Anchors
) -> Iterator[Diagnostic]:
    folder = posixpath.dirname(path)
    for link in links:
        if _SCHEME.match(link.text):
            continue
        target, _, anchor = link.text.partition("#")
        target = unquote(target)
        if not target:
            resolved = path
        elif target.startswith("/"):
            resolved = target.lstrip("/")  # repository-root relative, as GitHub renders it
        else:
            resolved = posixpath.normpath(posixpath.join(folder, target))
        problem = checker.problem(resolved)
        if problem == "missing":
            yield _report(
                BROKEN_LINK, path, f'link target "{link.text}" does not exist ({resolved})', link
            )
            continue
        if problem is not None:
            yield path_diagnostic(
                problem,
                path,
                f'link target "{link.text}"',
                line=link.line,
                column=link.column,
                end_column=link.end_column,
            )
            continue
        if anchor and resolved.endswith(".md"):
            known = anchors.of(resolved)
            if known is not None and unquote(anchor).lower() not in known:
                yield _report(
                    BROKEN_LINK,
                    path,
                    f'link anchor "#{anchor}" names no heading of {resolved}',
                    link,
                )


#: Longest id that a mention followed by a slug is tried as (bounds the work per mention).
_MAX_SLUGGED_ID = 256


def _resolves(resolver: Resolver, namespace: str, scope: str, token: str) -> bool:
    if resolver.exists(namespace, scope, token):
        return True
    # An id followed by a slug (D-001-storage-engine) names the record D-001.
    token = token[: _MAX_SLUGGED_ID + 1]
    cut = token.rfind("-")
    while cut > token.find("-"):
        token = token[:cut]
        if resolver.exists(namespace, scope, token):
            return True
        cut = token.rfind("-")
    return False


def check_notes(index: RepoIndex) -> Iterator[Diagnostic]:
    """Relative links and record ids in Markdown notes resolve (AL314, AL315)."""
    checker = path_checker_of(index)
    anchors = _Anchors(index)
    resolver = resolver_of(index)
    for facts in index.notes:
        yield from _links(index, facts.path, facts.note.links, checker, anchors)
        for mention in facts.note.ids:
            prefix = mention.text.split("-", 1)[0]
            if prefix == "H":
                if not facts.conversation:
                    continue
                namespace, scope = "conversation-handoff", facts.conversation
            else:
                namespace, scope = _PREFIXES[prefix], ""
            if _resolves(resolver, namespace, scope, mention.text):
                continue
            if not _DIGIT.search(mention.text):
                continue
            if not resolver.keeps_records(namespace) and not index.config.strict_references:
                continue
            suggestion = resolver.suggest(namespace, scope, mention.text)
            hint = f'; did you mean "{suggestion}"?' if suggestion else ""
            where = f" in conversation {scope}" if scope else ""
            yield _report(
                UNKNOWN_ID_IN_NOTE,
                facts.path,
                f'"{mention.text}" does not name an existing '
                f"{namespace.replace('-', ' ')}{where}{hint}",
                mention,
            )
