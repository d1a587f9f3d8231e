"""AL301-AL303, AL316: id references, path references and relations agreement.

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
from collections.abc import Iterator
from dataclasses import dataclass, field

from agent_lint.config import over_limit
from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.index import RepoIndex
from agent_lint.kinds import NAMESPACES
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
    "keeps no records of (no `tasks/` folder) are skipped unless `strict-references = true`.",
    '{"mission_id": "M-0O4"}  (the mission is M-004)',
    '{"mission_id": "M-004"}',
)
MISSING_PATH = Rule(
    "AL302",
    "missing-path",
    "A path reference names a file that does not exist",
    "Reports a repository path in a record (`summary_ref`, `*_ref`, `evidence_refs`, "
    "`artifact_refs`, `artifacts.completed`, …) that does not exist. Paths are relative to "
    "the repository root; brace lists (`dir/{a,b}.json`) are expanded; values with a URI "
    "scheme (`proposal:`, `https://`) are not paths unless `path-schemes` maps the scheme "
    "to a folder; values with `*` or `?` are patterns and are not checked.",
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
RELATIONS_MISMATCH = Rule(
    "AL316",
    "relations-mismatch",
    "relations.yaml disagrees with meta.json relations",
    "Reports a conversation whose `relations.yaml` and `meta.json` `relations` list "
    "different missions, tasks or conversations (compared as sets). One of the two was "
    "updated and the other was not, so agents see different bindings.",
    "relations.yaml: mission_ids [M-001, M-002]; meta.json relations.mission_ids: [M-001]",
    "the same set of ids in both files",
)

RULES = (DANGLING_REFERENCE, MISSING_PATH, UNSAFE_PATH, RELATIONS_MISMATCH)

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_BRACES = re.compile(r"\{([^{}]*)\}")
_REVISION = re.compile(r"@[0-9A-Fa-f]{7,64}\Z")


@dataclass
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

    def exists(self, namespace: str, scope: str, value: str) -> bool:
        """True when ``value`` is an id, or a record file's name, in that namespace and scope."""
        self.index.lookups += 1
        key = (namespace, scope)
        return value in self.ids.get(key, ()) or value in self.named.get(key, ())

    def keeps_records(self, namespace: str) -> bool:
        """Whether the repository has a folder for the namespace's records at all."""
        if namespace in ("milestone", "conversation-handoff"):
            return True
        return NAMESPACES[namespace].folder in self.index.folders

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


def resolver_of(index: RepoIndex) -> Resolver:
    """The repository's :class:`Resolver`, built once and shared by the checks."""
    if "resolver" not in index.shared:
        index.shared["resolver"] = Resolver(index)
    resolver: Resolver = index.shared["resolver"]
    return resolver


def path_checker_of(index: RepoIndex) -> PathChecker:
    """The repository's :class:`PathChecker`, built once and shared by the checks."""
    if "paths" not in index.shared:
        index.shared["paths"] = PathChecker(index)
    checker: PathChecker = index.shared["paths"]
    return checker


def _where(namespace: str, scope: str) -> str:
    if namespace == "conversation-handoff":
        return f" in conversation {scope}"
    if namespace == "milestone":
        return " in this mission"
    return ""


def check_references(index: RepoIndex) -> Iterator[Diagnostic]:
    """Every id in a declared reference field names an existing record (AL301)."""
    resolver = resolver_of(index)
    for ref in index.references:
        if resolver.exists(ref.namespace, ref.scope, ref.value):
            continue
        title = NAMESPACES[ref.namespace].title
        if not resolver.keeps_records(ref.namespace):
            if not index.config.strict_references:
                continue
            folder = posixpath.join(index.agent_prefix, NAMESPACES[ref.namespace].folder)
            yield DANGLING_REFERENCE.at(
                ref.path,
                f'{ref.field} "{ref.value}" names a {title}, but the repository keeps no '
                f"{title} records (no {folder}/ folder)",
                pointer=ref.pointer,
            )
            continue
        suggestion = resolver.suggest(ref.namespace, ref.scope, ref.value)
        hint = f'; did you mean "{suggestion}"?' if suggestion else ""
        yield DANGLING_REFERENCE.at(
            ref.path,
            f'{ref.field} "{ref.value}" does not name an existing {title}'
            f"{_where(ref.namespace, ref.scope)}{hint}",
            pointer=ref.pointer,
        )


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


@dataclass
class PathChecker:
    """Classifies repository paths without opening them; results are cached."""

    index: RepoIndex
    cache: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root = str(self.index.root)
        self.root_real = os.path.realpath(self.root)
        self.schemes = dict(self.index.config.path_schemes)

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
        return value.split("#", 1)[0]

    def problem(self, path: str) -> str | None:
        """Why ``path`` (repository-relative) is unusable: absolute, outside, missing."""
        if path in self.cache:
            return self.cache[path]
        found: str | None = None
        if path.startswith(("/", "\\")) or _DRIVE.match(path):
            found = "absolute"
        else:
            normal = posixpath.normpath(path.replace("\\", "/"))
            if normal == ".." or normal.startswith("../"):
                found = "outside"
            else:
                full = os.path.join(self.root, normal)
                if not os.path.lexists(full):
                    found = "missing"
                else:
                    try:
                        real = os.path.realpath(full)
                    except (OSError, ValueError):
                        real = ""  # a link on the way cannot be resolved: not followed
                    if real != self.root_real and not real.startswith(self.root_real + os.sep):
                        found = "symlink"
                    elif not os.path.exists(full):
                        found = "missing"
        self.cache[path] = found
        return found


_PATH_MESSAGES = {
    "absolute": "is an absolute path; paths in records are relative to the repository root",
    "outside": "climbs out of the repository; paths must stay inside it",
    "symlink": "passes through a symbolic link that leads outside the repository; not followed",
}


def path_diagnostic(
    problem: str,
    path: str,
    subject: str,
    pointer: str = "",
    line: int | None = None,
    column: int | None = None,
    end_column: int | None = None,
) -> Diagnostic:
    """The finding for a path ``problem`` reported by :class:`PathChecker`."""
    rule, text = (
        (MISSING_PATH, f"{subject} does not exist")
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


def check_paths(index: RepoIndex) -> Iterator[Diagnostic]:
    """Path references exist inside the repository (AL302, AL303)."""
    checker = path_checker_of(index)
    for ref in index.paths:
        target = checker.to_repo_path(ref.value)
        if target is None:
            continue
        limit = index.config.limits.max_brace_alternatives
        try:
            candidates = expand_braces(target, limit)
        except TooManyAlternatives:
            yield LIMIT_EXCEEDED.at(
                ref.path,
                f"{ref.field} expands to more than {limit} paths; not checked: "
                f"{over_limit('max-brace-alternatives', limit)}",
                pointer=ref.pointer,
            )
            continue
        for candidate in candidates:
            problem = checker.problem(candidate)
            if problem is None:
                continue
            shown = f'{ref.field} "{candidate}"'
            if candidate != ref.value:
                shown += f' (from "{ref.value}")'
            yield path_diagnostic(problem, ref.path, shown, pointer=ref.pointer)
            if problem != "missing":
                break


_RELATION_KEYS = ("mission_ids", "task_ids", "conversation_ids")


def _ids(values: object) -> set[str]:
    return {v for v in values if isinstance(v, str)} if isinstance(values, list) else set()


def check_relations(index: RepoIndex) -> Iterator[Diagnostic]:
    """relations.yaml equals meta.json ``relations`` as sets (AL316)."""
    for conversation in sorted(index.relations):
        sides = index.relations[conversation]
        if "yaml" not in sides:
            continue
        yaml_path, yaml_data = sides["yaml"]
        meta_path, meta_data = sides.get("meta", ("meta.json", {}))
        for key in _RELATION_KEYS:
            in_yaml, in_meta = _ids(yaml_data.get(key)), _ids(meta_data.get(key))
            if in_yaml == in_meta:
                continue
            parts = []
            if in_yaml - in_meta:
                parts.append(
                    f"lists {', '.join(sorted(in_yaml - in_meta))}, which "
                    f"meta.json relations.{key} does not"
                )
            if in_meta - in_yaml:
                parts.append(
                    f"lacks {', '.join(sorted(in_meta - in_yaml))}, which "
                    f"meta.json relations.{key} lists"
                )
            yield RELATIONS_MISMATCH.at(
                yaml_path,
                f"relations.yaml {key} {' and '.join(parts)} ({meta_path})",
                pointer=f"/{key}" if key in yaml_data else "",
            )
