"""Where reported paths are relative to."""

from __future__ import annotations

import os
from pathlib import Path


def workspace_path(path: str, root: Path, workspace: Path | None) -> str:
    """A reported path (relative to the linted root) relative to ``workspace`` instead.

    GitHub places annotations and code-scanning results by paths relative to
    the checkout; linting ``services/pay`` reports ``.agent/x`` there, which
    becomes ``services/pay/.agent/x``. Paths stay as they are without a
    workspace, or when the root is outside it.
    """
    if workspace is None:
        return path
    relative = os.path.relpath(os.path.abspath(root / path), os.path.abspath(workspace))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return path
    return Path(relative).as_posix()
