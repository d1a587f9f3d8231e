"""Problems met while reading a file, as typed values; validators turn them into findings.

Loading (:mod:`agent_lint.loading`) reports what it met as :class:`ParseProblem`
values; :func:`agent_lint.validators.files.diagnose` makes each the finding of
its rule, so every code is emitted from one layer (:mod:`agent_lint.validators`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ParseIssue(str, enum.Enum):
    """What went wrong reading a file's text."""

    INVALID_UTF8 = "invalid-utf8"
    BYTE_ORDER_MARK = "byte-order-mark"
    EMPTY_FILE = "empty-file"
    INVALID_JSON = "invalid-json"
    INVALID_YAML = "invalid-yaml"
    DUPLICATE_KEY = "duplicate-key"
    LIMIT_EXCEEDED = "limit-exceeded"


@dataclass(frozen=True)
class ParseProblem:
    """One problem of one file: what, the words that say it, and where.

    ``pointer`` and ``target`` place it in the document (a duplicate key is a
    ``key``); ``line``/``column`` (1-based) and the end place it in the text.
    """

    issue: ParseIssue
    path: str
    message: str
    pointer: str = ""
    target: str = "value"
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
