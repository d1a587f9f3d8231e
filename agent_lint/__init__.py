"""agent-lint: validate a committed ``.agent/`` directory of AI-agent state."""

from __future__ import annotations

__version__ = "0.1.0"
