"""Schema loading and validation behind one small interface.

:class:`SchemaStore` finds a kind's schema (a user schema directory first,
then the bundled ``schemas/``), compiles it once per run and hands out a
:class:`SchemaValidator`. Checks see only :class:`SchemaIssue` values, so the
engine underneath can change without touching them.

No schema is ever fetched from the network: ``$ref`` resolves only against
the bundled schemas and the configured schema directories.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    # jsonschema and referencing are imported only when a record needs the detailed
    # engine (an invalid record, a user schema): a clean run never loads them.
    import jsonschema
    import referencing
    from jsonschema.protocols import Validator

# RFC 3339 is ASCII: "\d" would take Arabic-Indic or full-width digits, and "$"
# a trailing newline, so the pattern spells its digits and ends at "\Z".
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-]([0-9]{2}):([0-9]{2}))\Z",
    re.ASCII,
)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z", re.ASCII)


@functools.lru_cache(maxsize=8192)
def _date_time(value: str) -> datetime | None:
    """Parse an RFC 3339 date-time (cached: records repeat timestamps a lot)."""
    m = _DATE_TIME.match(value)
    if not m:
        return None
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if second > 60 or (m.group(9) and (int(m.group(9)) > 23 or int(m.group(10)) > 59)):
        return None
    zone = m.group(8).upper()
    offset = timedelta(0)
    if zone != "Z":
        offset = timedelta(hours=int(m.group(9)), minutes=int(m.group(10)))
        if zone.startswith("-"):
            offset = -offset
    fraction = (m.group(7) or ".0")[1:7].ljust(6, "0")
    try:
        return datetime(
            year, month, day, hour, minute, min(second, 59), int(fraction), timezone(offset)
        )
    except ValueError:
        return None


def is_date_time(value: object) -> bool:
    """True when ``value`` is an RFC 3339 ``date-time`` string (non-strings pass)."""
    return not isinstance(value, str) or _date_time(value) is not None


def parse_timestamp(value: object) -> datetime | None:
    """An RFC 3339 date-time as an aware datetime (microsecond precision), else None."""
    return _date_time(value) if isinstance(value, str) else None


def is_date(value: object) -> bool:
    """True when ``value`` is an RFC 3339 ``full-date`` string (non-strings pass)."""
    if not isinstance(value, str):
        return True
    if not _DATE.match(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=1024)
def ecma_regex(pattern: str) -> re.Pattern[str]:
    """Compile a JSON Schema ``pattern`` (an ECMA-262 regular expression) for Python.

    Two differences from Python's dialect decide whether a record passes: in
    ECMA-262 ``$`` matches only at the end of the input (Python's also before
    a final newline), and ``\\d``, ``\\w`` and ``\\b`` are ASCII. Outside
    character classes ``$`` becomes ``\\Z``, and the pattern is compiled with
    ``re.ASCII``, so both engines agree. A pattern the translation breaks is
    compiled as written.
    """
    out, position, in_class = [], 0, False
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            out.append(pattern[position : position + 2])
            position += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            char = "\\Z"
        out.append(char)
        position += 1
    try:
        return re.compile("".join(out), re.ASCII)
    except re.error:
        return re.compile(pattern)


def _pattern_keyword(
    validator: Validator, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """The ``pattern`` keyword with ECMA-262 semantics (see :func:`ecma_regex`)."""
    import jsonschema

    if validator.is_type(instance, "string") and not ecma_regex(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _is_integer(checker: Any, instance: Any) -> bool:
    """JSON integers; one too long for Python's ``int`` is parsed as an integral Decimal."""
    import jsonschema

    if isinstance(instance, Decimal):
        return instance.is_finite() and instance == instance.to_integral_value()
    return bool(jsonschema.Draft202012Validator.TYPE_CHECKER.is_type(instance, "integer"))


@functools.lru_cache(maxsize=16)
def _faithful(cls: type[Validator]) -> type[Validator]:
    """``cls`` with ECMA-262 patterns and integers of any length."""
    import jsonschema.validators

    checker = cls.TYPE_CHECKER.redefine("integer", _is_integer)
    extended: type[Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        cls, validators={"pattern": _pattern_keyword}, type_checker=checker
    )
    return extended


@functools.lru_cache(maxsize=1)
def format_checker() -> jsonschema.FormatChecker:
    """The format checks of the detailed engine: ``date-time`` and ``date`` (RFC 3339)."""
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    checker.checks("date-time")(is_date_time)
    checker.checks("date")(is_date)
    return checker


class SchemaConfigError(Exception):
    """A schema (bundled or user-supplied) cannot be loaded or used."""


@dataclass(frozen=True)
class SchemaIssue:
    """One schema violation, engine-neutral.

    ``path`` is the location in the instance; ``keyword`` the failing
    keyword (``required``, ``enum``, …); ``expected`` the keyword's value in
    the schema; ``instance`` the offending value; ``schema`` the subschema
    that holds the keyword.
    """

    keyword: str
    path: tuple[str | int, ...]
    expected: Any
    instance: Any
    schema: dict[str, Any]
    message: str
    condition: str = ""


class SchemaValidator(Protocol):
    """Validates instances against one compiled schema."""

    def issues(self, instance: Any) -> Iterator[SchemaIssue]:
        """Yield every violation of the schema by ``instance``."""
        ...


class JsonschemaValidator:
    """:class:`SchemaValidator` backed by the ``jsonschema`` package."""

    def __init__(self, validator: Validator) -> None:
        self._validator = validator

    def issues(self, instance: Any) -> Iterator[SchemaIssue]:
        """Yield every violation, flattening ``anyOf``/``oneOf`` to the best match."""
        import referencing.exceptions

        try:
            errors = list(self._validator.iter_errors(instance))
        except referencing.exceptions.Unresolvable as exc:
            raise SchemaConfigError(
                f"a schema $ref cannot be resolved (schemas are never fetched): {exc}"
            ) from exc
        for error in errors:
            yield from self._flatten(error)

    def _flatten(self, error: jsonschema.ValidationError) -> Iterator[SchemaIssue]:
        import jsonschema.exceptions

        if error.validator in ("anyOf", "oneOf") and error.context:
            yield from self._flatten(jsonschema.exceptions.best_match(error.context))
            return
        schema = error.schema if isinstance(error.schema, dict) else {}
        yield SchemaIssue(
            keyword=str(error.validator),
            path=tuple(error.absolute_path),
            expected=error.validator_value,
            instance=error.instance,
            schema=schema,
            message=error.message,
            condition=self._condition(tuple(error.absolute_schema_path)),
        )

    def _condition(self, schema_path: tuple[Any, ...]) -> str:
        """Describe the ``if`` that made a ``then`` branch apply, if any."""
        if "then" not in schema_path:
            return ""
        node: Any = self._validator.schema
        cut = len(schema_path) - 1 - schema_path[::-1].index("then")
        for part in schema_path[:cut]:
            node = node[part]
        condition = node.get("if", {}) if isinstance(node, dict) else {}
        described = []
        for name, rule in condition.get("properties", {}).items():
            if isinstance(rule, dict) and "const" in rule:
                described.append(f'"{name}" is {json.dumps(rule["const"])}')
            elif isinstance(rule, dict) and "enum" in rule:
                values = ", ".join(str(v) for v in rule["enum"])
                described.append(f'"{name}" is one of {values}')
        return " and ".join(described)


class FastPathValidator:
    """:class:`SchemaValidator` that asks a compiled Rust validator first.

    ``jsonschema-rs`` answers "is this record valid?" in microseconds; most
    records are, and then nothing more is done. For an invalid record (or a
    value the fast engine cannot take, such as a huge integer) the detailed
    ``jsonschema`` validator produces the issues, so messages never depend on
    the fast engine. Both use the same format checkers.
    """

    def __init__(self, fast: Any, detailed: Callable[[], SchemaValidator]) -> None:
        self._fast = fast
        self._make_detailed = detailed
        self._detailed: SchemaValidator | None = None

    def issues(self, instance: Any) -> Iterator[SchemaIssue]:
        """Yield nothing for a valid record; otherwise the detailed issues.

        The detailed validator is built on the first record that needs it.
        """
        try:
            if self._fast.is_valid(instance):
                return
        except Exception:  # anything the fast engine cannot take goes the slow way
            pass
        if self._detailed is None:
            self._detailed = self._make_detailed()
        yield from self._detailed.issues(instance)


def _fast_validator(schema: dict[str, Any]) -> Any:
    """A jsonschema-rs validator with agent-lint's format checks, or None if unavailable."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        return jsonschema_rs.validator_for(
            schema,
            formats={"date-time": is_date_time, "date": is_date},
            validate_formats=True,
        )
    except Exception:  # a schema the fast engine does not support
        return None


def bundled_schema_dir() -> Path:
    """The folder of bundled schemas: inside the installed package, or the source tree."""
    packaged = Path(str(resources.files("agent_lint"))) / "schemas"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "schemas"


_MAX_SCHEMA_BYTES = 4 * 1024 * 1024


def _read_schema(path: Path, bundled: bool = False) -> dict[str, Any]:
    """Read a schema file; a user's must be a regular file in its folder (read without blocking)."""
    if bundled:
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SchemaConfigError(f"cannot read schema {path}: {exc}") from exc
        if not isinstance(schema, dict):
            raise SchemaConfigError(f"schema {path} is not a JSON object")
        return schema
    try:
        real = os.path.realpath(path)
        leaves = os.path.dirname(real) != os.path.realpath(path.parent)
    except (OSError, ValueError):
        real, leaves = "", True
    if leaves:
        raise SchemaConfigError(f"schema {path} is a symbolic link out of its folder; not read")
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_SCHEMA_BYTES:
                raise SchemaConfigError(f"schema {path} is not a regular file of at most 4 MiB")
            with os.fdopen(os.dup(fd), "rb") as handle:
                raw = handle.read(_MAX_SCHEMA_BYTES + 1)
        finally:
            os.close(fd)
        schema = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise SchemaConfigError(f"cannot read schema {path}: {exc}") from exc
    if not isinstance(schema, dict):
        raise SchemaConfigError(f"schema {path} is not a JSON object")
    return schema


class SchemaStore:
    """Loads schemas by kind name and compiles each once per run."""

    def __init__(self, extra_dirs: Sequence[Path] = (), fast: bool = True) -> None:
        self.fast = fast
        self._dirs = [*extra_dirs, bundled_schema_dir()]
        self._compiled: dict[str, SchemaValidator | None] = {}
        # Each schema file is read once; a user directory's file wins over a bundled one.
        self._sources: dict[str, tuple[Path, dict[str, Any]]] = {}
        self._read: list[dict[str, Any]] = []  # every schema, in the order read
        bundled = bundled_schema_dir()
        for directory in reversed(self._dirs):
            for path in sorted(directory.glob("*.schema.json")):
                schema = _read_schema(path, bundled=directory == bundled)
                self._sources[path.name.removesuffix(".schema.json")] = (path, schema)
                self._read.append(schema)
        self._registry: referencing.Registry[Any] | None = None

    def _resources(self) -> referencing.Registry[Any]:
        """Every schema read, by its ``$id``: what ``$ref`` resolves against (built once)."""
        if self._registry is None:
            import referencing
            import referencing.jsonschema

            resources: list[tuple[str, referencing.Resource[Any]]] = []
            for schema in self._read:
                spec = referencing.jsonschema.specification_with(
                    schema.get("$schema", "https://json-schema.org/draft/2020-12/schema"),
                    default=referencing.jsonschema.DRAFT202012,
                )
                resource = spec.create_resource(schema)
                if resource.id():
                    resources.append((str(resource.id()), resource))
            self._registry = referencing.Registry().with_resources(resources)
        return self._registry

    def path_of(self, name: str) -> Path | None:
        """The file that defines schema ``name``, user directories first."""
        source = self._sources.get(name)
        return source[0] if source else None

    def validator(self, name: str) -> SchemaValidator | None:
        """The compiled validator for schema ``name`` (``None`` if there is none)."""
        if name not in self._compiled:
            self._compiled[name] = self._compile(name)
        return self._compiled[name]

    def _compile(self, name: str) -> SchemaValidator | None:
        if name not in self._sources:
            return None
        path, schema = self._sources[name]
        # The fast path serves the bundled schemas, which are self-contained;
        # user schemas may $ref others and always take the detailed engine.
        bundled = path.parent == bundled_schema_dir()
        fast = _fast_validator(schema) if self.fast and bundled else None
        if fast is None:
            return self._detailed(path, schema)
        return FastPathValidator(fast, functools.partial(self._detailed, path, schema))

    def _detailed(self, path: Path, schema: dict[str, Any]) -> SchemaValidator:
        """The ``jsonschema`` validator of one schema, which explains every violation."""
        import jsonschema.validators
        from jsonschema.exceptions import SchemaError

        cls = _faithful(
            jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        )
        # Checking a schema against its metaschema costs more than linting a
        # repository; bundled schemas are checked once by the test suite.
        if path.parent != bundled_schema_dir():
            try:
                cls.check_schema(schema)
            except SchemaError as exc:
                raise SchemaConfigError(
                    f"schema {path} is not a valid JSON Schema: {exc.message}"
                ) from exc
        return JsonschemaValidator(
            cls(schema, registry=self._resources(), format_checker=format_checker())
        )
