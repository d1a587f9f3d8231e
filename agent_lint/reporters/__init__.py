"""Reporters: the only code that turns diagnostics into output.

Each reporter is a function ``(result, options) -> str``; :data:`REPORTERS`
maps the ``--output-format`` names to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_lint.reporters import github, json_format, sarif, text
from agent_lint.result import LintResult


@dataclass(frozen=True)
class ReportOptions:
    """Presentation settings shared by the reporters."""

    color: bool = False
    quiet: bool = False
    workspace: Path | None = None  # GitHub Actions: paths relative to the checkout
    statistics: bool = False


Reporter = Callable[[LintResult, ReportOptions], str]

REPORTERS: dict[str, Reporter] = {
    "text": lambda result, options: (
        text.statistics(result)
        if options.statistics
        else text.render(result, color=options.color, quiet=options.quiet)
    ),
    "json": lambda result, options: json_format.render(result),
    "github": lambda result, options: github.render(result, options.workspace),
    "sarif": lambda result, options: sarif.render(result, options.workspace),
}
