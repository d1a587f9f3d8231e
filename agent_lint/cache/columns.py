"""Many outcomes in one JSON text, a column per field: decoded by C loops, not value by value.

A warm run rebuilds every file's outcome from the cache: tens of thousands of
small frozen values. Decoded one value at a time (:meth:`Codec.decode`), each
costs a Python call or several; kept as columns, a whole table of values is
checked and built by a few calls that loop in C (``map``, ``frozenset``'s
``issuperset``, slicing).

A *batch* is ``{"strings": [...], "tables": [...]}``: one table per registered
type (see :mod:`agent_lint.cache.codec`) that its values use, written as
``[type, count, [column, ...]]``, a table of a type before every table that
points into it, and the batch's distinct strings. A field is a column of:

* ``scalar``: the JSON scalar of each row; a column of strings (or nulls) is
  written as ``{"s": [number, ...]}``, each string's place in the batch's
  strings (``-1`` for null), so a path a file's facts repeat ten times is kept,
  read and held in memory once;
* ``row``: the row number, in the field type's table, of each row's value
  (``optional-row``: ``-1`` for None);
* ``rows``: for a tuple or list of a registered type, each row's slice of that
  type's table, as ``start, end`` pairs (the items of one value are written
  one after the other, so they are contiguous);
* ``mixed``: for a field of any type: the JSON scalars of the rows, as a
  ``scalar`` column, when every row holds one; else ``{"v": [value, ...]}``,
  each value in the codec's own JSON form;
* ``tuples``: for a tuple or list of tuples of JSON scalars or values of any
  type (a file's names, an index entry's fields), each row's slice of the
  column's items as ``start, end`` pairs, then a ``scalar`` or ``mixed`` column
  per position of the items: ``[slices, firsts, seconds, ...]``;
* ``objects``: for a tuple of values of any type (a profile's facts), each row's
  slice of the column's items as ``start, end`` pairs, then each item's type and
  row in that type's table; an item of a type without a table (or one written
  after this one) has type ``-1`` and its row in a fourth list of values in the
  codec's own form: ``[slices, types, rows, values]``;
* ``value``: anything else, each value in the codec's own JSON form.

A type that holds itself (directly or further down) is written in the
codec's form where it recurs, so every table points only into tables before
it. Decoding checks each column's length, the types of its scalars and the
bounds of its row and string numbers; anything else is a :class:`CacheFormatError`.
"""

from __future__ import annotations

import collections
import itertools
import operator
import types
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from agent_lint.cache.codec import (
    _PRIMITIVES,
    CacheFormatError,
    Codec,
    Unencodable,
    _Plan,
)

_INTS = frozenset({int})
_LISTS = frozenset({list})
_STRINGS = frozenset({str})
_TEXT = frozenset({str, type(None)})
_STRING_COLUMN = "s"
_VALUES_COLUMN = "v"
#: How deep values may nest in a batch (as in the codec).
_MAX_DEPTH = 200


class _Field(NamedTuple):
    """How one field of a registered type is kept in its column (see the module docs)."""

    how: str
    plan: _Plan
    child: int = -1
    make: type = tuple
    decode: Callable[[Any], Any] | None = None
    allowed: frozenset[int] = frozenset()  # objects: the types kept in tables of their own


Table = list[Any]  # [row count, [column, ...]]


class _Encoded(NamedTuple):
    """A value of a ``mixed`` column that is not a JSON scalar, in the codec's form."""

    form: Any


class Columns:
    """Write and read batches of values of one codec's registered types."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.fields: list[list[_Field]] = [[] for _ in codec.types]
        self.order: list[int] = []  # every type after the types its columns point into
        state = [0] * len(codec.types)  # 0: not seen, 1: being planned, 2: planned
        for index in range(len(codec.types)):
            self._visit(index, state)
        self.makers = [_maker(cls, codec._names[n]) for n, cls in enumerate(codec.types)]

    def _visit(self, index: int, state: list[int]) -> None:
        if state[index]:
            return
        state[index] = 1
        codec = self.codec
        plans, _ = codec._rows[index]
        for plan in plans:
            how, child, make = _shape(plan)
            if child >= 0 and state[child] == 1:
                how = "value"  # a type that holds itself: written in the codec's form
            if child >= 0 and how != "value":
                self._visit(child, state)
            allowed: frozenset[int] = frozenset()
            if how == "objects":
                # Any type may be an item: each is planned (and written) before this one,
                # but for the types being planned now, whose items are in the codec's form.
                for other in range(len(codec.types)):
                    self._visit(other, state)
                allowed = frozenset(n for n, done in enumerate(state) if done == 2)
            if how == "objects":
                decode: Callable[[Any], Any] | None = codec._decode
            else:
                decode = codec._decoder(plan) if how == "value" else None
            self.fields[index].append(_Field(how, plan, child, make, decode, allowed))
        state[index] = 2
        self.order.append(index)

    # --- writing -------------------------------------------------------------------------------

    def add(self, tables: dict[int, Table], index: int, value: Any, depth: int = 0) -> int:
        """Write ``value`` (of registered type ``index``) into ``tables``; its row number.

        A row is appended only once all its fields were written, so a value
        that cannot be written (:class:`Unencodable`) leaves no partial row
        (the complete rows of its fields stay, unreferenced).
        """
        if depth > _MAX_DEPTH:
            raise Unencodable("nested too deeply")
        codec = self.codec
        if isinstance(value, tuple):
            items: Iterable[Any] = value
        else:
            items = [getattr(value, name) for name in codec._names[index]]
        cells: list[Any] = []
        for field, item in zip(self.fields[index], items, strict=True):
            how = field.how
            if how == "scalar":
                if type(item) not in _PRIMITIVES:
                    raise Unencodable(f"a {type(item).__name__} where a JSON value was declared")
                cells.append(codec.encode(item, depth))
            elif how == "value":
                cells.append(codec._encode_as(field.plan, item, depth))
            elif how == "rows":
                sequence: Sequence[Any] = item
                if type(sequence) is not field.make:
                    raise Unencodable(f"a {type(item).__name__} where a sequence was declared")
                start = tables[field.child][0] if field.child in tables else 0
                for position, each in enumerate(sequence):
                    if self._add_typed(tables, field.child, each, depth) != start + position:
                        raise Unencodable("the items of a value are not contiguous")
                cells.append((start, start + len(sequence)))
            elif how == "objects":
                cells.append(self._add_objects(tables, field, item, depth))
            elif how == "mixed":
                cells.append(self._mixed(item, depth))
            elif how == "tuples":
                cells.append(self._tuples_of(field, item, depth))
            elif how == "optional-row" and item is None:
                cells.append(-1)
            else:
                cells.append(self._add_typed(tables, field.child, item, depth))
        table = tables.get(index)
        if table is None:
            table = tables[index] = [0, [_empty(field) for field in self.fields[index]]]
        for field, column, cell in zip(self.fields[index], table[1], cells, strict=True):
            if field.how == "rows":
                column.extend(cell)
            elif field.how == "objects":
                slices, kinds, rows, values = column
                start, offset = len(kinds), len(values)
                slices.extend((start, start + len(cell[0])))
                kinds.extend(cell[0])
                rows.extend(r + offset if k < 0 else r for k, r in zip(*cell[:2], strict=True))
                values.extend(cell[2])
            elif field.how == "tuples":
                start = len(column[1])
                column[0].extend((start, start + len(cell)))
                for position, part in enumerate(column[1:]):
                    part.extend(each[position] for each in cell)
            else:
                column.append(cell)
        table[0] += 1
        return int(table[0] - 1)

    def _add_objects(
        self, tables: dict[int, Table], field: _Field, items: Any, depth: int
    ) -> tuple[list[int], list[int], list[Any]]:
        """The items of an ``objects`` field: their types, rows and codec-form values."""
        sequence: Sequence[Any] = items
        if type(sequence) is not field.make:
            raise Unencodable(f"a {type(items).__name__} where a sequence was declared")
        type_index = self.codec._type_index
        kinds: list[int] = []
        rows: list[int] = []
        values: list[Any] = []
        for each in sequence:
            kind = type_index.get(type(each), -1)
            if kind in field.allowed:
                kinds.append(kind)
                rows.append(self.add(tables, kind, each, depth + 1))
            else:
                kinds.append(-1)
                rows.append(len(values))
                values.append(self.codec.encode(each, depth + 1))
        return kinds, rows, values

    def _mixed(self, value: Any, depth: int) -> Any:
        """A ``mixed`` column's cell: a JSON scalar as it is, anything else encoded."""
        encoded = self.codec.encode(value, depth)  # refuses what JSON cannot hold faithfully
        return value if type(value) in _PRIMITIVES else _Encoded(encoded)

    def _tuples_of(self, field: _Field, items: Any, depth: int) -> list[tuple[Any, ...]]:
        """The items of a ``tuples`` field, checked: tuples of as many parts as declared,
        each a JSON scalar where one is declared."""
        sequence: Sequence[Any] = items
        if type(sequence) is not field.make:
            raise Unencodable(f"a {type(items).__name__} where a sequence was declared")
        kinds = [part.kind for part in field.plan.items[0].items]
        cells = []
        for each in sequence:
            if type(each) is not tuple or len(each) != len(kinds):
                raise Unencodable("a tuple of another length than declared")
            cell = []
            for kind, value in zip(kinds, each, strict=True):
                if kind == "json" and type(value) not in _PRIMITIVES:
                    raise Unencodable(f"a {type(value).__name__} where a JSON value was declared")
                cell.append(self._mixed(value, depth))
            cells.append(tuple(cell))
        return cells

    def _add_typed(self, tables: dict[int, Table], index: int, value: Any, depth: int) -> int:
        if type(value) is not self.codec.types[index]:
            raise Unencodable(f"a {type(value).__name__} where another type was declared")
        return self.add(tables, index, value, depth + 1)

    def batch(self, tables: dict[int, Table]) -> dict[str, Any]:
        """The JSON value of a batch: its tables, each after those it points into, and
        its strings (each column of strings or nulls written as their numbers)."""
        scalars = [
            part
            for index in self.order
            if index in tables
            for field, column in zip(self.fields[index], tables[index][1], strict=True)
            if field.how in ("scalar", "mixed", "tuples")
            for part in (column[1:] if field.how == "tuples" else (column,))
        ]
        texts = [part for part in scalars if part and _TEXT.issuperset(map(type, part))]
        numbers: dict[str | None, int] = dict.fromkeys(itertools.chain.from_iterable(texts), 0)
        numbers.pop(None, None)
        strings = list(numbers)
        numbers.update(zip(strings, itertools.count()))
        numbers[None] = -1
        coded = {
            id(column): {_STRING_COLUMN: list(map(numbers.__getitem__, column))} for column in texts
        }
        written = []
        for index in self.order:
            if index in tables:
                count, columns = tables[index]
                fields = self.fields[index]
                kept = [_coded(f, c, coded) for f, c in zip(fields, columns, strict=True)]
                written.append([index, count, kept])
        return {"strings": strings, "tables": written}

    # --- reading -------------------------------------------------------------------------------

    def decode(self, batch: Any, root: int) -> list[Any]:
        """The values of the table of type ``root`` in ``batch``, in row order.

        Every value is built afresh; :class:`CacheFormatError` for any shape
        :meth:`batch` does not write.
        """
        try:
            return self._decode(batch, root)
        except CacheFormatError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, RecursionError) as exc:
            raise CacheFormatError(f"unexpected value in a batch: {exc}") from exc

    def _decode(self, batch: Any, root: int) -> list[Any]:
        if type(batch) is not dict or batch.keys() != {"strings", "tables"}:
            raise CacheFormatError("a batch is an object of strings and tables")
        strings, tables = batch["strings"], batch["tables"]
        if type(strings) is not list or not _STRINGS.issuperset(map(type, strings)):
            raise CacheFormatError("a batch's strings are an array of strings")
        if type(tables) is not list:
            raise CacheFormatError("a batch's tables are an array")
        texts = [*strings, None]  # number -1: null
        decoded: dict[int, list[Any]] = {}
        types = self.codec.types
        for table in tables:
            if type(table) is not list or len(table) != 3:
                raise CacheFormatError("a table is [type, count, columns]")
            index, count, columns = table
            if type(index) is not int or not 0 <= index < len(types) or index in decoded:
                raise CacheFormatError("unknown or repeated table")
            fields = self.fields[index]
            if type(count) is not int or count < 0 or type(columns) is not list:
                raise CacheFormatError("a table is [type, count, columns]")
            if len(columns) != len(fields):
                raise CacheFormatError("a table has one column per field")
            values = [
                self._column(field, column, count, decoded, texts)
                for field, column in zip(fields, columns, strict=True)
            ]
            decoded[index] = self.makers[index](values, count)
        return decoded.get(root, [])

    def _column(
        self,
        field: _Field,
        column: Any,
        count: int,
        decoded: dict[int, list[Any]],
        texts: list[str | None],
    ) -> list[Any]:
        """One column's values, checked (see the module docs)."""
        how = field.how
        if how == "scalar":
            return _scalars(column, count, texts)
        if how == "mixed":
            return _mixed_column(column, count, texts, self.codec._decode)
        if type(column) is not list:
            raise CacheFormatError("a column is an array")
        if how == "objects":
            return self._objects(field, column, count, decoded)
        if how == "tuples":
            return _tuples(field, column, count, texts, self.codec._decode)
        if len(column) != (2 * count if how == "rows" else count):
            raise CacheFormatError("a column has one value per row")
        if how == "value":
            decode = field.decode
            if decode is None:
                if not _PRIMITIVES.issuperset(map(type, column)):
                    raise CacheFormatError("a column of JSON scalars holds something else")
                return column
            return list(map(decode, column))
        children = decoded.get(field.child, [])
        if column and not _INTS.issuperset(map(type, column)):
            raise CacheFormatError("row numbers are integers")
        if how == "rows":
            if column and (min(column) < 0 or max(column) > len(children)):
                raise CacheFormatError("a slice outside its table")
            starts, ends = column[0::2], column[1::2]
            if not all(map(operator.le, starts, ends)):
                raise CacheFormatError("a slice that ends before it starts")
            pieces = map(children.__getitem__, map(slice, starts, ends))
            return list(pieces) if field.make is list else list(map(tuple, pieces))
        lowest = -1 if how == "optional-row" else 0
        if column and (min(column) < lowest or max(column) >= len(children)):
            raise CacheFormatError("a row number outside its table")
        lookup = [*children, None] if how == "optional-row" else children
        return list(map(lookup.__getitem__, column))

    def _objects(
        self, field: _Field, column: list[Any], count: int, decoded: dict[int, list[Any]]
    ) -> list[Any]:
        """An ``objects`` column's tuples: each item taken from its type's table (decoded
        before this one) or decoded from its codec form."""
        if len(column) != 4 or not _LISTS.issuperset(map(type, column)):
            raise CacheFormatError("an objects column is [slices, types, rows, values]")
        slices, kinds, rows, values = column
        if len(slices) != 2 * count or len(kinds) != len(rows):
            raise CacheFormatError("an objects column has one slice per row, a row per item")
        if not _INTS.issuperset(map(type, itertools.chain(slices, kinds, rows))):
            raise CacheFormatError("an objects column's numbers are integers")
        decode = field.decode
        assert decode is not None
        # Every item's table, one after the other; ``-1``: the values (the last part).
        parts = [
            decoded.get(n, []) if n in field.allowed else [] for n in range(len(self.codec.types))
        ]
        parts.append(list(map(decode, values)))
        sizes = list(map(len, parts))
        starts = list(itertools.accumulate(sizes, initial=0))[:-1]
        if kinds and (min(kinds) < -1 or max(kinds) >= len(self.codec.types)):
            raise CacheFormatError("an item of an unknown type")
        if rows and (
            min(rows) < 0 or not all(map(operator.lt, rows, map(sizes.__getitem__, kinds)))
        ):
            raise CacheFormatError("an item outside its table")
        items = list(itertools.chain.from_iterable(parts))
        every = list(
            map(items.__getitem__, map(operator.add, map(starts.__getitem__, kinds), rows))
        )
        if slices and (min(slices) < 0 or max(slices) > len(every)):
            raise CacheFormatError("a slice outside its items")
        begins, ends = slices[0::2], slices[1::2]
        if not all(map(operator.le, begins, ends)):
            raise CacheFormatError("a slice that ends before it starts")
        pieces = map(every.__getitem__, map(slice, begins, ends))
        return list(pieces) if field.make is list else list(map(tuple, pieces))


Maker = Callable[[list[list[Any]], int], list[Any]]


def _maker(cls: type, names: tuple[str, ...]) -> Maker:
    """How a table's values are built from their columns, with loops in C where the
    type allows it: a named tuple, or a dataclass of slots built by its own generated
    ``__init__`` only (no ``__post_init__``), is filled field by field; any other type
    is called with each row's fields."""
    if not names:
        return lambda values, count: [cls() for _ in range(count)]
    if issubclass(cls, tuple) and "_fields" in vars(cls):  # made by namedtuple: its own __new__
        new = tuple.__new__
        return lambda values, count: list(
            map(new, itertools.repeat(cls, count), zip(*values, strict=True))
        )
    if _plain_slots(cls, names):
        setters = [vars(cls)[name].__set__ for name in names]
        create = object.__new__

        def fill(values: list[list[Any]], count: int) -> list[Any]:
            made: list[Any] = list(map(create, itertools.repeat(cls, count)))
            for setter, column in zip(setters, values, strict=True):
                collections.deque(map(setter, made, column), maxlen=0)
            return made

        return fill
    return lambda values, count: list(map(cls, *values))


def _plain_slots(cls: type, names: tuple[str, ...]) -> bool:
    """Whether ``cls`` is a dataclass of slots that its generated ``__init__`` only fills."""
    init = vars(cls).get("__init__")
    return (
        hasattr(cls, "__dataclass_fields__")
        and getattr(cls, "__new__", None) is object.__new__
        and not hasattr(cls, "__post_init__")
        and getattr(getattr(init, "__code__", None), "co_filename", "") == "<string>"
        and all(type(vars(cls).get(name)) is types.MemberDescriptorType for name in names)
    )


def _empty(field: _Field) -> list[Any]:
    """A column with no rows yet (``objects`` and ``tuples`` columns are several lists)."""
    if field.how == "objects":
        return [[], [], [], []]
    if field.how == "tuples":
        return [[] for _ in range(1 + len(field.plan.items[0].items))]
    return []


def _coded(field: _Field, column: list[Any], coded: dict[int, Any]) -> Any:
    """A column as a batch writes it: strings as their numbers, values in the codec's form."""
    if field.how == "tuples":
        return [column[0], *(_scalars_written(part, coded) for part in column[1:])]
    if field.how in ("scalar", "mixed"):
        return _scalars_written(column, coded)
    return column


def _scalars_written(column: list[Any], coded: dict[int, Any]) -> Any:
    """A ``scalar`` or ``mixed`` column as a batch writes it."""
    if id(column) in coded:
        return coded[id(column)]
    if _PRIMITIVES.issuperset(map(type, column)):
        return column
    return {_VALUES_COLUMN: [v.form if type(v) is _Encoded else v for v in column]}


def _mixed_column(
    column: Any, count: int, texts: list[str | None], decode: Callable[[Any], Any]
) -> list[Any]:
    """A ``mixed`` column's values: scalars, or values in the codec's form decoded."""
    if type(column) is dict and _VALUES_COLUMN in column:
        values = column[_VALUES_COLUMN]
        if len(column) != 1 or type(values) is not list or len(values) != count:
            raise CacheFormatError('a column of values is {"v": [value per row]}')
        return list(map(decode, values))
    return _scalars(column, count, texts)


def _scalars(column: Any, count: int, texts: list[str | None]) -> list[Any]:
    """A column of ``count`` JSON scalars (strings or nulls may be written as numbers)."""
    if type(column) is dict:
        return _texts(column, count, texts)
    if type(column) is not list or len(column) != count:
        raise CacheFormatError("a column has one value per row")
    if not _PRIMITIVES.issuperset(map(type, column)):
        raise CacheFormatError("a column of JSON scalars holds something else")
    return column


def _tuples(
    field: _Field,
    column: Any,
    count: int,
    texts: list[str | None],
    decode: Callable[[Any], Any],
) -> list[Any]:
    """A ``tuples`` column's sequences of tuples, checked."""
    kinds = [part.kind for part in field.plan.items[0].items]
    size = len(kinds)
    if type(column) is not list or len(column) != 1 + size or type(column[0]) is not list:
        raise CacheFormatError("a tuples column is [slices, one column per position]")
    slices = column[0]
    if len(slices) != 2 * count or not _INTS.issuperset(map(type, slices)):
        raise CacheFormatError("a tuples column has one slice per row")
    first = column[1]
    numbers = first.get(_STRING_COLUMN, first.get(_VALUES_COLUMN)) if type(first) is dict else first
    if type(numbers) is not list:
        raise CacheFormatError("a column is an array, or strings by number, or values")
    parts = [
        _scalars(part, len(numbers), texts)
        if kind == "json"
        else _mixed_column(part, len(numbers), texts, decode)
        for kind, part in zip(kinds, column[1:], strict=True)
    ]
    items = list(zip(*parts, strict=True))
    if slices and (min(slices) < 0 or max(slices) > len(items)):
        raise CacheFormatError("a slice outside its items")
    starts, ends = slices[0::2], slices[1::2]
    if not all(map(operator.le, starts, ends)):
        raise CacheFormatError("a slice that ends before it starts")
    pieces = map(items.__getitem__, map(slice, starts, ends))
    return list(pieces) if field.make is list else list(map(tuple, pieces))


def _texts(column: dict[str, Any], count: int, texts: list[str | None]) -> list[Any]:
    """A column of strings or nulls, from their numbers in the batch's strings."""
    numbers = column.get(_STRING_COLUMN)
    if len(column) != 1 or type(numbers) is not list or len(numbers) != count:
        raise CacheFormatError('a column of strings is {"s": [number per row]}')
    if numbers and (
        not _INTS.issuperset(map(type, numbers))
        or min(numbers) < -1
        or max(numbers) >= len(texts) - 1
    ):
        raise CacheFormatError("a string number outside the batch's strings")
    return list(map(texts.__getitem__, numbers))


def _shape(plan: _Plan) -> tuple[str, int, type]:
    """How a field of ``plan`` is kept: its column kind, the type it points into, its sequence."""
    if plan.kind == "json":
        return "scalar", -1, tuple
    if plan.kind == "any":
        return "mixed", -1, tuple
    if plan.kind == "row":
        return "row", plan.row, tuple
    inner = plan.items[0] if plan.items else None
    if plan.kind == "optional" and inner is not None and inner.kind == "row":
        return "optional-row", inner.row, tuple
    if plan.kind in ("tuple-of", "list-of") and inner is not None and inner.kind == "row":
        return "rows", inner.row, list if plan.kind == "list-of" else tuple
    if (
        plan.kind in ("tuple-of", "list-of")
        and inner is not None
        and inner.kind == "fixed"
        and inner.items
        and all(part.kind in ("json", "any") for part in inner.items)
    ):
        return "tuples", -1, list if plan.kind == "list-of" else tuple
    if plan.kind in ("tuple-of", "list-of") and inner is not None and inner.kind == "any":
        return "objects", -1, list if plan.kind == "list-of" else tuple
    return "value", -1, tuple
