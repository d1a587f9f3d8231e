"""The per-file step of a lint run: one file's bytes in, its findings and facts out.

:func:`check_file` is a pure function of the profile, the configuration (with
the schemas and checks they select), the file's path and its bytes: it reads
no other file, no clock and no global state, and returns frozen values. That
makes its outcome safe to cache by content hash; repo-wide checks then run
on the merged facts only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from agent_lint.config import Config
from agent_lint.diagnostics import Diagnostic, Severity
from agent_lint.index import FileContext, FileFacts, file_facts, present_facts
from agent_lint.kinds import Match
from agent_lint.loading import YamlBudget, parse
from agent_lint.problems import ParseIssue, ParseProblem
from agent_lint.profile import Profile
from agent_lint.schemas import SchemaStore
from agent_lint.selection import configured, is_enabled
from agent_lint.validators import FileCheck, files, identity


class FileOutcome(NamedTuple):
    """What one file contributes to the run.

    ``title`` is how ``--show-files`` describes it; ``shows_state`` whether it
    shows that the store keeps the profile's state (its signature); ``facts``
    are merged into the index in order; ``yaml_spent`` is the run's YAML
    budget spent after this file; ``parsed`` whether its text parsed.
    """

    diagnostics: tuple[Diagnostic, ...]
    facts: tuple[FileFacts, ...]
    title: str
    shows_state: bool = False
    yaml_spent: int = 0
    parsed: bool = False


def check_file(
    profile: Profile,
    config: Config,
    schemas: SchemaStore,
    checks: Sequence[FileCheck],
    path: str,
    relpath: str,
    match: Match | None,
    raw: bytes,
    yaml_spent: int = 0,
) -> FileOutcome:
    """Parse and check one file; ``match`` is None for an unclassified data file.

    ``checks`` are the profile's file checks the configuration selects;
    ``path`` is relative to the repository root, ``relpath`` to the store.
    ``yaml_spent`` is how much of the run's YAML budget earlier files spent:
    the outcome depends on it only for a YAML document past the budget.
    """
    fmt = match.kind.format if match is not None else profile.data_format(relpath)
    budget = YamlBudget(config.limits)
    budget.spent = yaml_spent
    loaded = parse(path, fmt, raw, config.limits, budget)
    spent = budget.spent
    found = [files.diagnose(problem) for problem in loaded.problems]
    if match is None:
        if is_enabled(identity.UNCLASSIFIED_FILE.code, config):
            found.extend(identity.check_unclassified(profile, path, relpath, loaded.data))
        return FileOutcome(
            tuple(found),
            (),
            "unclassified: a data file that matches no kind",
            False,
            spent,
            loaded.ok,
        )
    # The kind's own title when it parsed: one string for all its files, not one per file.
    title = match.kind.title if loaded.ok else f"{match.kind.title} (does not parse)"
    shows = profile.signature(match, relpath, loaded.data if loaded.ok else None)
    if not loaded.ok:
        present = present_facts(profile, path, relpath, match, False)
        return FileOutcome(tuple(found), (present,), title, shows, spent, False)
    ctx = FileContext(
        path,
        match.kind,
        match.groups,
        loaded.data,
        config,
        schemas,
        loaded.text,
        relpath,
        profile,
    )
    own = _file_checks(checks, ctx)
    found.extend(own)
    kept = (configured(d, config) for d in own)
    clean = not own or not any(d is not None and d.severity is Severity.ERROR for d in kept)
    facts = (file_facts(profile, ctx, clean),)
    return FileOutcome(tuple(found), facts, title, shows, spent, True)


def _file_checks(checks: Sequence[FileCheck], ctx: FileContext) -> list[Diagnostic]:
    """Run the per-file checks; a document too deep for them is one finding, not a crash."""
    try:
        return [d for check in checks for d in check.run(ctx)]
    except RecursionError:
        too_deep = ParseProblem(
            ParseIssue.LIMIT_EXCEEDED,
            ctx.path,
            "document is nested too deeply for the checks to follow; lower `max-depth` "
            "in the [limits] table",
            line=1,
            column=1,
        )
        return [files.diagnose(too_deep)]
