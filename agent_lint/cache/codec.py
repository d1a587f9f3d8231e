"""Turn a file's outcome into plain JSON values and back, without running stored code.

The cache never pickles, marshals or evaluates: an outcome is written as
JSON-native values, with a one-key object standing for each Python value
JSON has no form of:

* ``{"c": [type, field, ...]}`` a dataclass or named tuple of the run's
  registry (:func:`registry`), its fields in order; ``type`` indexes the
  document's type table;
* ``{"e": [type, value]}`` a member of a registered enum;
* ``{"t": [...]}`` a tuple, ``{"s": [...]}`` a set, ``{"z": [...]}`` a frozenset;
* ``{"d": {...}}`` a dict with string keys;
* ``{"j": value}`` a list or dict of JSON values only (parsed record data),
  taken as it is read;
* ``{"n": "digits"}`` an integer too long for ``int`` (a
  :class:`~decimal.Decimal`, as :mod:`agent_lint.loading` keeps it).

Decoding builds only the registry's types and the containers above, each
checked for its shape; anything else is a :class:`CacheFormatError`, and the
whole cache file is then ignored. A value the encoder has no form for (a
``NaN``, whose identity comparisons a copy would not keep; a type outside the
registry) is an :class:`Unencodable`: that file is simply not cached.
"""

from __future__ import annotations

import enum
import itertools
import math
import operator
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from types import ModuleType
from typing import Any, NamedTuple

#: Integers are written as JSON numbers up to this many bits (Python refuses to print
#: integers of more than 4,300 digits; longer ones are kept as Decimal by the loaders).
_MAX_INT_BITS = 10_000
_DIGITS = re.compile(r"-?[0-9]+")
#: The types ``json`` reads that stand for themselves.
_PRIMITIVES = frozenset({str, int, float, bool, type(None)})
_LISTS = frozenset({list})


class CacheFormatError(Exception):
    """A cache document that is not exactly what agent-lint writes: ignore the whole file."""


class Unencodable(Exception):
    """A value the cache has no faithful JSON form for: the file is checked on every run."""


def _is_dataclass(cls: type) -> bool:
    """Whether ``cls`` is a dataclass (told without loading :mod:`dataclasses`)."""
    return isinstance(cls, type) and hasattr(cls, "__dataclass_fields__")


def _fields(cls: type) -> tuple[str, ...] | None:
    """The constructor's positional fields of a dataclass or named tuple, else None."""
    if _is_dataclass(cls):
        import dataclasses

        found = dataclasses.fields(cls)
        if not all(f.init for f in found):
            return None
        return tuple(f.name for f in found)
    names = getattr(cls, "_fields", None)
    if issubclass(cls, tuple) and isinstance(names, tuple):
        return names
    return None


def registry(modules: Iterable[ModuleType]) -> tuple[list[type], list[type[enum.Enum]]]:
    """The value types and enums defined or imported by ``modules``, in a stable order.

    The modules that build a file's outcome (the per-file step, diagnostics,
    the index, Markdown scanning and the profile's collectors) name every type
    an outcome holds; a type they do not name cannot be written.
    """
    values: dict[str, type] = {}
    enums: dict[str, type[enum.Enum]] = {}
    for module in modules:
        for item in vars(module).values():
            if not isinstance(item, type) or not item.__module__.startswith("agent_lint."):
                continue
            name = f"{item.__module__}.{item.__qualname__}"
            if issubclass(item, enum.Enum):
                enums[name] = item
            elif _fields(item) is not None:
                values[name] = item
    return [values[n] for n in sorted(values)], [enums[n] for n in sorted(enums)]


def type_name(cls: type) -> str:
    """How a type is named in a cache document's type table."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is made of JSON values only (that ``json`` reads back the same)."""
    if depth > 200:
        return False
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(value.bit_length() <= _MAX_INT_BITS)
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(_plain(item, depth + 1) for item in value)
    if kind is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    return False


_JSON_NAMES = frozenset({"str", "int", "bool", "float", "None"})


class _Plan(NamedTuple):
    """How a declared field is written: ``json`` (a JSON scalar), ``row`` (a registered
    type, as the array of its fields), ``optional``, ``tuple-of``/``list-of`` (items
    of one plan), ``fixed`` (a tuple of given plans), or ``any`` (tagged, see above)."""

    kind: str
    items: tuple[_Plan, ...] = ()
    row: int = -1


Decoder = Callable[[Any], Any]


def _scalar(value: Any) -> Any:
    if type(value) not in _PRIMITIVES:
        raise CacheFormatError("a JSON value was expected")
    return value


def _split(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets, each part stripped."""
    parts, depth, start = [], 0, 0
    for position, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:position].strip())
            start = position + 1
    parts.append(text[start:].strip())
    return parts


class Codec:
    """Encode and decode outcome values for one registry of types (see the module docs)."""

    def __init__(self, types: Sequence[type], enums: Sequence[type[enum.Enum]]) -> None:
        self.types = list(types)
        self.enums = list(enums)
        self._type_index = {cls: n for n, cls in enumerate(self.types)}
        self._enum_index = {cls: n for n, cls in enumerate(self.enums)}
        self._arity = [len(_fields(cls) or ()) for cls in self.types]
        self._names = [_fields(cls) or () for cls in self.types]
        self._by_name = {cls.__qualname__: cls for cls in self.types}
        self._rows: list[tuple[list[_Plan], bool]] = [self._row_plan(cls) for cls in self.types]
        self._built: dict[int, Decoder] = {}
        self._building: set[int] = set()
        self._row_decoders = [self._row(n) for n in range(len(self.types))]

    @property
    def table(self) -> dict[str, list[str]]:
        """The type table a document carries: it must match the reader's registry exactly."""
        return {
            "types": [type_name(cls) for cls in self.types],
            "enums": [type_name(cls) for cls in self.enums],
        }

    # --- typed rows: the fields of a registered type, by their annotations -------------------

    def _row_plan(self, cls: type) -> tuple[list[_Plan], bool]:
        """How each field of ``cls`` is written, from its annotation; whether all are JSON's."""
        if _is_dataclass(cls):
            import dataclasses

            notes = [f.type for f in dataclasses.fields(cls)]
        else:
            annotations = getattr(cls, "__annotations__", {})
            notes = [annotations.get(name, "Any") for name in _fields(cls) or ()]
        texts = [getattr(note, "__forward_arg__", note) for note in notes]  # named tuples'
        plans = [self._plan(text if isinstance(text, str) else "Any") for text in texts]
        return plans, all(plan.kind == "json" for plan in plans)

    def _plan(self, note: str) -> _Plan:
        """The plan of one annotation (see :class:`_Plan`); ``any`` when it is not understood."""
        note = note.replace("typing.", "").strip()
        parts = _split(note, "|")
        if len(parts) > 1:
            if set(parts) <= _JSON_NAMES:
                return _Plan("json")
            rest = [part for part in parts if part != "None"]
            if len(rest) == 1:
                return _Plan("optional", (self._plan(rest[0]),))
            return _Plan("any")
        if note in _JSON_NAMES:
            return _Plan("json")
        for prefix, kind in (("tuple[", "tuple"), ("list[", "list")):
            if note.startswith(prefix) and note.endswith("]"):
                inner = _split(note[len(prefix) : -1], ",")
                if (kind == "tuple" and len(inner) == 2 and inner[1] == "...") or (
                    kind == "list" and len(inner) == 1
                ):
                    return _Plan(f"{kind}-of", (self._plan(inner[0]),))
                if kind == "tuple" and "..." not in inner:
                    return _Plan("fixed", tuple(self._plan(part) for part in inner))
                return _Plan("any")
        cls = self._by_name.get(note)
        if cls is not None:
            return _Plan("row", row=self._type_index[cls])
        return _Plan("any")

    def _encode_row(self, index: int, value: Any, depth: int) -> list[Any]:
        plans, _ = self._rows[index]
        if isinstance(value, tuple):
            items: Iterable[Any] = value
        else:
            items = (getattr(value, name) for name in self._names[index])
        return [self._encode_as(plan, item, depth) for plan, item in zip(plans, items, strict=True)]

    def _encode_as(self, plan: _Plan, value: Any, depth: int) -> Any:
        """``value`` written by ``plan``; :class:`Unencodable` when it does not fit it."""
        kind = plan.kind
        if kind == "json":
            if type(value) not in _PRIMITIVES:
                raise Unencodable(f"a {type(value).__name__} where a JSON value was declared")
            return self.encode(value, depth)
        if kind == "any":
            return self.encode(value, depth)
        if kind == "optional":
            return None if value is None else self._encode_as(plan.items[0], value, depth)
        if kind == "row":
            if type(value) is not self.types[plan.row]:
                raise Unencodable(f"a {type(value).__name__} where another type was declared")
            return self._encode_row(plan.row, value, depth + 1)
        container = list if kind == "list-of" else tuple
        if type(value) is not container or depth > 200:
            raise Unencodable(f"a {type(value).__name__} where a {container.__name__} was declared")
        if kind == "fixed":
            if len(value) != len(plan.items):
                raise Unencodable("a tuple of another length than declared")
            return [
                self._encode_as(p, v, depth + 1) for p, v in zip(plan.items, value, strict=True)
            ]
        inner = plan.items[0]
        return [self._encode_as(inner, item, depth + 1) for item in value]

    def _row(self, index: int) -> Decoder:
        """The decoder of the registered type ``index``, built once and then called directly.

        A type whose fields hold itself (directly or further down) reaches its own
        decoder through the table while that decoder is being built.
        """
        built = self._built
        found = built.get(index)
        if found is not None:
            return found
        if index in self._building:
            return lambda value: built[index](value)
        self._building.add(index)
        made = built[index] = self._row_decoder(index)
        self._building.discard(index)
        return made

    def _row_decoder(self, index: int) -> Decoder:
        """The decoder of a registered type's array of fields.

        The array's JSON scalars are checked in one pass (a C loop over their
        types); only the fields of other plans call a decoder of their own,
        and the type is built with its constructor, as the encoder read it.
        """
        cls, arity = self.types[index], self._arity[index]
        plans, _ = self._rows[index]
        name = type_name(cls)
        primitives = _PRIMITIVES
        nested = [(n, d) for n, plan in enumerate(plans) if (d := self._decoder(plan)) is not None]
        scalars = [n for n, plan in enumerate(plans) if plan.kind == "json"]

        def wrong() -> CacheFormatError:
            return CacheFormatError(f"wrong fields for {name}")

        if not nested:

            def plain_row(fields: Any) -> Any:
                if (
                    type(fields) is not list
                    or len(fields) != arity
                    or not primitives.issuperset(map(type, fields))
                ):
                    raise wrong()
                return cls(*fields)

            return plain_row
        # A getter of the scalar fields that always returns a tuple (itemgetter of one
        # position returns the item itself, so that position is asked for twice).
        pick = operator.itemgetter(*scalars, *scalars[:1]) if scalars else None

        def row(fields: Any) -> Any:
            if type(fields) is not list or len(fields) != arity:
                raise wrong()
            if pick is not None and not primitives.issuperset(map(type, pick(fields))):
                raise wrong()
            values = fields.copy()
            for position, decode in nested:
                values[position] = decode(values[position])
            return cls(*values)

        return row

    def _decoder(self, plan: _Plan) -> Decoder | None:
        """The decoder of one plan; None for a JSON scalar (taken as it is, once checked)."""
        kind = plan.kind
        if kind == "json":
            return None
        if kind == "any":
            return self._decode
        if kind == "row":
            return self._row(plan.row)
        if kind == "optional":
            inner = self._decoder(plan.items[0])
            if inner is None:
                return _scalar
            some = inner
            return lambda value: None if value is None else some(value)
        if kind == "fixed":
            parts = [self._decoder(p) for p in plan.items]
            size = len(parts)
            if all(part is None for part in parts):

                def fixed_scalars(value: Any) -> Any:
                    if (
                        type(value) is not list
                        or len(value) != size
                        or not _PRIMITIVES.issuperset(map(type, value))
                    ):
                        raise CacheFormatError("a tuple of another length or kind")
                    return tuple(value)

                return fixed_scalars

            # Parts that are JSON scalars or anything: a tuple of scalars stands for itself.
            loose = all(p.kind in ("json", "any") for p in plan.items)

            def fixed(value: Any) -> Any:
                if type(value) is not list or len(value) != size:
                    raise CacheFormatError("a tuple of another length")
                if loose and _PRIMITIVES.issuperset(map(type, value)):
                    return tuple(value)
                return tuple(
                    [_scalar(v) if d is None else d(v) for d, v in zip(parts, value, strict=True)]
                )

            return fixed
        make = list if kind == "list-of" else tuple
        each = self._decoder(plan.items[0])
        if each is None:

            def scalars(value: Any) -> Any:
                if type(value) is not list or not _PRIMITIVES.issuperset(map(type, value)):
                    raise CacheFormatError("an array of JSON values was expected")
                return make(value)

            return scalars
        decode_each = each
        element = plan.items[0]
        if element.kind == "fixed" and all(p.kind in ("json", "any") for p in element.items):
            # Tuples of scalars (pairs of a name and a value, triples of ids): when every
            # item is an array of that many scalars, they are checked and built in C loops.
            sizes = frozenset({len(element.items)})

            def tuples(value: Any) -> Any:
                if type(value) is not list:
                    raise CacheFormatError("an array was expected")
                if (
                    _LISTS.issuperset(map(type, value))
                    and sizes.issuperset(map(len, value))
                    and _PRIMITIVES.issuperset(map(type, itertools.chain.from_iterable(value)))
                ):
                    return make(map(tuple, value))
                return make(map(decode_each, value))

            return tuples

        def items(value: Any) -> Any:
            if type(value) is not list:
                raise CacheFormatError("an array was expected")
            return make(map(decode_each, value))

        return items

    def encode(self, value: Any, depth: int = 0) -> Any:
        """The JSON form of ``value``; :class:`Unencodable` when it has none."""
        if depth > 200:
            raise Unencodable("nested too deeply")
        kind = type(value)
        if kind is str or kind is bool or value is None:
            return value
        if kind is int:
            if value.bit_length() > _MAX_INT_BITS:
                raise Unencodable("integer too long")
            return value
        if kind is float:
            if not math.isfinite(value):
                raise Unencodable("a float that is not finite")
            return value
        if kind is list or kind is dict:
            if _plain(value):
                return {"j": value}
            if kind is list:
                return [self.encode(item, depth + 1) for item in value]
            if not all(type(key) is str for key in value):
                raise Unencodable("a dict with keys that are not strings")
            return {"d": {key: self.encode(item, depth + 1) for key, item in value.items()}}
        if kind is Decimal:
            if not value.is_finite() or value != value.to_integral_value():
                raise Unencodable("a decimal that is not an integer")
            digits = format(value, "f")
            if not _DIGITS.fullmatch(digits):
                raise Unencodable("a decimal that is not written as an integer")
            return {"n": digits}
        index = self._type_index.get(kind)
        if index is not None:
            return {"c": [index, *self._encode_row(index, value, depth + 1)]}
        if kind is tuple:
            return {"t": [self.encode(item, depth + 1) for item in value]}
        if kind is set or kind is frozenset:
            tag = "s" if kind is set else "z"
            return {tag: [self.encode(item, depth + 1) for item in value]}
        if isinstance(value, enum.Enum) and kind in self._enum_index:
            return {"e": [self._enum_index[kind], self.encode(value.value, depth + 1)]}
        raise Unencodable(f"a {kind.__name__} value")

    def decode(self, value: Any) -> Any:
        """The value ``encode`` was given; :class:`CacheFormatError` for any other shape."""
        try:
            return self._decode(value)
        except CacheFormatError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, RecursionError) as exc:
            raise CacheFormatError(f"unexpected value in the cache: {exc}") from exc

    def _items(self, body: Any) -> list[Any]:
        """Decode the items of an array: JSON's own values as they are, others one by one."""
        if type(body) is not list:
            raise CacheFormatError("expected an array")
        if _PRIMITIVES.issuperset(map(type, body)):
            return body
        decode = self._decode
        return [item if type(item) in _PRIMITIVES else decode(item) for item in body]

    def _decode(self, value: Any) -> Any:
        kind = type(value)
        if kind in _PRIMITIVES:
            return value
        if kind is list:
            return list(self._items(value))
        if kind is not dict or len(value) != 1:
            raise CacheFormatError("a tagged value is an object with exactly one member")
        ((tag, body),) = value.items()
        if tag == "c":
            if type(body) is not list or not body:
                raise CacheFormatError("an object is [type, field, ...]")
            fields = body
            index = fields[0]
            if type(index) is not int or not 0 <= index < len(self.types):
                raise CacheFormatError("unknown type index")
            return self._row_decoders[index](fields[1:])
        if tag == "t":
            return tuple(self._items(body))
        if tag == "j":
            if type(body) is not list and type(body) is not dict:
                raise CacheFormatError("plain values are a list or an object")
            return body
        if tag == "d":
            if type(body) is not dict:
                raise CacheFormatError("a dict is an object")
            decode = self._decode
            return {key: decode(item) for key, item in body.items()}
        if tag == "s":
            return set(self._items(body))
        if tag == "z":
            return frozenset(self._items(body))
        if tag == "e":
            index, member = self._items(body)
            if type(index) is not int or not 0 <= index < len(self.enums):
                raise CacheFormatError("unknown enum index")
            return self.enums[index](member)
        if tag == "n":
            if type(body) is not str or not _DIGITS.fullmatch(body):
                raise CacheFormatError("a long integer is written as its digits")
            return Decimal(body)
        raise CacheFormatError(f"unknown tag {tag!r}")


def outcome_modules(collector_modules: Iterable[str]) -> list[ModuleType]:
    """The modules whose types make up a file's outcome: the core ones and the collectors'."""
    core = (
        "agent_lint.filestep",
        "agent_lint.diagnostics",
        "agent_lint.index",
        "agent_lint.markdown",
    )
    return [sys.modules[name] for name in (*core, *collector_modules) if name in sys.modules]
