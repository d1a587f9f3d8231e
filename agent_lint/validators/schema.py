"""AL1xx: a record does not match its kind's JSON Schema.

Each schema keyword maps to one rule, so a finding's code says what kind of
fix it needs, and each message names the field, what was expected and what
was found.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from agent_lint.diagnostics import Diagnostic, Rule
from agent_lint.frozen import replace
from agent_lint.index import FileContext
from agent_lint.jsontext import clip, listed, quote
from agent_lint.kinds import Format
from agent_lint.positions import pointer_of
from agent_lint.schemas import SchemaIssue, additional_keys, repeats

MISSING_FIELD = Rule(
    "AL101",
    "missing-required-field",
    "A required field is absent",
    "Reports a field the kind's schema requires that the record does not have. Agents "
    "resuming from the record rely on it; for example a handoff without `next_action` leaves "
    "the incoming agent guessing.",
    '{"schema_version": 1, "handoff_id": "H-1", "mode": "AGENT_RESUME"}',
    '{"schema_version": 1, "handoff_id": "H-1", "mode": "AGENT_RESUME", "next_action": "…", …}',
)
UNKNOWN_FIELD = Rule(
    "AL102",
    "unknown-field",
    "A field is not part of the kind's schema",
    "Reports a field the kind's schema does not define. The bundled schemas accept the "
    "fields of both the contract and the runtime generation of each kind (and the fields "
    "the runtime's writer adds, such as `workflow_gate`); anything else is usually a typo "
    "(`next_actoin`) that silently drops information. Runs and sessions, whose runtime "
    "schemas accept extra top-level fields, are checked for them only with `strict = true`.",
    '{"decision_id": "D-1", "statuss": "open", …}',
    '{"decision_id": "D-1", "status": "open", …}',
)
WRONG_TYPE = Rule(
    "AL103",
    "wrong-type",
    "A value has the wrong JSON type",
    "Reports a value whose type the schema does not allow, such as a number written as a "
    "string or `null` where a resolved decision needs a string.",
    '{"turn_count": "12"}',
    '{"turn_count": 12}',
)
INVALID_VALUE = Rule(
    "AL104",
    "invalid-value",
    "A value is not one of the allowed values",
    "Reports a value outside the schema's `enum` or different from its `const`, such as a "
    "status or mode the agents do not know.",
    '{"mode": "AGENT"}',
    '{"mode": "AGENT_RESUME"}',
)
PATTERN_MISMATCH = Rule(
    "AL105",
    "pattern-mismatch",
    "A string does not match the required pattern",
    "Reports a string that does not match the schema's `pattern`, for example a reference "
    "to a decision that does not start with `D-`, or a checksum without its `sha256:` prefix.",
    '{"decisions_refs": ["decision-1"]}',
    '{"decisions_refs": ["D-1"]}',
)
INVALID_DATE_TIME = Rule(
    "AL106",
    "invalid-date-time",
    "A timestamp is not an RFC 3339 date-time",
    "Reports a `date-time` (or `date`) field that is not RFC 3339: a missing time zone, a "
    "space instead of `T`, or an impossible date. Handoff ordering compares these values, so "
    "they must be exact.",
    '{"created_at": "2026-08-01 15:30"}',
    '{"created_at": "2026-08-01T15:30:00Z"}',
)
OUT_OF_RANGE = Rule(
    "AL107",
    "out-of-range",
    "A value is too small, too large, too long, too short or repeats items",
    "Reports a number outside `minimum`/`maximum`, a string or array outside its length "
    "limits, an empty required string, or an array with duplicate items where they must be "
    "unique.",
    '{"options": ["approve"]}',
    '{"options": ["approve", "reject"]}',
)
SCHEMA_VIOLATION = Rule(
    "AL108",
    "schema-violation",
    "A record violates another schema constraint",
    "Reports any other violation of the kind's schema (or of a user schema configured in "
    "`schema-dirs`), with the validator's own message.",
    "a value that violates a `not` or `dependentRequired` rule of a user schema",
    "a value that satisfies it",
)

FOREIGN_SHAPE = Rule(
    "AL109",
    "foreign-shape",
    "A file at a kind's path holds another shape of record",
    "Reports, as one finding, a file stored where a kind's records live whose content is "
    "clearly something else: most of the kind's required fields are missing and most of its "
    "fields are unknown to the kind (for example a tool's own `state.json` in an artifact "
    "folder). Its field-by-field findings would all say the same thing; the fix is to move "
    "the file, exclude its path, or write the record the path promises.",
    'artifacts/A-1/state.json containing {"progress": 3, "owner": "ci"}',
    'artifacts/A-1/state.json containing {"artifact_id": "A-1", "status": "ready", …}',
)

RULES = (
    MISSING_FIELD,
    UNKNOWN_FIELD,
    WRONG_TYPE,
    INVALID_VALUE,
    PATTERN_MISMATCH,
    INVALID_DATE_TIME,
    OUT_OF_RANGE,
    SCHEMA_VIOLATION,
    FOREIGN_SHAPE,
)

_TYPE_NAMES = {
    Decimal: "integer",  # an integer too long for Python's int
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


def field_name(path: tuple[str | int, ...]) -> str:
    """Render an instance path as ``a.b[2].c`` (``the record`` for the root)."""
    if not path:
        return "the record"
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def show(value: Any, limit: int = 60) -> str:
    """A short JSON rendering of ``value`` for messages (see :func:`~agent_lint.jsontext.quote`)."""
    return quote(value, limit)


def type_name(value: Any) -> str:
    """The JSON type name of a Python value."""
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def describe(value: Any) -> str:
    """``null``, or the value's JSON type followed by the value."""
    return "null" if value is None else f"{type_name(value)} {show(value)}"


def _when(issue: SchemaIssue) -> str:
    return f" when {issue.condition}" if issue.condition else ""


def _closest(key: str, allowed: list[str]) -> str | None:
    """The allowed field ``key`` is a likely misspelling of, if one is close enough."""
    import difflib  # loaded for a suggestion only

    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
    return close[0] if close else None


def _misspelled(ctx: FileContext, issue: SchemaIssue) -> set[str]:
    """The required fields that an unknown field of the same object is reported as a
    likely misspelling of (AL102's "did you mean"): each is that finding alone."""
    schema, instance = issue.schema, issue.instance
    if schema.get("additionalProperties") is not False or not isinstance(instance, dict):
        return set()
    if ctx.kind.open_fields and not issue.path and not ctx.config.strict:
        return set()  # unknown fields are not reported here
    allowed = list(schema.get("properties", {}))
    meant = (_closest(key, allowed) for key in additional_keys(instance, schema))
    return {field for field in meant if field is not None}


def _unknown_fields(ctx: FileContext, issue: SchemaIssue) -> Iterator[Diagnostic]:
    allowed = list(issue.schema.get("properties", {}))
    for key in additional_keys(issue.instance, issue.schema):
        close = _closest(key, allowed)
        where = f" in {clip(field_name(issue.path))}" if issue.path else ""
        # The schema is inside the package: without a likely typo, name what it allows.
        hint = (
            f'; did you mean "{close}"?'
            if close
            else "; allowed fields: " + listed(allowed, chars=400, limit=40)
        )
        yield UNKNOWN_FIELD.at(
            ctx.path,
            f"unknown field {quote(key)}{where}{hint}",
            pointer=pointer_of((*issue.path, key)),
            target="key",
        )


def _message(issue: SchemaIssue) -> tuple[Rule, str] | None:
    name = quote(field_name(issue.path)) if issue.path else "the record"
    value, expected, keyword = issue.instance, issue.expected, issue.keyword
    when = _when(issue)
    if keyword == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return WRONG_TYPE, f"{name} must be {wanted}{when}, got {describe(value)}"
    if keyword == "enum":
        choices = ", ".join(v if isinstance(v, str) else show(v) for v in expected)
        return INVALID_VALUE, f"{name} must be one of {choices}{when}, got {show(value)}"
    if keyword == "const":
        return INVALID_VALUE, f"{name} must be {show(expected)}{when}, got {show(value)}"
    if keyword == "pattern":
        examples = issue.schema.get("examples")
        like = ""
        if isinstance(examples, list) and examples and isinstance(examples[0], str):
            like = f" (for example {show(examples[0])})"
        return (
            PATTERN_MISMATCH,
            f"{name} must match the pattern {expected}{like}, got {show(value)}",
        )
    if keyword == "format":
        example = "2026-08-01T15:30:00Z" if expected == "date-time" else "2026-08-01"
        return (
            INVALID_DATE_TIME,
            f"{name} must be an RFC 3339 {expected} (such as {example}), got {show(value)}",
        )
    if keyword == "minLength":
        if expected == 1:
            return OUT_OF_RANGE, f"{name} must not be empty{when}"
        return OUT_OF_RANGE, f"{name} must be at least {expected} characters, got {len(value)}"
    if keyword == "maxLength":
        return OUT_OF_RANGE, f"{name} must be at most {expected} characters, got {len(value)}"
    if keyword == "minItems":
        return OUT_OF_RANGE, f"{name} must have at least {expected} item(s){when}, got {len(value)}"
    if keyword == "maxItems":
        return OUT_OF_RANGE, f"{name} must have at most {expected} items, got {len(value)}"
    if keyword == "uniqueItems":
        found = repeats(value) if isinstance(value, list) else None
        if found is None:
            return OUT_OF_RANGE, f"{name} must not repeat items"
        times = "twice" if found.first_count == 2 else f"{found.first_count} times"
        message = f"{name} must not repeat items; {show(found.first)} appears {times}"
        if found.total > found.first_count - 1:
            message += f" ({found.total} repeated items in all)"
        return OUT_OF_RANGE, message
    if keyword in ("minimum", "exclusiveMinimum"):
        bound = "at least" if keyword == "minimum" else "greater than"
        return OUT_OF_RANGE, f"{name} must be {bound} {expected}, got {show(value)}"
    if keyword in ("maximum", "exclusiveMaximum"):
        bound = "at most" if keyword == "maximum" else "less than"
        return OUT_OF_RANGE, f"{name} must be {bound} {expected}, got {show(value)}"
    if keyword in ("required", "additionalProperties"):
        return None
    return SCHEMA_VIOLATION, f"{name}: {clip(issue.message)}"


def _owned_by_identity(ctx: FileContext, issue: SchemaIssue) -> bool:
    """Id patterns are reported by the identity rules (AL201), not twice."""
    if issue.keyword != "pattern":
        return False
    kind = ctx.kind
    if kind.id_field and issue.path == (kind.id_field,):
        return True
    return any(
        len(issue.path) == 3 and issue.path[0] == sub.array and issue.path[2] == sub.id_field
        for sub in kind.sub_ids
    )


_POSITION = re.compile(r"\[\d+\]")
_POINTER_POSITION = re.compile(r"/\d+(?=/|$)")


def check_schema(ctx: FileContext) -> Iterator[Diagnostic]:
    """Validate the record against its kind's schema (AL101-AL108), each problem once.

    The same problem in several entries of an array (a field missing from 84
    index entries) is one finding at the first entry, with the count.
    """
    seen: set[tuple[str, str, str]] = set()
    groups: dict[tuple[str, str, str], list[Diagnostic]] = defaultdict(list)
    for diagnostic in _one_per_condition(_schema_findings(ctx)):
        key = (diagnostic.code, diagnostic.pointer, diagnostic.message)
        if key in seen:
            continue
        seen.add(key)
        # The same fact about many items: their values differ, the fact does not.
        template = _POSITION.sub("[]", diagnostic.message.split(", got ", 1)[0])
        where = _POINTER_POSITION.sub("/*", diagnostic.pointer)
        groups[(diagnostic.code, where, template)].append(diagnostic)
    for (_, _, template), items in groups.items():
        first = items[0]
        if len(items) == 1:
            yield first
            continue
        more = len(items) - 1
        yield replace(
            first,
            message=f"{first.message} (and {more} more entr{'y' if more == 1 else 'ies'})",
            key=template,
        )


def _one_per_condition(found: Iterable[tuple[Diagnostic, str]]) -> Iterator[Diagnostic]:
    """The findings, those of one rule that one condition of one object sets off (several
    fields a ``"status": "released"`` requires, left as the runtime's null placeholders)
    as one finding at the first, naming the others: one unfinished transition, one fact.
    Grouped by rule, so that selecting or ignoring a rule takes all of its findings."""
    findings = list(found)
    groups: dict[tuple[str, str, str], list[Diagnostic]] = defaultdict(list)

    def key(diagnostic: Diagnostic, condition: str) -> tuple[str, str, str]:
        return diagnostic.code, diagnostic.pointer.rpartition("/")[0], condition

    for diagnostic, condition in findings:
        if condition:
            groups[key(diagnostic, condition)].append(diagnostic)
    for diagnostic, condition in findings:
        group = groups.get(key(diagnostic, condition)) if condition else None
        if group is None or len(group) == 1:
            yield diagnostic
        elif group[0] is diagnostic:
            when = f" when {condition}"
            others = [d.message.replace(when, "", 1) for d in group[1:]]
            yield replace(diagnostic, message="; ".join([diagnostic.message, *others]))


def _foreign_shape(ctx: FileContext, issues: list[SchemaIssue]) -> Diagnostic | None:
    """One AL109 finding when the record is clearly not of its kind, else None.

    Clearly: the kind requires at least three top-level fields, more than half of
    them are missing, and more than half of the record's own fields are unknown
    to the kind. A record with a few typos or a missing field or two stays below
    this and gets its field-by-field findings.
    """
    data = ctx.data
    root = next((i for i in issues if i.keyword == "required" and not i.path), None)
    if root is None or not isinstance(data, dict) or not data:
        return None
    required = [name for name in root.expected if isinstance(name, str)]
    missing = [name for name in required if name not in data]
    unknown = additional_keys(data, root.schema)
    if len(required) < 3 or 2 * len(missing) <= len(required) or 2 * len(unknown) <= len(data):
        return None
    title = ctx.kind.title
    a = "an" if title[:1] in "aeiou" else "a"
    return FOREIGN_SHAPE.at(
        ctx.path,
        f"does not look like {a} {title}: {len(missing)} of its {len(required)} required fields "
        f"are missing and {len(unknown)} of the file's {len(data)} fields are unknown to it "
        f"({clip(', '.join(unknown[:5]))}{', …' if len(unknown) > 5 else ''}); expected {a} "
        f"{title} with {clip(', '.join(required))} (move or exclude the file if it is not one)",
    )


def _schema_findings(ctx: FileContext) -> Iterator[tuple[Diagnostic, str]]:
    """Each schema finding with the condition (``"status" is "released"``) that required
    what it is about, ``""`` for none."""
    if ctx.kind.schema is None:
        return
    validator = ctx.schemas.validator(ctx.kind.schema)
    if validator is None:
        return
    issues = list(validator.issues(ctx.data))
    if issues and ctx.data is None and ctx.kind.format is Format.MARKDOWN:
        # A note whose record is its front matter, written without one.
        yield (
            WRONG_TYPE.at(
                ctx.path,
                f"the {ctx.kind.title} has no YAML front matter; expected the file to start "
                "with a line ---, its fields as YAML, and a line ---",
                line=1,
                column=1,
            ),
            "",
        )
        return
    foreign = _foreign_shape(ctx, issues)
    if foreign is not None:
        yield foreign, ""
        return
    for issue in issues:
        if _owned_by_identity(ctx, issue):
            continue
        if issue.keyword == "required":
            # Each missing field comes as its own issue carrying the whole list;
            # check_schema drops the repeats.
            where = f" in {clip(field_name(issue.path))}" if issue.path else ""
            misspelled = _misspelled(ctx, issue)
            for missing in issue.expected:
                if not isinstance(issue.instance, dict) or missing in issue.instance:
                    continue
                if missing in misspelled:
                    continue  # 'unknown field "decision"; did you mean "decisions"?' says it
                finding = MISSING_FIELD.at(
                    ctx.path,
                    f'missing required field "{missing}"{where}{_when(issue)}',
                    pointer=pointer_of(issue.path),
                )
                yield finding, ""  # placed at the object: grouped by message instead
            continue
        if issue.keyword == "additionalProperties" and isinstance(issue.instance, dict):
            if ctx.kind.open_fields and not issue.path and not ctx.config.strict:
                continue  # the runtime's schema of this kind accepts extra fields
            yield from ((finding, "") for finding in _unknown_fields(ctx, issue))
            continue
        described = _message(issue)
        if described is not None:
            rule, message = described
            yield rule.at(ctx.path, message, pointer=pointer_of(issue.path)), issue.condition
