"""AL5xx: checksums, state.json and meta.json agree with the latest handoff."""

from __future__ import annotations

import copy

from conversation import tree

H2 = "conversations/C-1/handoffs/H-002.json"
STATE = "conversations/C-1/handoffs/state.json"
META = "conversations/C-1/meta.json"


def found(result):
    return [(d.code, d.message, d.fixable) for d in result.diagnostics]


def test_handoff_checksum_mismatch(lint_tree):
    files = tree()
    files[H2] = {**files[H2], "context_pointer": {"latest_turn": 4, "active_missions": ["M-9"]}}
    [(_, message, fixable)] = [f for f in found(lint_tree(files)) if f[0] == "AL501"]
    assert (
        message.startswith("checksum sha256:")
        and "but the content of H-002.json hashes to sha256:" in message
    )
    assert not fixable


def test_uncomputable_checksum(lint_tree):
    files = tree()
    record = copy.deepcopy(files[H2])
    record["context_pointer"]["latest_turn"] = 2**60
    files[H2] = record
    codes = [f[0] for f in found(lint_tree(files))]
    assert "AL505" in codes and "AL501" not in codes


def test_missing_state(lint_tree):
    files = tree()
    del files[STATE]
    [(code, message, fixable)] = found(lint_tree(files))
    assert code == "AL502" and fixable
    assert "has handoffs but no .agent/conversations/C-1/handoffs/state.json" in message


def test_state_mismatch_names_both_sides(lint_tree):
    files = tree()
    files[STATE] = {
        **files[STATE],
        "latest_handoff_id": "H-001",
        "checksum": "sha256:" + "ab" * 32,
        "latest_turn": 3,
    }
    result = found(lint_tree(files))
    assert [(c, f) for c, _, f in result] == [("AL503", True)] * 3
    messages = [m for _, m, _ in result]
    assert 'state.json latest_handoff_id "H-001" but the latest handoff is H-002' in messages
    assert "state.json latest_turn 3 but the latest turn is 4" in messages
    checksum = next(m for m in messages if "checksum" in m)
    assert checksum.startswith(
        "state.json checksum sha256:abababababab… but H-002.json has sha256:"
    )


def test_meta_checksums(lint_tree):
    files = tree()
    files[META]["state"]["checksum"] = None
    files[META]["handoffs"][-1]["checksum"] = "sha256:" + "00" * 32
    result = found(lint_tree(files))
    assert [(c, f) for c, _, f in result] == [("AL504", False), ("AL504", False)]
    result = found(lint_tree(files, unsafe_fixes=True))
    assert [(c, f) for c, _, f in result] == [("AL504", True), ("AL504", True)]
