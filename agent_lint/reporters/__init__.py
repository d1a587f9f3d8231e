"""Reporters: the only code that turns diagnostics into output.

Each reporter is a function ``(result, options) -> str``; :data:`REPORTERS`
maps the ``--output-format`` names to them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent_lint.frozen import frozen
from agent_lint.result import LintResult


@frozen(repr=False, eq=False)
class ReportOptions:
    """Presentation settings shared by the reporters."""

    color: bool = False
    quiet: bool = False
    workspace: Path | None = None  # GitHub Actions: paths relative to the checkout
    statistics: bool = False


Reporter = Callable[[LintResult, ReportOptions], str]


# Each reporter's module is imported when its format is asked for.
def _text(result: LintResult, options: ReportOptions) -> str:
    from agent_lint.reporters import text

    if options.statistics:
        return text.statistics(result)
    return text.render(result, color=options.color, quiet=options.quiet)


def _json(result: LintResult, options: ReportOptions) -> str:
    from agent_lint.reporters import json_format

    return json_format.render(result)


def _github(result: LintResult, options: ReportOptions) -> str:
    from agent_lint.reporters import github

    return github.render(result, options.workspace)


def _sarif(result: LintResult, options: ReportOptions) -> str:
    from agent_lint.reporters import sarif

    return sarif.render(result, options.workspace)


REPORTERS: dict[str, Reporter] = {
    "text": _text,
    "json": _json,
    "github": _github,
    "sarif": _sarif,
}
