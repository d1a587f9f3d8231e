"""AL4xx: handoff ordering, chain continuity, turns, and the resume marker."""

from __future__ import annotations

import functools
import posixpath
import shlex
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import datetime, timezone
from typing import Any, NamedTuple

from agent_lint.diagnostics import Diagnostic, Fix, Rule, Severity
from agent_lint.index import RepoIndex
from agent_lint.jsontext import INTEGER, quote
from agent_lint.profiles.cortex.agreement import (
    checksum_reported,
    has_checksum,
    holds_no_checksum,
    short,
)
from agent_lint.profiles.cortex.facts import facts_of
from agent_lint.profiles.cortex.handoffs import (
    Conversation,
    Handoff,
    embedded_time,
    file_name,
    handoff_number,
)
from agent_lint.schemas import parse_timestamp
from agent_lint.selection import reported_as_error
from agent_lint.validators.identity import renamed_folders

HANDOFF_SEQUENCE = Rule(
    "AL401",
    "handoff-sequence",
    "Conversation handoffs are not numbered H-001 to H-N without gaps or duplicates",
    "Reports a conversation whose handoff files skip a number, repeat one (`H-002.json` and "
    "`H-0002.json`), or do not start at `H-001`. The latest handoff is the one with the "
    "highest number; a gap means a handoff was lost or renumbered.",
    "handoffs/H-001.json, handoffs/H-003.json",
    "handoffs/H-001.json, handoffs/H-002.json",
)
HANDOFF_TIME_ORDER = Rule(
    "AL402",
    "handoff-time-order",
    "Handoff timestamps do not strictly increase",
    "Reports a handoff whose `timestamp` is not later than the one before it. Handoffs are a "
    "history; a later handoff with an earlier time was back-dated or reordered.",
    'H-001 "2026-11-02T14:00:00Z", H-002 "2026-11-02T10:00:00Z"',
    'H-001 "2026-11-02T10:00:00Z", H-002 "2026-11-02T14:00:00Z"',
)
CONVERSATION_MISMATCH = Rule(
    "AL403",
    "conversation-id-mismatch",
    "A handoff names another conversation",
    "Reports a conversation handoff whose `conversation_id` is not the conversation folder "
    "it is stored in, usually a file copied from another conversation (the same mistake in "
    "`handoffs/state.json` is AL503).",
    'conversations/C-2/handoffs/H-001.json with "conversation_id": "C-1"',
    'conversations/C-2/handoffs/H-001.json with "conversation_id": "C-2"',
    covers=("AL301", "AL105"),  # another conversation, existing or not, or malformed
)
BROKEN_CHAIN = Rule(
    "AL404",
    "broken-handoff-chain",
    "A handoff does not start where the previous one ended",
    "Reports a handoff whose `from_agent.agent_id` is not the `to_agent.agent_id` of the "
    "handoff before it. The chain of custody is broken: the agent that handed over was not "
    "the one holding the conversation.",
    "H-001 codex -> claude-code; H-002 cortex -> codex",
    "H-001 codex -> claude-code; H-002 claude-code -> codex",
)
LAST_TURN = Rule(
    "AL405",
    "last-turn-order",
    "A handoff's last turn goes backwards or beyond the latest turn",
    "Reports a handoff whose `from_agent.last_turn` is smaller than the previous handoff's, "
    "or larger than the number of the latest turn file. The incoming agent would resume "
    "from the wrong place in the conversation.",
    "H-001 last_turn 4, H-002 last_turn 2; or last_turn 9 with turns 0001-0007",
    "H-001 last_turn 2, H-002 last_turn 4, turns 0001-0007",
)
META_HANDOFFS = Rule(
    "AL406",
    "meta-handoffs-mismatch",
    "meta.json handoffs[] does not mirror the handoff files",
    "Reports a conversation whose `meta.json` `handoffs[]` does not list exactly its "
    "handoff files, in order, with the same `from_agent`, `to_agent`, `timestamp`, `reason` "
    "and `checksum` (the last entry's checksum is AL504). A meta.json not updated for the "
    "newest handoffs (it lists the first ones only) is one finding, which names its "
    "`active_agent`, `state.checksum` and turn counters still holding their values from "
    "before them (not also AL407, AL504, AL410). `--fix --unsafe-fixes` rewrites "
    "the entries from the handoff files, leaving the rest of meta.json byte for byte.",
    "meta.json handoffs: [H-001]; files: H-001.json, H-002.json",
    "meta.json handoffs: [H-001, H-002], each equal to its file",
    fix=Fix.UNSAFE,
    covers=("AL301", "AL105"),  # an entry naming no handoff file, or malformed
)
ACTIVE_AGENT = Rule(
    "AL407",
    "active-agent-mismatch",
    "meta.json active_agent is not the last handoff's to_agent",
    "Reports a conversation whose `meta.json` `active_agent` differs from the `to_agent` of "
    "its latest handoff (type, agent id, and `target_session` as `session_id`). The "
    "conversation claims an agent holds it that was never handed it. Fixable with "
    "`--fix --unsafe-fixes`.",
    'H-003 to_agent cortex-main; meta.json active_agent "codex-main"',
    'meta.json active_agent {"type": "cortex", "agent_id": "cortex-main", …}',
    fix=Fix.UNSAFE,
)
MISSING_NOTE = Rule(
    "AL408",
    "missing-handoff-note",
    "A handoff has no Markdown note",
    "Reports a handoff without its human-readable twin: `H-NNN.md` beside a conversation "
    "handoff `H-NNN.json`; `YYYYMMDD-HHMMSS-<focus>.md` (or `H-….md`) beside a project or "
    "mission handoff `H-YYYYMMDD-HHMMSS-<focus>.json`. The protocol writes both; people "
    "review the note.",
    "handoffs/H-002.json alone",
    "handoffs/H-002.json and handoffs/H-002.md",
    covers=("AL302",),  # at artifacts.markdown_ref when that names the missing note
)
TURN_SEQUENCE = Rule(
    "AL409",
    "turn-sequence",
    "Turn files are not numbered 0001 to N without gaps or duplicates",
    "Reports a conversation whose `turns/` files skip a number, repeat one (`0003.yaml` and "
    "`0003.yml`), or do not start at `0001`.",
    "turns/0001.yaml, turns/0003.yaml",
    "turns/0001.yaml, turns/0002.yaml, turns/0003.yaml",
)
TURN_COUNT = Rule(
    "AL410",
    "turn-count-mismatch",
    "meta.json turn_count or state.latest_turn is not the number of turns",
    "Reports a `meta.json` whose `turn_count` or `state.latest_turn` differs from N, the "
    "number of the latest turn file: one finding for both. Fixable with "
    "`--fix --unsafe-fixes`, which writes N into them.",
    '"turn_count": 6 with turns 0001-0007',
    '"turn_count": 7 with turns 0001-0007',
    fix=Fix.UNSAFE,
)
TURN_TIME_ORDER = Rule(
    "AL411",
    "turn-time-order",
    "A turn's timestamp is earlier than the turn before it",
    "Reports a turn whose `timestamp` goes backwards from the previous turn's. Turns are "
    "appended in time; an earlier timestamp means a turn was inserted or edited.",
    "0004.yaml 10:00, 0005.yaml 09:00",
    "0004.yaml 10:00, 0005.yaml 10:05",
)
STALE_RESUME = Rule(
    "AL412",
    "stale-resume-marker",
    "turn_resumed.yaml names an older handoff than the latest",
    "Reports a `turn_resumed.yaml` that names an older handoff than the latest: the latest "
    "handoff was not picked up by the incoming agent yet. This is the normal state between "
    "the outgoing agent's commit and the incoming agent's resume, so it is a warning; a "
    "marker that stays stale means a handoff was lost.",
    "turn_resumed.yaml handoff_id: H-002 while H-003.json exists",
    "turn_resumed.yaml handoff_id: H-003",
    severity=Severity.WARNING,
)
UNKNOWN_RESUME = Rule(
    "AL416",
    "resume-marker-unknown-handoff",
    "turn_resumed.yaml names a handoff that does not exist",
    "Reports a `turn_resumed.yaml` whose `handoff_id` names no handoff of its conversation: "
    "the incoming agent resumed from a handoff nobody can read.",
    "turn_resumed.yaml handoff_id: H-009 with handoffs H-001 to H-003",
    "turn_resumed.yaml handoff_id: H-003",
    covers=("AL105",),  # a malformed handoff_id names no handoff: one fact
)
ORPHAN_NOTE = Rule(
    "AL417",
    "orphan-handoff-note",
    "A conversation handoff note has no handoff beside it",
    "Reports a note `H-NNN.md` in a conversation's `handoffs/` with no `H-NNN.json` beside "
    "it: the handoff it describes was deleted or renamed, or is not written yet, and the "
    "next agent reads a handoff nobody can resume from. A warning: the note may be written "
    "first.",
    "handoffs/H-009.md, no handoffs/H-009.json",
    "handoffs/H-009.md beside handoffs/H-009.json",
    severity=Severity.WARNING,
)
HANDOFF_TIME_MISMATCH = Rule(
    "AL413",
    "handoff-time-mismatch",
    "A handoff id's embedded time differs from produced_at",
    "Reports a project or mission handoff whose id or file name embeds a time "
    "(`H-YYYYMMDD-HHMMSS-<focus>`, `YYYYMMDD-HHMMSS-<focus>`) that is neither the local "
    "time `produced_at` is written in (`2026-08-06T23:20:00+08:00` for `20260806-232000`) "
    "nor its UTC time. The name orders handoffs; a wrong time puts the handoff in the wrong "
    "place. With `strict = true` the name must be the UTC time.",
    'H-20261103-120000-release.json with "produced_at": "2026-11-03T13:00:00Z"',
    'H-20261103-130000-release.json with "produced_at": "2026-11-03T13:00:00Z"',
)
DUPLICATE_HANDOFF_TIME = Rule(
    "AL414",
    "duplicate-handoff-time",
    "Two handoffs in one folder embed the same time",
    "Reports a project or mission handoff whose id embeds the same `YYYYMMDD-HHMMSS` as "
    "another handoff in the same folder; their order is ambiguous.",
    "H-20261103-120000-a.json and H-20261103-120000-b.json",
    "H-20261103-120000-a.json and H-20261103-120500-b.json",
)
MISSION_MISMATCH = Rule(
    "AL415",
    "mission-id-mismatch",
    "A mission handoff or validation contract names another mission",
    "Reports a handoff in `missions/<M>/handoffs/`, or a `missions/<M>/validation-contract.json`, "
    "whose `mission_id` is not `<M>`: a file copied or moved from another mission, which "
    "resumes or validates the wrong mission's work.",
    'missions/M-002/handoffs/H-….json with "mission_id": "M-001"',
    'missions/M-002/handoffs/H-….json with "mission_id": "M-002"',
    covers=("AL301", "AL105"),  # another mission, existing or not, or malformed
)

RULES = (
    HANDOFF_SEQUENCE,
    HANDOFF_TIME_ORDER,
    CONVERSATION_MISMATCH,
    BROKEN_CHAIN,
    LAST_TURN,
    META_HANDOFFS,
    ACTIVE_AGENT,
    MISSING_NOTE,
    TURN_SEQUENCE,
    TURN_COUNT,
    TURN_TIME_ORDER,
    STALE_RESUME,
    HANDOFF_TIME_MISMATCH,
    DUPLICATE_HANDOFF_TIME,
    MISSION_MISMATCH,
    UNKNOWN_RESUME,
    ORPHAN_NOTE,
)


def show(value: Any) -> str:
    """A JSON rendering of a value for messages (see :func:`~agent_lint.jsontext.quote`)."""
    return quote(value)


def _sequence(
    rule: Rule, files: Sequence[tuple[int | None, str]], label: Callable[[int], str]
) -> Iterator[Diagnostic]:
    """Numbers 1..N with no gap or duplicate, reported at the offending file."""
    numbered = sorted((n, p) for n, p in files if n is not None)
    expected = 1
    seen: dict[int, str] = {}
    for number, path in numbered:
        if number in seen:
            yield rule.at(
                path,
                f"{file_name(path)} repeats number {number} of {file_name(seen[number])}",
                line=1,
                column=1,
            )
            continue
        seen[number] = path
        if number != expected:
            missing = (
                label(expected)
                if number == expected + 1
                else f"{label(expected)} to {label(number - 1)}"
            )
            yield rule.at(
                path,
                f"{file_name(path)} follows a gap: {missing} missing "
                f"(numbers must run from {label(1)} without gaps)",
                line=1,
                column=1,
            )
        expected = number + 1


def _handoffs(
    index: RepoIndex, conversation: Conversation, turn: int | None
) -> Iterator[Diagnostic]:
    previous: Handoff | None = None
    own = conversation.own_ids(renamed_folders(index))
    for handoff in conversation.ordered():
        if handoff.number < 0:
            continue
        if isinstance(handoff.conversation_id, str) and handoff.conversation_id not in own:
            yield CONVERSATION_MISMATCH.at(
                handoff.path,
                f"conversation_id {quote(handoff.conversation_id)} but the handoff is stored in "
                f"conversation {conversation.name}",
                pointer="/conversation_id",
            )
        yield from _beyond(handoff, turn)
        stem = file_name(handoff.path).removesuffix(".json")
        if stem not in conversation.notes:
            names = _note_names(handoff.path, False)
            missing = _missing_note(index, handoff.path, handoff.note_ref, names)
            if missing is not None:
                yield missing
        if previous is not None and previous.clean:
            # A handoff with findings of its own (a wrong id, a schema error) judges no
            # other: two swapped files are their two AL202s, not a broken chain too.
            yield from _pair(previous, handoff)
        previous = handoff


def _beyond(handoff: Handoff, turn: int | None) -> Iterator[Diagnostic]:
    """AL405 when the handoff's ``from_agent.last_turn`` is past the latest turn file."""
    last_turn = handoff.from_agent.get("last_turn")
    if isinstance(last_turn, INTEGER) and turn is not None and last_turn > turn:
        yield LAST_TURN.at(
            handoff.path,
            f"from_agent.last_turn {last_turn} is beyond the latest turn {turn:04d}",
            pointer="/from_agent/last_turn",
        )


def latest_faults(index: RepoIndex, conversation: Conversation) -> set[str]:
    """The codes of the chain, time and turn findings (AL402, AL404, AL405) the latest
    handoff has, and the turn files' AL409, among those reported as errors.

    While it has one, the handoff is what is wrong, and the mirrors of the fields it is
    about (:func:`disputed_fields`) are not judged against it nor fixed to follow it: a
    mistyped ``from_agent`` is its AL404, not also an AL406 on ``meta.json``'s entry for
    it (which ``--fix --unsafe-fixes`` would make copy the typo), a back-dated timestamp
    its AL402, not also state.json's ``updated_at``, and a ``last_turn`` past the turn
    files (a turn file missing) its AL405, not also turn counters to rewrite down; turn
    files with a gap or a repeated number (one misnumbered, or one missing) their AL409,
    not also turn counters that hold the number of turn files (:func:`disputed_turn`)."""
    # Turn files with a gap or a repeated number (AL409): which number is the latest turn
    # is in doubt, so no counter is fixed, and one holding the number of files stands.
    faults = list(_sequence(TURN_SEQUENCE, conversation.numbered_turns(), _turn_label))
    handoffs = [h for h in conversation.ordered() if h.number >= 0]
    if handoffs:
        latest = handoffs[-1]
        faults.extend(_beyond(latest, conversation.latest_turn()))
        if len(handoffs) > 1 and handoffs[-2].clean:
            faults.extend(_pair(handoffs[-2], latest))
    return {d.code for d in faults if reported_as_error(d.code, index.config, d.path)}


def _turn_label(number: int) -> str:
    return f"turn {number:04d}"


#: The fields of a handoff, and of state.json, that mirror what each fault is about.
_DISPUTED = {
    "AL402": ("timestamp", "updated_at"),
    "AL404": ("from_agent",),
    "AL405": ("from_agent", "latest_turn"),
}


def disputed_fields(faults: set[str]) -> set[str]:
    """The fields mirrors of the latest handoff are not judged on while it has ``faults``
    (:func:`latest_faults`): ``timestamp`` and state.json's ``updated_at`` for its AL402,
    ``from_agent`` for its AL404, and ``from_agent`` and ``latest_turn`` for its AL405."""
    return {name for code in faults for name in _DISPUTED.get(code, ())}


class _IgnoredNotes:
    """The missing handoff notes git ignores, asked of git once per run (one batch)."""

    def __init__(self) -> None:
        self.paths: set[str] | None = None


def _note_names(path: str, timed: bool) -> tuple[str, ...]:
    """The names a handoff's note may have beside it (``H-…-x.md``; a time-named
    handoff's note may drop the ``H-``)."""
    stem = file_name(path).removesuffix(".json")
    if not timed:
        return (f"{stem}.md",)
    return tuple(dict.fromkeys((f"{stem.removeprefix('H-')}.md", f"{stem}.md")))


def _ignored_note(index: RepoIndex, path: str, names: tuple[str, ...]) -> bool:
    """Whether git ignores every note name of the handoff at ``path``: notes kept out of
    git on purpose, which no clone has, are not missing (the work tree and CI agree)."""
    ignores = index.git_ignores
    if ignores is None:
        return False
    store = index.store(_IgnoredNotes)
    if store.paths is None:
        cortex = facts_of(index)
        # Only the handoffs without a note: those are the questions this run will ask.
        asked = [
            posixpath.join(posixpath.dirname(h.path), note)
            for conversation in cortex.conversations.values()
            for h in conversation.handoffs
            if file_name(h.path).removesuffix(".json") not in conversation.notes
            for note in _note_names(h.path, False)
        ]
        asked += [
            posixpath.join(posixpath.dirname(h.path), note)
            for h in cortex.timed_handoffs
            if not _note_of(index, h.path)
            for note in _note_names(h.path, True)
        ]
        store.paths = ignores.among(asked)
    folder = posixpath.dirname(path)
    notes = [posixpath.join(folder, note) for note in names]
    if not all(note in store.paths for note in notes):
        return False
    index.ignored_targets.update(notes)
    return True


def _missing_note(
    index: RepoIndex, path: str, note_ref: Any, names: tuple[str, ...]
) -> Diagnostic | None:
    """AL408 for the handoff at ``path``, whose note (one of ``names`` beside it) is missing;
    None when git ignores it (the repository keeps notes out of git).

    Where its ``artifacts.markdown_ref`` names that note, the finding is there: the
    path that does not exist is this fact too (its AL302 is covered).
    """
    if _ignored_note(index, path, names):
        return None
    folder, _, name = path.rpartition("/")
    if isinstance(note_ref, str):
        named = posixpath.normpath(index.in_repository(note_ref.split("#", 1)[0]))
        if posixpath.dirname(named) == folder and posixpath.basename(named) in names:
            return MISSING_NOTE.at(
                path,
                f"{name} has no note {posixpath.basename(named)} beside it "
                "(artifacts.markdown_ref names it)",
                pointer="/artifacts/markdown_ref",
            )
    return MISSING_NOTE.at(
        path, f"{name} has no note {' or '.join(names)} beside it", line=1, column=1
    )


def _pair(previous: Handoff, handoff: Handoff) -> Iterator[Diagnostic]:
    before, after = parse_timestamp(previous.timestamp), parse_timestamp(handoff.timestamp)
    if before and after and after <= before:
        yield HANDOFF_TIME_ORDER.at(
            handoff.path,
            f"timestamp {handoff.timestamp} is not later than {previous.id}'s {previous.timestamp}",
            pointer="/timestamp",
        )
    handed_to = previous.to_agent.get("agent_id")
    handed_from = handoff.from_agent.get("agent_id")
    if isinstance(handed_to, str) and isinstance(handed_from, str) and handed_to != handed_from:
        yield BROKEN_CHAIN.at(
            handoff.path,
            f"from_agent.agent_id {quote(handed_from)} but {previous.id} handed the conversation "
            f"to {quote(handed_to)}",
            pointer="/from_agent/agent_id",
        )
    old, new = previous.from_agent.get("last_turn"), handoff.from_agent.get("last_turn")
    if isinstance(old, INTEGER) and isinstance(new, INTEGER) and new < old:
        yield LAST_TURN.at(
            handoff.path,
            f"from_agent.last_turn {new} is before {previous.id}'s last_turn {old}",
            pointer="/from_agent/last_turn",
        )


def _meta(
    index: RepoIndex,
    conversation: Conversation,
    turn: int | None,
    reported: Callable[[Handoff], bool],
    faults: set[str],
) -> Iterator[Diagnostic]:
    meta, path = conversation.meta, conversation.meta_path
    if meta is None or path is None:
        return
    lag = meta_lag(index, conversation, reported, faults)
    if lag is not None:
        yield lag.finding(path)
    handoffs = [h for h in conversation.ordered() if h.number >= 0]
    if not conversation.broken:
        # The list of ids stands; the latest entry's fields that a fault of the latest
        # handoff is about are not judged against it.
        yield from _meta_handoffs(
            path,
            meta,
            handoffs,
            reported,
            disputed_fields(faults),
            lagging=lag is not None,
            edited=getattr(index.history, "edited", None),
        )
        latest = handoffs[-1] if handoffs else None
        active = meta.get("active_agent")
        if latest is not None and isinstance(active, dict):
            claim = _active_claim(active, latest)
            if claim is not None and (lag is None or ACTIVE_AGENT.code not in lag.folded):
                yield ACTIVE_AGENT.at(path, claim, pointer="/active_agent")
        elif latest is not None and "active_agent" not in meta:
            yield ACTIVE_AGENT.at(
                path,
                f"active_agent is missing; {latest.id} hands the conversation to "
                f"{show(latest.active_agent())}",
            )
    if turn is None or (lag is not None and TURN_COUNT.code in lag.folded):
        return
    stale = stale_turn_counters(meta, turn, disputed_turn(conversation, faults))
    if stale:
        # One fact, the counters behind (or ahead of) the turns: one finding, at the first.
        yield TURN_COUNT.at(path, _counters_claim(stale, turn), pointer=stale[0][1])


def _active_claim(active: dict[str, Any], latest: Handoff) -> str | None:
    """How ``meta.json``'s ``active_agent`` differs from ``latest``'s ``to_agent``, or None."""
    expected = latest.active_agent()
    differing = [k for k in ("type", "agent_id", "session_id") if active.get(k) != expected[k]]
    if not differing:
        return None
    claimed = show({k: active.get(k) for k in differing})
    handed = show({k: expected[k] for k in differing})
    return f"active_agent {claimed} but {latest.id} hands the conversation to {handed}"


def _counters_claim(stale: list[tuple[str, str, Any]], turn: int) -> str:
    """How the ``stale`` turn counters differ from ``turn``, the latest turn file's number."""
    said = " and ".join(f"{name} {value}" for name, _, value in stale)
    return f"{said} but the latest turn file is {turn:04d}"


class MetaLag(NamedTuple):
    """A ``meta.json`` last written before its conversation's newest handoffs: its
    ``handoffs[]`` lists the first of them only, and the other mirrors that still hold
    what they held then (``active_agent``, ``state.checksum``, turn counters behind the
    turns) are this one fact, not findings of their own (``folded``)."""

    last_listed: str | None
    unlisted: tuple[str, ...]
    stale: tuple[str, ...]  # how each folded mirror differs, for the message
    folded: frozenset[str]  # the codes (AL407, AL410, AL504) the finding stands for

    def finding(self, path: str) -> Diagnostic:
        """The one AL406 for the lag, at ``handoffs[]``."""
        first, last = self.unlisted[0], self.unlisted[-1]
        if len(self.unlisted) == 1:
            new, them = f"{first} was", "it"
        elif len(self.unlisted) == 2:
            new, them = f"{first} and {last} were", "them"
        else:
            new, them = f"{first} to {last} were", "them"
        if self.last_listed is None:
            start = f"handoffs[] lists nothing but {new} written"
        else:
            start = f"handoffs[] ends at {self.last_listed} but {new} written after it"
        message = f"{start}: meta.json was not updated for {them}"
        if self.stale:
            message += "; it still holds the earlier values: " + "; ".join(self.stale)
        return META_HANDOFFS.at(path, message, pointer="/handoffs")


def meta_lag(
    index: RepoIndex,
    conversation: Conversation,
    reported: Callable[[Handoff], bool],
    faults: set[str],
) -> MetaLag | None:
    """The :class:`MetaLag` of ``conversation``'s ``meta.json``, or None when it does not
    list a proper prefix of the handoff files, or AL406 is not reported there as an error
    (then each mirror's own rule speaks for it)."""
    meta, path = conversation.meta, conversation.meta_path
    if meta is None or path is None or conversation.broken:
        return None
    if not reported_as_error(META_HANDOFFS.code, index.config, path):
        return None
    entries = meta.get("handoffs", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        return None
    handoffs = [h for h in conversation.ordered() if h.number >= 0]
    listed = [e.get("handoff_id") for e in entries]
    if len(listed) >= len(handoffs) or listed != [h.id for h in handoffs[: len(listed)]]:
        return None
    before, first_new, latest = (
        handoffs[len(listed) - 1] if listed else None,
        handoffs[len(listed)],
        handoffs[-1],
    )
    stale: list[str] = []
    folded: set[str] = set()
    active = meta.get("active_agent")
    if before is not None:
        holder = before.active_agent()
    else:
        sender = first_new.from_agent
        holder = {k: sender.get(k) for k in ("type", "agent_id", "session_id")}
    if isinstance(active, dict) and all(active.get(k) == v for k, v in holder.items()):
        claim = _active_claim(active, latest)
        if claim is not None:  # still the agent that held it before the new handoffs
            stale.append(claim)
            folded.add(ACTIVE_AGENT.code)
    state = meta.get("state")
    if isinstance(state, dict):
        held = state.get("checksum")
        then = None if before is None else before.mirrored_checksum(held, reported(before))
        expected = latest.mirrored_checksum(held, reported(latest))
        if held == then and held != expected:
            has = has_checksum(latest, reported(latest))
            stale.append(f"state.checksum {short(held)} but {has} {short(expected)}")
            folded.add("AL504")
    turn = conversation.latest_turn()
    disputed = disputed_turn(conversation, faults)
    if turn is not None and _counters_from_before(meta, turn, before, first_new, disputed):
        stale.append(_counters_claim(stale_turn_counters(meta, turn, disputed), turn))
        folded.add(TURN_COUNT.code)
    return MetaLag(
        before.id if before else None,
        tuple(h.id for h in handoffs[len(listed) :]),
        tuple(stale),
        frozenset(folded),
    )


def disputed_turn(conversation: Conversation, faults: set[str]) -> tuple[Any, ...]:
    """The turn numbers a counter may hold other than the latest turn file's while
    ``faults`` (:func:`latest_faults`) dispute that: the ``last_turn`` of a latest handoff
    whose AL405 says it is past the turn files (a turn file missing, or the handoff
    wrong), and the number of turn files while they have a gap or a repeated number
    (AL409: one misnumbered, or one missing). A counter holding one is that finding's
    fact, not one to rewrite; one holding neither is still wrong."""
    held: list[Any] = []
    latest = conversation.latest()
    if latest is not None and LAST_TURN.code in faults:
        held.append(latest.from_agent.get("last_turn"))
    if TURN_SEQUENCE.code in faults:
        held.append(len(conversation.turn_files))
    return tuple(held)


def _counters_from_before(
    meta: dict[str, Any],
    turn: int,
    before: Handoff | None,
    first_new: Handoff,
    disputed: tuple[Any, ...],
) -> bool:
    """Whether every turn counter of ``meta`` holds one number behind ``turn`` that the
    conversation had between the ``before`` handoff's last turn and ``first_new``'s: the
    counters of a meta.json last written then."""
    counters = stale_turn_counters(meta, turn, disputed)
    values = {value for _, _, value in counters}
    if not counters or len(values) != 1 or len(counters) != len(_turn_counters(meta)):
        return False
    [value] = values
    low = before.from_agent.get("last_turn") if before else 0
    high = first_new.from_agent.get("last_turn")
    return (
        value < turn
        and (not isinstance(low, INTEGER) or low <= value)
        and (not isinstance(high, INTEGER) or value <= high)
    )


def _turn_counters(meta: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """``meta.json``'s turn counters that are integers (another type is the schema's
    finding): (name, pointer, value) of ``turn_count`` and ``state.latest_turn``."""
    state = meta.get("state")
    counters = [
        ("turn_count", "/turn_count", meta.get("turn_count")),
        (
            "state.latest_turn",
            "/state/latest_turn",
            state.get("latest_turn") if isinstance(state, dict) else None,
        ),
    ]
    return [c for c in counters if isinstance(c[2], INTEGER) and not isinstance(c[2], bool)]


def stale_turn_counters(
    meta: dict[str, Any], turn: int, disputed: tuple[Any, ...] = ()
) -> list[tuple[str, str, Any]]:
    """``meta.json``'s turn counters (:func:`_turn_counters`) that are not ``turn`` nor one
    of the ``disputed`` values (:func:`disputed_turn`)."""
    return [c for c in _turn_counters(meta) if c[2] != turn and c[2] not in disputed]


_MIRRORED = ("from_agent", "to_agent", "timestamp", "reason", "checksum")


def _meta_handoffs(
    path: str,
    meta: dict[str, Any],
    handoffs: list[Handoff],
    reported: Callable[[Handoff], bool],
    disputed: Collection[str] = (),
    lagging: bool = False,
    edited: Callable[[str], str | None] | None = None,
) -> Iterator[Diagnostic]:
    """AL406 for ``handoffs[]``: the list of ids, then each entry's mirrored fields. With
    ``lagging`` (:func:`meta_lag`: the list is the first handoffs only, that lag's finding),
    the entries it has are judged against the handoffs they list. ``edited`` tells whether
    a handoff differs from its last commit: then the mirror may hold the merged value and
    the handoff the mistake, and the finding says how to restore it as well."""
    entries = meta.get("handoffs")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        return
    listed = [e.get("handoff_id") if isinstance(e, dict) else None for e in entries]
    files = [h.id for h in handoffs]
    # A meta.json with no checksum at all is one AL504, when that reports the latest's.
    no_checksum = (
        bool(handoffs)
        and holds_no_checksum(meta)
        and handoffs[-1].mirrored_checksum(None, reported(handoffs[-1])) is not None
    )
    if lagging:
        handoffs = handoffs[: len(entries)]
    elif listed != files:
        yield META_HANDOFFS.at(
            path,
            f"handoffs[] lists {', '.join(map(str, listed)) or 'nothing'} but the handoff "
            f"files are {', '.join(files) or 'none'}",
            pointer="/handoffs",
        )
        return
    for position, (entry, handoff) in enumerate(zip(entries, handoffs, strict=True)):
        lenient = reported(handoff)
        mirror = handoff.entry(entry.get("checksum"), lenient, entry.get("timestamp"))
        last = not lagging and position == len(handoffs) - 1
        for key in _MIRRORED:
            if key == "checksum" and (last or no_checksum):
                continue  # the latest checksum is an agreement finding (AL504)
            if last and key in disputed:
                continue  # the latest handoff's own finding is about this field
            if (key in entry or mirror[key] is not None) and entry.get(key) != mirror[key]:
                has = (
                    has_checksum(handoff, lenient)
                    if key == "checksum"
                    else f"{file_name(handoff.path)} has"
                )
                restore = ""
                changed = edited(handoff.path) if key != "checksum" and edited else None
                if changed is not None:  # ":/": from the repository's top, wherever run
                    restore = (
                        f"; {file_name(handoff.path)} differs from its last commit: if that "
                        f"is merged, restore it (git checkout HEAD -- "
                        f"{shlex.quote(':/' + changed)}) rather than copy its edit here"
                    )
                yield META_HANDOFFS.at(
                    path,
                    f"handoffs[{position}].{key} {show(entry.get(key))} but {has} "
                    f"{show(mirror[key])}{restore}",
                    pointer=f"/handoffs/{position}/{key}"
                    if key in entry
                    else f"/handoffs/{position}",
                )


def _turns(conversation: Conversation) -> Iterator[Diagnostic]:
    previous = None
    numbers = dict((path, number) for number, path in conversation.numbered_turns())
    for turn in sorted(conversation.turns, key=lambda t: (numbers.get(t.path, t.number), t.path)):
        stamp = parse_timestamp(turn.timestamp)
        if stamp is None:
            continue
        if previous is not None and stamp < previous[1]:
            yield TURN_TIME_ORDER.at(
                turn.path,
                f"timestamp {turn.timestamp} is earlier than turn {previous[0].number:04d}'s "
                f"{previous[0].timestamp}",
                pointer="/timestamp",
            )
        previous = (turn, stamp)


def _resume(conversation: Conversation, misnamed: Callable[[str], bool]) -> Iterator[Diagnostic]:
    """AL416/AL415 for ``turn_resumed.yaml``; a handoff whose ``handoff_id`` differs from
    its file name is known by both while ``misnamed(path)`` (its AL202 is an error)."""
    path, named = conversation.resume_path, conversation.resume_handoff
    if path is None or not isinstance(named, str):
        return
    numbers = {h.id: h.number for h in conversation.handoffs}
    files = {file_name(p).removesuffix(".json") for _, p in conversation.handoff_files}
    files.update(
        h.recorded_id
        for h in conversation.handoffs
        if isinstance(h.recorded_id, str) and h.recorded_id != h.id and misnamed(h.path)
    )
    latest = conversation.latest()
    if named not in numbers and named not in files:
        yield UNKNOWN_RESUME.at(
            path,
            f"handoff_id {quote(named)} names no handoff of conversation {conversation.name}",
            pointer="/handoff_id",
        )
    elif latest is not None and named in numbers and numbers[named] < latest.number:
        yield STALE_RESUME.at(
            path,
            f"handoff_id {quote(named)} but the latest handoff is {latest.id}: the incoming agent "
            "has not resumed from it",
            pointer="/handoff_id",
        )


def check_conversations(index: RepoIndex) -> Iterator[Diagnostic]:
    """Handoff and turn ordering, chain continuity, meta.json mirrors, resume marker."""
    conversations = facts_of(index).conversations
    reported = checksum_reported(index)
    for name in sorted(conversations):
        conversation = conversations[name]
        if index.partly_unknown(conversation.folder):
            continue  # files that could not be listed: nothing is known about the order
        turn = conversation.latest_turn()
        misnamed = functools.partial(reported_as_error, "AL202", index.config)
        yield from _sequence(
            HANDOFF_SEQUENCE, conversation.numbered_handoffs(misnamed), lambda n: f"H-{n:03d}"
        )
        yield from _sequence(TURN_SEQUENCE, conversation.numbered_turns(), _turn_label)
        yield from _handoffs(index, conversation, turn)
        yield from _meta(index, conversation, turn, reported, latest_faults(index, conversation))
        yield from _turns(conversation)
        yield from _resume(conversation, misnamed)
        yield from _orphan_notes(conversation)


def _orphan_notes(conversation: Conversation) -> Iterator[Diagnostic]:
    """AL417 for each handoff note ``H-NNN.md`` with no ``H-NNN.json`` beside it."""
    handoffs = {file_name(p).removesuffix(".json") for _, p in conversation.handoff_files}
    for stem in sorted(conversation.notes - handoffs):
        if handoff_number(stem) is None:
            continue  # not named as a handoff's note
        yield ORPHAN_NOTE.at(
            f"{conversation.folder}/handoffs/{stem}.md",
            f"{stem}.md has no handoff {stem}.json beside it",
            line=1,
            column=1,
        )


def _utc(stamp: datetime) -> str | None:
    """``stamp`` in UTC as a handoff name writes it; None for a time whose UTC falls
    outside the years 1-9999 (``0001-01-01T00:00:00+01:00``): no name can carry it."""
    try:
        return _local(stamp.astimezone(timezone.utc))
    except OverflowError:
        return None


def _local(stamp: datetime) -> str:
    """``stamp`` as a handoff name writes it, in its own offset (years zero-padded: the
    platform's ``strftime`` may not pad them)."""
    return f"{stamp:%Y}".zfill(4) + f"{stamp:%m%d-%H%M%S}"


def _time_mismatch(embedded: str, produced: datetime, strict: bool) -> str | None:
    """What ``produced`` is, in the times a handoff name may carry (its UTC time; with
    ``strict`` off also its own offset's), when ``embedded`` is none of them; else None."""
    utc, own = _utc(produced), _local(produced)
    accepted = {utc} if strict else {utc, own}
    if embedded in accepted:
        return None
    if utc is None:
        return f"{own} in its own offset (its UTC time is outside the years 1-9999)"
    if strict or own == utc:
        return f"{utc} in UTC"
    return f"{utc} in UTC and {own} in its own offset"


def _note_of(index: RepoIndex, path: str) -> bool:
    folder, _, name = path.rpartition("/")
    stem = name.removesuffix(".json")
    twins = {stem, stem.removeprefix("H-"), f"H-{stem}"}
    return any(f"{folder}/{twin}" in index.notes_by_folder for twin in twins)


def _renamed_missions(index: RepoIndex) -> dict[str, str]:
    """Mission folder names whose ``mission.json`` carries another id, with that id: files
    inside naming either are judged by the mission's AL202 (a renamed folder or a
    mistyped id), not each on its own."""
    missions = posixpath.join(index.agent_prefix, "missions")
    return {
        posixpath.basename(folder): posixpath.basename(named)
        for folder, named in renamed_folders(index).items()
        if posixpath.dirname(folder) == missions
    }


def check_timed_handoffs(index: RepoIndex) -> Iterator[Diagnostic]:
    """Project and mission handoffs: name time == produced_at, unique per folder, a note beside.

    The name's time may be ``produced_at``'s local time as written (any UTC
    offset) or its UTC time; ``strict = true`` accepts only UTC.
    """
    cortex = facts_of(index)
    renamed = _renamed_missions(index)
    for path, mission, mission_id in cortex.mission_bindings:
        if isinstance(mission_id, str) and mission_id not in (mission, renamed.get(mission)):
            yield MISSION_MISMATCH.at(
                path,
                f"mission_id {quote(mission_id)} but the file is stored under missions/{mission}/",
                pointer="/mission_id",
            )
    by_time: dict[tuple[str, str], list[str]] = defaultdict(list)
    for handoff in sorted(cortex.timed_handoffs, key=lambda h: h.path):
        if not _note_of(index, handoff.path):
            names = _note_names(handoff.path, True)
            missing = _missing_note(index, handoff.path, handoff.note_ref, names)
            if missing is not None:
                yield missing
        if (
            handoff.mission is not None
            and isinstance(handoff.mission_id, str)
            and handoff.mission_id not in (handoff.mission, renamed.get(handoff.mission))
        ):
            yield MISSION_MISMATCH.at(
                handoff.path,
                f"mission_id {quote(handoff.mission_id)} but the handoff is stored under "
                f"missions/{handoff.mission}/",
                pointer="/mission_id",
            )
        embedded = embedded_time(file_name(handoff.path).removesuffix(".json"))
        if embedded is None:
            continue
        produced = parse_timestamp(handoff.produced_at)
        if produced is not None:
            mismatch = _time_mismatch(embedded, produced, index.config.strict)
            if mismatch is not None:
                yield HANDOFF_TIME_MISMATCH.at(
                    handoff.path,
                    f"handoff name time {embedded} but produced_at {handoff.produced_at} "
                    f"is {mismatch}",
                    pointer="/produced_at",
                )
        earlier = by_time[(handoff.folder, embedded)]
        if earlier:
            yield DUPLICATE_HANDOFF_TIME.at(
                handoff.path,
                f"handoff name time {embedded} is also used by {file_name(earlier[0])}",
                pointer="/handoff_id",
            )
        earlier.append(handoff.path)
