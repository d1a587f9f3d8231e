"""Scan Markdown notes for what the reference checks need: links, ids, headings.

Fenced and indented code blocks and HTML comments are skipped, inline code spans and
backslash-escaped brackets blanked, so examples in code or comments never count as links
or ids (what GitHub does not render as a link is not one). Columns stay those of the
original text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import defaultdict, deque
from typing import NamedTuple

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_BACKTICKS = re.compile(r"`+")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_BRACKET = re.compile(r"[\[\]]")
_REF_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)")
_ID = re.compile(r"(?<![A-Za-z0-9_/.#-])(WP|D|M|C|H)-[A-Za-z0-9][A-Za-z0-9._-]*")
_TAG = re.compile(r"<[^<>]+>")
_TEXT = re.compile(r"\S")
_STOP = re.compile(r"[)\s]")
_ANGLE = re.compile(">")
_DOUBLE = re.compile('"')
_SINGLE = re.compile("'")
_CLOSERS = {">": _ANGLE, '"': _DOUBLE, "'": _SINGLE}
_LIST_ITEM = re.compile(r"[ \t]*(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]+|$)")
_COMMENT_BLOCK = re.compile(r"(?:[ \t]*>)*[ \t]*<!--")  # first on its line (in a quote too)
_ESCAPE = re.compile(r"\\\\|\\[\[\]]")

# Every scanner here is linear in the length of a line by construction: no
# pattern can backtrack over text it has already matched (a note of one long
# line is as fast to read as many short ones).


class Token(NamedTuple):
    """Text found at a 1-based line and column span (a named tuple: notes hold many)."""

    text: str
    line: int
    column: int
    end_column: int


class Note(NamedTuple):
    """The links, record ids and heading anchors of one Markdown file (a named tuple: one
    per note of a run)."""

    links: list[Token]
    ids: list[Token]
    anchors: set[str]


#: The ASCII characters a heading's anchor drops: all but letters, digits, " ", "-" and "_".
_ASCII_DROPPED = re.compile(r"[^0-9A-Za-z _-]+")


@functools.lru_cache(maxsize=4096)
def _kept_in_anchor(ch: str) -> bool:
    """Whether a heading's anchor keeps ``ch``: a letter, number or mark, or `` -_``."""
    return ch in " -_" or unicodedata.category(ch)[0] in ("L", "N", "M")


def slugify(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = _TAG.sub("", heading).strip().lower()
    if text.isascii():  # ASCII letters and digits are the only ASCII letters and numbers
        kept = _ASCII_DROPPED.sub("", text)
    else:
        kept = "".join([ch for ch in text if _kept_in_anchor(ch)])
    return kept.replace(" ", "-")


def _blank_code(line: str) -> str:
    """Blank inline code spans: a run of N backticks up to the next run of exactly N."""
    if "`" not in line:
        return line
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    if len(runs) < 2:
        return line
    later: dict[int, deque[int]] = defaultdict(deque)
    for number, (start, end) in enumerate(runs):
        later[end - start].append(number)
    pieces: list[str] = []
    kept_from, number = 0, 0
    while number < len(runs):
        start, end = runs[number]
        closers = later[end - start]
        while closers and closers[0] <= number:
            closers.popleft()
        if not closers:
            number += 1
            continue
        closer = closers.popleft()
        close_end = runs[closer][1]
        pieces.extend((line[kept_from:start], " " * (close_end - start)))
        kept_from, number = close_end, closer + 1
    pieces.append(line[kept_from:])
    return "".join(pieces)


def atx_heading(line: str) -> str | None:
    """The text of an ATX heading line (``## Title ##`` -> ``Title``), or None."""
    text = line.lstrip(" ")
    if len(line) - len(text) > 3:
        return None
    level = len(text) - len(text.lstrip("#"))
    rest = text[level:]
    if not 1 <= level <= 6 or (rest and not rest[0].isspace()):
        return None
    rest = rest.strip()
    unclosed = rest.rstrip("#")
    if not unclosed:
        return ""
    if unclosed != rest and unclosed[-1].isspace():
        return unclosed.rstrip()
    return rest


def _indent(line: str) -> int:
    """The columns of a line's leading blanks, a tab reaching the next multiple of four."""
    column = 0
    for char in line:
        if char == " ":
            column += 1
        elif char == "\t":
            column += 4 - column % 4
        else:
            break
    return column


def _blank_escapes(line: str) -> str:
    """Blank backslash-escaped brackets (``\\[`` is a bracket, not a link's opener)."""
    return _ESCAPE.sub(lambda m: m.group() if m.group() == "\\\\" else "  ", line)


class _Blocks:
    """Which lines of a note are prose, line by line, as in CommonMark: an HTML block a
    comment opens is skipped, comments inside a paragraph blanked to their close, and
    indented code blocks (four columns past the list item or text they would continue,
    after a blank line) skipped. Fences are told here, and skipped by the scan."""

    def __init__(self) -> None:
        self.comment = False  # inside an HTML block a comment opened on an earlier line
        self.inline_comment = False  # inside a comment a paragraph's line left open
        self.code = False  # inside an indented code block
        self.after_blank = True  # the previous line was blank (or this is the first)
        self.item_content: int | None = None  # content column of the list item we are in

    def fence(self, line: str) -> re.Match[str] | None:
        """The fence ``line`` opens or closes (three backticks or tildes, first on the line
        and short of indented code: in a list item, past its content column), or None."""
        if self.comment or self.inline_comment:
            return None
        found = _FENCE.match(line)
        return found if found is not None and _indent(line) < self._code_column() else None

    def blank(self) -> None:
        """A blank line: it may open an indented code block, ends none, and ends the
        paragraph a comment inside it was left open in (that one was text after all)."""
        self.after_blank = True
        self.inline_comment = False

    def prose(self, line: str) -> str | None:
        """``line``, or None when no part of it is prose: indented code, or an HTML block a
        comment opens at the start of a line (to the end of the line holding ``-->``,
        that line included, as CommonMark ends it)."""
        if self.comment:
            self.comment = "-->" not in line
            return None
        if self.inline_comment:  # the paragraph's comment ends here, or runs on
            close = line.find("-->")
            if close < 0:
                return None
            self.inline_comment = False
            self.after_blank = False
            return " " * (close + 3) + line[close + 3 :]
        if self._is_code(line):
            return None
        if _COMMENT_BLOCK.match(line):
            self.comment = "-->" not in line[line.index("<!--") + 2 :]
            return None
        return line

    def inline(self, line: str) -> str:
        """``line`` (its code spans blanked) with comments and escaped brackets blanked; a
        comment left open runs on to the end of its paragraph at most."""
        if "<!--" in line:
            line, self.inline_comment = _blank_comments(line)
        if "\\" in line:
            line = _blank_escapes(line)
        return line

    def _code_column(self) -> int:
        """The indent from which a line is code: four columns past the list item's content
        (or the margin) it would continue."""
        return 4 if self.item_content is None else self.item_content + 4

    def _is_code(self, line: str) -> bool:
        indent = _indent(line)
        self.code = indent >= self._code_column() and (self.after_blank or self.code)
        if not self.code:
            item = _LIST_ITEM.match(line)
            if item is not None:  # nested at any depth: its content column counts
                self.item_content = len(line[: item.end()].expandtabs(4))
            elif indent == 0 and self.after_blank:
                self.item_content = None
        self.after_blank = False
        return self.code


def _blank_comments(line: str) -> tuple[str, bool]:
    """Blank the comments ``<!-- … -->`` inside a line (``<!-->`` is a whole one), and
    whether the last is left open: blanked to the end of the line, it may close on a
    later line of its paragraph."""
    pieces: list[str] = []
    start = 0
    while (opened := line.find("<!--", start)) >= 0:
        close = line.find("-->", opened + 2)
        if close < 0:
            pieces.extend((line[start:opened], " " * (len(line) - opened)))
            return "".join(pieces), True
        pieces.extend((line[start:opened], " " * (close + 3 - opened)))
        start = close + 3
    pieces.append(line[start:])
    return "".join(pieces), False


class _Next:
    """Finds the next match of a pattern at or after a position, for rising positions.

    A query inside the stretch searched by the previous query is answered
    from it, so a line is searched once in all (linear time).
    """

    def __init__(self, line: str, pattern: re.Pattern[str]) -> None:
        self.line = line
        self.pattern = pattern
        self.searched_from = 1
        self.found = 0

    def at(self, position: int) -> int:
        """Index of the next match at or after ``position``; ``len(line)`` if none."""
        if not self.searched_from <= position <= self.found:
            match = self.pattern.search(self.line, position)
            self.searched_from = position
            self.found = match.start() if match else len(self.line)
        return self.found


class _LinkScanner:
    """Inline links ``[text](destination "title")`` of one line, in linear time."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.text = _Next(line, _TEXT)
        self.stop = _Next(line, _STOP)
        # Finders of ">" and of closing quotes, made when a destination or title needs one.
        self._closers: dict[str, _Next] = {}

    def _closer(self, char: str) -> _Next:
        """The finder of ``char`` (``>``, ``"`` or ``'``) in this line, made once."""
        found = self._closers.get(char)
        if found is None:
            found = self._closers[char] = _Next(self.line, _CLOSERS[char])
        return found

    def destinations(self) -> list[tuple[int, int]]:
        """Start and end of each link's destination, ``<…>`` included."""
        found: list[tuple[int, int]] = []
        opened: int | None = None
        resume = 0
        for bracket in _BRACKET.finditer(self.line):
            position = bracket.start()
            if position < resume:
                continue
            if bracket.group() == "[":
                opened = position if opened is None else opened
                continue
            if opened is not None and self.line.startswith("(", position + 1):
                parsed = self._destination(position + 2)
                if parsed is not None:
                    found.append(parsed[:2])
                    resume = parsed[2]
            opened = None
        return found

    def _destination(self, position: int) -> tuple[int, int, int] | None:
        """(start, end, end of link) of the destination after ``](``, or None."""
        line = self.line
        start = self.text.at(position)
        if line.startswith("<", start):
            close = self._closer(">").at(start + 1)
            if close < len(line):
                end_of_link = self._closing(close + 1)
                if end_of_link is not None:
                    return start, close + 1, end_of_link
        end = self.stop.at(start)
        if end == start:
            return None
        end_of_link = self._closing(end)
        return None if end_of_link is None else (start, end, end_of_link)

    def _closing(self, position: int) -> int | None:
        """After a destination: an optional quoted title, then ``)``; the end of the link."""
        line = self.line
        following = self.text.at(position)
        if following > position and following < len(line) and line[following] in "\"'":
            close = self._closer(line[following]).at(following + 1)
            if close == len(line):
                return None
            following = self.text.at(close + 1)
        return following + 1 if line.startswith(")", following) else None


def scan(text: str) -> Note:
    """Collect links, id mentions and heading anchors from Markdown ``text``."""
    note = Note([], [], set())
    links, ids, anchors = note.links, note.ids, note.anchors
    counts: dict[str, int] = {}
    # What no line of the text can hold is not looked for line by line: a fence needs
    # three backticks or tildes, a setext underline "=" or "-".
    fences = "```" in text or "~~~" in text
    underlines = "=" in text or "-" in text
    fence: str | None = None
    blocks = _Blocks()
    previous = ""
    # Lines end at "\n" only (a CR before it is dropped), as editors and GitHub count
    # them; str.splitlines would also break at form feeds and U+2028.
    lines = text.split("\n")
    if "\r" in text:
        lines = [raw.removesuffix("\r") for raw in lines]
    for number, raw in enumerate(lines, start=1):
        opener = blocks.fence(raw) if fences else None
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            previous = ""
            continue
        if opener:
            fence = opener.group(1)
            blocks.blank()  # after the fence, an indented line is code again
            previous = ""
            continue
        if not raw or raw.isspace():  # holds nothing; ends the text a setext underline needs
            blocks.blank()
            previous = ""
            continue
        prose = blocks.prose(raw)
        if prose is None:
            previous = ""
            continue
        line = blocks.inline(_blank_code(prose) if "`" in prose else prose)
        heading = atx_heading(line) if "#" in line else None
        if heading is None and underlines and previous.strip() and _SETEXT.match(line):
            heading = previous.strip()
        if heading is not None:
            slug = slugify(heading)
            seen = counts.get(slug, 0)
            counts[slug] = seen + 1
            anchors.add(slug if seen == 0 else f"{slug}-{seen}")
        spans: list[tuple[int, int]] = []
        if "[" in line:  # a link or a reference definition needs a bracket
            definition = _REF_DEFINITION.match(line)
            if definition:
                spans.append(definition.span(1))
            if "](" in line:
                spans.extend(_LinkScanner(line).destinations())
                spans.sort()
        for start, end in spans:
            target = line[start:end].strip("<>")
            links.append(Token(target, number, start + 1, end + 1))
        if "-" in line:
            covering = 0
            for match in _ID.finditer(line):
                while covering < len(spans) and spans[covering][1] <= match.start():
                    covering += 1
                if covering < len(spans) and spans[covering][0] <= match.start():
                    continue  # the id is part of a link destination
                token = match.group(0).rstrip("._-")
                column = match.start() + 1
                ids.append(Token(token, number, column, column + len(token)))
        previous = line
    return note
