"""The Markdown job summary and its Mermaid diagrams.

Untrusted text is written as a code span: inside one, GitHub's Markdown
renders no link, image, autolink, emphasis, heading or HTML. The span's
backtick fence is longer than any run of backticks in the text, ``|`` is
escaped for tables, and control characters become visible escapes, so the
text can neither end the span, the table cell or the line. Mermaid labels
are reduced to letters, digits and a few safe characters, everything else
written as Mermaid's ``#code;`` entities, so a label cannot close its quotes,
its node, or the fenced block.
"""

from __future__ import annotations

import re

from agent_lint.escaping.terminal import visible

_BACKTICKS = re.compile(r"`+")
_MERMAID_SAFE = re.compile(r"[A-Za-z0-9 _.\-]")


def code(text: object) -> str:
    """``text`` as an inline code span, safe in a paragraph, heading or table cell."""
    value = visible(str(text)).replace("|", "\\|")
    if not value:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value[0] in "` " or value[-1] in "` " else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def mermaid_label(text: object) -> str:
    """Text for a quoted Mermaid label (node or edge): only safe characters stay literal."""
    return "".join(
        char if _MERMAID_SAFE.fullmatch(char) else f"#{ord(char)};" for char in visible(str(text))
    )
