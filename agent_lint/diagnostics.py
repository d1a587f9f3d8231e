"""Frozen diagnostic values and the rule metadata they point to."""

from __future__ import annotations

import enum
from typing import NamedTuple

from agent_lint.frozen import frozen


class Fix(str, enum.Enum):
    """Whether ``--fix`` repairs a rule's findings, and when."""

    NONE = "none"
    SAFE = "safe"  # applied by --fix
    UNSAFE = "unsafe"  # applied by --fix --unsafe-fixes


class Severity(str, enum.Enum):
    """How serious a finding is; only errors fail a run."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"  # needs no action (e.g. the absent records of a partial snapshot)


#: Codes the change under review cannot waive: with ``--base`` their settings come from the
#: merge-base, and no baseline entry hides them. The append-only gate's own (``AL6xx``), and
#: a linked folder in the agent dir (``AL707``), which would take handoffs out of its reach.
GATE_PREFIX = "AL6"
_GUARDED_CODES = frozenset({"AL707"})


def change_cannot_waive(code: str) -> bool:
    """Whether ``code`` is one the change under review cannot waive (see above)."""
    return code.startswith(GATE_PREFIX) or code in _GUARDED_CODES


@frozen(repr=False)
class Rule:
    """A check's stable identity and its user documentation.

    ``explanation`` says what the rule checks and why it matters; ``bad`` and
    ``good`` are short examples shown by ``agent-lint --explain CODE``.
    ``covers`` names the codes whose findings one of this rule's findings
    already states when they sit at its pointer or inside it, in the same
    file: a state.json ``latest_handoff_id`` naming a deleted handoff is one
    mismatch (AL503), not also a dangling reference (AL301). A ``per_file``
    rule makes at most one finding per file, which speaks for the whole file
    whatever field its pointer places it at: it covers its ``covers`` codes
    anywhere in that file, and is known by its file alone.
    """

    code: str
    name: str
    summary: str
    explanation: str
    bad: str
    good: str
    severity: Severity = Severity.ERROR
    fix: Fix = Fix.NONE
    covers: tuple[str, ...] = ()
    per_file: bool = False

    @property
    def fixable(self) -> bool:
        """True when plain ``--fix`` repairs this rule's findings."""
        return self.fix is Fix.SAFE

    def at(
        self,
        path: str,
        message: str,
        *,
        pointer: str = "",
        target: str = "value",
        line: int | None = None,
        column: int | None = None,
        end_line: int | None = None,
        end_column: int | None = None,
        fixable: bool | None = None,
        key: str = "",
        severity: Severity | None = None,
    ) -> Diagnostic:
        """Create a diagnostic of this rule at ``path`` (and ``pointer`` in it).

        ``key`` identifies the finding for fingerprints when its message carries
        counts or positions that change with unrelated edits.
        """
        return Diagnostic(
            code=self.code,
            name=self.name,
            severity=self.severity if severity is None else severity,
            message=message,
            path=path,
            pointer=pointer,
            target=target,
            line=line,
            column=column,
            end_line=end_line,
            end_column=end_column,
            fixable=self.fixable if fixable is None else fixable,
            key=key,
        )


class Diagnostic(NamedTuple):
    """One finding: what is wrong, where, and whether ``--fix`` can repair it.

    ``path`` is relative to the repository root in POSIX form. ``pointer`` is
    the JSON pointer of the offending value inside the file; ``target`` says
    whether the position is the member's ``key`` or its ``value``. Line and
    column are 1-based and filled in by :mod:`agent_lint.positions` for files
    that have findings. ``key``, when set, stands for the message in
    fingerprints (see :mod:`agent_lint.baseline`). ``unsafe_fixable`` tells a
    run without ``--unsafe-fixes`` that ``--fix --unsafe-fixes`` has a write
    planned that resolves the finding. A named tuple: a run makes one per
    finding, and sends them between its processes.
    """

    code: str
    name: str
    severity: Severity
    message: str
    path: str
    pointer: str = ""
    target: str = "value"
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    fixable: bool = False
    key: str = ""
    unsafe_fixable: bool = False

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """Order by path, line, column, code (then message for stability)."""
        return (self.path, self.line or 0, self.column or 0, self.code, self.message)

    def with_position(
        self, line: int, column: int, end_line: int | None, end_column: int | None
    ) -> Diagnostic:
        """Return a copy located at the given 1-based span."""
        return self._replace(line=line, column=column, end_line=end_line, end_column=end_column)

    def with_fixable(self, fixable: bool) -> Diagnostic:
        """Return a copy marked (or not) as repairable by this run's ``--fix``."""
        return self._replace(fixable=fixable)

    def with_severity(self, severity: Severity) -> Diagnostic:
        """Return a copy with ``severity`` (configuration overrides)."""
        return self._replace(severity=severity)
