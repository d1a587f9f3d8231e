"""``--diff`` output: the unified diff of what ``--fix`` would write."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

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
    return "".join(chunks)
