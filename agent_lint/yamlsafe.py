"""A YAML loader that keeps untrusted documents bounded and JSON-shaped.

ruamel's safe loader already refuses tags that construct objects. This one
also:

* stops composing at the ``max-depth`` limit, before anything recurses;
* counts what aliases repeat while composing (an alias counts the size of the
  node it names, nested aliases included) and stops at the
  ``max-yaml-alias-nodes`` limit, so a "billion laughs" document is refused
  before any walk expands it; an alias to a node that contains it (a cycle)
  is an error;
* makes every mapping key a string, as written (``7:`` is the key ``"7"``),
  so later checks see JSON's data model;
* keeps timestamps as the strings written, and integers of any length exactly;
* refuses the YAML types JSON has no equivalent of (``!!binary``, ``!!set``,
  ``!!omap``, ``!!pairs``).
"""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import ConstructorError, SafeConstructor
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

from agent_lint.config import Limits

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
#: Integers with more digits than this are kept as :class:`~decimal.Decimal`.
_INT_DIGITS = 4000


class LimitExceeded(Exception):
    """A document goes past a limit at character ``index`` of the parsed text."""

    def __init__(self, problem: str, limit: str, value: int, index: int) -> None:
        super().__init__(problem)
        self.problem = problem
        self.limit = limit
        self.value = value
        self.index = index


def node_size(node: Node, sizes: dict[int, int]) -> int:
    """Number of nodes under ``node`` with aliases expanded; ``sizes`` memoises by node.

    Iterative, and linear in the distinct nodes: a node that several aliases
    repeat is measured once.
    """
    pending: list[tuple[Node, bool]] = [(node, False)]
    while pending:
        current, children_done = pending.pop()
        if id(current) in sizes:
            continue
        if isinstance(current, ScalarNode):
            sizes[id(current)] = 1
            continue
        children = _children(current)
        if children_done:
            sizes[id(current)] = 1 + sum(sizes.get(id(child), 1) for child in children)
            continue
        pending.append((current, True))
        pending.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(node)]


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value)


class _BoundedComposer(Composer):
    """Composer that enforces the depth and alias limits while it builds nodes."""

    limits = Limits()

    def compose_document(self) -> Any:
        """Compose one document, counting from zero for it."""
        self._open: list[str] = []
        self._sizes: dict[int, int] = {}
        self._repeated = 0
        self._level = 0
        return super().compose_document()

    def compose_node(self, parent: Any, index: Any) -> Any:
        """Compose a node, refusing cycles, a repeat past the alias limit, nesting past depth."""
        event = self.parser.peek_event()
        mark = event.start_mark
        if isinstance(event, AliasEvent):
            if event.anchor in self._open:
                raise ComposerError(
                    None,
                    None,
                    f"alias *{event.anchor} names a node that contains it; a recursive "
                    "structure has no JSON equivalent",
                    mark,
                )
            named = self.anchors.get(event.anchor)
            if named is not None:
                self._repeated += node_size(named, self._sizes)
                if self._repeated > self.limits.max_yaml_alias_nodes:
                    raise LimitExceeded(
                        f"aliases repeat more than {self.limits.max_yaml_alias_nodes} nodes",
                        "max-yaml-alias-nodes",
                        self.limits.max_yaml_alias_nodes,
                        mark.index,
                    )
            return super().compose_node(parent, index)
        self._level += 1
        if self._level > self.limits.max_depth:
            raise LimitExceeded(
                f"document is nested deeper than {self.limits.max_depth} levels",
                "max-depth",
                self.limits.max_depth,
                mark.index,
            )
        self._open.append(event.anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            self._open.pop()
            self._level -= 1


class JsonShapedConstructor(SafeConstructor):
    """Safe constructor whose output is JSON-shaped (see the module docstring)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """Build a mapping whose keys are the strings written in the document."""
        if isinstance(node, MappingNode):
            node.value = [(_text_key(key), value) for key, value in node.value]
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: Any) -> Any:
        """An integer; one longer than Python's ``int`` takes is kept as ``Decimal``."""
        text = self.construct_scalar(node).replace("_", "")
        digits = text.lstrip("+-")
        if len(digits) > _INT_DIGITS and digits.isascii() and digits.isdigit():
            return Decimal(text)
        return super().construct_yaml_int(node)

    def construct_no_json_equivalent(self, node: Any) -> Any:
        """Refuse a YAML type that JSON cannot represent."""
        raise ConstructorError(
            None,
            None,
            f"the YAML type {node.tag.rsplit(':', 1)[-1]} has no JSON equivalent; "
            "agent records hold JSON values",
            node.start_mark,
        )


def _text_key(key: Node) -> Node:
    if isinstance(key, ScalarNode):
        if key.tag in (_STR, _MERGE):
            return key
        return ScalarNode(_STR, key.value, key.start_mark, key.end_mark)
    raise ConstructorError(
        None,
        None,
        "a mapping key must be a string, not a sequence or a mapping",
        key.start_mark,
    )


JsonShapedConstructor.add_constructor(
    "tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str
)
JsonShapedConstructor.add_constructor(
    "tag:yaml.org,2002:int", JsonShapedConstructor.construct_yaml_int
)
for _tag in ("binary", "set", "omap", "pairs"):
    JsonShapedConstructor.add_constructor(
        f"tag:yaml.org,2002:{_tag}", JsonShapedConstructor.construct_no_json_equivalent
    )


@functools.lru_cache(maxsize=8)
def _composer(limits: Limits) -> type[Composer]:
    return type("BoundedComposer", (_BoundedComposer,), {"limits": limits})


def safe_yaml(limits: Limits) -> YAML:
    """A fresh YAML loader bounded by ``limits`` (loaders keep state: one per document)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Composer = _composer(limits)
    yaml.Constructor = JsonShapedConstructor
    yaml.allow_duplicate_keys = False
    return yaml
