"""Checksum v1: the documented vectors, errors, and the --print-checksum command."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO

from agent_lint.cli import main
from agent_lint.profiles.cortex import checksum

VECTORS = json.loads((REPO / "docs" / "checksum-vectors.json").read_text(encoding="utf-8"))
DOC = (REPO / "docs" / "checksum.md").read_text(encoding="utf-8")


def test_there_are_enough_vectors():
    assert len(VECTORS["vectors"]) >= 8
    assert len(VECTORS["errors"]) >= 2


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_vector(vector):
    assert checksum.canonicalize(checksum.checksum_input(vector["handoff"])) == vector["canonical"]
    assert checksum.compute(vector["handoff"]) == vector["checksum"]
    assert vector["checksum"] in DOC


@pytest.mark.parametrize("vector", VECTORS["errors"], ids=lambda v: v["name"])
def test_uncomputable_inputs_raise(vector):
    with pytest.raises(checksum.ChecksumError):
        checksum.compute(vector["handoff"])


def test_nfc_and_nfd_differ():
    nfc, nfd = VECTORS["vectors"][6], VECTORS["vectors"][7]
    assert nfc["handoff"]["conversation_id"] != nfd["handoff"]["conversation_id"]
    assert nfc["checksum"] != nfd["checksum"]


def test_numbers_follow_ecmascript():
    cases = {
        1e21: "1e+21",
        1.5e-7: "1.5e-7",
        0.000001: "0.000001",
        123456789012345680000.0: "123456789012345680000",
        100.0: "100",
        -0.0: "0",
        4.5: "4.5",
        5e-324: "5e-324",
    }
    for value, text in cases.items():
        assert checksum.canonicalize(value) == text


def test_keys_sort_by_utf16_and_strings_escape_like_json_stringify():
    assert checksum.canonicalize({"b": 1, "a": [True, None]}) == '{"a":[true,null],"b":1}'
    assert checksum.canonicalize('\u0007\n"é') == '"\\u0007\\n\\"é"'


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_an_independent_node_implementation_agrees(tmp_path: Path):
    script = tmp_path / "check.js"
    script.write_text(
        """
const fs = require("fs"); const crypto = require("crypto");
const data = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const byCodePoint = (a, b) => {
  const x = [...a].map(c => c.codePointAt(0)), y = [...b].map(c => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
};
const out = data.vectors.map(v => {
  const p = v.handoff.context_pointer || {};
  const list = k => [...new Set(p[k] || [])].sort(byCodePoint);
  const text = JSON.stringify({
    active_missions: list("active_missions"), conversation_id: v.handoff.conversation_id,
    in_flight_tasks: list("in_flight_tasks"),
    latest_turn: p.latest_turn === undefined ? null : p.latest_turn,
    pending_decisions: list("pending_decisions")});
  return "sha256:" + crypto.createHash("sha256").update(text, "utf8").digest("hex");
});
console.log(JSON.stringify(out));
""",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["node", str(script), str(REPO / "docs" / "checksum-vectors.json")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [v["checksum"] for v in VECTORS["vectors"]]


def test_print_checksum(capsys):
    handoff = FIXTURES / "valid/.agent/conversations/C-payments-refactor/handoffs/H-003.json"
    assert main(["--print-checksum", str(handoff)]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == json.loads(handoff.read_text())["checksum"]


def test_print_checksum_errors(tmp_path, capsys):
    bad = tmp_path / "H-001.json"
    bad.write_text(
        '{"handoff_id": "H-001", "conversation_id": "C-1", '
        '"context_pointer": {"latest_turn": 9007199254740993}}'
    )
    assert main(["--print-checksum", str(bad)]) == 2
    assert "beyond 2^53-1" in capsys.readouterr().err
    bad.write_text("{")
    assert main(["--print-checksum", str(bad)]) == 2


def test_print_checksum_reads_a_handoff_of_the_change_as_the_lint_does(tmp_path, capsys):
    """A handoff a change committed may be a link to a device, huge or nested past the
    stack: a usage error naming why, never a read without end or an internal error."""
    import os

    folder = tmp_path / "handoffs"
    folder.mkdir()
    linked = folder / "H-002.json"
    os.symlink("/dev/zero", linked)
    assert main(["--print-checksum", str(linked)]) == 2
    assert "a symbolic link out of its folder" in capsys.readouterr().err
    deep = folder / "H-003.json"
    deep.write_text('{"a":' + "[" * 100_000 + "]" * 100_000 + "}")
    assert main(["--print-checksum", str(deep)]) == 2
    err = capsys.readouterr().err
    assert "nested deeper than 64 levels" in err and "internal error" not in err
    big = folder / "H-004.json"
    big.write_bytes(b'{"handoff_id": "' + b"x" * (17 << 20) + b'"}')
    assert main(["--print-checksum", str(big)]) == 2
    assert "cannot read a JSON handoff" in capsys.readouterr().err
    valid = FIXTURES / "valid/.agent/conversations/C-payments-refactor/handoffs/H-003.json"
    with_bom = folder / "H-005.json"
    with_bom.write_bytes(b"\xef\xbb\xbf" + valid.read_bytes())
    assert main(["--print-checksum", str(with_bom)]) == 0
    assert capsys.readouterr().out.strip() == json.loads(valid.read_text())["checksum"]
