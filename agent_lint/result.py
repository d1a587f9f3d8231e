"""The result of a lint run: what reporters are given, apart from the engine that made it.

Reporters import this module and :mod:`agent_lint.diagnostics` only, so the
engine can change without touching them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_lint.diagnostics import Diagnostic, Severity
from agent_lint.frozen import field, record

if TYPE_CHECKING:
    from agent_lint.index import RepoIndex
    from agent_lint.linter import Replay


@record
class LintResult:
    """Everything a reporter needs: the root, the count of files read, the findings.

    ``files`` lists every file of the agent dir with how it was read (for
    ``--show-files``); ``notices`` are the run's messages that are not findings
    (nothing checked in a foreign layout, a skipped or reconfigured gate), which
    every reporter shows; ``limits`` are the paths findings were restricted to
    (empty: everything). ``changed`` holds the paths of the files the change
    under review touched, when the gate was asked for them (the job summary).
    """

    root: Path
    files_checked: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    changed: set[str] | None = None
    notices: list[str] = field(default_factory=list)
    indexes: list[RepoIndex] = field(default_factory=list, repr=False)
    #: What each repository's pass over files saw, by agent dir (kept for ``--fix``).
    replays: dict[Path, Replay] = field(default_factory=dict, repr=False)
    files: list[tuple[str, str]] = field(default_factory=list, repr=False)
    limits: list[Path] = field(default_factory=list)
    baselined: int = 0
    stale_baseline: int = 0
    pre_existing: int = 0
    merge_base: str = ""

    @property
    def hidden(self) -> list[str]:
        """Sentences saying how many findings a baseline or ``--new-only`` left out."""
        said = []
        if self.baselined:
            said.append(f"{_plural(self.baselined, 'known finding')} hidden by the baseline")
        if self.stale_baseline:
            said.append(
                f"{_plural(self.stale_baseline, 'baseline entry', 'baseline entries')} no "
                "longer found (refresh it with --write-baseline)"
            )
        if self.pre_existing:
            said.append(
                f"{_plural(self.pre_existing, 'finding')} already present at the merge-base "
                f"{self.merge_base} not reported (--new-only)"
            )
        return said

    @property
    def all_notices(self) -> list[str]:
        """The run's notices, then what a baseline or ``--new-only`` left out (see ``hidden``)."""
        return [*self.notices, *self.hidden]

    @property
    def errors(self) -> int:
        """Number of error-level findings."""
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        """Number of warning-level findings."""
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)

    @property
    def infos(self) -> int:
        """Number of info-level findings (summaries that need no action)."""
        return sum(1 for d in self.diagnostics if d.severity is Severity.INFO)


def _plural(count: int, word: str, words: str = "") -> str:
    return f"{count} {word if count == 1 else words or word + 's'}"
