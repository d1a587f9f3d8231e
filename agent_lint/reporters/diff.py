"""``--diff`` output: the unified diff of what ``--fix`` would write.

The diff quotes the files it changes, so each line goes through
:func:`agent_lint.escaping.workflow.lines`: control characters (a CR of a CRLF
file included) show as escapes and no line reads as a GitHub workflow command.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from agent_lint.escaping.workflow import lines
from agent_lint.fixer import Edit


def render(edits: Sequence[Edit]) -> str:
    """A unified diff per planned edit (``/dev/null`` for a new file)."""
    chunks = []
    for edit in edits:
        before = edit.before.decode("utf-8", errors="replace") if edit.before is not None else ""
        after = edit.after.decode("utf-8")
        for line in difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{edit.path}" if edit.before is not None else "/dev/null",
            tofile=f"b/{edit.path}",
        ):
            chunks.append(
                line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            )
    return lines("".join(chunks))
