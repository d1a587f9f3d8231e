"""Allow ``python -m agent_lint``."""

from __future__ import annotations

from agent_lint.cli import run_command

run_command()
