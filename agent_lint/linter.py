"""The lint run: one pass over files, then the repo-wide checks, then selection.

Each file is read and parsed once; per-file checks run on the parsed data;
the facts repo-wide checks need go into a :class:`RepoIndex`; the data is
dropped. Positions are computed afterwards, only for files with findings.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from pathlib import Path

from agent_lint import fixer, gitgate
from agent_lint.config import Config, Limits
from agent_lint.diagnostics import Diagnostic, Fix, Severity
from agent_lint.discovery import Target, find_target, read_file, relative, top_folders, walk
from agent_lint.index import FileContext, RepoIndex
from agent_lint.kinds import Format, classify, is_data_file
from agent_lint.loading import parse, split_front_matter
from agent_lint.positions import Locations, ScanError, locate_json, locate_yaml
from agent_lint.schemas import SchemaStore
from agent_lint.validators import FILE_CHECKS, REPO_CHECKS, RULES_BY_CODE
from agent_lint.validators.files import LIMIT_EXCEEDED


@dataclass
class LintResult:
    """Everything a reporter needs: the root, the count of files read, the findings."""

    root: Path
    files_checked: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    changed: set[str] | None = None
    indexes: list[RepoIndex] = field(default_factory=list, repr=False)

    @property
    def errors(self) -> int:
        """Number of error-level findings."""
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        """Number of warning-level findings."""
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)


def _best_prefix(code: str, prefixes: Iterable[str]) -> int:
    return max((len(p) for p in prefixes if code.startswith(p.upper())), default=-1)


def is_selected(code: str, config: Config, path: str) -> bool:
    """Longest matching prefix wins between ``select`` and ``ignore`` (ties ignore)."""
    ignored = list(config.ignore)
    for pattern, codes in config.per_file_ignores:
        if fnmatch(path, pattern):
            ignored.extend(codes)
    return _best_prefix(code, config.select) > _best_prefix(code, ignored)


def _severity(code: str, config: Config) -> Severity | None:
    best, level = -1, None
    for prefix, severity in config.severity:
        if code.startswith(prefix) and len(prefix) > best:
            best, level = len(prefix), severity
    return level


def lint_target(
    target: Target,
    only: Sequence[Path] = (),
    unsafe_fixes: bool = False,
    base: str | None = None,
    staged: bool = False,
) -> LintResult:
    """Lint one repository; report only under ``only`` paths when given.

    With ``unsafe_fixes``, findings of rules with an unsafe fix are marked
    fixable too. With ``base`` (a git revision), the change since the base is
    checked as well (AL6xx): the working tree, or the git index if ``staged``.
    """
    config = target.config
    schemas = SchemaStore(config.schema_dirs)
    result = LintResult(root=target.root)
    agent_prefix = Path(os.path.relpath(target.agent_dir, target.root)).as_posix()
    index = RepoIndex(
        root=target.root,
        agent_prefix="" if agent_prefix == "." else agent_prefix,
        config=config,
        folders=top_folders(target),
    )
    found: list[Diagnostic] = []
    formats: dict[str, tuple[Format, Path]] = {}
    limits = config.limits
    for entry in walk(target):
        match = classify(entry.relpath)
        if entry.problem is not None:
            found.append(entry.problem)
            if entry.unread and match is not None:
                # Present but not read: it exists for every check that asks.
                index.add_present(entry.problem.path, match.kind, match.groups, False)
            continue
        if match is not None:
            fmt = match.kind.format
        elif is_data_file(entry.relpath):
            fmt = Format.JSON if entry.relpath.endswith(".json") else Format.YAML
        else:
            continue
        path = relative(str(entry.path), str(target.root))
        raw, unreadable = read_file(entry.path, path, limits.max_file_bytes)
        if raw is None:
            assert unreadable is not None
            found.append(unreadable)
            if match is not None:
                index.add_present(path, match.kind, match.groups, False)
            continue
        formats[path] = (fmt, entry.path)
        loaded = parse(path, fmt, raw, limits)
        result.files_checked += 1
        found.extend(loaded.diagnostics)
        if match is None:
            continue
        index.add_present(path, match.kind, match.groups, loaded.ok)
        if not loaded.ok:
            continue
        ctx = FileContext(
            path,
            match.kind,
            match.groups,
            loaded.data,
            config,
            schemas,
            loaded.text,
        )
        own = _file_checks(ctx)
        found.extend(own)
        index.add_file(ctx, clean=not any(d.severity is Severity.ERROR for d in own))
    for repo_check in REPO_CHECKS:
        found.extend(repo_check(index))
    base = base or config.base
    if base:
        gate_findings, result.changed = gitgate.check(
            gitgate.Gate(target.root, target.agent_dir, base, staged)
        )
        found.extend(gate_findings)
    roots = [p.resolve() for p in only]
    kept = []
    for diagnostic in found:
        if roots and not any(_within(target.root / diagnostic.path, limit) for limit in roots):
            continue
        if not is_selected(diagnostic.code, config, diagnostic.path):
            continue
        level = _severity(diagnostic.code, config)
        if level:
            diagnostic = diagnostic.with_severity(level)
        if unsafe_fixes and RULES_BY_CODE[diagnostic.code].fix is Fix.UNSAFE:
            diagnostic = diagnostic.with_fixable(True)
        kept.append(diagnostic)
    if any(d.fixable for d in kept):
        kept = _fixable_as_planned(kept, index, unsafe_fixes)
    result.diagnostics = sorted(_locate(kept, formats, limits), key=Diagnostic.sort_key)
    result.indexes.append(index)
    return result


def _file_checks(ctx: FileContext) -> list[Diagnostic]:
    """Run the per-file checks; a document too deep for them is one finding, not a crash."""
    try:
        return [d for check in FILE_CHECKS for d in check(ctx)]
    except RecursionError:
        return [
            LIMIT_EXCEEDED.at(
                ctx.path,
                "document is nested too deeply for the checks to follow; lower `max-depth` "
                "in the [limits] table",
                line=1,
                column=1,
            )
        ]


def _fixable_as_planned(
    diagnostics: list[Diagnostic], index: RepoIndex, unsafe: bool
) -> list[Diagnostic]:
    """Keep a finding fixable only if ``--fix`` has a write planned that resolves it.

    When the file cannot be written (a symbolic link, a folder, a special
    file, a read-only folder, a value JSON cannot hold), the finding says so
    instead of promising a fix.
    """
    edits, blocked = fixer.plan_all(index, unsafe)
    resolved = {path for edit in edits for path in edit.resolves}
    reasons = {path: block for block in blocked for path in block.resolves}
    kept = []
    for diagnostic in diagnostics:
        if diagnostic.fixable and diagnostic.path not in resolved:
            block = reasons.get(diagnostic.path)
            message = diagnostic.message
            if block is not None:
                message += f" (--fix cannot write {block.path}: {block.reason})"
            diagnostic = replace(diagnostic, message=message, fixable=False)
        kept.append(diagnostic)
    return kept


def _within(path: Path, limit: Path) -> bool:
    resolved = Path(os.path.abspath(path))
    return resolved == limit or limit in resolved.parents


def _locate(
    diagnostics: list[Diagnostic], formats: dict[str, tuple[Format, Path]], limits: Limits
) -> list[Diagnostic]:
    """Fill in line and column for findings that carry only a JSON pointer."""
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
        fmt, full = formats[path]
        locations = _locations(path, fmt, full, limits)
        for diagnostic in items:
            span = locations.find(diagnostic.pointer, diagnostic.target)
            if span is None:
                located.append(diagnostic.with_position(1, 1, None, None))
            else:
                located.append(
                    diagnostic.with_position(span.line, span.column, span.end_line, span.end_column)
                )
    return located


def _locations(path: str, fmt: Format, full: Path, limits: Limits) -> Locations:
    raw, _ = read_file(full, path, limits.max_file_bytes)
    try:
        text = (raw or b"").decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return Locations()
    try:
        if fmt is Format.JSON:
            return locate_json(text)
        if fmt is Format.MARKDOWN:
            front, offset = split_front_matter(text)
            return locate_yaml(front, offset, limits) if front is not None else Locations()
        return locate_yaml(text, limits=limits)
    except (ScanError, RecursionError):
        return Locations()


def lint_paths(
    paths: Sequence[Path],
    explicit_config: Path | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    unsafe_fixes: bool = False,
    base: str | None = None,
    staged: bool = False,
) -> LintResult:
    """Lint every repository named by ``paths`` (default: the current directory).

    A path inside an agent dir lints the whole repository (references need
    the whole graph) but reports only findings under that path. Results of
    several repositories are merged, their paths relative to the first root.
    """
    groups: dict[Path, tuple[Target, list[Path]]] = {}
    for path in paths or [Path(".")]:
        target = find_target(path, explicit_config)
        target = Target(target.root, target.agent_dir, target.config.with_cli(select, ignore))
        entry = groups.setdefault(target.agent_dir.resolve(), (target, []))
        resolved = path.resolve()
        whole = resolved in (target.root.resolve(), target.agent_dir.resolve())
        entry[1].append(target.root.resolve() if whole else resolved)
    merged: LintResult | None = None
    for target, limits in groups.values():
        whole = target.root.resolve() in limits
        result = lint_target(target, () if whole else limits, unsafe_fixes, base, staged)
        if merged is None:
            merged = result
            continue
        merged.files_checked += result.files_checked
        merged.indexes.extend(result.indexes)
        offset = Path(os.path.relpath(result.root, merged.root)).as_posix()
        merged.diagnostics.extend(replace(d, path=f"{offset}/{d.path}") for d in result.diagnostics)
    assert merged is not None
    merged.diagnostics.sort(key=Diagnostic.sort_key)
    return merged
