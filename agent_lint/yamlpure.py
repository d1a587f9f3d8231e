"""The pure-Python YAML reader: ruamel.yaml's safe loader, bounded and JSON-shaped.

It reads what :mod:`agent_lint.yamlsafe` reads, with the same limits enforced
while it composes (depth, aliases, duplicate keys) and the same JSON-shaped
data, some forty times slower. It serves where PyYAML has no libyaml, and
places findings in such a file; a run with libyaml never imports it.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import ConstructorError, DuplicateKeyError, SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

from agent_lint.config import Limits
from agent_lint.yamlsafe import (
    _KEY_SHAPE,
    _MERGE,
    _NO_JSON,
    _STR,
    DuplicateKey,
    LimitExceeded,
    YamlProblem,
    construct_scalar,
)


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
    """Safe constructor whose output is JSON-shaped (see the module docstring).

    Scalars are built by :func:`construct_scalar`, as the C reader builds them.
    """

    def _version(self) -> tuple[int, int]:
        version = getattr(self.resolver, "processing_version", None)
        return (1, 1) if version == (1, 1) else (1, 2)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """Build a mapping whose keys are the strings written, each written once."""
        if isinstance(node, MappingNode):
            node.value = [(_text_key(key), value) for key, value in node.value]
            seen: set[str] = set()
            for key, _ in node.value:
                if key.tag == _MERGE:
                    continue
                if key.value in seen:
                    raise DuplicateKeyError(
                        "while constructing a mapping",
                        node.start_mark,
                        f'found duplicate key "{key.value}"',
                        key.start_mark,
                    )
                seen.add(key.value)
        return super().construct_mapping(node, deep=deep)

    def construct_core(self, node: Any) -> Any:
        """A scalar of the core schema (``int``, ``float``, ``bool``, ``value``)."""
        text = self.construct_scalar(node)
        try:
            return construct_scalar(node.tag.rsplit(":", 1)[-1], text, self._version())
        except ValueError as exc:
            raise ConstructorError(None, None, str(exc), node.start_mark) from None

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
    raise ConstructorError(None, None, _KEY_SHAPE, key.start_mark)


JsonShapedConstructor.add_constructor(
    "tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str
)
for _tag in ("int", "float", "bool", "value"):
    JsonShapedConstructor.add_constructor(
        f"tag:yaml.org,2002:{_tag}", JsonShapedConstructor.construct_core
    )
for _tag in _NO_JSON:
    JsonShapedConstructor.add_constructor(
        f"tag:yaml.org,2002:{_tag}", JsonShapedConstructor.construct_no_json_equivalent
    )


@functools.lru_cache(maxsize=8)
def _composer(limits: Limits) -> type[Composer]:
    return type("BoundedComposer", (_BoundedComposer,), {"limits": limits})


def safe_yaml(limits: Limits) -> YAML:
    """A fresh pure-Python YAML loader bounded by ``limits`` (loaders keep state)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Composer = _composer(limits)
    yaml.Constructor = JsonShapedConstructor
    yaml.allow_duplicate_keys = False
    return yaml


def pure_read(text: str, limits: Limits) -> Any:
    """:func:`read_yaml` with the pure-Python reader, its errors as this module's."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ReusedAnchorWarning)
            return safe_yaml(limits).load(text)
    except DuplicateKeyError as exc:
        mark = exc.problem_mark
        raise DuplicateKey(exc.problem or "duplicate key", mark.index if mark else None) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "syntax error"
        raise YamlProblem(problem, mark.index if mark else None) from None
    except (YAMLError, RecursionError, ValueError) as exc:
        lines = str(exc).strip().splitlines()
        raise YamlProblem(lines[0] if lines else type(exc).__name__, None) from None
