"""Configuration: ``.agent-lint.toml`` or ``[tool.agent-lint]`` in ``pyproject.toml``.

Validation is central: every key is checked here, and an unknown key or a
bad value is a :class:`ConfigError` naming the key and the file.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_lint.diagnostics import Severity
from agent_lint.fileio import in_git_dir
from agent_lint.frozen import field as _field
from agent_lint.frozen import frozen, replace
from agent_lint.jsontext import clip

CONFIG_FILE = ".agent-lint.toml"


@frozen(repr=False, eq=False)
class Limit:
    """One bound on the work a hostile or odd file can cause: its setting, default and ceiling.

    ``ceiling`` is the most a configuration may raise it to: a change under
    review may carry its own configuration, and even then the run stays
    bounded.
    """

    key: str
    default: int
    ceiling: int
    unit: str
    description: str


#: Every limit, by its key in the ``[limits]`` table.
LIMITS: dict[str, Limit] = {
    limit.key: limit
    for limit in (
        Limit(
            "max-file-bytes",
            16 * 1024 * 1024,
            128 * 1024 * 1024,
            "bytes",
            "size of a record or note that is read; larger files are reported (AL009)",
        ),
        Limit(
            "max-yaml-bytes",
            1024 * 1024,
            16 * 1024 * 1024,
            "bytes",
            "size of one YAML document (a YAML record or a note's front matter); YAML costs "
            "far more to read than JSON (about 2 s for 1 MiB of the densest YAML)",
        ),
        Limit(
            "max-yaml-total-bytes",
            32 * 1024 * 1024,
            512 * 1024 * 1024,
            "bytes",
            "YAML one run reads in all, so many large YAML files cannot make a run take "
            "minutes; the documents past it are reported (AL011), not read",
        ),
        Limit(
            "max-depth",
            64,
            200,
            "levels",
            "nesting of arrays and objects in a JSON or YAML document, checked before it is parsed",
        ),
        Limit(
            "max-yaml-alias-nodes",
            10_000,
            1_000_000,
            "nodes",
            "nodes YAML aliases repeat in one document, each alias counted with the size "
            "of what it repeats",
        ),
        Limit(
            "max-brace-alternatives",
            256,
            10_000,
            "paths",
            "paths one brace list in a path reference expands to (dir/{a,b}.json is 2)",
        ),
        Limit(
            "max-suggestion-length",
            64,
            256,
            "characters",
            "length of an id that gets a did-you-mean suggestion; longer ids get none",
        ),
    )
}


@frozen
class Limits:
    """The limits in force for one run (see :data:`LIMITS` for defaults and ceilings)."""

    max_file_bytes: int = LIMITS["max-file-bytes"].default
    max_yaml_bytes: int = LIMITS["max-yaml-bytes"].default
    max_yaml_total_bytes: int = LIMITS["max-yaml-total-bytes"].default
    max_depth: int = LIMITS["max-depth"].default
    max_yaml_alias_nodes: int = LIMITS["max-yaml-alias-nodes"].default
    max_brace_alternatives: int = LIMITS["max-brace-alternatives"].default
    max_suggestion_length: int = LIMITS["max-suggestion-length"].default


def in_git_folder(parts: Sequence[str]) -> bool:
    """Whether a relative path's ``parts`` pass through a ``.git`` folder (any case, as
    case-insensitive file systems and git itself compare it): git's own files, which no
    setting may make agent-lint read."""
    return any(part.lower() == ".git" for part in parts)


def over_limit(key: str, value: int) -> str:
    """The end of a finding about an exceeded limit: which limit, and how to raise it."""
    limit = LIMITS[key]
    return (
        f"the limit is {value} {limit.unit} (`{key}` in the [limits] table of "
        f"{CONFIG_FILE}; at most {limit.ceiling})"
    )


def _given(value: object) -> str:
    """A configuration value as a message quotes it, cut short (the change may carry it)."""
    return clip(repr(value))


class ConfigError(Exception):
    """A usage or configuration error: the run stops with exit code 2."""


@frozen
class UserReference:
    """A reference field of a user-declared kind: its field spec and target namespace."""

    field: str
    target: str
    where: str = _field(compare=False)


@frozen
class UserIndex:
    """The index file of a user-declared kind: where it is and how its entries are laid out.

    ``entries`` is the field holding an array of entries, each naming its
    record by ``id_field`` (or by a ``path`` field relative to the
    repository); empty for an object keyed by id. ``fields`` maps an entry
    field to the record field spec whose value it repeats.
    """

    path: str
    entries: str
    id_field: str
    fields: tuple[tuple[str, str], ...]


@frozen
class UserKind:
    """A record kind declared in the configuration (``[[kinds]]``), validated but not compiled.

    ``where`` names the table in messages (``.agent-lint.toml: kinds[0]``);
    :func:`agent_lint.profile.extend` turns it into a kind of the run's profile.
    Two declarations are equal when they declare the same kind, wherever they
    were read from and wherever their schema file is.
    """

    name: str
    title: str
    path: str
    format: str
    schema: Path | None = _field(compare=False)
    id_field: str | None
    id_pattern: str | None
    name_rule: str
    namespace: str | None
    scope: str | None
    references: tuple[UserReference, ...]
    history: str
    where: str = _field(compare=False)
    paths: tuple[str, ...] = ()
    index: UserIndex | None = None


#: Every key of a ``[[kinds]]`` table, with what it takes (for messages).
KIND_KEYS: dict[str, str] = {
    "name": 'a kebab-case name such as "review" (required)',
    "title": "the kind's name in messages",
    "path": 'a pattern relative to the store, such as "reviews/{stem}.json" (required)',
    "format": '"json", "yaml" or "markdown" (default: from the path\'s suffix)',
    "schema": "a JSON Schema file, relative to the configuration file",
    "id-field": "the field that holds the record's id",
    "id-pattern": "a regular expression every id matches",
    "name-rule": '"none", "stem", "slug" or "dir"',
    "namespace": "the id space references point into (default: the kind's name)",
    "scope": "a path group ({conversation}) that scopes id uniqueness",
    "references": 'an array of { field = "a.b[]", target = "namespace" } tables',
    "history": '"free", "append-only" or "write-once" (checked with --base)',
    "paths": 'an array of field specs ("artifact", "files[]") whose values are repository paths',
    "index": 'a table { path = "reviews/index.json", entries = "reviews", fields = { … } }',
}
#: Every key of a kind's ``index`` table, with what it takes (for messages).
INDEX_KEYS: dict[str, str] = {
    "path": 'the index file, relative to the store, such as "reviews/index.json" (required)',
    "entries": "the field holding the array of entries (default: an object keyed by id)",
    "id-field": "the entry field naming the record's id (default: the kind's id-field)",
    "fields": 'a table of entry field = record field spec, such as { verdict = "verdict" }',
}
_KIND_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")
_FIELD_SPEC = re.compile(
    r"[A-Za-z_][A-Za-z0-9_-]*(?:\[\])*(?:\.[A-Za-z_][A-Za-z0-9_-]*(?:\[\])*)*\Z"
)
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_GROUP = re.compile(r"\{([^{}]*)\}")
_FORMATS = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".md": "markdown"}


@frozen
class Config:
    """Effective settings of one run."""

    select: tuple[str, ...] = ("AL",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    agent_dir: str | None = None
    profile: str | None = None
    kinds: tuple[UserKind, ...] = ()
    schema_dirs: tuple[Path, ...] = ()
    file_name_rule: str = "prefix"
    strict_references: bool = False
    path_schemes: tuple[tuple[str, str], ...] = ()
    base: str | None = None
    strict: bool = False
    completeness: str = "complete"
    limits: Limits = _field(default_factory=Limits)
    source: Path | None = _field(default=None, compare=False)

    @property
    def partial(self) -> bool:
        """True when the repository commits only part of its agent state."""
        return self.completeness == "partial"

    def with_cli(
        self,
        select: list[str] | None,
        ignore: list[str] | None,
        *,
        strict: bool = False,
        partial: bool = False,
    ) -> Config:
        """Apply ``--select`` (replaces), ``--ignore`` (extends), ``--strict`` and ``--partial``."""
        updated = self
        if select is not None:
            updated = replace(updated, select=tuple(select))
        if ignore:
            updated = replace(updated, ignore=(*updated.ignore, *ignore))
        if strict:
            updated = replace(updated, strict=True)
        if partial:
            updated = replace(updated, completeness="partial")
        return updated


def _codes(value: Any, key: str, source: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: `{key}` must be a list of rule codes or prefixes")
    return tuple(validate_code(code, f"{source}: `{key}`") for code in value)


def _rules() -> dict[str, str]:
    """Rule names to codes (imported late: the validators import this module)."""
    from agent_lint.rules import all_rules

    return {rule.name: rule.code for rule in all_rules()}


def validate_code(code: str, where: str) -> str:
    """The rule code or prefix a selector stands for; unknown ones are a usage error.

    A selector is a code (``AL203``), a prefix of one or more codes (``AL2``,
    ``AL``) or a rule name (``duplicate-id``). Anything else stops the run with
    a did-you-mean, so a typo never silently selects or ignores nothing.
    """
    names = _rules()
    text = code.strip()
    if text.lower() in names:
        return names[text.lower()]
    upper = text.upper()
    codes = sorted(names.values())
    shaped = re.fullmatch(r"AL[0-9]*", upper, re.ASCII) is not None
    if shaped and any(known.startswith(upper) for known in codes):
        return upper
    import difflib  # loaded for a suggestion only

    # A code differs from its typo in one character (AL4l0 for AL410); two apart (AL999
    # and AL902) is another code, not a suggestion.
    close = difflib.get_close_matches(
        upper if upper.startswith("AL") else text.lower(),
        codes if upper.startswith("AL") else list(names),
        n=1,
        cutoff=0.75 if upper.startswith("AL") else 0.6,
    )
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(
        f"{where}: {_given(code)} is not a rule code, prefix or name (e.g. AL1, AL203, "
        f"duplicate-id; see `agent-lint --list-rules`){hint}"
    )


def validate_profile(name: object, where: str) -> str:
    """A built-in profile's name; anything else is a usage error listing the profiles."""
    from agent_lint.profiles import names  # late: the profiles import the validators

    if isinstance(name, str) and name in names():
        return name
    import difflib  # loaded for a suggestion only

    close = difflib.get_close_matches(str(name), names(), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(
        f"{where}: {_given(name)} is not a profile (built-in profiles: "
        f"{', '.join(names())}; see `agent-lint --list-profiles`){hint}"
    )


def _parse(table: Mapping[str, Any], source: Path, files: bool = True) -> Config:
    config = Config(source=source)
    for key, value in table.items():
        if key == "select":
            config = replace(config, select=_codes(value, key, source))
        elif key == "ignore":
            config = replace(config, ignore=_codes(value, key, source))
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: `per-file-ignores` must be a table of glob = [codes]")
            pairs = tuple(
                (glob, _codes(codes, f"per-file-ignores.{clip(glob)}", source))
                for glob, codes in value.items()
            )
            config = replace(config, per_file_ignores=pairs)
        elif key == "severity":
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: `severity` must be a table of code = level")
            levels = []
            for code, level in value.items():
                selector = validate_code(code, f"{source}: `severity`")
                if level not in ("error", "warning", "info"):
                    raise ConfigError(
                        f'{source}: `severity.{code}` must be "error", "warning" or "info", '
                        f"got {_given(level)}"
                    )
                levels.append((selector, Severity(level)))
            config = replace(config, severity=tuple(levels))
        elif key == "agent-dir":
            if (
                not isinstance(value, str)
                or not value
                or Path(value).is_absolute()
                or ".." in Path(value).parts
            ):
                raise ConfigError(
                    f"{source}: `agent-dir` must be a relative path inside the repository"
                )
            if in_git_folder(Path(value).parts):
                raise ConfigError(
                    f"{source}: `agent-dir` {_given(value)} is inside a .git folder; it must "
                    "be a folder of the repository's files"
                )
            config = replace(config, agent_dir=value)
        elif key == "profile":
            config = replace(config, profile=_profile(value, source))
        elif key == "kinds":
            config = replace(config, kinds=_kinds(value, source, files))
        elif key == "schema-dirs":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{source}: `schema-dirs` must be a list of folder paths")
            dirs = []
            for entry in value:
                folder = (source.parent / entry).resolve()
                root = source.parent.resolve()
                if root != folder and root not in folder.parents:
                    raise ConfigError(
                        f"{source}: `schema-dirs` entry {_given(entry)} is outside the repository"
                    )
                if in_git_folder(folder.relative_to(root).parts):
                    raise ConfigError(
                        f"{source}: `schema-dirs` entry {_given(entry)} is inside a .git folder"
                    )
                if not folder.is_dir():
                    raise ConfigError(
                        f"{source}: `schema-dirs` entry {_given(entry)} is not a folder"
                    )
                dirs.append(folder)
            config = replace(config, schema_dirs=tuple(dirs))
        elif key == "file-name-rule":
            if value not in ("exact", "prefix"):
                raise ConfigError(
                    f'{source}: `file-name-rule` must be "exact" or "prefix", got {_given(value)}'
                )
            config = replace(config, file_name_rule=value)
        elif key == "strict-references":
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: `strict-references` must be true or false")
            config = replace(config, strict_references=value)
        elif key == "base":
            if not isinstance(value, str) or not value or value.startswith("-"):
                raise ConfigError(f"{source}: `base` must be a git revision such as origin/main")
            config = replace(config, base=value)
        elif key == "strict":
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: `strict` must be true or false")
            config = replace(config, strict=value)
        elif key == "completeness":
            if value not in ("complete", "partial"):
                raise ConfigError(
                    f'{source}: `completeness` must be "complete" or "partial", got {_given(value)}'
                )
            config = replace(config, completeness=value)
        elif key == "path-schemes":
            config = replace(config, path_schemes=_path_schemes(value, source))
        elif key == "limits":
            config = replace(config, limits=_limits(value, source))
        elif key == "cache-dir":
            # The configuration may come from the change under review: it never chooses
            # where agent-lint writes.
            raise ConfigError(
                f"{source}: `cache-dir` is not a configuration key: choose the cache folder "
                "with --cache-dir or AGENT_LINT_CACHE_DIR"
            )
        else:
            raise ConfigError(f"{source}: unknown key `{clip(key)}` in agent-lint configuration")
    return config


def _text(table: Mapping[str, Any], key: str, where: str, required: bool = False) -> str | None:
    value = table.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}.{key}` must be {KIND_KEYS[key]}")
    return value


def _choice(table: Mapping[str, Any], key: str, where: str, choices: tuple[str, ...]) -> str:
    value = table.get(key, choices[0])
    if value not in choices:
        allowed = ", ".join(f'"{choice}"' for choice in choices)
        raise ConfigError(f"{where}.{key}` must be one of {allowed}, got {_given(value)}")
    return str(value)


def _kind_path(path: str, where: str) -> None:
    """Check a kind's path pattern: relative, no ``..``, groups named once, as identifiers."""
    if path.startswith("/") or "\\" in path or ".." in path.split("/") or "" in path.split("/"):
        raise ConfigError(
            f"{where}.path` must be a relative pattern inside the store such as "
            f'"reviews/{{stem}}.json", got {_given(path)}'
        )
    groups = _GROUP.findall(path)
    for group in groups:
        if not group.isidentifier() or not group.isascii():
            raise ConfigError(f"{where}.path` group {{{clip(group)}}} must be a name")
    if len(set(groups)) != len(groups):
        raise ConfigError(f"{where}.path` names a group twice")
    if "{" in _GROUP.sub("", path) or "}" in _GROUP.sub("", path):
        raise ConfigError(f"{where}.path` has an unmatched brace")
    # Each wildcard of a segment is a choice the matcher may have to try against every
    # other: two per segment, and one ``**``, keep matching a name quadratic at worst (the
    # change under review may write the pattern, and the names of its files).
    segments = path.split("/")
    if segments.count("**") > 1:
        raise ConfigError(f"{where}.path` may hold `**` once, got {_given(path)}")
    for segment in segments:
        if segment != "**" and segment.count("*") + len(_GROUP.findall(segment)) > 2:
            raise ConfigError(
                f"{where}.path` may hold at most two of `*` and `{{name}}` in one folder or file "
                f"name, got {_given(segment)}"
            )


def _known_keys(table: Mapping[str, Any], keys: Mapping[str, str], where: str) -> None:
    """Raise a usage error for a key of ``table`` not in ``keys``, with a did-you-mean."""
    for key in table:
        if key not in keys:
            import difflib  # loaded for a suggestion only

            close = difflib.get_close_matches(str(key), keys, n=1, cutoff=0.6)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            known = ", ".join(keys)
            raise ConfigError(f"{where}` has unknown key `{clip(str(key))}` (known: {known}){hint}")


def _kind(table: Any, where: str, source: Path, files: bool) -> UserKind:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}` must be a table")
    _known_keys(table, KIND_KEYS, where)
    name = _text(table, "name", where, required=True)
    assert name is not None
    if not _KIND_NAME.match(name):
        raise ConfigError(f"{where}.name` must be {KIND_KEYS['name']}, got {_given(name)}")
    path = _text(table, "path", where, required=True)
    assert path is not None
    _kind_path(path, where)
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    fmt = table.get("format", _FORMATS.get(suffix))
    if fmt not in ("json", "yaml", "markdown"):
        raise ConfigError(f"{where}.format` must be {KIND_KEYS['format']}, got {_given(fmt)}")
    schema = None
    schema_text = _text(table, "schema", where)
    if schema_text is not None and files:
        schema = (source.parent / schema_text).resolve()
        root = source.parent.resolve()
        if root not in schema.parents:
            raise ConfigError(f"{where}.schema` {_given(schema_text)} is outside the repository")
        if in_git_folder(schema.relative_to(root).parts):
            raise ConfigError(f"{where}.schema` {_given(schema_text)} is inside a .git folder")
        if not schema.is_file():
            raise ConfigError(f"{where}.schema` {_given(schema_text)} is not a file")
    id_field = _text(table, "id-field", where)
    id_pattern = _text(table, "id-pattern", where)
    if id_pattern is not None:
        from agent_lint.schemas import LinearPattern, UnsupportedPattern

        try:
            LinearPattern(id_pattern)
        except UnsupportedPattern:
            raise ConfigError(
                f"{where}.id-pattern` is not a regular expression agent-lint evaluates in "
                f"linear time (the syntax of schema patterns; no lookaround or "
                f"backreference, and no larger than 16 KiB compiled): {_given(id_pattern)}"
            ) from None
    groups = _GROUP.findall(path)
    default_rule = "stem" if id_field and "stem" in groups else "none"
    name_rule = _choice(
        {"name-rule": default_rule, **table}, "name-rule", where, ("none", "stem", "slug", "dir")
    )
    needs = {"stem": "stem", "slug": "stem", "dir": "folder"}.get(name_rule)
    if needs is not None and needs not in groups:
        raise ConfigError(
            f'{where}.name-rule` "{name_rule}" compares the id with the path\'s '
            f"{{{needs}}} group, which `path` does not have"
        )
    if name_rule != "none" and id_field is None:
        raise ConfigError(f'{where}.name-rule` "{name_rule}" needs an `id-field`')
    scope = _text(table, "scope", where)
    if scope is not None and scope not in groups:
        raise ConfigError(f"{where}.scope` {_given(scope)} is not a group of `path`")
    namespace = _text(table, "namespace", where) or (name if id_field else None)
    references = table.get("references", [])
    if not isinstance(references, list):
        raise ConfigError(f"{where}.references` must be {KIND_KEYS['references']}")
    refs = []
    for position, entry in enumerate(references):
        at = f"{where}.references[{position}]"
        if not isinstance(entry, dict) or set(entry) != {"field", "target"}:
            raise ConfigError(f"{at}` must be a table with `field` and `target`")
        spec, target = entry["field"], entry["target"]
        if not isinstance(spec, str) or not _FIELD_SPEC.match(spec):
            raise ConfigError(
                f'{at}.field` must be a field spec such as "decision_ids[]" or "a.b", '
                f"got {_given(spec)}"
            )
        if not isinstance(target, str) or not target:
            raise ConfigError(f"{at}.target` must be the namespace the ids belong to")
        refs.append(UserReference(spec, target, at))
    history = _choice(table, "history", where, ("free", "append-only", "write-once"))
    title = _text(table, "title", where) or name.replace("-", " ")
    paths = table.get("paths", [])
    if not isinstance(paths, list) or not all(
        isinstance(p, str) and _FIELD_SPEC.match(p) for p in paths
    ):
        raise ConfigError(f"{where}.paths` must be {KIND_KEYS['paths']}, got {_given(paths)}")
    index = _index(table["index"], f"{where}.index", id_field) if "index" in table else None
    return UserKind(
        name,
        title,
        path,
        str(fmt),
        schema,
        id_field,
        id_pattern,
        name_rule,
        namespace,
        scope,
        tuple(refs),
        history,
        where,
        tuple(paths),
        index,
    )


def _index(table: Any, where: str, id_field: str | None) -> UserIndex:
    """A kind's ``index`` table: its file, the layout of its entries, the fields they repeat."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}` must be {KIND_KEYS['index']}")
    _known_keys(table, INDEX_KEYS, where)
    path = table.get("path")
    if not isinstance(path, str) or not path:
        raise ConfigError(f"{where}.path` must be {INDEX_KEYS['path']}")
    _kind_path(path, where)
    if not path.lower().endswith(".json"):
        raise ConfigError(f"{where}.path` must name a JSON file, got {_given(path)}")
    entries = table.get("entries", "")
    if not isinstance(entries, str) or (entries and not _FIELD_NAME.match(entries)):
        raise ConfigError(f"{where}.entries` must be {INDEX_KEYS['entries']}")
    entry_id = table.get("id-field", id_field)
    if entries and (not isinstance(entry_id, str) or not entry_id):
        raise ConfigError(
            f"{where}.id-field` must name the entry field holding the record's id "
            "(an index of an array of entries needs one, or the kind's `id-field`)"
        )
    fields = table.get("fields", {})
    if not isinstance(fields, dict) or not all(
        isinstance(v, str) and _FIELD_SPEC.match(v) for v in fields.values()
    ):
        raise ConfigError(f"{where}.fields` must be {INDEX_KEYS['fields']}")
    return UserIndex(path, entries, entry_id or "", tuple(fields.items()))


#: The most ``[[kinds]]`` a configuration declares (a profile has about twenty of its own).
MAX_KINDS = 100


def _kinds(value: Any, source: Path, files: bool = True) -> tuple[UserKind, ...]:
    """The ``[[kinds]]`` tables; without ``files`` (the gate's view) schema files are not read."""
    if not isinstance(value, list):
        raise ConfigError(f"{source}: `kinds` must be an array of tables ([[kinds]])")
    if len(value) > MAX_KINDS:
        # Every file is tried against the kinds in turn: a bound on them is a bound on the
        # run (the change under review may write this file).
        raise ConfigError(
            f"{source}: `kinds` declares {len(value)} kinds; at most {MAX_KINDS} are allowed"
        )
    kinds = tuple(
        _kind(table, f"{source}: `kinds[{n}]", source, files) for n, table in enumerate(value)
    )
    seen: set[str] = set()
    for kind in kinds:
        if kind.name in seen:
            raise ConfigError(f"{kind.where}.name` {kind.name!r} is declared twice")
        seen.add(kind.name)
    return kinds


def _profile(value: Any, source: Path) -> str:
    """``profile = "NAME"``, or a ``[profile]`` table with ``extends = "NAME"``."""
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"extends"})
        if unknown or "extends" not in value:
            raise ConfigError(
                f'{source}: `[profile]` takes one key, `extends = "NAME"` (a built-in profile '
                "whose kinds [[kinds]] adds to)"
            )
        return validate_profile(value["extends"], f"{source}: `profile.extends`")
    return validate_profile(value, f"{source}: `profile`")


def _path_schemes(value: Any, source: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f'{source}: `path-schemes` must be a table of scheme = "folder"')
    pairs = []
    for scheme, folder in value.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
            raise ConfigError(f"{source}: `path-schemes` key {_given(scheme)} is not a URI scheme")
        if not isinstance(folder, str) or Path(folder).is_absolute() or ".." in Path(folder).parts:
            raise ConfigError(
                f"{source}: `path-schemes.{clip(scheme)}` must be a folder inside the repository"
            )
        pairs.append((scheme.lower(), folder))
    return tuple(pairs)


def _limits(value: Any, source: Path) -> Limits:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: `limits` must be a table of limit = number")
    values: dict[str, int] = {}
    for key, number in value.items():
        limit = LIMITS.get(key)
        if limit is None:
            known = ", ".join(LIMITS)
            raise ConfigError(f"{source}: unknown limit `{clip(key)}` in [limits] (known: {known})")
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ConfigError(f"{source}: `limits.{key}` must be a positive whole number")
        if number > limit.ceiling:
            raise ConfigError(
                f"{source}: `limits.{key}` is {number}; agent-lint allows at most "
                f"{limit.ceiling} {limit.unit}"
            )
        values[key.replace("-", "_")] = number
    return Limits(**values)


def _readable_in(root: Path, path: Path) -> bool:
    """True for a regular file that does not lead outside ``root`` through a symbolic link."""
    if not path.is_file():
        return False
    try:
        real, real_root = os.path.realpath(path), os.path.realpath(root)
    except (OSError, ValueError):
        real, real_root = "", "/"  # a link on the way cannot be resolved: treated as leaving
    if not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise ConfigError(f"{path}: a symbolic link that leads outside the repository; not read")
    if in_git_dir(real, real_root):
        raise ConfigError(f"{path}: a symbolic link into a .git folder; not read")
    return True


def find_config_file(root: Path) -> tuple[Path, Mapping[str, Any]] | None:
    """Find the settings table at ``root``: ``.agent-lint.toml`` wins over ``pyproject.toml``."""
    dedicated = root / CONFIG_FILE
    if _readable_in(root, dedicated):
        return dedicated, _load_toml(dedicated)
    pyproject = root / "pyproject.toml"
    if _readable_in(root, pyproject):
        tool = _load_toml(pyproject).get("tool", {})
        if isinstance(tool, dict) and "agent-lint" in tool:
            table = tool["agent-lint"]
            if not isinstance(table, dict):
                raise ConfigError(f"{pyproject}: [tool.agent-lint] must be a table")
            return pyproject, table
    return None


def _toml() -> Any:
    """The TOML reader, loaded when a configuration file is read (most runs read none)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    return tomllib


#: The largest configuration file read: a change under review may carry one, and a
#: TOML parse of megabytes takes seconds (real ones are a few kilobytes).
MAX_CONFIG_BYTES = 1024 * 1024


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc
    return _parse_toml(data, path)


def _parse_toml(data: bytes, source: Path) -> dict[str, Any]:
    """The TOML document ``data`` of the configuration file ``source``, or a ConfigError."""
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{source}: cannot read configuration: the file is larger than "
            f"{MAX_CONFIG_BYTES // 1024} KiB"
        )
    tomllib = _toml()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: cannot read configuration: not UTF-8 ({exc})") from exc
    try:
        table: dict[str, Any] = tomllib.loads(text)
    except ValueError as exc:  # not TOML, or an integer too long to convert
        raise ConfigError(f"{source}: cannot read configuration: not valid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(
            f"{source}: cannot read configuration: arrays or tables are nested too deeply"
        ) from None
    return table


#: The settings that decide the append-only gate (AL6xx). The gate takes them
#: from the merge-base's configuration, never from the change under review.
GATE_KEYS: tuple[str, ...] = (
    "select",
    "ignore",
    "per-file-ignores",
    "severity",
    "agent-dir",
    "profile",
    "kinds",
)


def gate_settings(config: Config) -> dict[str, object]:
    """The gate's settings of ``config``, by configuration key (for comparing two configs)."""
    return {
        "select": config.select,
        "ignore": config.ignore,
        "per-file-ignores": config.per_file_ignores,
        "severity": config.severity,
        "agent-dir": config.agent_dir,
        "profile": config.profile,
        "kinds": config.kinds,
    }


def gate_config_from_text(data: bytes, name: str, source: Path) -> Config | None:
    """The gate's settings from the text of a configuration file read out of git.

    ``name`` is the file's name (``pyproject.toml`` reads ``[tool.agent-lint]``;
    None when it has no such table). Only :data:`GATE_KEYS` are read: other
    settings, such as ``schema-dirs``, come from the files being linted.
    """
    table: Any = _parse_toml(data, source)
    if name == "pyproject.toml":
        tool = table.get("tool", {})
        if not isinstance(tool, dict) or "agent-lint" not in tool:
            return None
        table = tool["agent-lint"]
        if not isinstance(table, dict):
            raise ConfigError(f"{source}: [tool.agent-lint] must be a table")
    return _parse({k: v for k, v in table.items() if k in GATE_KEYS}, source, files=False)


def load_config(root: Path, explicit: Path | None = None) -> Config:
    """Load the configuration for the repository at ``root`` (or ``explicit``)."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: configuration file not found")
        data = _load_toml(explicit)
        if explicit.name == "pyproject.toml":
            data = data.get("tool", {}).get("agent-lint", {})
        return _parse(data, explicit)
    found = find_config_file(root)
    if found is None:
        return Config()
    source, table = found
    return _parse(table, source)
