"""AL4xx: handoff ordering, chains, turns, meta.json mirrors, resume markers, timed ids."""

from __future__ import annotations

import copy

from conftest import codes
from conversation import edited, rehash, tree
from records import handoff

H1 = "conversations/C-1/handoffs/H-001.json"
H2 = "conversations/C-1/handoffs/H-002.json"
META = "conversations/C-1/meta.json"


def found(result, prefix=("AL4", "AL5")):
    return [(d.code, d.message) for d in result.diagnostics if d.code.startswith(prefix)]


def test_consistent_conversation_is_clean(lint_tree):
    assert lint_tree(tree(handoffs=3, turns=6)).diagnostics == []


def test_handoff_gap(lint_tree):
    files = tree(handoffs=3, turns=6)
    third = files.pop("conversations/C-1/handoffs/H-003.json")
    files.pop("conversations/C-1/handoffs/H-003.md")
    files["conversations/C-1/handoffs/H-004.json"] = rehash({**third, "handoff_id": "H-004"})
    files["conversations/C-1/handoffs/H-004.md"] = "# note\n"
    codes = [c for c, _ in found(lint_tree(files), ("AL401",))]
    messages = [m for c, m in found(lint_tree(files), ("AL401",))]
    assert codes == ["AL401"]
    assert messages == [
        "H-004.json follows a gap: H-003 missing (numbers must run from H-001 without gaps)"
    ]


def test_a_handoff_file_misnamed_is_its_own_finding_only(lint_tree):
    """H-004.json holding H-003 after H-002: a wrong name (AL202), not also a gap at H-003."""
    files = tree(handoffs=3, turns=6)
    third = files.pop("conversations/C-1/handoffs/H-003.json")
    files["conversations/C-1/handoffs/H-004.json"] = third
    files["conversations/C-1/handoffs/H-004.md"] = files.pop("conversations/C-1/handoffs/H-003.md")
    result = lint_tree(files)
    assert [(d.code, d.path.rsplit("/", 1)[-1]) for d in result.diagnostics if d.code in (
        "AL202", "AL401"
    )] == [("AL202", "H-004.json")]  # fmt: skip


def test_handoff_duplicate_number(lint_tree):
    files = tree()
    files["conversations/C-1/handoffs/H-0002.json"] = files[H2]
    result = found(lint_tree(files), ("AL401",))
    assert result == [("AL401", "H-002.json repeats number 2 of H-0002.json")]


def test_handoff_timestamps_strictly_increase(lint_tree):
    files = tree()
    files[H2] = rehash({**files[H2], "timestamp": "2026-11-01T10:00:00Z"})
    assert (
        "AL402",
        "timestamp 2026-11-01T10:00:00Z is not later than H-001's 2026-11-01T10:00:00Z",
    ) in found(lint_tree(files))


def test_conversation_id_must_be_the_folder(lint_tree):
    files = tree()
    files[H1] = rehash({**files[H1], "conversation_id": "C-2"})
    assert (
        "AL403",
        'conversation_id "C-2" but the handoff is stored in conversation C-1',
    ) in found(lint_tree(files))


def test_broken_chain(lint_tree):
    files = tree()
    record = copy.deepcopy(files[H2])
    record["from_agent"]["agent_id"] = "someone-else"
    files[H2] = rehash(record)
    assert (
        "AL404",
        'from_agent.agent_id "someone-else" but H-001 handed the conversation to "claude-main"',
    ) in found(lint_tree(files))


def test_last_turn_never_decreases_nor_exceeds_turns(lint_tree):
    files = tree(handoffs=2, turns=4)
    record = copy.deepcopy(files[H2])
    record["from_agent"]["last_turn"] = 1
    files[H2] = rehash(record)
    assert ("AL405", "from_agent.last_turn 1 is before H-001's last_turn 2") in found(
        lint_tree(files)
    )
    record["from_agent"]["last_turn"] = 9
    files[H2] = rehash(record)
    assert ("AL405", "from_agent.last_turn 9 is beyond the latest turn 0004") in found(
        lint_tree(files)
    )


def test_meta_handoffs_mirror_files(lint_tree):
    files = tree()
    files[META]["handoffs"] = files[META]["handoffs"][:1]
    assert found(lint_tree(files), ("AL406",)) == [
        (
            "AL406",
            "handoffs[] ends at H-001 but H-002 was written after it: meta.json was not "
            "updated for it",
        )
    ]
    files = tree()
    files[META]["handoffs"][0]["reason"] = "timeout"
    assert found(lint_tree(files), ("AL406",)) == [
        ("AL406", 'handoffs[0].reason "timeout" but H-001.json has "explicit"')
    ]


def test_active_agent_is_last_to_agent(lint_tree):
    files = tree()
    files[META]["active_agent"] = {"type": "codex", "agent_id": "codex-main", "session_id": None}
    [(_, message)] = found(lint_tree(files), ("AL407",))
    assert message == (
        'active_agent {"type": "codex", "agent_id": "codex-main"} but H-002 hands the '
        'conversation to {"type": "cortex", "agent_id": "cortex-main"}'
    )


def test_every_handoff_has_a_note(lint_tree):
    files = tree()
    del files["conversations/C-1/handoffs/H-001.md"]
    assert found(lint_tree(files)) == [("AL408", "H-001.json has no note H-001.md beside it")]


def test_a_missing_note_its_handoff_names_is_one_finding_at_that_name(lint_tree):
    from records import handoff as project_handoff

    name = "H-20261102-100000-ship"
    note = f".agent/handoffs/{name}.md"
    record = project_handoff(name, "2026-11-02T10:00:00Z")
    record["artifacts"]["markdown_ref"] = note
    record["stray"] = 1  # a finding of its own: the note is still the note's one finding
    result = lint_tree({f"handoffs/{name}.json": record})
    found = sorted((d.code, d.pointer, d.message) for d in result.diagnostics)
    assert found == [
        ("AL102", "/stray", 'unknown field "stray"; allowed fields: schema_version, '
                            "handoff_id, mode, from, to, task_id, mission_id, task_progress, "
                            "artifacts, next_action, constraints, verification, "
                            "graphify_context, shared_context_ref, context_budget_hint, "
                            "produced_at"),
        ("AL408", "/artifacts/markdown_ref", f"{name}.json has no note {name}.md beside it "
                                             "(artifacts.markdown_ref names it)"),
    ]  # fmt: skip
    # Not beside it: the path is wrong on its own (AL302), and never "did you mean" the
    # handoff file itself; the note is missing where the protocol puts it.
    record["artifacts"]["markdown_ref"] = f".agent/notes/{name}.md"
    found = sorted(
        (d.code, d.message) for d in lint_tree({f"handoffs/{name}.json": record}).diagnostics
    )
    assert [code for code, _ in found] == ["AL102", "AL302", "AL408"]
    assert found[2][1] == (
        f"{name}.json has no note 20261102-100000-ship.md or {name}.md beside it"
    )


def test_a_missing_path_is_never_said_to_mean_the_record_that_names_it():
    from agent_lint.index import RepoIndex
    from agent_lint.validators.references import elsewhere

    index = RepoIndex()
    stem = ".agent/handoffs/H-20261102-143000-ms-001-done"
    handoff, note = f"{stem}.json", f"{stem}.md"
    index.file_names["H-20261102-143000-ms-001-done.json"].append(handoff)
    assert elsewhere(index, note, referrer=handoff) is None
    assert elsewhere(index, note, referrer=".agent/decisions/D-1.json") == handoff


def test_turn_gap_and_duplicates(lint_tree):
    files = tree(handoffs=1, turns=4)
    del files["conversations/C-1/turns/0002.yaml"]
    files["conversations/C-1/turns/0003.yml"] = "turn: 3\n"
    assert [c for c, _ in found(lint_tree(files), ("AL409",))] == ["AL409", "AL409"]


def test_two_swapped_handoff_files_are_their_two_wrong_ids(lint_tree):
    files = tree(handoffs=3)
    first, second = "conversations/C-1/handoffs/H-001.json", "conversations/C-1/handoffs/H-002.json"
    files[first], files[second] = files[second], files[first]
    found = [(d.code, d.path.rsplit("/", 1)[-1]) for d in lint_tree(files).diagnostics]
    assert found == [("AL202", "H-001.json"), ("AL202", "H-002.json")]


def test_a_turn_file_misnamed_is_its_own_finding_only(lint_tree):
    files = tree(handoffs=1, turns=2)
    files["conversations/C-1/turns/0009.yaml"] = files.pop("conversations/C-1/turns/0002.yaml")
    result = lint_tree(files)
    assert [(d.code, d.path.rsplit("/", 1)[-1]) for d in result.diagnostics] == [
        ("AL202", "0009.yaml")
    ]  # not a gap from 0002 to 0008, nor meta.json and state.json behind turn 9
    # A number the turn records that another file is named for: the name stands.
    files["conversations/C-1/turns/0002.yaml"] = files["conversations/C-1/turns/0009.yaml"]
    # Counters (2) that are neither the number of turn files (3) nor the highest (9) are
    # wrong whichever reading of the gap is right.
    assert sorted(codes(lint_tree(files))) == ["AL202", "AL409", "AL410", "AL503"]


def test_turn_count_and_latest_turn(lint_tree):
    files = edited(tree(), META, turn_count=3)
    files[META]["state"]["latest_turn"] = 5
    assert found(lint_tree(files), ("AL410",)) == [
        ("AL410", "turn_count 3 and state.latest_turn 5 but the latest turn file is 0004"),
    ]
    files[META]["state"]["latest_turn"] = 4
    assert found(lint_tree(files), ("AL410",)) == [
        ("AL410", "turn_count 3 but the latest turn file is 0004"),
    ]


def test_turn_timestamps_never_go_backwards(lint_tree):
    files = tree(handoffs=1, turns=3)
    files["conversations/C-1/turns/0003.yaml"] = "turn: 3\ntimestamp: 2026-10-01T00:00:00Z\n"
    [(code, _)] = found(lint_tree(files), ("AL411",))
    assert code == "AL411"


def test_resume_marker_names_latest_handoff(lint_tree):
    files = tree()
    files["conversations/C-1/turn_resumed.yaml"] = (
        "handoff_id: H-001\nagent_id: x\nresumed_at: 2026-11-09T10:00:00Z\n"
    )
    assert found(lint_tree(files)) == [
        (
            "AL412",
            'handoff_id "H-001" but the latest handoff is H-002: '
            "the incoming agent has not resumed from it",
        )
    ]
    files["conversations/C-1/turn_resumed.yaml"] = (
        "handoff_id: H-009\nagent_id: x\nresumed_at: 2026-11-09T10:00:00Z\n"
    )
    assert found(lint_tree(files)) == [
        ("AL416", 'handoff_id "H-009" names no handoff of conversation C-1')
    ]


def _project_handoff(handoff_id: str, produced_at: str, mission_id: str | None = None) -> dict:
    return handoff(handoff_id, produced_at, mission_id=mission_id)


def test_timed_handoff_ids(lint_tree):
    files = {
        "handoffs/H-20261103-120000-a.json": _project_handoff(
            "H-20261103-120000-a", "2026-11-03T14:00:00+02:00"
        ),
        "handoffs/H-20261103-120000-b.json": _project_handoff(
            "H-20261103-120000-b", "2026-11-03T13:00:00Z"
        ),
        "missions/M-002/handoffs/H-20261103-130000.json": _project_handoff(
            "H-20261103-130000", "2026-11-03T13:00:00Z", "M-001"
        ),
        "handoffs/20261103-120000-a.md": "# a\n",
        "handoffs/20261103-120000-b.md": "# b\n",
        "missions/M-002/handoffs/20261103-130000.md": "# c\n",
    }
    assert sorted(found(lint_tree(files))) == [
        (
            "AL413",
            "handoff name time 20261103-120000 but produced_at 2026-11-03T13:00:00Z "
            "is 20261103-130000 in UTC",
        ),
        ("AL414", "handoff name time 20261103-120000 is also used by H-20261103-120000-a.json"),
        ("AL415", 'mission_id "M-001" but the handoff is stored under missions/M-002/'),
    ]


def test_handoff_with_own_findings_is_not_used_to_judge_others(lint_tree):
    files = tree()
    files[H2] = {**files[H2], "reason": "AGENT"}  # schema error in the latest handoff
    result = lint_tree(files)
    assert [d.code for d in result.diagnostics] == ["AL104"]


def test_a_handoff_note_without_its_handoff_is_one_warning(lint_tree):
    """The note names its own handoff: that mention is not an AL315 again."""
    files = tree(handoffs=2, turns=4)
    files["conversations/C-1/handoffs/H-009.md"] = "# H-009\n\nHanded to codex, see H-001.\n"
    result = lint_tree(files)
    assert [(d.code, d.path.rsplit("/", 1)[-1], d.severity.value) for d in result.diagnostics] == [
        ("AL417", "H-009.md", "warning")
    ]
    assert result.diagnostics[0].message == "H-009.md has no handoff H-009.json beside it"
    files["conversations/C-1/handoffs/H-009.md"] = "# notes\n"  # not named as a note: no finding
    files["conversations/C-1/handoffs/notes.md"] = files.pop("conversations/C-1/handoffs/H-009.md")
    assert lint_tree(files).diagnostics == []


def test_a_misnamed_handoff_whose_finding_is_off_leaves_the_gap_reported(lint_tree):
    files = tree(handoffs=3, turns=6)
    files["conversations/C-1/handoffs/H-004.json"] = files.pop(
        "conversations/C-1/handoffs/H-003.json"
    )
    files["conversations/C-1/handoffs/H-004.md"] = files.pop("conversations/C-1/handoffs/H-003.md")
    found = [d.code for d in lint_tree(files, config='ignore = ["AL202"]\n').diagnostics]
    assert "AL401" in found


def test_a_boolean_turn_count_is_the_schemas_finding_alone(lint_tree):
    files = edited(tree(), META, turn_count=True)
    assert [d.code for d in lint_tree(files).diagnostics] == ["AL103"]


H3 = "conversations/C-1/handoffs/H-003.json"
STATE = "conversations/C-1/handoffs/state.json"


def _latest_written_as(files: dict, **changes) -> dict:
    """H-003 written with ``changes`` (its checksum recomputed), and the checksum and time
    mirrors updated from it, as the runtime writes them; meta.json's other mirrors keep the
    values the chain expects."""
    files = copy.deepcopy(files)
    record = files[H3]
    for key, value in changes.items():
        if isinstance(value, dict):
            record[key] = {**record[key], **value}
        else:
            record[key] = value
    rehash(record)
    files[STATE].update(checksum=record["checksum"], updated_at=record["timestamp"])
    files[META]["handoffs"][-1]["checksum"] = record["checksum"]
    files[META]["state"]["checksum"] = record["checksum"]
    return files


def _planned(result) -> list[str]:
    from agent_lint import fixer

    return sorted(e.path.rsplit("/", 1)[-1] for e in fixer.plan(result.indexes[0], True))


def test_a_latest_handoff_that_breaks_the_chain_is_its_finding_alone(lint_tree):
    """A mistyped from_agent is its AL404; meta.json, which has the right agent, is not
    also an AL406, and --fix --unsafe-fixes does not copy the typo into it."""
    files = _latest_written_as(tree(handoffs=3, turns=6), from_agent={"agent_id": "typo"})
    result = lint_tree(files, unsafe_fixes=True)
    assert codes(result) == ["AL404"]
    assert _planned(result) == []


def test_a_back_dated_latest_handoff_is_its_finding_alone(lint_tree):
    files = _latest_written_as(tree(handoffs=3, turns=6), timestamp="2026-11-01T09:00:00Z")
    files[META]["handoffs"][-1]["timestamp"] = "2026-11-03T10:00:00Z"  # as it should be
    result = lint_tree(files, unsafe_fixes=True)
    assert codes(result) == ["AL402"]
    assert _planned(result) == []


def test_a_missing_latest_turn_file_is_the_handoffs_finding_alone(lint_tree):
    """Turn 0006 gone while H-003, meta.json and state.json all say 6: one AL405, and no
    fix rewrites the counters down to 5 against the handoff."""
    files = tree(handoffs=3, turns=6)
    del files["conversations/C-1/turns/0006.yaml"]
    result = lint_tree(files, unsafe_fixes=True)
    assert codes(result) == ["AL405"]
    assert _planned(result) == []


def test_what_a_faulty_latest_handoff_does_not_explain_is_still_reported(lint_tree):
    """state.json still naming H-002, and a turn counter that is neither the turn files'
    nor the handoff's, are facts of their own."""
    files = _latest_written_as(tree(handoffs=3, turns=6), from_agent={"agent_id": "typo"})
    files[STATE]["latest_handoff_id"] = "H-002"
    files[META]["turn_count"] = 3
    found = codes(lint_tree(files))
    assert sorted(found) == ["AL404", "AL410", "AL503"]


def _meta_from_before(files: dict, listed: int = 2) -> dict:
    """meta.json as it was before H-<listed+1>, and the turns after the listed handoff's
    last turn, were written: it lists the first ``listed`` handoffs, and its active
    agent, checksum and turn counters are the last listed one's."""
    files = copy.deepcopy(files)
    meta = files[META]
    meta["handoffs"] = meta["handoffs"][:listed]
    last = files[f"conversations/C-1/handoffs/H-{listed:03d}.json"] if listed else None
    meta["active_agent"] = (
        {
            "type": last["to_agent"]["type"],
            "agent_id": last["to_agent"]["agent_id"],
            "session_id": None,
        }
        if last
        else {"type": "codex", "agent_id": "codex-main", "session_id": None}
    )
    turns = last["from_agent"]["last_turn"] if last else 0
    meta["turn_count"] = turns
    meta["state"] = {"latest_turn": turns, "checksum": last["checksum"] if last else None}
    return files


def test_a_meta_json_not_updated_for_the_newest_handoff_is_one_finding(lint_tree):
    """The runtime wrote H-003 and two turns, and state.json, but not meta.json: one AL406
    that names every mirror still from before, not also AL407, AL504 and AL410; the unsafe
    fix brings the file up to date and nothing is left."""
    files = _meta_from_before(tree(handoffs=3, turns=6))
    result = lint_tree(files, unsafe_fixes=True)
    [(code, message)] = found(result)
    assert code == "AL406"
    h3 = files[H3]["checksum"]
    assert message == (
        "handoffs[] ends at H-002 but H-003 was written after it: meta.json was not updated "
        "for it; it still holds the earlier values: "
        'active_agent {"type": "cortex", "agent_id": "cortex-main"} '
        'but H-003 hands the conversation to {"type": "codex", "agent_id": "codex-main"}; '
        f"state.checksum {files[H2]['checksum'][:19]}… but H-003.json has {h3[:19]}…; "
        "turn_count 4 and state.latest_turn 4 but the latest turn file is 0006"
    )
    [diagnostic] = [d for d in result.diagnostics if d.code == "AL406"]
    assert diagnostic.path.endswith("meta.json") and diagnostic.pointer == "/handoffs"
    assert _planned(result) == ["meta.json"]


def test_a_meta_json_behind_by_several_handoffs_names_them_all(lint_tree):
    [(_, message)] = found(lint_tree(_meta_from_before(tree(handoffs=3, turns=6), 1)))
    assert message.startswith(
        "handoffs[] ends at H-001 but H-002 and H-003 were written after it: meta.json was "
        "not updated for them; it still holds the earlier values: active_agent"
    )
    assert message.endswith("turn_count 2 and state.latest_turn 2 but the latest turn file is 0006")
    [(_, message)] = found(lint_tree(_meta_from_before(tree(handoffs=3, turns=6), 0)))
    assert message.startswith(
        "handoffs[] lists nothing but H-001 to H-003 were written: meta.json was not updated "
        "for them; it still holds the earlier values: state.checksum null but H-003.json has"
    )


def test_a_lagging_meta_json_s_mirror_that_matches_neither_state_is_its_own(lint_tree):
    """An active agent that never held the conversation, a checksum of no handoff and a
    turn counter ahead of the turns are not explained by the lag."""
    files = _meta_from_before(tree(handoffs=3, turns=6))
    files[META]["active_agent"]["agent_id"] = "someone-else"
    files[META]["state"]["checksum"] = "sha256:" + "0" * 64
    files[META]["turn_count"] = files[META]["state"]["latest_turn"] = 9
    result = found(lint_tree(files))
    assert sorted(code for code, _ in result) == ["AL406", "AL407", "AL410", "AL504"]
    [lag] = [m for c, m in result if c == "AL406"]
    assert lag.endswith("meta.json was not updated for it")


def test_a_lagging_meta_json_with_al406_off_is_each_mirror_s_finding(lint_tree):
    files = _meta_from_before(tree(handoffs=3, turns=6))
    result = lint_tree(files, config='ignore = ["AL406"]\n')
    assert sorted(codes(result)) == ["AL407", "AL410", "AL504"]


def test_a_misnumbered_turn_file_is_its_gap_alone(lint_tree):
    """The fourth turn written as 0005.yaml: its AL409, not also state.json and meta.json
    counters that hold 4 (the number of turns there are), and no fix writes 5 into them."""
    files = tree(handoffs=2, turns=4)
    fourth = files.pop("conversations/C-1/turns/0004.yaml")
    files["conversations/C-1/turns/0005.yaml"] = fourth.replace("turn: 4", "turn: 5")
    result = lint_tree(files, unsafe_fixes=True)
    assert codes(result) == ["AL409"]
    assert _planned(result) == []
    # A counter that is neither the number of turns nor the highest is its own finding.
    files[META]["turn_count"] = 2
    assert sorted(codes(lint_tree(files))) == ["AL409", "AL410"]
    # Once the turns are numbered 1 to N again, the counters are judged.
    files["conversations/C-1/turns/0004.yaml"] = fourth
    del files["conversations/C-1/turns/0005.yaml"]
    files[META]["turn_count"] = 2
    assert codes(lint_tree(files)) == ["AL410"]


def test_a_lagging_meta_json_s_earlier_entries_are_still_judged(lint_tree):
    """The lag is one finding; a listed entry that mirrors its handoff wrongly is its own."""
    files = _meta_from_before(tree(handoffs=3, turns=6))
    files[META]["handoffs"][0]["to_agent"] = "nobody"
    result = found(lint_tree(files))
    assert [code for code, _ in result] == ["AL406", "AL406"]
    assert result[1][1] == 'handoffs[0].to_agent "nobody" but H-001.json has "claude-main"'
