"""A YAML reader that keeps untrusted documents bounded, fast and JSON-shaped.

Documents are read from the events of libyaml's C parser (through PyYAML):
one iterative pass builds the data, with no node tree and no recursion, and
enforces the limits as the events arrive, before anything is built from them:

* nesting past ``max-depth`` stops the pass at the node that goes too deep;
* aliases are counted with the size of what they repeat (nested aliases
  included), and a repeat past ``max-yaml-alias-nodes`` stops the pass, so a
  "billion laughs" document is refused before any walk expands it; an alias
  to a node that contains it (a cycle) is an error;
* a mapping key written twice is an error (:class:`DuplicateKey`).

The data follows JSON's model and YAML 1.2's core schema, exactly as the
pure-Python reader (:mod:`agent_lint.yamlpure`, ruamel.yaml's safe loader) builds it: every mapping
key is the string written (``7:`` is the key ``"7"``), timestamps stay the
strings written, integers of any length are exact, and the YAML types JSON
has no equivalent of (``!!binary``, ``!!set``, ``!!omap``, ``!!pairs``) are
refused. A document that declares ``%YAML 1.1`` gets YAML 1.1's scalars
(``yes`` is true, ``017`` is octal). libyaml takes U+0085, U+2028 and U+2029
for line breaks, as YAML 1.1 did; YAML 1.2 does not, so they are read as the
ordinary characters they are.

The pure-Python reader (the same limits enforced while it composes) is some
forty times slower; it serves only where PyYAML has no libyaml, and is
imported only then.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, NoReturn

from agent_lint.config import Limits
from agent_lint.frozen import field, frozen, record

#: PyYAML's binding of libyaml, looked for when a first document is read (``...`` until
#: then): a run whose documents all come from the cache never loads PyYAML. None when
#: PyYAML has no libyaml: every document then takes the pure-Python reader.
_CParser: Any = ...


def _c_parser() -> Any:
    """libyaml's parser class, or None without it (PyYAML is imported on the first call)."""
    global _CParser
    if _CParser is ...:
        try:
            import yaml.cyaml

            _CParser = getattr(yaml.cyaml, "CParser", None)
        except ImportError:  # pragma: no cover - PyYAML's wheels ship libyaml
            _CParser = None
    return _CParser


_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_CORE = "tag:yaml.org,2002:"
#: Integers with more digits than this are kept as :class:`~decimal.Decimal`.
_INT_DIGITS = 4000
#: The YAML types JSON cannot represent.
_NO_JSON = frozenset({"binary", "set", "omap", "pairs"})


class LimitExceeded(Exception):
    """A document goes past a limit at character ``index`` of the parsed text."""

    def __init__(self, problem: str, limit: str, value: int, index: int) -> None:
        super().__init__(problem)
        self.problem = problem
        self.limit = limit
        self.value = value
        self.index = index


class YamlProblem(Exception):
    """A document that is not valid YAML or has no JSON equivalent, at character ``index``."""

    def __init__(self, problem: str, index: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.index = index


class DuplicateKey(YamlProblem):
    """A mapping key written twice in one mapping."""


# -- scalars: YAML 1.2 core schema (and 1.1 for documents that ask for it) ----------------

_RESOLVERS_12 = (
    ("bool", re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")),
    (
        "float",
        re.compile(
            r"""(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
            |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
            |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
            |[-+]?\.(?:inf|Inf|INF)
            |\.(?:nan|NaN|NAN))\Z""",
            re.X,
        ),
    ),
    (
        "int",
        re.compile(
            r"""(?:[-+]?0b[0-1_]+
            |[-+]?0o?[0-7_]+
            |[-+]?[0-9_]+
            |[-+]?0x[0-9a-fA-F_]+)\Z""",
            re.X,
        ),
    ),
)
_RESOLVERS_11 = (
    (
        "bool",
        re.compile(
            r"""(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE
            |on|On|ON|off|Off|OFF)\Z""",
            re.X,
        ),
    ),
    (
        "float",
        re.compile(
            r"""(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
            |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
            |\.[0-9_]+(?:[eE][-+][0-9]+)?
            |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
            |[-+]?\.(?:inf|Inf|INF)
            |\.(?:nan|NaN|NAN))\Z""",
            re.X,
        ),
    ),
    (
        "int",
        re.compile(
            r"""(?:[-+]?0b[0-1_]+
            |[-+]?0?[0-7_]+
            |[-+]?(?:0|[1-9][0-9_]*)
            |[-+]?0x[0-9a-fA-F_]+
            |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)\Z""",
            re.X,
        ),
    ),
)
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
#: First characters of a plain scalar that may be something other than a string.
_NUMBER_START = frozenset("-+0123456789.")
_WORD_START = frozenset("tTfFyYnNoO")
_BOOLS = {"yes": True, "no": False, "y": True, "n": False, "true": True, "false": False}
_BOOLS.update({"on": True, "off": False})


def resolve_plain(value: str, version: tuple[int, int] = (1, 2)) -> str:
    """The core tag of a plain scalar: ``str``, ``null``, ``bool``, ``int``, ``float`` or ``merge``.

    The rules of YAML 1.2 (or 1.1), as ruamel.yaml applies them.
    """
    if value in _NULL:
        return "null"
    first = value[0]
    if first in _NUMBER_START:
        rules = _RESOLVERS_11 if version == (1, 1) else _RESOLVERS_12
        for tag, pattern in rules[1:]:
            if pattern.match(value):
                return tag
    elif first in _WORD_START:
        rules = _RESOLVERS_11 if version == (1, 1) else _RESOLVERS_12
        if rules[0][1].match(value):
            return "bool"
    elif value == "<<":
        return "merge"
    return "str"


def _sexagesimal(text: str, kind: Callable[[str], Any]) -> Any:
    total = kind("0")
    for part in text.split(":"):
        total = total * 60 + kind(part)
    return total


def construct_scalar(tag: str, value: str, version: tuple[int, int] = (1, 2)) -> Any:
    """The JSON value of a scalar with core tag ``tag``; :class:`ValueError` when it has none."""
    if tag in ("str", "timestamp", "value"):
        return value  # a timestamp stays the string written, as JSON has no date type
    if tag == "null":
        return None
    if tag == "bool":
        if value.lower() not in _BOOLS:
            raise ValueError(f"{value!r} is not a boolean")
        return _BOOLS[value.lower()]
    text = value.replace("_", "")
    sign = -1 if text.startswith("-") else 1
    digits = text[1:] if text[:1] in ("-", "+") else text
    if not digits:
        raise ValueError(f"{value!r} is not a number")
    if tag == "int":
        if len(digits) > _INT_DIGITS and digits.isascii() and digits.isdigit():
            return Decimal(text)
        if digits[:2] in ("0b", "0x", "0o"):
            return sign * int(digits[2:], {"0b": 2, "0x": 16, "0o": 8}[digits[:2]])
        if version == (1, 1) and ":" in digits:
            return sign * _sexagesimal(digits, int)
        if version == (1, 1) and digits[0] == "0" and digits != "0":
            return sign * int(digits, 8)
        return sign * int(digits)
    if tag == "float":
        lowered = digits.lower()
        if lowered == ".inf":
            return sign * float("inf")
        if lowered == ".nan":
            return float("nan")
        if version == (1, 1) and ":" in lowered:
            return sign * _sexagesimal(lowered, float)
        return sign * float(lowered)
    raise ValueError(f"no constructor for the tag {tag!r}")


# -- the C reader -------------------------------------------------------------------------


def has_c_reader() -> bool:
    """Whether libyaml is there to read documents (else the pure-Python reader does)."""
    return _c_parser() is not None


#: Characters libyaml takes for line breaks (YAML 1.1) and YAML 1.2 does not.
_OLD_BREAKS = ("\x85", "\u2028", "\u2029")


def _hide_old_breaks(text: str) -> tuple[str, dict[int, int] | None]:
    """``text`` with U+0085, U+2028 and U+2029 swapped for private-use characters it lacks.

    Returns the table that swaps them back in scalars (None when the text has
    none of them). Each stand-in is one character, so offsets are kept.
    """
    if not any(char in text for char in _OLD_BREAKS):
        return text, None
    unused = (code for code in range(0xE000, 0xF900) if chr(code) not in text)
    stand_ins = [next(unused) for _ in _OLD_BREAKS]
    forward = {ord(old): new for old, new in zip(_OLD_BREAKS, stand_ins, strict=True)}
    back = {new: ord(old) for old, new in zip(_OLD_BREAKS, stand_ins, strict=True)}
    return text.translate(forward), back


@record
class Spans:
    """Character offsets of a document's nodes by JSON pointer, of its keys, of repeated keys."""

    values: dict[str, tuple[int, int]] = field(default_factory=dict)
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    duplicates: list[tuple[str, tuple[int, int]]] = field(default_factory=list)


class _Open:
    """A sequence or mapping whose events are still arriving (one per open collection of
    every YAML document read: a class of slots, with nothing generated)."""

    __slots__ = (
        "anchor",
        "has_key",
        "items",
        "key",
        "keys",
        "mapping",
        "merge",
        "merge_key",
        "pointer",
        "size",
        "start",
        "value",
    )

    def __init__(self, value: Any, mapping: bool, anchor: str | None, start: int, pointer: str):
        self.value = value
        self.mapping = mapping
        self.anchor = anchor
        self.start = start
        self.pointer = pointer
        self.size = 1  # nodes under it, aliases expanded, itself included
        self.items = 0
        self.key = ""
        self.has_key = False
        self.merge_key = False
        self.merge: tuple[Any, int] | None = None
        self.keys: set[str] = set()


@frozen(repr=False, eq=False)
class _Anchored:
    """What an anchor names: its value, its size with aliases expanded, its span, its text."""

    value: Any
    size: int
    start: int
    end: int
    text: str | None  # a scalar's text as written (it may be used as a key); None otherwise
    merge: bool = False


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _core(tag: str | None) -> str:
    """``int`` for ``tag:yaml.org,2002:int``; empty for a tag outside the core schema."""
    return tag[len(_CORE) :] if tag and tag.startswith(_CORE) else ""


def _no_json(core: str, index: int) -> YamlProblem:
    return YamlProblem(
        f"the YAML type {core} has no JSON equivalent; agent records hold JSON values", index
    )


_KEY_SHAPE = "a mapping key must be a string, not a sequence or a mapping"
#: The core tags :func:`construct_scalar` makes a JSON value of.
_SCALAR_TAGS = frozenset({"str", "timestamp", "value", "null", "bool", "int", "float"})


class _Reader:
    """One iterative pass over a document's events that builds its data or records its spans.

    With ``spans`` given, no data is built: the offsets of every node are
    recorded by JSON pointer, and a repeated key is recorded, not raised.
    """

    def __init__(self, limits: Limits, spans: Spans | None = None) -> None:
        self.limits = limits
        self.spans = spans
        self.version = (1, 2)
        self.stack: list[_Open] = []
        self.anchors: dict[str, _Anchored] = {}
        self.open: set[str] = set()
        self.repeated = 0
        self.root: Any = None
        self.back: dict[int, int] | None = None

    def read(self, text: str) -> Any:
        """The document's data (None for an empty stream)."""
        from yaml import events
        from yaml.error import MarkedYAMLError, YAMLError

        c_parser = _c_parser()
        assert c_parser is not None
        text, self.back = _hide_old_breaks(text)
        parser = c_parser(text)
        documents = 0
        scalar_event = events.ScalarEvent
        # Building data from text with no U+0085/U+2028/U+2029, the commonest scalar (plain,
        # untagged, unanchored, in a mapping or a sequence within the depth limit) is placed
        # right here, just as _scalar would place it; any other takes _scalar.
        plain = self.spans is None and self.back is None
        stack, max_depth = self.stack, self.limits.max_depth
        try:
            while True:
                event: Any = parser.get_event()
                kind = type(event)
                if kind is scalar_event:
                    if not (
                        plain
                        and event.tag is None
                        and event.anchor is None
                        and 0 < len(stack) < max_depth
                        and self._place(event, stack[-1])
                    ):
                        self._scalar(event)
                elif kind is events.MappingStartEvent:
                    self._start(event, True)
                elif kind is events.SequenceStartEvent:
                    self._start(event, False)
                elif kind is events.MappingEndEvent or kind is events.SequenceEndEvent:
                    self._end(event.end_mark.index)
                elif kind is events.AliasEvent:
                    self._alias(event)
                elif kind is events.DocumentStartEvent:
                    documents += 1
                    if documents > 1:
                        raise YamlProblem(
                            "expected a single document in the stream, but found another document",
                            event.start_mark.index,
                        )
                    self.version = (1, 1) if event.version == (1, 1) else (1, 2)
                elif kind is events.StreamEndEvent:
                    return self.root
        except MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problem = exc.problem or exc.context or "syntax error"
            if problem.startswith("exceeded maximum nesting depth"):
                # libyaml's own bound (1,000 levels) met while it scans ahead: past any
                # max-depth, whose ceiling is far lower.
                self._depth_exceeded(mark.index if mark else 0)
            raise YamlProblem(problem, mark.index if mark else None) from None
        except YAMLError as exc:
            first = str(exc).strip().splitlines()
            raise YamlProblem(first[0] if first else type(exc).__name__, None) from None

    # -- events --

    def _depth(self, index: int) -> None:
        """Refuse a node nested deeper than ``max-depth`` (the top node is level 1)."""
        if len(self.stack) >= self.limits.max_depth:
            self._depth_exceeded(index)

    def _depth_exceeded(self, index: int) -> NoReturn:
        raise LimitExceeded(
            f"document is nested deeper than {self.limits.max_depth} levels",
            "max-depth",
            self.limits.max_depth,
            index,
        )

    def _place(self, event: Any, top: _Open) -> bool:
        """Place an untagged, unanchored scalar in ``top`` as :meth:`_scalar` would.

        False, with nothing done, for ``<<`` and for the value of a merge key:
        :meth:`_scalar` places those.
        """
        text = event.value
        if text == "<<":
            return False
        if top.mapping and not top.has_key:  # a key: the string written
            if text in top.keys:
                raise DuplicateKey(f'found duplicate key "{text}"', event.start_mark.index)
            top.keys.add(text)
            top.size += 1
            top.key, top.has_key, top.merge_key = text, True, False
            return True
        if top.merge_key:
            return False
        value: Any = text
        if event.implicit[0]:
            core = resolve_plain(text, self.version)
            if core != "str":
                value = self._construct(core, text, None, event.start_mark.index)
        top.size += 1
        if top.mapping:
            top.has_key = False
            top.value[top.key] = value
        else:
            top.items += 1
            top.value.append(value)
        return True

    def _scalar(self, event: Any) -> None:
        start, end = event.start_mark.index, event.end_mark.index
        stack = self.stack
        if len(stack) >= self.limits.max_depth:
            self._depth(start)
        text = event.value if self.back is None else event.value.translate(self.back)
        tag, anchor = event.tag, event.anchor
        wants_key = bool(stack) and stack[-1].mapping and not stack[-1].has_key
        if wants_key and anchor is None:  # a key is the string written, or a merge
            merge = (tag is None and event.implicit[0] and text == "<<") or tag == _MERGE
            self._key(text, merge, start, end)
            return
        if tag is None and event.implicit[0]:
            core = resolve_plain(text, self.version)
        elif tag is None or tag == "!":
            core = "str"
        else:
            core = _core(tag)
        value = None if self.spans is not None else self._construct(core, text, tag, start)
        if anchor:
            self.anchors[anchor] = _Anchored(value, 1, start, end, text, core == "merge")
        if wants_key:
            self._key(text, core == "merge", start, end)
        else:
            self._attach(value, 1, start, end)

    def _construct(self, core: str, text: str, tag: str | None, index: int) -> Any:
        if core == "str":
            return text
        if core in _NO_JSON:
            raise _no_json(core, index)
        if core in ("seq", "map"):
            kind = "sequence" if core == "seq" else "mapping"
            raise YamlProblem(f"expected a {kind} node, but found a scalar", index)
        if core not in _SCALAR_TAGS:  # outside the core schema (``!!python/name:…``), or merge
            raise YamlProblem(f"could not determine a constructor for the tag {tag!r}", index)
        try:
            return construct_scalar(core, text, self.version)
        except ValueError as exc:
            raise YamlProblem(str(exc), index) from None

    def _start(self, event: Any, mapping: bool) -> None:
        start = event.start_mark.index
        self._depth(start)
        if self._wants_key():
            raise YamlProblem(_KEY_SHAPE, start)
        tag = event.tag
        if tag not in (None, "!", f"{_CORE}{'map' if mapping else 'seq'}"):
            core = _core(tag)
            if core in _NO_JSON:
                raise _no_json(core, start)
            raise YamlProblem(f"could not determine a constructor for the tag {tag!r}", start)
        if event.anchor:
            self.open.add(event.anchor)
        value: Any = None if self.spans is not None else ({} if mapping else [])
        self.stack.append(_Open(value, mapping, event.anchor, start, self._pointer()))

    def _end(self, end: int) -> None:
        node = self.stack.pop()
        value = node.value
        if node.merge is not None:
            value = self._merged(node)
        if node.anchor:
            self.open.discard(node.anchor)
            self.anchors[node.anchor] = _Anchored(value, node.size, node.start, end, None)
        self._attach(value, node.size, node.start, end)

    def _alias(self, event: Any) -> None:
        index, name = event.start_mark.index, event.anchor
        if name in self.open:
            raise YamlProblem(
                f"alias *{name} names a node that contains it; a recursive structure has no "
                "JSON equivalent",
                index,
            )
        named = self.anchors.get(name)
        if named is None:
            raise YamlProblem(f"found undefined alias {name!r}", index)
        self.repeated += named.size
        if self.repeated > self.limits.max_yaml_alias_nodes:
            raise LimitExceeded(
                f"aliases repeat more than {self.limits.max_yaml_alias_nodes} nodes",
                "max-yaml-alias-nodes",
                self.limits.max_yaml_alias_nodes,
                index,
            )
        if not self._wants_key():
            self._attach(named.value, named.size, named.start, named.end)
        elif named.text is None:
            raise YamlProblem(_KEY_SHAPE, index)
        else:
            self._key(named.text, named.merge, index, event.end_mark.index)

    # -- building --

    def _wants_key(self) -> bool:
        return bool(self.stack) and self.stack[-1].mapping and not self.stack[-1].has_key

    def _pointer(self) -> str:
        """The JSON pointer of the node about to be attached (only when recording spans)."""
        if self.spans is None or not self.stack:
            return ""
        parent = self.stack[-1]
        step = _escape(parent.key) if parent.mapping else str(parent.items)
        return f"{parent.pointer}/{step}"

    def _key(self, text: str, merge: bool, start: int, end: int) -> None:
        node = self.stack[-1]
        node.size += 1
        node.key, node.has_key, node.merge_key = text, True, merge
        if self.spans is not None:
            member = f"{node.pointer}/{_escape(text)}"
            self.spans.keys[member] = (start, end)
            if text in node.keys:
                self.spans.duplicates.append((member, (start, end)))
            node.keys.add(text)
            return
        if merge and node.merge is None:
            return
        if text in node.keys or merge:
            raise DuplicateKey(f'found duplicate key "{text}"', start)
        node.keys.add(text)

    def _attach(self, value: Any, size: int, start: int, end: int) -> None:
        if not self.stack:
            self.root = value
            if self.spans is not None:
                self.spans.values[""] = (start, end)
            return
        parent = self.stack[-1]
        parent.size += size
        if self.spans is not None:
            self.spans.values[self._pointer()] = (start, end)
        if parent.mapping:
            parent.has_key = False
            if self.spans is not None:
                return
            if parent.merge_key:
                parent.merge_key = False
                parent.merge = (value, start)
            else:
                parent.value[parent.key] = value
        else:
            parent.items += 1
            if self.spans is None:
                parent.value.append(value)

    def _merged(self, node: _Open) -> Any:
        """The mapping with its ``<<`` merge: merged keys first, its own keys win."""
        assert node.merge is not None
        source, index = node.merge
        if node.value is None:  # recording spans: nothing was built
            return None
        sources = source if isinstance(source, list) else [source]
        if not isinstance(source, (list, dict)) or not all(isinstance(s, dict) for s in sources):
            raise YamlProblem("expected a mapping or a list of mappings for merging", index)
        merged: dict[str, Any] = {}
        for mapping in reversed(sources):
            merged.update(mapping)
        merged.update(node.value)
        return merged


def read_yaml(text: str, limits: Limits) -> Any:
    """The data of the one YAML document in ``text``, read within ``limits``.

    Raises :class:`LimitExceeded`, :class:`DuplicateKey` or :class:`YamlProblem`
    (with the offset where reading stopped). Uses libyaml's events when it is
    there, else the pure-Python reader.
    """
    if _c_parser() is not None:
        return _Reader(limits).read(text)
    from agent_lint.yamlpure import pure_read  # ruamel.yaml, loaded only without libyaml

    return pure_read(text, limits)


def yaml_spans(text: str, limits: Limits) -> Spans | None:
    """The offsets of the nodes of the YAML document in ``text``; None without libyaml.

    Whatever was recorded before a problem stopped the pass is returned.
    """
    if _c_parser() is None:
        return None
    spans = Spans()
    with contextlib.suppress(YamlProblem, LimitExceeded):
        _Reader(limits, spans).read(text)
    return spans
