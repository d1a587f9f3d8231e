"""Configuration: ``.agent-lint.toml`` or ``[tool.agent-lint]`` in ``pyproject.toml``.

Validation is central: every key is checked here, and an unknown key or a
bad value is a :class:`ConfigError` naming the key and the file.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent_lint.diagnostics import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

CONFIG_FILE = ".agent-lint.toml"


class ConfigError(Exception):
    """A usage or configuration error: the run stops with exit code 2."""


@dataclass(frozen=True)
class Config:
    """Effective settings of one run."""

    select: tuple[str, ...] = ("AL",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    agent_dir: str | None = None
    schema_dirs: tuple[Path, ...] = ()
    file_name_rule: str = "prefix"
    strict_references: bool = False
    path_schemes: tuple[tuple[str, str], ...] = ()
    base: str | None = None
    source: Path | None = field(default=None, compare=False)

    def with_cli(self, select: list[str] | None, ignore: list[str] | None) -> Config:
        """Apply command-line ``--select`` (replaces) and ``--ignore`` (extends)."""
        updated = self
        if select is not None:
            updated = replace(updated, select=tuple(select))
        if ignore:
            updated = replace(updated, ignore=(*updated.ignore, *ignore))
        return updated


def _codes(value: Any, key: str, source: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: `{key}` must be a list of rule codes or prefixes")
    for code in value:
        validate_code(code, f"{source}: `{key}`")
    return tuple(value)


def validate_code(code: str, where: str) -> None:
    """Reject a selector that cannot match any rule code."""
    upper = code.upper()
    if not upper.startswith("AL") or (not upper[2:].isdigit() and upper != "AL"):
        raise ConfigError(
            f"{where}: {code!r} is not a rule code or prefix (expected e.g. AL1, AL203)"
        )


def _parse(table: Mapping[str, Any], source: Path) -> Config:
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
                (glob, _codes(codes, f"per-file-ignores.{glob}", source))
                for glob, codes in value.items()
            )
            config = replace(config, per_file_ignores=pairs)
        elif key == "severity":
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: `severity` must be a table of code = level")
            levels = []
            for code, level in value.items():
                validate_code(code, f"{source}: `severity`")
                if level not in ("error", "warning"):
                    raise ConfigError(
                        f'{source}: `severity.{code}` must be "error" or "warning", got {level!r}'
                    )
                levels.append((code.upper(), Severity(level)))
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
            config = replace(config, agent_dir=value)
        elif key == "schema-dirs":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{source}: `schema-dirs` must be a list of folder paths")
            dirs = []
            for entry in value:
                folder = (source.parent / entry).resolve()
                root = source.parent.resolve()
                if root != folder and root not in folder.parents:
                    raise ConfigError(
                        f"{source}: `schema-dirs` entry {entry!r} is outside the repository"
                    )
                if not folder.is_dir():
                    raise ConfigError(f"{source}: `schema-dirs` entry {entry!r} is not a folder")
                dirs.append(folder)
            config = replace(config, schema_dirs=tuple(dirs))
        elif key == "file-name-rule":
            if value not in ("exact", "prefix"):
                raise ConfigError(
                    f'{source}: `file-name-rule` must be "exact" or "prefix", got {value!r}'
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
        elif key == "path-schemes":
            config = replace(config, path_schemes=_path_schemes(value, source))
        else:
            raise ConfigError(f"{source}: unknown key `{key}` in agent-lint configuration")
    return config


def _path_schemes(value: Any, source: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f'{source}: `path-schemes` must be a table of scheme = "folder"')
    pairs = []
    for scheme, folder in value.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
            raise ConfigError(f"{source}: `path-schemes` key {scheme!r} is not a URI scheme")
        if not isinstance(folder, str) or Path(folder).is_absolute() or ".." in Path(folder).parts:
            raise ConfigError(
                f"{source}: `path-schemes.{scheme}` must be a folder inside the repository"
            )
        pairs.append((scheme.lower(), folder))
    return tuple(pairs)


def find_config_file(root: Path) -> tuple[Path, Mapping[str, Any]] | None:
    """Find the settings table at ``root``: ``.agent-lint.toml`` wins over ``pyproject.toml``."""
    dedicated = root / CONFIG_FILE
    if dedicated.is_file():
        return dedicated, _load_toml(dedicated)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        tool = _load_toml(pyproject).get("tool", {})
        if isinstance(tool, dict) and "agent-lint" in tool:
            table = tool["agent-lint"]
            if not isinstance(table, dict):
                raise ConfigError(f"{pyproject}: [tool.agent-lint] must be a table")
            return pyproject, table
    return None


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
            return data
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc


#: The settings that decide the append-only gate (AL6xx). The gate takes them
#: from the merge-base's configuration, never from the change under review.
GATE_KEYS: tuple[str, ...] = ("select", "ignore", "per-file-ignores", "severity", "agent-dir")


def gate_settings(config: Config) -> dict[str, object]:
    """The gate's settings of ``config``, by configuration key (for comparing two configs)."""
    return {
        "select": config.select,
        "ignore": config.ignore,
        "per-file-ignores": config.per_file_ignores,
        "severity": config.severity,
        "agent-dir": config.agent_dir,
    }


def gate_config_from_text(data: bytes, name: str, source: Path) -> Config | None:
    """The gate's settings from the text of a configuration file read out of git.

    ``name`` is the file's name (``pyproject.toml`` reads ``[tool.agent-lint]``;
    None when it has no such table). Only :data:`GATE_KEYS` are read: other
    settings, such as ``schema-dirs``, come from the files being linted.
    """
    try:
        table: Any = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{source}: cannot read configuration: {exc}") from exc
    if name == "pyproject.toml":
        tool = table.get("tool", {})
        if not isinstance(tool, dict) or "agent-lint" not in tool:
            return None
        table = tool["agent-lint"]
        if not isinstance(table, dict):
            raise ConfigError(f"{source}: [tool.agent-lint] must be a table")
    return _parse({k: v for k, v in table.items() if k in GATE_KEYS}, source)


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
