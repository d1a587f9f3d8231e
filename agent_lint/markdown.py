"""Scan Markdown notes for what the reference checks need: links, ids, headings.

Fenced code blocks are skipped and inline code spans blanked, so examples in
code never count as links or ids. Columns stay those of the original text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_ATX = re.compile(r"^ {0,3}#{1,6}(?:\s+(.*?))?\s*#*\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_INLINE_LINK = re.compile(
    r"!?\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
_REF_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)")
_ID = re.compile(r"(?<![A-Za-z0-9_/.#-])(WP|D|M|C|H)-[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Token:
    """Text found at a 1-based line and column span."""

    text: str
    line: int
    column: int
    end_column: int


@dataclass
class Note:
    """The links, record ids and heading anchors of one Markdown file."""

    links: list[Token] = field(default_factory=list)
    ids: list[Token] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)


def slugify(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    kept = "".join(
        ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in ("L", "N", "M")
    )
    return kept.replace(" ", "-")


def _blank_code(line: str) -> str:
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


def scan(text: str) -> Note:
    """Collect links, id mentions and heading anchors from Markdown ``text``."""
    note = Note()
    counts: dict[str, int] = {}

    def add_anchor(heading: str) -> None:
        slug = slugify(heading)
        seen = counts.get(slug, 0)
        counts[slug] = seen + 1
        note.anchors.add(slug if seen == 0 else f"{slug}-{seen}")

    fence: str | None = None
    previous = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        opener = _FENCE.match(raw)
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            previous = ""
            continue
        if opener:
            fence = opener.group(1)
            previous = ""
            continue
        line = _blank_code(raw)
        heading = _ATX.match(line)
        if heading:
            add_anchor(heading.group(1) or "")
        elif _SETEXT.match(line) and previous.strip():
            add_anchor(previous.strip())
        definition = _REF_DEFINITION.match(line)
        found = [definition] if definition else []
        found.extend(_INLINE_LINK.finditer(line))
        spans = []
        for match in found:
            target = match.group(1).strip("<>")
            start = match.start(1)
            note.links.append(Token(target, number, start + 1, start + len(match.group(1)) + 1))
            spans.append((match.start(1), match.end(1)))
        for match in _ID.finditer(line):
            if any(start <= match.start() < end for start, end in spans):
                continue
            token = match.group(0).rstrip("._-")
            note.ids.append(Token(token, number, match.start() + 1, match.start() + len(token) + 1))
        previous = line
    return note
