"""AL5xx: checksums, state.json and meta.json agree with the latest handoff."""

from __future__ import annotations

import copy

import pytest
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
    # One stale state.json is one finding, naming each field that differs and its source.
    [(code, message, fixable)] = found(lint_tree(files))
    assert code == "AL503" and fixable
    parts = message.removeprefix("state.json ").split("; ")
    assert parts[0] == 'latest_handoff_id "H-001" but the latest handoff is H-002'
    assert parts[1] == "latest_turn 3 but the latest turn is 4"
    assert parts[2].startswith("checksum sha256:abababababab… but H-002.json has sha256:")
    assert len(parts) == 3


def test_without_turn_files_latest_turn_is_judged_only_against_the_handoff(lint_tree):
    """Turns kept out of git (or not written): N is unknown. A latest_turn at or past the
    latest handoff's context_pointer.latest_turn stands (work goes on after a handoff);
    one below it is stale, and the message names where the expected value comes from."""
    files = tree()
    for name in [n for n in files if "/turns/" in n]:
        del files[name]
    files[STATE] = {**files[STATE], "latest_turn": 6}
    assert [f for f in found(lint_tree(files)) if f[0] == "AL503"] == []
    files[STATE] = {**files[STATE], "latest_turn": 3}
    [(_, message, fixable)] = [f for f in found(lint_tree(files)) if f[0] == "AL503"]
    assert message == "state.json latest_turn 3 but H-002's context_pointer.latest_turn is 4"
    assert fixable


def test_the_same_moment_written_another_way_is_no_stale_mirror(lint_tree):
    """``…:00.000Z`` (a JavaScript writer) or a local offset for the handoff's ``…:00Z``
    is the same time: neither state.json nor meta.json is stale; another time still is."""
    files = tree()
    stamp = files[H2]["timestamp"]
    assert stamp.endswith(":00Z")
    files[STATE] = {**files[STATE], "updated_at": stamp.replace(":00Z", ":00.000Z")}
    meta = copy.deepcopy(files[META])
    meta["handoffs"][1]["timestamp"] = stamp.replace("Z", "+00:00")
    files[META] = meta
    assert found(lint_tree(files)) == []
    files[STATE] = {**files[STATE], "updated_at": stamp.replace(":00Z", ":01.000Z")}
    [(code, message, _)] = found(lint_tree(files))
    assert code == "AL503" and message.startswith("state.json updated_at")


def test_a_stale_state_is_placed_at_the_first_differing_field_it_holds(lint_tree):
    files = tree()
    files[STATE] = {**files[STATE], "latest_turn": 3, "updated_at": "2020-01-01T00:00:00Z"}
    del files[STATE]["active_agent"]
    result = lint_tree(files)
    [finding] = [d for d in result.diagnostics if d.code == "AL503"]
    assert finding.pointer == "/latest_turn"
    assert "active_agent is missing but H-002 hands the conversation to" in finding.message
    assert '; updated_at "2020-01-01T00:00:00Z" but H-002\'s timestamp is' in finding.message


def test_a_meta_json_with_no_checksum_at_all_is_one_finding(lint_tree):
    """Every checksum mirror of meta.json null or absent (the upstream sample writes them
    so): one AL504 naming them all, not also an AL406 for each earlier entry."""
    files = tree(handoffs=3, turns=6)
    files[META]["state"]["checksum"] = None
    for entry in files[META]["handoffs"]:
        entry["checksum"] = None
    del files[META]["handoffs"][0]["checksum"]
    [finding] = lint_tree(files).diagnostics
    assert (finding.code, finding.pointer) == ("AL504", "/state/checksum")
    assert finding.message.endswith(
        "handoffs[0] to handoffs[1] carry none either, where each handoff file has its own"
    )
    assert lint_tree(files, unsafe_fixes=True).diagnostics[0].fixable
    files[META]["handoffs"][1]["checksum"] = files["conversations/C-1/handoffs/H-002.json"][
        "checksum"
    ]
    # One entry that has its checksum: the others are each a mirror that lags.
    assert sorted(d.code for d in lint_tree(files).diagnostics) == ["AL406", "AL504"]
    two = tree(handoffs=2)
    del two[META]["state"]["checksum"]
    for entry in two[META]["handoffs"]:
        del entry["checksum"]
    [finding] = lint_tree(two).diagnostics
    assert finding.message.startswith("meta.json state.checksum is missing but H-002.json has")
    assert "; handoffs[1].checksum is missing but H-002.json has" in finding.message
    assert finding.message.endswith(
        "handoffs[0] carries none either, where each handoff file has its own"
    )


def test_a_stale_state_covers_a_malformed_field_anywhere_in_it(lint_tree):
    files = tree()
    files[STATE] = {**files[STATE], "latest_turn": 3, "checksum": "sha256:nope"}
    codes = [code for code, _, _ in found(lint_tree(files))]
    assert codes == ["AL503"]  # the malformed checksum (AL105) is part of the same stale file


@pytest.mark.parametrize("value", [{}, [], [{}], True, 7])
def test_a_state_json_id_of_another_type_is_its_stale_state_alone(lint_tree, value):
    """A conversation_id that is an object (or a list, …) is no crash: the stale file's
    AL503, which --fix regenerates, not also its AL103."""
    files = tree()
    files[STATE] = {**files[STATE], "conversation_id": value}
    assert [(c, f) for c, _, f in found(lint_tree(files))] == [("AL503", True)]


def test_meta_checksums(lint_tree):
    files = tree()
    files[META]["state"]["checksum"] = None
    files[META]["handoffs"][-1]["checksum"] = "sha256:" + "00" * 32
    result = lint_tree(files)
    # Both mirrors lag behind the same handoff: one finding, at the first, naming both.
    [finding] = result.diagnostics
    assert (finding.code, finding.fixable, finding.pointer) == ("AL504", False, "/state/checksum")
    parts = finding.message.removeprefix("meta.json ").split("; ")
    assert parts[0].startswith("state.checksum null but H-002.json has sha256:")
    assert parts[1].startswith("handoffs[1].checksum sha256:000000000000… but H-002.json has")
    result = found(lint_tree(files, unsafe_fixes=True))
    assert [(c, f) for c, _, f in result] == [("AL504", True)]
    files[META]["state"]["checksum"] = files[H2]["checksum"]
    [finding] = lint_tree(files).diagnostics
    assert finding.pointer == "/handoffs/1/checksum" and "; " not in finding.message


H1 = "conversations/C-1/handoffs/H-001.json"
THIRD = "sha256:" + "7" * 64


def _mistyped(files, path=H2):
    """``files`` with the checksum of handoff ``path`` mistyped; its computed value."""
    computed = files[path]["checksum"]
    files[path] = {**files[path], "checksum": "sha256:" + "0" + computed[8:]}
    return computed, files[path]["checksum"]


def test_a_mistyped_latest_checksum_is_its_own_finding_alone(lint_tree):
    # state.json and meta.json still carry the checksum of the content: the one fact is
    # the handoff's AL501, not three mirrors "disagreeing" with a typo.
    files = tree()
    _mistyped(files)
    assert [c for c, _, _ in found(lint_tree(files))] == ["AL501"]


def test_mirrors_that_copied_a_mistyped_checksum_are_not_reported_again(lint_tree):
    files = tree()
    _, typo = _mistyped(files)
    files[STATE]["checksum"] = typo
    files[META]["state"]["checksum"] = typo
    files[META]["handoffs"][-1]["checksum"] = typo
    assert [c for c, _, _ in found(lint_tree(files))] == ["AL501"]


def test_a_mirror_holding_neither_checksum_expects_the_computed_one(lint_tree):
    files = tree()
    computed, _ = _mistyped(files)
    files[STATE]["checksum"] = THIRD
    files[META]["state"]["checksum"] = THIRD
    result = found(lint_tree(files))
    assert [c for c, _, _ in result] == ["AL501", "AL503", "AL504"]
    assert result[1][1] == (
        f"state.json checksum sha256:777777777777… but the content of H-002.json hashes to "
        f"{computed[:19]}…"
    )
    assert result[2][1].startswith("meta.json state.checksum sha256:777777777777… but the content")


def test_an_earlier_mistyped_checksum_lets_its_meta_entry_hold_either_value(lint_tree):
    files = tree()
    computed, typo = _mistyped(files, H1)
    assert [c for c, _, _ in found(lint_tree(files))] == ["AL501"]  # the entry holds computed
    files[META]["handoffs"][0]["checksum"] = typo
    assert [c for c, _, _ in found(lint_tree(files))] == ["AL501"]
    files[META]["handoffs"][0]["checksum"] = THIRD
    result = found(lint_tree(files))
    assert [c for c, _, _ in result] == ["AL501", "AL406"]
    assert f'but the content of H-001.json hashes to "{computed}"' in result[1][1]


@pytest.mark.parametrize(
    "config",
    ['ignore = ["AL501"]', '[per-file-ignores]\n"**/H-002.json" = ["AL501"]'],
)
def test_with_al501_not_reported_the_mirrors_follow_the_checksum_as_written(lint_tree, config):
    # A writer whose checksums are not v1 turns AL501 off: its handoff's checksum is then
    # the one the mirrors must carry, and --fix copies it.
    files = tree()
    _, typo = _mistyped(files)
    result = found(lint_tree(files, config=config))
    assert [c for c, _, _ in result] == ["AL503", "AL504"]
    assert result[0][1].endswith(f"but H-002.json has {typo[:19]}…")
    files[STATE]["checksum"] = typo
    files[META]["state"]["checksum"] = typo
    files[META]["handoffs"][-1]["checksum"] = typo
    assert found(lint_tree(files, config=config)) == []


def test_a_dangling_id_meta_json_copies_from_the_latest_handoff_is_one_finding(lint_tree):
    """H-002 lists D-404, which does not exist, and meta.json's state copies the list: one
    AL301, at the handoff. An id only meta.json lists is still its own finding."""
    from conversation import rehash
    from records import decision

    files = tree()
    files["decisions/D-001.json"] = decision()
    files[H2]["context_pointer"]["pending_decisions"] = ["D-404"]
    rehash(files[H2])
    for mirror in (files[STATE], files[META]["state"], files[META]["handoffs"][-1]):
        mirror["checksum"] = files[H2]["checksum"]
    files[META]["state"]["pending_decisions"] = ["D-404"]
    result = lint_tree(files)
    assert [(d.code, d.path.rsplit("/", 1)[-1]) for d in result.diagnostics] == [
        ("AL301", "H-002.json")
    ]
    files[META]["state"]["pending_decisions"] = ["D-404", "D-405"]
    result = lint_tree(files)
    assert [(d.code, d.path.rsplit("/", 1)[-1], d.pointer) for d in result.diagnostics] == [
        ("AL301", "H-002.json", "/context_pointer/pending_decisions/0"),
        ("AL301", "meta.json", "/state/pending_decisions/1"),
    ]


def test_a_back_dated_handoff_time_copied_into_meta_json_is_its_al402_alone(lint_tree):
    """H-002 back-dated before H-001, and meta.json's updated_at copied from it, now before
    its created_at: the handoff's AL402, not also meta.json's AL313."""
    from conversation import rehash

    files = tree()
    files[H2]["timestamp"] = "2026-11-01T08:00:00Z"
    rehash(files[H2])
    for mirror in (files[STATE], files[META]["state"], files[META]["handoffs"][-1]):
        mirror["checksum"] = files[H2]["checksum"]
    files[META]["handoffs"][-1]["timestamp"] = files[STATE]["updated_at"] = "2026-11-01T08:00:00Z"
    files[META]["updated_at"] = "2026-11-01T08:00:00Z"
    assert [d.code for d in lint_tree(files).diagnostics] == ["AL402"]
    files[META]["updated_at"] = "2026-10-01T08:00:00Z"  # not the handoff's: its own fact
    assert sorted(d.code for d in lint_tree(files).diagnostics) == ["AL313", "AL402"]
    files[META]["updated_at"] = "2026-11-01T08:00:00Z"
    # The handoff's AL402 made a warning covers nothing: the AL313 error stands.
    warned = lint_tree(files, config='[severity]\nAL402 = "warning"\n').diagnostics
    assert sorted(d.code for d in warned) == ["AL313", "AL402"]
    # A created_at after the handoff before is wrong whatever H-002's time: its own fact.
    files[META]["created_at"] = "2027-01-01T00:00:00Z"
    assert sorted(d.code for d in lint_tree(files).diagnostics) == ["AL313", "AL402"]
