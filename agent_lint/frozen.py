"""Frozen values that cost no more to declare and build than plain dataclasses.

``@frozen`` declares a dataclass whose fields are never assigned after
``__init__``. The type checker holds the code to it (mypy, strict on the
package, reports any assignment to a field, as for
``@dataclass(frozen=True)``); instances compare and hash by value as frozen
dataclasses do, and :func:`dataclasses.replace` makes changed copies.

At run time the class has no ``__setattr__``/``__delattr__`` guards:
generating them for each class was about a tenth of a small run's start-up,
and an instance whose ``__init__`` goes around them takes three times as
long to build. Diagnostics, the values the reporters print, stay
``dataclass(frozen=True)``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


@overload
def frozen(cls: type[T], /) -> type[T]: ...


@overload
def frozen(
    *, repr: bool = True, eq: bool = True, slots: bool = False
) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen(
    cls: type[T] | None = None, /, *, repr: bool = True, eq: bool = True, slots: bool = False
) -> Any:
    """Declare a frozen value class (see the module); the options are the dataclass's."""

    def make(cls: type[T]) -> type[T]:
        return dataclasses.dataclass(cls, repr=repr, eq=eq, unsafe_hash=eq, slots=slots)

    return make if cls is None else make(cls)
