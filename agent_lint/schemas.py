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
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    # jsonschema and referencing are imported only when a record needs the detailed
    # engine (an invalid record, a user schema): a clean run never loads them. The fast
    # engine (jsonschema_rs) is imported to compile a first schema or pattern: a run
    # whose files all come from the cache needs neither.
    import jsonschema
    import referencing
    from jsonschema.protocols import Validator

from agent_lint.frozen import frozen
from agent_lint.jsontext import clip

# RFC 3339 is ASCII: "\d" would take Arabic-Indic or full-width digits, and "$"
# a trailing newline, so the pattern spells its digits and ends at "\Z".
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-]([0-9]{2}):([0-9]{2}))\Z",
    re.ASCII,
)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z", re.ASCII)


@functools.lru_cache(maxsize=1024)
def _zone(sign: str, hours: str, minutes: str) -> timezone | None:
    """The fixed offset ``±hh:mm`` (one object per offset), None when out of range."""
    if int(hours) > 23 or int(minutes) > 59:
        return None
    offset = timedelta(hours=int(hours), minutes=int(minutes))
    return timezone(-offset if sign == "-" else offset)


@functools.lru_cache(maxsize=8192)
def _date_time(value: str) -> datetime | None:
    """Parse an RFC 3339 date-time (cached: records repeat timestamps a lot)."""
    m = _DATE_TIME.match(value)
    if not m:
        return None
    year, month, day, hour, minute, second, fraction, zone, hours, minutes = m.groups()
    seconds = int(second)
    if seconds > 60:
        return None
    if hours is None:
        tz: timezone | None = timezone.utc
    else:
        tz = _zone(zone[0], hours, minutes)
        if tz is None:
            return None
    micro = int(fraction[1:7].ljust(6, "0")) if fraction and len(fraction) > 1 else 0
    try:
        return datetime(
            int(year), int(month), int(day), int(hour), int(minute), min(seconds, 59), micro, tz
        )
    except ValueError:
        return None


# The same strings as _DATE_TIME where _date_time gives a datetime, with the ranges of
# months, days, hours, minutes, seconds and offsets spelt out: only a day past the 28th
# is left to check against its month (and year 0, which datetime does not have).
_VALID_DATE_TIME = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:"
    r"([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])\Z",
    re.ASCII,
)


def is_date_time(value: object) -> bool:
    """True when ``value`` is an RFC 3339 ``date-time`` string (non-strings pass).

    Exactly the strings :func:`parse_timestamp` accepts, decided by one match
    (and a calendar check for the 29th to the 31st), with no cache to fill:
    the schema engine asks this of every timestamp of every record.
    """
    if not isinstance(value, str):
        return True
    match = _VALID_DATE_TIME.match(value)
    if match is None:
        return False
    year, month, day = match.group(1, 2, 3)
    if year == "0000":
        return False
    if day > "28":
        try:
            date(int(year), int(month), int(day))
        except ValueError:
            return False
    return True


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


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class UnsupportedPattern(ValueError):
    """A ``pattern`` the linear-time engine cannot evaluate (lookaround, a backreference), or
    one larger than :data:`PATTERN_SIZE_LIMIT` compiled."""


#: The most bytes a pattern may compile to. Matching costs about its size for each
#: character of the text: a repository's own schema with ``a[ab]{50000}c`` would take an
#: hour on one long value; under this limit a character costs microseconds at most.
#: Every bundled and upstream pattern, and ``[0-9a-f]{64}``, is far below it.
PATTERN_SIZE_LIMIT = 16 * 1024


def _regex_options() -> Any:
    import jsonschema_rs

    return jsonschema_rs.RegexOptions(size_limit=PATTERN_SIZE_LIMIT)


@functools.lru_cache(maxsize=4096)
def _pattern_validator(pattern: str) -> Any:
    import jsonschema_rs

    try:
        return jsonschema_rs.validator_for({"pattern": pattern}, pattern_options=_regex_options())
    except (ValueError, jsonschema_rs.ValidationError) as exc:
        raise UnsupportedPattern(pattern) from exc


def check_pattern(pattern: str) -> None:
    """Raise :class:`UnsupportedPattern` unless :func:`pattern_search` can evaluate ``pattern``."""
    _pattern_validator(pattern)


def pattern_search(pattern: str, text: str) -> bool:
    """Whether the JSON Schema ``pattern`` (ECMA-262) matches somewhere in ``text``.

    Evaluated by jsonschema-rs's linear-time engine (Rust's ``regex`` crate), so
    no pattern and no input can make a run backtrack for minutes, with
    ECMA-262's meaning of ``$`` (end of input only), ``\\d``, ``\\w``, ``\\b``
    (ASCII) and ``\\s``. The fast path uses the same engine, so both agree.
    Lookaround and backreferences, which need backtracking, are refused
    (:class:`UnsupportedPattern`) when a schema is loaded.
    """
    validator = _pattern_validator(pattern)
    try:
        return bool(validator.is_valid(text))
    except UnicodeEncodeError:  # a lone surrogate, which JSON allows and Rust strings do not
        return bool(validator.is_valid(_LONE_SURROGATE.sub("\ufffd", text)))


class LinearPattern:
    """A whole-string pattern evaluated in linear time, for patterns the repository's own
    configuration declares (a user kind's ``id-pattern``): the change under review may
    write it, so no pattern and no id can make a run backtrack for minutes.

    It matches the whole string, as :func:`agent_lint.kinds.whole` does, with the
    syntax and engine of schema patterns (:func:`pattern_search`); ``pattern`` is written
    as :func:`~agent_lint.kinds.whole` writes it, for messages. Raises
    :class:`UnsupportedPattern` for a pattern the engine cannot evaluate.
    """

    __slots__ = ("_anchored", "pattern")

    def __init__(self, source: str) -> None:
        check_pattern(source)  # on its own: ")|(" must not break out of the anchoring
        self._anchored = f"^(?:{source})$"
        check_pattern(self._anchored)
        self.pattern = f"^(?:{source})\\Z"

    def match(self, text: str) -> bool:
        """Whether ``text`` matches the pattern from its first character to its last."""
        return pattern_search(self._anchored, text)


def _pattern_keyword(
    validator: Validator, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """The ``pattern`` keyword, evaluated in linear time (see :func:`pattern_search`)."""
    import jsonschema

    if validator.is_type(instance, "string") and not pattern_search(pattern, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties_keyword(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """``patternProperties``, its patterns evaluated in linear time."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if pattern_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def additional_keys(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """Keys of ``instance`` that neither ``properties`` nor ``patternProperties`` take."""
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in named and not any(pattern_search(p, key) for p in patterns)
    ]


def _additional_properties_keyword(
    validator: Any, allowed: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """``additionalProperties``, the keys ``patternProperties`` take found in linear time."""
    import jsonschema

    if not validator.is_type(instance, "object"):
        return
    extras = additional_keys(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif allowed is False and extras:
        yield jsonschema.ValidationError(not_allowed(extras))


def not_allowed(extras: list[str]) -> str:
    """The message of ``additionalProperties: false`` for the keys ``extras``."""
    listed = ", ".join(repr(key) for key in sorted(extras))
    return f"Additional properties are not allowed ({listed})"


def _canonical(value: Any) -> Any:
    """A hashable form of a JSON value; equal JSON values (``1`` and ``1.0``) share it."""
    if isinstance(value, dict):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float | Decimal):
        return ("number", value)
    return (type(value).__name__, value)


@frozen(repr=False, eq=False)
class Repeats:
    """The repeated items of an array: the first item seen again, how often, and all repeats."""

    first: Any
    first_count: int
    total: int


def repeats(items: list[Any]) -> Repeats | None:
    """The items of ``items`` equal to an earlier one (JSON equality, linear time), or None."""
    counts: dict[Any, int] = {}
    first: Any = None
    first_key: Any = None
    total = 0
    for item in items:
        key = _canonical(item)
        seen = counts.get(key, 0)
        counts[key] = seen + 1
        if seen:
            total += 1
            if first_key is None:
                first, first_key = item, key
    if first_key is None:
        return None
    return Repeats(first, counts[first_key], total)


def _unique_items_keyword(
    validator: Validator, unique: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """``uniqueItems`` in linear time: items are compared by a canonical, hashable form."""
    import jsonschema

    if unique and validator.is_type(instance, "array") and repeats(instance) is not None:
        yield jsonschema.ValidationError(f"{clip(repr(instance))} has non-unique elements")


#: The most digits a number has for ``multipleOf`` to divide it exactly (Python's own bound
#: on converting integers from text).
_MAX_EXACT_DIGITS = 4300


def _multiple_of(original: Callable[..., Any]) -> Callable[..., Any]:
    """``multipleOf`` for numbers of any size: jsonschema's own keyword, and where it cannot
    compute (an integer of thousands of digits, a number past a float's range, read as
    infinity) an exact division; infinity is a multiple of nothing. Never an internal
    error for what a record holds."""

    def multiple_of(
        validator: Validator, divisor: Any, instance: Any, schema: dict[str, Any]
    ) -> Iterator[jsonschema.ValidationError]:
        import jsonschema

        try:
            errors = list(original(validator, divisor, instance, schema))
        except (ArithmeticError, ValueError):  # OverflowError, decimal.InvalidOperation
            digits = instance.adjusted() if isinstance(instance, Decimal) else 0
            try:
                # An exact division costs the square of the digits: past a bound no record
                # needs, the number is no multiple this run computes.
                failed = (
                    digits > _MAX_EXACT_DIGITS
                    or (Fraction(instance) / Fraction(divisor)).denominator != 1
                )
            except (ArithmeticError, ValueError, TypeError):
                failed = True
            shown = str(instance) if isinstance(instance, Decimal) else repr(instance)
            message = f"{clip(shown)} is not a multiple of {divisor}"
            if digits > _MAX_EXACT_DIGITS:
                message = (
                    f"{clip(shown)} has more than {_MAX_EXACT_DIGITS} digits: too long to be "
                    f"judged a multiple of {divisor}"
                )
            errors = [jsonschema.ValidationError(message)] if failed else []
        yield from errors

    return multiple_of


def _valid(errors: Iterator[jsonschema.ValidationError]) -> bool:
    """Whether an iterator of validation errors yields none."""
    return next(errors, None) is None


def evaluated_keys(validator: Any, instance: dict[str, Any], schema: Any, legacy: bool) -> set[str]:
    """The keys of ``instance`` that ``schema`` evaluates, as ``unevaluatedProperties`` sees them.

    Follows the annotation rules of JSON Schema 2020-12 (``legacy``: 2019-09, whose
    ``properties``/``additionalProperties`` count keys by name), through ``$ref``,
    ``$dynamicRef``/``$recursiveRef``, ``dependentSchemas``, the applicators that
    succeed and ``if``/``then``/``else``. ``patternProperties`` is matched by
    :func:`pattern_search`, the linear-time engine: jsonschema's own walk uses
    Python's backtracking ``re``, which a nested quantifier in a user schema can
    keep busy for hours.
    """
    if not isinstance(schema, dict):
        return set()
    keys: set[str] = set()
    references = [schema.get("$ref")]
    references.append(None if legacy else schema.get("$dynamicRef"))
    for reference in references:
        if reference is not None:
            resolved = validator._resolver.lookup(reference)
            scoped = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= evaluated_keys(scoped, instance, resolved.contents, legacy)
    if legacy and "$recursiveRef" in schema:
        import referencing.jsonschema

        resolved = referencing.jsonschema.lookup_recursive_ref(validator._resolver)
        scoped = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
        keys |= evaluated_keys(scoped, instance, resolved.contents, legacy)
    for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
        if keyword not in schema:
            continue
        value = schema[keyword]
        if legacy and value is True:
            keys |= set(instance)
        elif isinstance(value, dict) and (legacy or keyword == "properties"):
            keys |= set(value) & set(instance)
        elif keyword != "properties":
            keys |= {k for k, v in instance.items() if _valid(validator.descend(v, value))}
    for pattern in schema.get("patternProperties", {}):
        keys |= {key for key in instance if pattern_search(pattern, key)}
    for name, subschema in schema.get("dependentSchemas", {}).items():
        if name in instance:
            keys |= evaluated_keys(validator, instance, subschema, legacy)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _valid(validator.descend(instance, subschema)):
                keys |= evaluated_keys(validator, instance, subschema, legacy)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= evaluated_keys(validator, instance, schema["if"], legacy)
            keys |= evaluated_keys(validator, instance, schema.get("then", {}), legacy)
        else:
            keys |= evaluated_keys(validator, instance, schema.get("else", {}), legacy)
    return keys


def _unevaluated_properties(legacy: bool) -> Any:
    """The ``unevaluatedProperties`` keyword over :func:`evaluated_keys` (linear patterns)."""

    def keyword(
        validator: Any, allowed: Any, instance: Any, schema: dict[str, Any]
    ) -> Iterator[jsonschema.ValidationError]:
        import jsonschema

        if not validator.is_type(instance, "object"):
            return
        evaluated = evaluated_keys(validator, instance, schema, legacy)
        invalid = [
            key
            for key in instance
            if key not in evaluated
            and not _valid(validator.descend(instance[key], allowed, path=key, schema_path=key))
        ]
        if not invalid:
            return
        verb = "was" if len(invalid) == 1 else "were"
        if allowed is False:
            listed = ", ".join(repr(key) for key in sorted(invalid, key=str))
            yield jsonschema.ValidationError(
                f"Unevaluated properties are not allowed ({listed} {verb} unexpected)"
            )
        else:
            listed = ", ".join(repr(key) for key in invalid)
            yield jsonschema.ValidationError(
                "Unevaluated properties are not valid under the given schema "
                f"({listed} {verb} unevaluated and invalid)"
            )

    return keyword


_NOT_SCHEMAS = frozenset({"enum", "const", "examples", "default"})


def _patterns(node: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Each regular expression of a schema (``pattern``, ``patternProperties``) and its pointer."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _patterns(item, f"{pointer}/{index}")
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        where = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
        if key == "pattern" and isinstance(value, str):
            yield value, where
        elif key == "patternProperties" and isinstance(value, dict):
            for pattern in value:
                escaped = pattern.replace("~", "~0").replace("/", "~1")
                yield pattern, f"{where}/{escaped}"
        if key not in _NOT_SCHEMAS:
            yield from _patterns(value, where)


def check_patterns(path: Path, schema: dict[str, Any]) -> None:
    """Raise :class:`SchemaConfigError` for a pattern of ``schema`` the linear engine refuses."""
    for pattern, pointer in _patterns(schema):
        try:
            check_pattern(pattern)
        except UnsupportedPattern:
            raise SchemaConfigError(
                f"schema {path}: the pattern at {pointer or '/'} ({clip(repr(pattern))}) needs "
                "lookaround or a backreference, or is larger than agent-lint evaluates "
                f"({PATTERN_SIZE_LIMIT // 1024} KiB compiled: a long counted repetition); "
                "agent-lint evaluates patterns in linear time, so write it without them"
            ) from None


def _is_integer(checker: Any, instance: Any) -> bool:
    """JSON integers; one too long for Python's ``int`` is parsed as an integral Decimal."""
    import jsonschema

    if isinstance(instance, Decimal):
        return instance.is_finite() and instance == instance.to_integral_value()
    return bool(jsonschema.Draft202012Validator.TYPE_CHECKER.is_type(instance, "integer"))


@functools.lru_cache(maxsize=16)
def _faithful(cls: type[Validator]) -> type[Validator]:
    """``cls`` with linear-time ECMA-262 patterns and integers of any length.

    Every keyword that matches a pattern is replaced: ``pattern``,
    ``patternProperties``, ``additionalProperties`` and ``unevaluatedProperties``
    (the last two decide which keys the patterns take). ``unevaluatedItems``
    matches no pattern itself; the subschemas it applies run these keywords.
    """
    import jsonschema.validators

    checker = cls.TYPE_CHECKER.redefine("integer", _is_integer)
    keywords = {
        "pattern": _pattern_keyword,
        "patternProperties": _pattern_properties_keyword,
        "additionalProperties": _additional_properties_keyword,
        "uniqueItems": _unique_items_keyword,
    }
    if "multipleOf" in cls.VALIDATORS:
        keywords["multipleOf"] = _multiple_of(cls.VALIDATORS["multipleOf"])
    if "unevaluatedProperties" in cls.VALIDATORS:  # 2019-09 has $recursiveRef, 2020-12 not
        keywords["unevaluatedProperties"] = _unevaluated_properties(
            "$recursiveRef" in cls.VALIDATORS
        )
    extended: type[Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        cls, validators=keywords, type_checker=checker
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


@frozen(repr=False)
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
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                return ""  # the path went through a $ref: no condition to describe
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
    the fast engine. Both use the same format checkers. The one exception is a
    record whose only fault is unknown top-level fields (a misspelt key): its
    issue is the detailed engine's, built without loading that engine
    (:func:`unknown_fields_issue`).
    """

    def __init__(
        self, fast: Any, detailed: Callable[[], SchemaValidator], schema: dict[str, Any]
    ) -> None:
        self._fast = fast
        self._make_detailed = detailed
        self._detailed: SchemaValidator | None = None
        self._schema = schema

    def issues(self, instance: Any) -> Iterator[SchemaIssue]:
        """Yield nothing for a valid record; otherwise the detailed issues.

        A record whose only fault is fields the schema does not know gets its
        one issue from :func:`unknown_fields_issue`; any other invalid record
        builds the detailed validator, on the first record that needs it.
        """
        try:
            if self._fast.is_valid(instance):
                return
        except Exception:  # anything the fast engine cannot take goes the slow way
            pass
        unknown = unknown_fields_issue(self._fast, self._schema, instance)
        if unknown is not None:
            yield unknown
            return
        if self._detailed is None:
            self._detailed = self._make_detailed()
        yield from self._detailed.issues(instance)


#: The most subschemas a user schema may expand to with its ``$ref``s followed (see
#: :func:`agent_lint.schemarefs.ref_expansion`); the bundled ones need under a thousand.
MAX_SCHEMA_EXPANSION = 50_000


#: Keywords that judge an object by none of its keys (or hold no assertion at all).
_KEYLESS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "$defs",
        "definitions",
        "title",
        "description",
        "examples",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "type",
    }
)


def _blind_to(schema: Any, keys: Collection[str]) -> bool:
    """Whether ``schema``, applied to an object, never looks at the object's ``keys``.

    It may name other keys (``properties``, ``required``) and combine
    subschemas that are blind to ``keys`` too (``allOf``, ``if``/``then``/
    ``else``); any other keyword (``additionalProperties``, ``not``, ``$ref``,
    ``minProperties``, ``enum``, …) might, so the answer is no.
    """
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for keyword, value in schema.items():
        if keyword in ("properties", "required"):
            if not isinstance(value, dict | list) or any(key in value for key in keys):
                return False
        elif keyword == "allOf":
            if not isinstance(value, list) or not all(_blind_to(sub, keys) for sub in value):
                return False
        elif keyword in ("if", "then", "else"):
            if not _blind_to(value, keys):
                return False
        elif keyword not in _KEYLESS:
            return False
    return True


def unknown_fields_issue(fast: Any, schema: dict[str, Any], instance: Any) -> SchemaIssue | None:
    """The one issue of a record whose only fault is top-level fields ``schema`` does not allow.

    That is the issue the detailed engine reports (its ``additionalProperties``
    keyword at the root; see :func:`_additional_properties_keyword`), found
    without loading it: the schema forbids other fields, nothing else in it
    looks at the unknown ones, and without them the record is valid (``fast``
    says so). None when any of this does not hold: the detailed engine then
    explains the record.
    """
    if not isinstance(instance, dict) or schema.get("additionalProperties") is not False:
        return None
    extras = additional_keys(instance, schema)
    rest = {k: v for k, v in schema.items() if k not in _ROOT_KEY_RULES}
    if not extras or not _blind_to(rest, extras):
        return None
    try:
        if not fast.is_valid({k: v for k, v in instance.items() if k not in extras}):
            return None
    except Exception:  # anything the fast engine cannot take goes the slow way
        return None
    return SchemaIssue(
        keyword="additionalProperties",
        path=(),
        expected=False,
        instance=instance,
        schema=schema,
        message=not_allowed(extras),
    )


#: The root keywords that decide which fields are unknown (and so never see those fields).
_ROOT_KEY_RULES = ("properties", "patternProperties", "additionalProperties")


def _fast_validator(schema: dict[str, Any]) -> Any:
    """A jsonschema-rs validator with agent-lint's format checks, or None if unavailable."""
    import jsonschema_rs

    try:
        return jsonschema_rs.validator_for(
            schema,
            formats={"date-time": is_date_time, "date": is_date},
            validate_formats=True,
            pattern_options=_regex_options(),
        )
    except Exception:  # a schema the fast engine does not support
        return None


def bundled_schema_dir() -> Path:
    """The folder of bundled schemas: inside the installed package, or the source tree."""
    packaged = Path(__file__).parent / "schemas"
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
    """Loads schemas by kind name and compiles each once per run.

    ``folder`` names the profile's folder of bundled schemas
    (``schemas/<folder>/``, ``$id`` ``urn:agent-lint:<folder>:<kind>``); user
    schema folders come first. A bundled schema is also reachable as
    ``urn:agent-lint:<kind>``, so a user schema written to extend one (``"$ref":
    "urn:agent-lint:decision"``) keeps working.
    """

    def __init__(
        self,
        extra_dirs: Sequence[Path] = (),
        fast: bool = True,
        *,
        folder: str = "",
        files: Mapping[str, Path] | None = None,
    ) -> None:
        self.fast = fast
        self._bundled = bundled_schema_dir() / folder if folder else None
        self._dirs = [*extra_dirs, *([self._bundled] if self._bundled else [])]
        self._compiled: dict[str, SchemaValidator | None] = {}
        # Each schema file is read once; a user directory's file wins over a bundled one.
        self._sources: dict[str, tuple[Path, dict[str, Any]]] = {}
        # Every schema read in order, with the short name it is also known by (bundled ones).
        self._read: list[tuple[dict[str, Any], str | None]] = []
        for directory in reversed(self._dirs):
            bundled = directory == self._bundled
            for path in sorted(directory.glob("*.schema.json")):
                schema = _read_schema(path, bundled=bundled)
                name = path.name.removesuffix(".schema.json")
                self._sources[name] = (path, schema)
                self._read.append((schema, name if bundled else None))
        for name, path in (files or {}).items():  # the schemas of declared kinds
            schema = _read_schema(path)
            self._sources[name] = (path, schema)
            self._read.append((schema, None))
        self._registry: referencing.Registry[Any] | None = None

    def _resources(self) -> referencing.Registry[Any]:
        """Every schema read, by its ``$id`` (and a bundled one by ``urn:agent-lint:<kind>``):
        what ``$ref`` resolves against (built once)."""
        if self._registry is None:
            import referencing
            import referencing.jsonschema

            resources: list[tuple[str, referencing.Resource[Any]]] = []
            for schema, alias in self._read:
                spec = referencing.jsonschema.specification_with(
                    schema.get("$schema", "https://json-schema.org/draft/2020-12/schema"),
                    default=referencing.jsonschema.DRAFT202012,
                )
                resource = spec.create_resource(schema)
                if resource.id():
                    resources.append((str(resource.id()), resource))
                if alias is not None:
                    resources.append((f"urn:agent-lint:{alias}", resource))
            self._registry = referencing.Registry().with_resources(resources)
        return self._registry

    def fingerprint(self) -> str:
        """A digest of every schema the store reads: names, files and contents (a cache key).

        A file another folder's same-named file shadows is still reachable by
        its ``$id`` through ``$ref``, so every schema read counts, in order.
        """
        digest = hashlib.blake2b(digest_size=16)
        for name in sorted(self._sources):
            digest.update(f"{name}\0{self._sources[name][0]}\0".encode("utf-8", "surrogatepass"))
        for schema, alias in self._read:
            text = json.dumps(schema, sort_keys=True, ensure_ascii=True)
            digest.update(f"{alias}\0{text}\0".encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

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
        bundled = path.parent == self._bundled
        fast = _fast_validator(schema) if self.fast and bundled else None
        if fast is None:
            return self._detailed(path, schema)
        return FastPathValidator(fast, functools.partial(self._detailed, path, schema), schema)

    def _check_ref_cycles(self, path: Path, schema: dict[str, Any]) -> None:
        """Raise :class:`SchemaConfigError` when ``schema``'s references never end."""
        import referencing.jsonschema

        from agent_lint.schemarefs import ref_cycle, ref_expansion

        spec = referencing.jsonschema.specification_with(
            schema.get("$schema", "https://json-schema.org/draft/2020-12/schema"),
            default=referencing.jsonschema.DRAFT202012,
        )
        resolver = self._resources().resolver_with_root(spec.create_resource(schema))
        cycle = ref_cycle(schema, resolver)
        if cycle is not None:
            raise SchemaConfigError(
                f"schema {path}: {clip(cycle, 200)} comes back to where it started without "
                "descending into the record, so validating a record would never end; put the "
                "recursion under `properties` or `items`"
            )
        try:
            too_large = ref_expansion(schema, resolver, MAX_SCHEMA_EXPANSION)
        except RecursionError:
            raise SchemaConfigError(
                f"schema {path}: its subschemas are nested too deeply to check"
            ) from None
        if too_large:
            raise SchemaConfigError(
                f"schema {path}: its `$ref`s expand to more than {MAX_SCHEMA_EXPANSION:,} "
                "subschemas, so validating one record could take exponential time; refer to "
                "shared definitions fewer times (one `$ref` per `anyOf` branch to the same "
                "definition checks it twice)"
            )

    def _detailed(self, path: Path, schema: dict[str, Any]) -> SchemaValidator:
        """The ``jsonschema`` validator of one schema, which explains every violation."""
        import jsonschema.validators
        from jsonschema.exceptions import SchemaError

        cls = _faithful(
            jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        )
        # Checking a schema against its metaschema costs more than linting a
        # repository; bundled schemas are checked once by the test suite.
        if path.parent != self._bundled:
            try:
                cls.check_schema(schema)
            except SchemaError as exc:
                raise SchemaConfigError(
                    f"schema {path} is not a valid JSON Schema: {exc.message}"
                ) from exc
            check_patterns(path, schema)
            self._check_ref_cycles(path, schema)
        return JsonschemaValidator(
            cls(schema, registry=self._resources(), format_checker=format_checker())
        )
