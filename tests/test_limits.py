"""Limits: every hostile size or shape ends in a finding that names the limit, never a hang.

Tests assert outcomes, never times; the ``no_hang`` guard only turns a hang
into a failure.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import codes
from conversation import tree
from records import decision

from agent_lint.cli import main
from agent_lint.config import LIMITS, Config, ConfigError, Limits, load_config
from agent_lint.kinds import Format
from agent_lint.loading import json_too_deep, parse
from agent_lint.markdown import scan
from agent_lint.suggest import Suggester
from agent_lint.validators.files import diagnose
from agent_lint.validators.references import TooManyAlternatives, expand_braces


def findings(loaded: Any) -> list[Any]:
    """The findings of what reading a file met."""
    return [diagnose(problem) for problem in loaded.problems]


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Fail (instead of hanging the suite) if the test body runs for more than 30 s."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def hung(*_: object) -> None:
        raise TimeoutError("the run did not finish: a hang")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def billion_laughs(levels: int = 10, width: int = 9) -> str:
    """The classic alias bomb: each level repeats the one below ``width`` times."""
    lines = ["a0: &a0 [lol]"]
    for level in range(1, levels):
        aliases = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{aliases}]")
    return "\n".join(lines) + "\nturn: 1\n"


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github"])
def test_yaml_alias_bomb_is_refused_in_every_output_format(tmp_path, capsys, no_hang, output):
    files = tree()
    files["conversations/C-1/turns/0001.yaml"] = billion_laughs()
    from conftest import write_tree

    repo = write_tree(tmp_path / "repo" / ".agent", files).parent
    assert main([str(repo), "--output-format", output]) == 1
    out = capsys.readouterr().out
    assert "AL011" in out and "max-yaml-alias-nodes" in out


def test_alias_bomb_finding_names_the_limit_and_setting(lint_tree, no_hang):
    result = lint_tree({"conversations/C-1/relations.yaml": billion_laughs()})
    [d] = result.diagnostics
    assert d.code == "AL011"
    assert "aliases repeat more than 10000 nodes" in d.message
    assert "`max-yaml-alias-nodes` in the [limits] table" in d.message
    assert (d.line, d.column) > (1, 1)  # at the alias that went over


def test_alias_bomb_in_markdown_front_matter(lint_tree, no_hang):
    note = "---\n" + billion_laughs() + "---\n# Summary\n"
    [d] = lint_tree({"conversations/C-1/summary.md": note}).diagnostics
    assert d.code == "AL011" and d.line > 1


def test_large_yaml_document_is_not_parsed(lint_tree, no_hang):
    small = "[limits]\nmax-yaml-bytes = 2000\n"
    big = "turn: 1\ncontent: |\n" + "  a line of a long pasted log\n" * 100
    # A turn without its meta.json (AL206) keeps the tree small; that finding is not at stake.
    alone = ["AL206"]
    [d] = lint_tree(
        {"conversations/C-1/turns/0001.yaml": big}, config=small, ignore=alone
    ).diagnostics
    assert d.code == "AL011" and "YAML document is 3019 bytes" in d.message
    assert "`max-yaml-bytes`" in d.message
    note = "---\n" + "x: 1\n" * 500 + "---\n# Note\n"
    [d] = lint_tree({"conversations/C-1/summary.md": note}, config=small).diagnostics
    assert (d.code, d.line) == ("AL011", 2)
    raised = "[limits]\nmax-yaml-bytes = 4000\n"
    raised_run = lint_tree({"conversations/C-1/turns/0001.yaml": big}, config=raised, ignore=alone)
    assert raised_run.diagnostics == []
    assert Limits().max_yaml_bytes == 1024 * 1024


def test_a_few_small_aliases_are_fine(lint_tree):
    text = "turn: 1\nrole: &who user\nagent_id: *who\ntimestamp: 2026-11-01T09:00:00Z\n"
    result = lint_tree({"conversations/C-1/turns/0001.yaml": text})
    assert "AL011" not in codes(result)


def test_wide_flat_alias_expansion_counts_the_nodes_it_repeats():
    # Few aliases, but each repeats a big node: 20 aliases x 1,001 nodes > 10,000.
    big = "[" + ", ".join(["x"] * 1000) + "]"
    text = f"big: &big {big}\ncopies: [{', '.join(['*big'] * 20)}]\n"
    loaded = parse("t.yaml", Format.YAML, text.encode())
    assert [d.code for d in findings(loaded)] == ["AL011"]
    loaded = parse("t.yaml", Format.YAML, text.encode(), Limits(max_yaml_alias_nodes=30_000))
    assert loaded.ok and len(loaded.data["copies"]) == 20


def test_recursive_alias_is_invalid_yaml():
    loaded = parse("t.yaml", Format.YAML, b"a: &a [1, *a]\n")
    [d] = findings(loaded)
    assert d.code == "AL002" and "recursive" in d.message


def test_deep_yaml_is_refused_before_any_walk(lint_tree, no_hang):
    deep = "turn: " + "[" * 100_000 + "]" * 100_000 + "\n"
    [d] = lint_tree({"conversations/C-1/turns/0001.yaml": deep}, ignore=["AL206"]).diagnostics
    assert d.code == "AL011" and "nested deeper than 64 levels" in d.message
    assert "`max-depth`" in d.message


def test_duplicate_key_in_deep_json_is_not_a_crash(lint_tree, no_hang):
    text = '{"a": 1, "a": 2, "b": ' + "[" * 500 + "]" * 500 + "}"
    [d] = lint_tree({"decisions/D-001.json": text}).diagnostics
    assert d.code == "AL011" and (d.line, d.column) == (1, 86)  # the 65th level


def test_deep_context_pointer_is_a_finding(lint_tree, no_hang):
    files = tree()
    handoff = files["conversations/C-1/handoffs/H-002.json"]
    handoff["context_pointer"]["latest_turn"] = json.loads("[" * 400 + "]" * 400)
    found = lint_tree(files).diagnostics
    assert ("AL011", "conversations/C-1/handoffs/H-002.json") in {
        (d.code, d.path.removeprefix(".agent/")) for d in found
    }


def test_depth_limit_is_configurable_up_to_its_ceiling(lint_tree):
    nested = json.loads("[" * 80 + "]" * 80)
    record = decision(options=["a", "b"], rationale=nested)
    assert "AL011" in codes(lint_tree({"decisions/D-001.json": record}))
    raised = lint_tree({"decisions/D-001.json": record}, config="[limits]\nmax-depth = 100\n")
    assert "AL011" not in codes(raised)


def test_document_at_the_depth_ceiling_passes_every_check(lint_tree, no_hang):
    ceiling = LIMITS["max-depth"].ceiling
    nested: object = "x"
    for _ in range(ceiling - 2):
        nested = {"k": nested}
    files = tree()
    files["conversations/C-1/handoffs/H-002.json"]["context_pointer"]["latest_turn"] = nested
    files["decisions/D-001.json"] = decision(options=[nested, "b"])
    config = f"[limits]\nmax-depth = {ceiling}\n"
    result = lint_tree(files, config=config)
    assert "AL011" not in codes(result)
    assert codes(result).count("AL103") == 2  # both nested values are found and reported


def test_json_depth_prescan_skips_brackets_in_strings():
    assert json_too_deep('{"a": "[[[[[[[[[["}', 3) is None
    assert json_too_deep('{"a": "\\"[[[[["}', 3) is None
    assert json_too_deep('[[[["x"]]]]', 3) == 3
    assert json_too_deep('"unterminated [[[[[[', 3) is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("max-depth = 500", "at most 200 levels"),
        ("max-depth = 0", "positive whole number"),
        ('max-depth = "64"', "positive whole number"),
        ("max-depht = 10", "unknown limit `max-depht`"),
    ],
)
def test_limits_are_validated(tmp_path, table, message):
    (tmp_path / ".agent-lint.toml").write_text(f"[limits]\n{table}\n")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(tmp_path)


def test_every_limit_has_a_default_within_its_ceiling():
    defaults = Config().limits
    for key, limit in LIMITS.items():
        assert 0 < limit.default <= limit.ceiling
        assert getattr(defaults, key.replace("-", "_")) == limit.default


def test_markdown_scanners_are_linear(no_hang):
    heading = scan("# a" + " " * 3000 + "b\n")
    assert heading.anchors == {"a" + "-" * 3000 + "b"}
    links = scan("[a](" * 8000 + "\n")
    assert links.links == []
    many = scan("[a](b.md) " * 20000 + "\n")
    assert len(many.links) == 20000
    assert scan("`" * 50000 + "x\n").links == []


_OLD_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")


@pytest.mark.parametrize("seed", range(3))
def test_link_scanner_finds_what_the_link_pattern_finds(seed):
    import random

    rng = random.Random(seed)
    alphabet = ["[", "]", "(", ")", "<", ">", '"', "'", " ", "a", "b.md", "#x", "\t", "!"]
    for _ in range(3000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        expected = [(m.start(1) + 1, m.group(1).strip("<>")) for m in _OLD_LINK.finditer(line)]
        # After a word, so that a line opening with blanks is no indented code block.
        found = [(t.column - 1, t.text) for t in scan("x" + line + "\n").links]
        if line.lstrip(" ").startswith("[") and "]:" in line:
            continue  # reference definitions are found by their own pattern
        assert found == expected, line


def test_brace_expansion_is_bounded(lint_tree, no_hang):
    # gate.resource_ref is read as a path in the strict form only.
    record = decision(gate={"action": "merge", "resource_ref": "docs/" + "{a,b}" * 30 + ".md"})
    [d] = lint_tree({"decisions/D-001.json": record}, strict=True).diagnostics
    assert d.code == "AL011" and d.pointer == "/gate/resource_ref"
    assert "more than 256 paths" in d.message and "`max-brace-alternatives`" in d.message


def test_brace_expansion_within_the_limit_checks_every_path(lint_tree):
    """Every alternative is checked; the missing ones of one value are one finding."""
    record = decision(gate={"action": "merge", "resource_ref": "docs/{a,b}{c,d}.md"})
    [found] = lint_tree({"decisions/D-001.json": record}, strict=True).diagnostics
    assert found.message == (
        'gate.resource_ref "docs/ac.md" (from "docs/{a,b}{c,d}.md") does not exist; nor do '
        '"docs/ad.md", "docs/bc.md", "docs/bd.md"'
    )


def test_expand_braces_counts_before_building():
    with pytest.raises(TooManyAlternatives) as raised:
        expand_braces("{a,b}" * 1000, 256)
    assert raised.value.count == 512
    assert expand_braces("x{a}" * 5000, 256) == ["xa" * 5000]  # many groups, one path


def test_long_dangling_id_gets_no_suggestion_and_finishes(lint_tree, no_hang):
    long_id = "D-" + "x" * 64_000
    record = decision(decision_id="D-001", superseded_by_decision_id=long_id)
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL301" and "did you mean" not in d.message


def test_long_id_mention_in_a_note_finishes(lint_tree, no_hang):
    # The first mention has a slug of 400,000 segments (not the shape of a decision id, so
    # not reported); the second has the shape of D-001 and is reported, its value cut short.
    slugged = "D-" + "a-" * 400_000 + "1"
    note = f"# S\n{slugged} and D-{'0' * 400_000} and D-001-storage-engine\n"
    result = lint_tree({"decisions/D-001.json": decision(), "conversations/C-1/summary.md": note})
    [d] = result.diagnostics
    assert d.code == "AL315" and d.column == len(slugged) + 6
    assert len(d.message) < 1_000 and "…" in d.message


def test_suggester_is_bounded_and_still_suggests():
    suggester = Suggester(max_length=64)
    suggester.add("M-004")
    suggester.add("M-" + "y" * 10_000)
    assert suggester.suggest("M-0O4") == "M-004"
    assert suggester.suggest("M-005") == "M-004"
    assert suggester.suggest("M-" + "y" * 9_999) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_link_anchor_naming_a_fifo_outside_the_agent_dir_is_not_opened(
    lint_tree, tmp_path, no_hang
):
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    os.mkfifo(repo / "docs" / "pipe.md")
    note = "# Summary\n\n[pipe](../../../docs/pipe.md#section)\n"
    result = lint_tree({"conversations/C-1/summary.md": note})
    assert result.diagnostics == []


def test_long_integer_is_valid_json(lint_tree):
    text = json.dumps(decision()).replace('"options": [', '"options": [' + "7" * 5001 + ", ")
    result = lint_tree({"decisions/D-001.json": text})
    [d] = result.diagnostics
    assert d.code == "AL103" and "must be string, got integer 777" in d.message


def test_long_integer_in_a_handoff_is_an_uncomputable_checksum(lint_tree):
    files = tree()
    text = json.dumps(files["conversations/C-1/handoffs/H-002.json"])
    files["conversations/C-1/handoffs/H-002.json"] = text.replace(
        '"latest_turn": 4', '"latest_turn": ' + "9" * 5001
    )
    found = {(d.code, d.message) for d in lint_tree(files).diagnostics}
    assert (
        "AL505",
        "checksum v1 cannot be computed: an integer of 5001 digits is beyond 2^53-1 and has "
        "no exact canonical JSON form",
    ) in found


_OLD_NOTE = re.compile(r"\s+\([^()]*\)$")


def test_path_note_is_cut_as_the_note_pattern_cuts_it():
    import random

    from agent_lint.validators.references import without_note

    rng = random.Random(7)
    alphabet = ["(", ")", " ", "\t", "a", "b.md", "1", "\n"]
    for _ in range(5000):
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        if value.endswith("\n"):
            continue  # "$" also matched before a final newline; values are cut there no more
        assert without_note(value) == _OLD_NOTE.sub("", value), repr(value)
    assert without_note("lib/x.js (712 lines, F-006)") == "lib/x.js"


def test_path_with_a_long_run_of_spaces_finishes(lint_tree, no_hang):
    # Cutting "(note)" off a path with the obvious pattern took quadratic time here.
    value = "docs/a" + " " * 200_000 + "b"
    keys = ("task_ids", "mission_ids", "run_ids", "queue_ids", "session_ids", "worktree_paths")
    record = decision(relations={**{key: [] for key in keys}, "artifact_refs": [value]})
    [d] = lint_tree({"decisions/D-001.json": record}).diagnostics
    assert d.code == "AL302" and len(d.message) < 1_000
