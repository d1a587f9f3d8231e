"""GitHub Actions workflow commands, and lines the runner would take for one.

The runner reads every line a step prints, on stdout and on stderr: a line
that starts with ``::`` (after leading whitespace) is a command such as
``::error``, ``::add-mask::`` or ``::stop-commands::``, and ``##[`` anywhere in a
line starts a command of the older syntax. :func:`inert` makes a line of
agent-lint's own text safe; :func:`data` and :func:`prop` escape the parts of
a command agent-lint writes on purpose.
"""

from __future__ import annotations

import json
import re

from agent_lint.escaping.terminal import visible

_COMMAND_START = re.compile(r"^(\s*):")
_LEGACY = "##["


def data(value: str) -> str:
    """A command's message: ``%``, CR and LF percent-encoded as the runner decodes them."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def prop(value: str) -> str:
    """A command's property value (``file=``, ``title=``): also ``:`` and ``,``."""
    return data(value).replace(":", "%3A").replace(",", "%2C")


def message(value: str) -> str:
    """Untrusted text as a command's message: visible control characters, then :func:`data`."""
    return data(visible(value))


def inert(line: str) -> str:
    """One line of plain output that the runner cannot take for a command.

    Control characters are shown as escapes (so the text stays one line), a
    leading ``:`` becomes ``\\x3a`` and every ``##[`` becomes ``##\\x5b``.
    """
    text = visible(line)
    text = _COMMAND_START.sub(lambda m: m.group(1) + "\\x3a", text)
    return text.replace(_LEGACY, "##\\x5b")


def lines(text: str) -> str:
    """Every line of ``text`` made :func:`inert` (line breaks kept)."""
    ends_with_newline = text.endswith("\n")
    body = text[:-1] if ends_with_newline else text
    safe = "\n".join(inert(line) for line in body.split("\n"))
    return safe + "\n" if ends_with_newline else safe


def json_text(text: str) -> str:
    """JSON output with no ``##[`` in it (``[`` written as ``\\u005b`` inside strings).

    JSON escapes every C0 control character, and each line of indented JSON
    starts with whitespace and a structural character or a quote, so no line
    can start a command; the older ``##[`` syntax is matched anywhere.
    """
    return text.replace(_LEGACY, "##\\u005b")


def dumps(value: object) -> str:
    """``json.dumps`` with two-space indent, made safe by :func:`json_text`."""
    return json_text(json.dumps(value, indent=2, ensure_ascii=False))
