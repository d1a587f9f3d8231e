"""Value classes that cost nothing to declare: ``@frozen`` and ``@record``.

``@dataclass`` writes the source of each class's ``__init__``, ``__eq__``,
``__hash__`` and ``__repr__`` and compiles it when the module is imported: an
eighth of the instructions of a run of a hundred records went into the forty
classes it loads. These decorators declare the same kind of class
from its annotations and defaults, with methods shared by every class and no
code compiled: construction costs a few microseconds more, so they serve the
classes a run builds a few hundred of at most (configuration, kinds, profiles,
settings, the run's own state). What a run builds per file or per finding
stays a named tuple or a dataclass.

``@frozen`` declares a value whose fields are never assigned after
``__init__``. The type checker holds the code to it (mypy, strict on the
package, reports any assignment to a field, as for
``@dataclass(frozen=True)``); instances compare and hash by value as frozen
dataclasses do. ``@record`` declares a class whose fields may change, equal
only to itself (``@dataclass(eq=False)``). Fields are declared as for a
dataclass: annotations, defaults, and :func:`field` for a
``default_factory``, ``compare=False`` or ``repr=False``; a ``__post_init__``
runs after ``__init__``. :func:`replace` makes a changed copy and
:func:`fields_of` names the fields, of these classes, of named tuples and of
dataclasses alike; :mod:`dataclasses` is imported only when a dataclass is met.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")
#: The attribute that holds a declared class's fields (see :class:`_Field`).
_FIELDS = "__value_fields__"


class _Missing:
    """No default: the field must be given."""

    def __repr__(self) -> str:
        return "MISSING"


_MISSING: Any = _Missing()


class _Field:
    """One declared field: its name, its default or factory, and how it takes part."""

    __slots__ = ("compare", "default", "factory", "name", "repr")

    def __init__(
        self,
        name: str = "",
        default: object = _MISSING,
        factory: Callable[[], object] | None = None,
        compare: bool = True,
        repr: bool = True,
    ) -> None:
        self.name, self.default, self.factory = name, default, factory
        self.compare, self.repr = compare, repr


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | None = None,
    compare: bool = True,
    repr: bool = True,
) -> Any:
    """A field's default, or the factory that makes one per instance, and whether it takes
    part in equality, hashing and ``repr`` (as :func:`dataclasses.field`)."""
    return _Field("", default, default_factory, compare, repr)


def _declared(cls: type) -> tuple[_Field, ...]:
    """The fields of ``cls``: its bases' first, then its own annotations in order."""
    found: dict[str, _Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for inherited in getattr(base, _FIELDS, ()):
            found[inherited.name] = inherited
    for name, annotation in vars(cls).get("__annotations__", {}).items():
        if "ClassVar" in str(annotation):
            continue
        declared = vars(cls).get(name, _MISSING)
        if isinstance(declared, _Field):
            found[name] = _Field(
                name, declared.default, declared.factory, declared.compare, declared.repr
            )
            if declared.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, declared.default)
        else:
            if type(declared) in (list, dict, set):
                raise TypeError(
                    f"{cls.__name__}.{name}: a mutable default would be shared by every "
                    "instance; use field(default_factory=...)"
                )
            found[name] = _Field(name, declared)
    declared_fields = tuple(found.values())
    seen_default = False
    for spec in declared_fields:
        has_default = spec.default is not _MISSING or spec.factory is not None
        if seen_default and not has_default:
            raise TypeError(f"{cls.__name__}: {spec.name!r} has no default but follows a default")
        seen_default = seen_default or has_default
    return declared_fields


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    """Set every field from the arguments, in declaration order, else from its default."""
    specs: tuple[_Field, ...] = getattr(type(self), _FIELDS)
    if len(args) > len(specs):
        raise TypeError(
            f"{type(self).__name__}() takes {len(specs)} arguments but {len(args)} were given"
        )
    # Set as attributes, never through ``__dict__``: an instance whose dictionary was
    # asked for loses the interpreter's fast attribute reads (CPython 3.11+).
    for spec, value in zip(specs, args, strict=False):
        setattr(self, spec.name, value)
    for spec in specs[len(args) :]:
        name = spec.name
        if name in kwargs:
            setattr(self, name, kwargs.pop(name))
        elif spec.factory is not None:
            setattr(self, name, spec.factory())
        elif spec.default is not _MISSING:
            setattr(self, name, spec.default)
        else:
            raise TypeError(f"{type(self).__name__}() missing the argument {name!r}")
    if kwargs:
        name = next(iter(kwargs))
        known = any(spec.name == name for spec in specs)
        problem = "got multiple values for" if known else "got an unexpected keyword"
        raise TypeError(f"{type(self).__name__}() {problem} argument {name!r}")
    post_init = getattr(self, "__post_init__", None)
    if post_init is not None:
        post_init()


def _compared(value: Any) -> tuple[Any, ...]:
    return tuple(
        getattr(value, spec.name) for spec in getattr(type(value), _FIELDS) if spec.compare
    )


def _eq(self: Any, other: object) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _compared(self) == _compared(other)


def _hash(self: Any) -> int:
    return hash(_compared(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(
        f"{spec.name}={getattr(self, spec.name)!r}"
        for spec in getattr(type(self), _FIELDS)
        if spec.repr
    )
    return f"{type(self).__qualname__}({shown})"


def _declare(cls: type[T], repr: bool, eq: bool) -> type[T]:
    """Give ``cls`` the shared methods of a declared class, but for those it defines itself
    (as a dataclass does)."""
    setattr(cls, _FIELDS, _declared(cls))
    own = vars(cls)
    methods: dict[str, object] = {"__init__": _init}
    if repr:
        methods["__repr__"] = _repr
    if eq:
        methods["__eq__"] = _eq
        if "__eq__" not in own:  # a class's own __eq__ comes with its own __hash__, or none
            methods["__hash__"] = _hash
    for name, method in methods.items():
        if name not in own:
            setattr(cls, name, method)
    return cls


@overload
def frozen(cls: type[T], /) -> type[T]: ...


@overload
def frozen(*, repr: bool = True, eq: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: type[T] | None = None, /, *, repr: bool = True, eq: bool = True) -> Any:
    """Declare a frozen value class (see the module): equal and hashed by value with ``eq``."""

    def make(cls: type[T]) -> type[T]:
        return _declare(cls, repr, eq)

    return make if cls is None else make(cls)


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, repr: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, repr: bool = False) -> Any:
    """Declare a class whose fields may change, equal only to itself (see the module)."""

    def make(cls: type[T]) -> type[T]:
        return _declare(cls, repr, eq=False)

    return make if cls is None else make(cls)


def fields_of(cls: type) -> tuple[str, ...]:
    """The names of the fields of a class ``@frozen``, ``@record`` or ``@dataclass`` declared,
    or of a named tuple."""
    if _FIELDS in vars(cls) or not hasattr(cls, "__dataclass_fields__"):
        return tuple(getattr(cls, "_fields", None) or (s.name for s in getattr(cls, _FIELDS)))
    import dataclasses

    return tuple(f.name for f in dataclasses.fields(cls))


def replace(value: T, /, **changes: Any) -> T:
    """A copy of ``value`` with ``changes``: a value of a class ``@frozen``, ``@record`` or
    ``@dataclass`` declared, or a named tuple (as :func:`dataclasses.replace`)."""
    kind = type(value)
    if _FIELDS not in vars(kind):
        if isinstance(value, tuple):
            return value._replace(**changes)  # type: ignore[attr-defined,no-any-return]
        import dataclasses

        return dataclasses.replace(value, **changes)  # type: ignore[type-var]
    for spec in getattr(kind, _FIELDS):
        if spec.name not in changes:
            changes[spec.name] = getattr(value, spec.name)
    return kind(**changes)
