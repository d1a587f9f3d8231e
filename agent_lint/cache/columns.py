"""Many outcomes in one JSON text, a column per field: decoded by C loops, not value by value.

A warm run rebuilds every file's outcome from the cache: tens of thousands of
small frozen values. Decoded one value at a time (:meth:`Codec.decode`), each
costs a Python call or several; kept as columns, a whole table of values is
checked and built by a few calls that loop in C (``map``, ``frozenset``'s
``issuperset``, slicing).

A *batch* holds one table per registered type (see :mod:`agent_lint.cache.codec`)
that its values use, written as ``[type, count, [column, ...]]``, a table of a
type before every table that points into it. A field is a column of:

* ``scalar``: the JSON scalar of each row;
* ``row``: the row number, in the field type's table, of each row's value
  (``optional-row``: ``-1`` for None);
* ``rows``: for a tuple or list of a registered type, each row's slice of that
  type's table, as ``start, end`` pairs (the items of one value are written
  one after the other, so they are contiguous);
* ``value``: anything else, each value in the codec's own JSON form.

A type that holds itself (directly or further down) is written in the
codec's form where it recurs, so every table points only into tables before
it. Decoding checks each column's length, the types of its scalars and the
bounds of its row numbers; anything else is a :class:`CacheFormatError`.
"""

from __future__ import annotations

import operator
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
#: How deep values may nest in a batch (as in the codec).
_MAX_DEPTH = 200


class _Field(NamedTuple):
    """How one field of a registered type is kept in its column (see the module docs)."""

    how: str
    plan: _Plan
    child: int = -1
    make: type = tuple
    decode: Callable[[Any], Any] | None = None


Table = list[Any]  # [row count, [column, ...]]


class Columns:
    """Write and read batches of values of one codec's registered types."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.fields: list[list[_Field]] = [[] for _ in codec.types]
        self.order: list[int] = []  # every type after the types its columns point into
        state = [0] * len(codec.types)  # 0: not seen, 1: being planned, 2: planned
        for index in range(len(codec.types)):
            self._visit(index, state)

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
            decode = codec._decoder(plan) if how == "value" else None
            self.fields[index].append(_Field(how, plan, child, make, decode))
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
            elif how == "optional-row" and item is None:
                cells.append(-1)
            else:
                cells.append(self._add_typed(tables, field.child, item, depth))
        table = tables.get(index)
        if table is None:
            table = tables[index] = [0, [[] for _ in self.fields[index]]]
        for field, column, cell in zip(self.fields[index], table[1], cells, strict=True):
            if field.how == "rows":
                column.extend(cell)
            else:
                column.append(cell)
        table[0] += 1
        return int(table[0] - 1)

    def _add_typed(self, tables: dict[int, Table], index: int, value: Any, depth: int) -> int:
        if type(value) is not self.codec.types[index]:
            raise Unencodable(f"a {type(value).__name__} where another type was declared")
        return self.add(tables, index, value, depth + 1)

    def batch(self, tables: dict[int, Table]) -> list[Any]:
        """The JSON value of a batch: its tables, each after those it points into."""
        return [[index, *tables[index]] for index in self.order if index in tables]

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
        if type(batch) is not list:
            raise CacheFormatError("a batch is an array of tables")
        decoded: dict[int, list[Any]] = {}
        types = self.codec.types
        for table in batch:
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
                self._column(field, column, count, decoded)
                for field, column in zip(fields, columns, strict=True)
            ]
            cls = types[index]
            if not values:
                decoded[index] = [cls() for _ in range(count)]
            else:
                decoded[index] = list(map(cls, *values))
        return decoded.get(root, [])

    def _column(
        self, field: _Field, column: Any, count: int, decoded: dict[int, list[Any]]
    ) -> list[Any]:
        """One column's values, checked (see the module docs)."""
        if type(column) is not list:
            raise CacheFormatError("a column is an array")
        how = field.how
        if len(column) != (2 * count if how == "rows" else count):
            raise CacheFormatError("a column has one value per row")
        if how == "scalar":
            if not _PRIMITIVES.issuperset(map(type, column)):
                raise CacheFormatError("a column of JSON scalars holds something else")
            return column
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


def _shape(plan: _Plan) -> tuple[str, int, type]:
    """How a field of ``plan`` is kept: its column kind, the type it points into, its sequence."""
    if plan.kind == "json":
        return "scalar", -1, tuple
    if plan.kind == "row":
        return "row", plan.row, tuple
    inner = plan.items[0] if plan.items else None
    if plan.kind == "optional" and inner is not None and inner.kind == "row":
        return "optional-row", inner.row, tuple
    if plan.kind in ("tuple-of", "list-of") and inner is not None and inner.kind == "row":
        return "rows", inner.row, list if plan.kind == "list-of" else tuple
    return "value", -1, tuple
