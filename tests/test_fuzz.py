"""Property tests: generated and mutated repositories never crash agent-lint or confuse --fix.

Records are generated from the bundled schemas (hypothesis-jsonschema), put at
their kind's path beside a small consistent conversation, and then mutated:
bytes cut, inserted or flipped, values replaced by odd ones. For every such
repository agent-lint must finish without an internal error, place every
finding inside its file, write JSON and SARIF that stay valid, and ``--fix``
must change only derived files and be idempotent.

The default profile is short and reproducible; ``AGENT_LINT_FUZZ=long`` runs
thousands of fresh examples (see tests/conftest.py). Building strategies from
the schemas takes a few seconds, so the module is marked slow.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import jsonschema
import pytest
from conftest import write_tree
from conversation import tree
from hypothesis import given, settings
from hypothesis_jsonschema import from_schema

from agent_lint.cli import main
from agent_lint.linter import LintResult, lint_paths
from agent_lint.profiles.cortex.kinds import KINDS_BY_NAME
from agent_lint.reporters import github, json_format, sarif, text
from agent_lint.schemas import bundled_schema_dir

pytestmark = pytest.mark.slow

#: Where a record of each kind with a schema is put (relative to the agent dir).
PLACES = {
    "conversation": "conversations/C-2/meta.json",
    "handoff-state": "conversations/C-2/handoffs/state.json",
    "conversation-handoff": "conversations/C-2/handoffs/H-001.json",
    "turn": "conversations/C-2/turns/0001.yaml",
    "resume-marker": "conversations/C-2/turn_resumed.yaml",
    "relations": "conversations/C-2/relations.yaml",
    "project-handoff": "handoffs/H-20261103-120000-x.json",
    "mission": "missions/M-1/mission.json",
    "mission-handoff": "missions/M-1/handoffs/H-20261103-120000-y.json",
    "validation-contract": "missions/M-1/validation-contract.json",
    "decision-index": "decisions/index.json",
    "decision": "decisions/D-1.json",
    "waitpoint-index": "waitpoints/index.json",
    "waitpoint": "waitpoints/WP-1.json",
    "inbox-index": "inbox/index.json",
    "inbox-message": "inbox/IM-1.json",
    "memory": "memory/semantic/MEM-1.json",
    "run-index": "runs/index.json",
    "run": "runs/R-1.json",
    "session-index": "sessions/index.json",
    "session": "sessions/S-1.json",
    "task-index": "tasks/index.json",
    "task": "tasks/T-1.json",
    "session-ref": "subagents/a/session-ref.json",
    "agent": "agents/a.json",
    "artifact-state": "artifacts/T-1/state.json",
}
NOTES = [
    "conversations/C-1/summary.md",
    "missions/M-1/notes.md",
    "conversations/C-1/handoffs/H-001.md",
]


def test_every_kind_with_a_schema_has_a_place():
    with_schema = {name for name, kind in KINDS_BY_NAME.items() if kind.schema}
    assert with_schema == set(PLACES)


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every local ``{"$ref": "#/$defs/name"}`` replaced by its definition.

    hypothesis-jsonschema loses the base URI when a definition refers to
    another one (the validation contract's milestones hold assertions).
    """
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        rest = {key: value for key, value in node.items() if key != "$ref"}
        return _inline({**defs[ref.removeprefix("#/$defs/")], **rest}, defs)
    return {key: _inline(value, defs) for key, value in node.items() if key != "$defs"}


@functools.cache
def _records(kind: str) -> st.SearchStrategy[Any]:
    schema_name = KINDS_BY_NAME[kind].schema
    path = bundled_schema_dir() / "cortex" / f"{schema_name}.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    return from_schema(_inline(schema, schema.get("$defs", {})))


ODD_VALUES = st.sampled_from(
    [
        None,
        True,
        -1,
        2**64,
        int("9" * 60),
        1e308,
        "",
        "H-٠٠٤",
        "2026-11-02T10:00:00Z\n",
        "../../etc/passwd",
        "/proc/self/environ",
        "docs/{a,b}{c,d}.md",
        "\u202e\u0000\u001b[31m",
        "D-" + "x" * 300,
        "sha256:" + "0" * 64,
        "[x](#y) `z`",
    ]
)


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def _replace_somewhere(data: Any, path: list[int], value: Any) -> Any:
    """Replace the value reached by following ``path`` (indexes into keys or items)."""
    if not path or not isinstance(data, (dict, list)) or not data:
        return value
    if isinstance(data, dict):
        key = list(data)[path[0] % len(data)]
        return {**data, key: _replace_somewhere(data[key], path[1:], value)}
    index = path[0] % len(data)
    return [*data[:index], _replace_somewhere(data[index], path[1:], value), *data[index + 1 :]]


@st.composite
def value_mutation(draw: st.DrawFn, data: Any) -> Any:
    """``data`` with one value replaced by an odd, deep or huge one."""
    replacement = draw(st.one_of(ODD_VALUES, st.integers(0, 90).map(_deep)))
    path = draw(st.lists(st.integers(0, 50), max_size=4))
    return _replace_somewhere(data, path, replacement)


@st.composite
def byte_mutation(draw: st.DrawFn, raw: bytes) -> bytes:
    """``raw`` with a slice cut, bytes inserted, or the file truncated."""
    if not raw:
        return draw(st.binary(max_size=20))
    start = draw(st.integers(0, len(raw)))
    end = draw(st.integers(start, min(len(raw), start + 40)))
    insert = draw(
        st.one_of(
            st.binary(max_size=8),
            st.sampled_from(
                [
                    b"",
                    b"\xef\xbb\xbf",
                    b"\r\n",
                    b"\r",
                    b"\x0c",
                    b"\xe2\x80\xa8",
                    b"{",
                    b"[[[[",
                    b"&a [*a]",
                    b'"k": 1, "k": 2, ',
                    b"\xff",
                ]
            ),
        )
    )
    return raw[:start] + insert + raw[end:]


def _serialise(rel: str, data: Any) -> bytes:
    # JSON is YAML too, so one serialisation serves both formats.
    return (json.dumps(data, indent=2, ensure_ascii=rel.endswith(".yaml")) + "\n").encode()


@st.composite
def repositories(draw: st.DrawFn) -> dict[str, Any]:
    """A small repository: one consistent conversation plus generated and mutated files."""
    files: dict[str, Any] = dict(
        tree(handoffs=draw(st.integers(0, 3)), turns=draw(st.integers(0, 4)))
    )
    files = {rel: _serialise(rel, v) if not isinstance(v, str) else v for rel, v in files.items()}
    for kind in draw(st.lists(st.sampled_from(sorted(PLACES)), max_size=4, unique=True)):
        record = draw(_records(kind))
        if draw(st.booleans()):
            record = draw(value_mutation(record))
        files[PLACES[kind]] = _serialise(PLACES[kind], record)
    for rel in draw(st.lists(st.sampled_from(NOTES), max_size=2, unique=True)):
        files[rel] = draw(st.text(alphabet="#[]()<>`'\" -_\nD-0123xyz.md/", max_size=120))
    for rel in draw(st.lists(st.sampled_from(sorted(files)), max_size=3, unique=True)):
        raw = files[rel] if isinstance(files[rel], bytes) else files[rel].encode()
        files[rel] = draw(byte_mutation(raw))
    return files


@contextlib.contextmanager
def _written(files: dict[str, Any]) -> Iterator[Path]:
    """A repository holding ``files``, removed again afterwards (examples run by the thousand)."""
    with tempfile.TemporaryDirectory(prefix="agent-lint-fuzz-") as parent:
        root = Path(parent) / "repo"
        write_tree(root / ".agent", files)
        yield root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@functools.cache
def _sarif_validator() -> Any:
    location = os.environ.get("AGENT_LINT_SARIF_SCHEMA")
    if not location or not Path(location).is_file():
        return None
    schema = json.loads(Path(location).read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)


def assert_sound(result: LintResult) -> None:
    """Every finding lies inside its file; every output format renders, JSON and SARIF validly."""
    for d in result.diagnostics:
        full = result.root / d.path
        assert d.line is not None and d.column is not None, d
        if not full.is_file():
            assert (d.line, d.column) == (1, 1), d
            continue
        content = full.read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff")
        lines = content.split("\n")
        for line, column in ((d.line, d.column), (d.end_line, d.end_column)):
            if line is None:
                continue
            assert 1 <= line <= len(lines), d
            assert column is not None and 1 <= column <= len(lines[line - 1]) + 1, d
    data = json.loads(json_format.render(result))
    assert len(data["diagnostics"]) == len(result.diagnostics)
    log = json.loads(sarif.render(result))
    validator = _sarif_validator()
    if validator is not None:
        errors = [e.message for e in validator.iter_errors(log)]
        assert errors == [], errors[:3]
    text.render(result, color=False, quiet=False)
    github.render(result)


@given(repositories())
def test_generated_and_mutated_repositories_lint_soundly(files):
    with _written(files) as root:
        assert_sound(lint_paths([root]))
        assert_sound(lint_paths([root], unsafe_fixes=True))


def _main(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, err.getvalue()


@given(repositories(), st.booleans())
def test_fix_changes_only_derived_files_and_is_idempotent(files, unsafe):
    with _written(files) as root:
        before = _snapshot(root)
        options = ["--fix", "--quiet", *(["--unsafe-fixes"] if unsafe else [])]
        code, err = _main(str(root), *options)
        assert code in (0, 1), err
        after = _snapshot(root)
        changed = {rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)}
        derived = {"state.json", "meta.json"} if unsafe else {"state.json"}
        assert {rel.rsplit("/", 1)[-1] for rel in changed} <= derived, changed
        assert not any(rel.endswith(".tmp") for rel in after), after.keys()
        _main(str(root), *options)
        assert _snapshot(root) == after


@pytest.mark.parametrize("kind", sorted(PLACES))
def test_each_schema_generates_records_agent_lint_reads(kind):
    examples = max(2, settings().max_examples // 6)

    @settings(max_examples=examples)
    @given(_records(kind))
    def check(record: Any) -> None:
        with _written({PLACES[kind]: _serialise(PLACES[kind], record)}) as root:
            result = lint_paths([root])
            assert_sound(result)
        # A record valid by its schema draws no schema finding except what the
        # schema cannot express (formats, ids, references).
        assert not {d.code for d in result.diagnostics} & {"AL101", "AL102", "AL103", "AL104"}

    check()
