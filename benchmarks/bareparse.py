"""The floor agent-lint is measured against: walk a folder, read and parse every record file.

    python -m benchmarks.bareparse AGENT_DIR

JSON with orjson, YAML with PyYAML's C loader (``yaml.CSafeLoader``), Markdown
decoded as UTF-8, which is what any linter must at least do with these files.
When the fast parsers are not installed (``pip install -e '.[bench]'``), it
falls back to the standard library's ``json`` and the slower loaders, and says
so. Prints the parsers used and the number of files and bytes read; exits 1 if
a file does not parse.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any


def json_parser() -> tuple[str, Callable[[bytes], Any]]:
    """The fastest JSON parser installed, and its name."""
    try:
        import orjson
    except ImportError:
        import json

        return "json (stdlib)", json.loads
    return "orjson", orjson.loads


def yaml_parser() -> tuple[str, Callable[[bytes], Any]]:
    """The fastest safe YAML loader installed, and its name."""
    try:
        import yaml
    except ImportError:
        from ruamel.yaml import YAML

        loader = YAML(typ="safe", pure=False)
        return "ruamel.yaml (safe)", loader.load
    if getattr(yaml, "CSafeLoader", None) is not None:
        fast = yaml.CSafeLoader
        return "yaml.CSafeLoader", lambda data: yaml.load(data, Loader=fast)
    return "yaml.SafeLoader (no libyaml)", yaml.safe_load


def main(argv: list[str] | None = None) -> int:
    """Walk ``AGENT_DIR``, parse every .json, .yaml/.yml and .md file; print what was done."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m benchmarks.bareparse AGENT_DIR\n")
        return 2
    json_name, load_json = json_parser()
    yaml_name, load_yaml = yaml_parser()
    files = size = failed = 0
    for folder, dirs, names in os.walk(args[0]):
        dirs.sort()
        for name in names:
            if name.endswith(".json"):
                parse: Callable[[bytes], Any] = load_json
            elif name.endswith((".yaml", ".yml")):
                parse = load_yaml
            elif name.endswith(".md"):
                parse = bytes.decode
            else:
                continue
            with open(os.path.join(folder, name), "rb") as handle:
                data = handle.read()
            try:
                parse(data)
            except Exception:  # any parse error counts, whatever the parser raises
                failed += 1
            files += 1
            size += len(data)
    sys.stdout.write(
        f"{json_name} and {yaml_name}: {files} files, {size:,} bytes, {failed} failed\n"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
