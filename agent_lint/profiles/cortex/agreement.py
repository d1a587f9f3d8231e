"""AL5xx: checksums of handoffs, and agreement of state.json and meta.json with them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from agent_lint.diagnostics import Diagnostic, Fix, Rule, Severity
from agent_lint.index import RepoIndex
from agent_lint.jsontext import clip, dumps
from agent_lint.profiles.cortex.checksum import CONTEXT_LISTS
from agent_lint.profiles.cortex.facts import facts_of
from agent_lint.profiles.cortex.handoffs import Conversation, Handoff, file_name
from agent_lint.schemas import parse_timestamp
from agent_lint.selection import RANK, is_selected
from agent_lint.validators.identity import renamed_folders
from agent_lint.validators.indexes import same_value

CHECKSUM_MISMATCH = Rule(
    "AL501",
    "handoff-checksum-mismatch",
    "A handoff's checksum is not the checksum of its content",
    "Reports a conversation handoff whose `checksum` differs from checksum v1 of its own "
    "content (docs/checksum.md): the context changed after the checksum was written, or the "
    "writer computed it differently. `agent-lint --print-checksum FILE` prints the right "
    "value. The handoff is the outgoing agent's record, so `--fix` never rewrites it. While "
    "this rule reports a handoff, state.json and meta.json may carry either checksum (this is "
    "the one finding), and `--fix` writes the computed one where they carry neither.",
    '"checksum": "sha256:0000…" for a handoff whose content hashes to sha256:9f0e…',
    '"checksum": "sha256:9f0e…" (the value --print-checksum prints)',
)
MISSING_STATE = Rule(
    "AL502",
    "missing-handoff-state",
    "A conversation with handoffs has no handoffs/state.json",
    "Reports a conversation that has handoff files but no `handoffs/state.json`. Agents "
    "rebuild the current context from state.json plus the latest handoff. `--fix` writes it. "
    "A state.json that the repository's git ignore rules exclude is kept out of git on "
    "purpose: its absence is not reported.",
    "handoffs/H-001.json without handoffs/state.json",
    "handoffs/state.json derived from H-001.json",
    fix=Fix.SAFE,
)
STATE_MISMATCH = Rule(
    "AL503",
    "handoff-state-mismatch",
    "handoffs/state.json disagrees with the latest handoff or the turns",
    "Reports a `handoffs/state.json` that differs from what the latest handoff and the "
    "turns say: `latest_handoff_id`, `checksum`, `active_agent` (the latest handoff's "
    "`to_agent`), `latest_turn` (the latest turn file), `updated_at` (the latest handoff's "
    "timestamp) and `conversation_id`. One finding per file, at the first field that "
    "differs, names every field that differs. `--fix` regenerates the file.",
    'state.json "latest_handoff_id": "H-002" while H-003.json exists',
    'state.json "latest_handoff_id": "H-003"',
    fix=Fix.SAFE,
    # latest_handoff_id naming no handoff, a malformed value or one of another type: the
    # file is regenerated whole.
    covers=("AL301", "AL105", "AL103"),
    per_file=True,  # one stale state.json, one finding
)
META_CHECKSUM = Rule(
    "AL504",
    "meta-checksum-mismatch",
    "meta.json does not carry the latest handoff's checksum",
    "Reports a `meta.json` whose `state.checksum` or last `handoffs[]` entry's `checksum` "
    "differs from the latest handoff's checksum: one finding per file, at the first, naming "
    "both when both differ; a meta.json with no checksum at all (every one null or absent) "
    "is this one finding, not also an AL406 per entry. `--fix --unsafe-fixes` copies them "
    "over, leaving the rest of meta.json byte for byte.",
    'meta.json "state": {"checksum": null} while H-003.json has sha256:9f0e…',
    'meta.json "state": {"checksum": "sha256:9f0e…"}',
    fix=Fix.UNSAFE,
    per_file=True,
)
CHECKSUM_UNCOMPUTABLE = Rule(
    "AL505",
    "checksum-uncomputable",
    "A handoff holds a value checksum v1 cannot canonicalise",
    "Reports a conversation handoff whose checksum input contains a value RFC 8785 has no "
    "exact canonical form for: an integer beyond 2^53-1, a string with a lone surrogate, or "
    "a non-string id in a context list. No implementation can verify its checksum.",
    '"context_pointer": {"latest_turn": 9007199254740993}',
    '"context_pointer": {"latest_turn": 12}',
)

RULES = (CHECKSUM_MISMATCH, MISSING_STATE, STATE_MISMATCH, META_CHECKSUM, CHECKSUM_UNCOMPUTABLE)


def short(value: Any) -> str:
    """A checksum shortened for messages (``sha256:9f0e1a2b3c4d…``), other values as JSON,
    an object's keys in its own order (as the file has them, or type, agent_id, session_id
    for an active agent derived from a handoff, as AL407 says it)."""
    if isinstance(value, str) and value.startswith("sha256:") and len(value) > 19:
        return value[:19] + "…"
    return clip(dumps(value))


def _handoff_checksums(conversation: Conversation) -> Iterator[Diagnostic]:
    for handoff in conversation.ordered():
        if not handoff.clean:
            continue  # the handoff's own findings come first
        if handoff.checksum_error is not None:
            yield CHECKSUM_UNCOMPUTABLE.at(
                handoff.path,
                f"checksum v1 cannot be computed: {handoff.checksum_error}",
                pointer="/context_pointer",
            )
        elif handoff.unverified:
            yield CHECKSUM_MISMATCH.at(
                handoff.path,
                f"checksum {short(handoff.checksum)} but the content of {file_name(handoff.path)} "
                f"hashes to {handoff.computed}",
                pointer="/checksum",
            )


_STATE_FIELDS = (
    "conversation_id",
    "latest_handoff_id",
    "active_agent",
    "latest_turn",
    "checksum",
    "updated_at",
)


def checksum_reported(index: RepoIndex) -> Callable[[Handoff], bool]:
    """Whether the configuration reports AL501 on a handoff: then a mirror of a handoff whose
    checksum does not verify may carry its computed one (:meth:`Handoff.mirrored_checksum`)."""
    config = index.config
    return lambda handoff: is_selected(CHECKSUM_MISMATCH.code, config, handoff.path)


def has_checksum(handoff: Handoff, lenient: bool) -> str:
    """How a message names the checksum a mirror of ``handoff`` should carry."""
    if lenient and handoff.unverified:
        return f"the content of {file_name(handoff.path)} hashes to"
    return f"{file_name(handoff.path)} has"


def _state(
    conversation: Conversation,
    reported: Callable[[Handoff], bool],
    renamed: Mapping[str, str],
    disputed: Collection[str] = (),
    ignores: Callable[[str], bool] | None = None,
    turns: tuple[Any, ...] = (),
) -> Iterator[Diagnostic]:
    """AL502/AL503: state.json exists (unless git ignores it: ``ignores``) and agrees with
    the latest handoff, except in the ``disputed`` fields, which that handoff's own
    finding is about."""
    expected = conversation.derived_state(reported, renamed)
    latest = conversation.latest()
    if expected is None or latest is None:
        return
    if not conversation.state_exists:
        expected_at = conversation.state_path or f"{conversation.folder}/handoffs/state.json"
        if ignores is not None and ignores(expected_at):
            return  # kept out of git on purpose (a derived file): no clone has it
        yield MISSING_STATE.at(
            latest.path,
            f"conversation {conversation.name} has handoffs but no "
            f"{conversation.folder}/handoffs/state.json (`agent-lint --fix` writes it)",
            line=1,
            column=1,
        )
        return
    state, path = conversation.state, conversation.state_path
    if state is None or path is None:
        return  # state.json exists but did not parse: AL001 says so
    source = {
        "conversation_id": f"the conversation folder is {conversation.name}",
        "latest_handoff_id": f"the latest handoff is {latest.id}",
        "active_agent": f"{latest.id} hands the conversation to",
        "latest_turn": "the latest turn is"
        if conversation.latest_turn() is not None
        else f"{latest.id}'s context_pointer.latest_turn is",
        "checksum": has_checksum(latest, reported(latest)),
        "updated_at": f"{latest.id}'s timestamp is",
    }
    differing = [
        key
        for key in _STATE_FIELDS
        if key not in disputed
        and (key not in state or state[key] != expected[key])
        and not (key == "latest_turn" and key in state and state[key] in turns)
    ]
    if not differing:
        return
    # One stale state.json is one finding, naming every field that differs.
    parts = []
    for key in differing:
        held = short(state[key]) if key in state else "is missing"
        if key in ("conversation_id", "latest_handoff_id"):
            parts.append(f"{key} {held} but {source[key]}")
        else:
            parts.append(f"{key} {held} but {source[key]} {short(expected[key])}")
    # Placed at the first differing field the file holds (a missing one has no place).
    placed = next((f"/{key}" for key in differing if key in state), "")
    yield STATE_MISMATCH.at(path, "state.json " + "; ".join(parts), pointer=placed)


def holds_no_checksum(meta: dict[str, Any]) -> bool:
    """Whether ``meta.json`` carries no checksum at all: ``state.checksum`` and every
    ``handoffs[]`` entry's ``checksum`` null or absent, and more than one entry. That is
    one fact (its writer does not copy checksums), one AL504 naming them all, not also
    an AL406 for each earlier entry."""
    state, entries = meta.get("state"), meta.get("handoffs")
    return (
        isinstance(state, dict)
        and state.get("checksum") is None
        and isinstance(entries, list)
        and len(entries) > 1
        and all(isinstance(e, dict) and e.get("checksum") is None for e in entries)
    )


def _meta(conversation: Conversation, reported: Callable[[Handoff], bool]) -> Iterator[Diagnostic]:
    meta, path, latest = conversation.meta, conversation.meta_path, conversation.latest()
    if meta is None or path is None or latest is None or conversation.broken:
        return
    lenient = reported(latest)
    has = has_checksum(latest, lenient)
    # Both mirrors of the checksum lag behind for one reason: one finding, at the first.
    parts: list[str] = []
    pointer = ""  # of the first mirror that lags
    state = meta.get("state")
    if isinstance(state, dict):
        held = state.get("checksum")
        expected = latest.mirrored_checksum(held, lenient)
        if held != expected:
            said = short(held) if "checksum" in state else "is missing"
            parts.append(f"state.checksum {said} but {has} {short(expected)}")
            pointer = "/state/checksum" if "checksum" in state else "/state"
    entries = meta.get("handoffs")
    unsaid = len(entries) if isinstance(entries, list) else 0  # entries not named yet
    if isinstance(entries, list) and entries and isinstance(entries[-1], dict):
        last = entries[-1]
        held = last.get("checksum")
        expected = latest.mirrored_checksum(held, lenient)
        if last.get("handoff_id") == latest.id and held != expected:
            position = len(entries) - 1
            if not parts:
                item = f"/handoffs/{position}"
                pointer = f"{item}/checksum" if "checksum" in last else item
            said = short(held) if "checksum" in last else "is missing"
            parts.append(f"handoffs[{position}].checksum {said} but {has} {short(expected)}")
            unsaid -= 1
    if parts and unsaid and holds_no_checksum(meta):
        earlier = (
            "handoffs[0] carries" if unsaid == 1 else f"handoffs[0] to handoffs[{unsaid - 1}] carry"
        )
        parts.append(f"{earlier} none either, where each handoff file has its own")
    if parts:
        yield META_CHECKSUM.at(path, "meta.json " + "; ".join(parts), pointer=pointer)


def check_agreement(index: RepoIndex) -> Iterator[Diagnostic]:
    """Handoff checksums, state.json and meta.json agree with the latest handoff."""
    conversations = facts_of(index).conversations
    reported = checksum_reported(index)
    renamed = renamed_folders(index)
    # Imported here: the ordering checks import this module.
    from agent_lint.profiles.cortex.ordering import (
        disputed_fields,
        disputed_turn,
        latest_faults,
        meta_lag,
    )

    if index.git_ignores is not None:  # one git question for every state.json not there
        index.git_ignores.among(
            c.state_path or f"{c.folder}/handoffs/state.json"
            for c in conversations.values()
            if not c.state_exists
        )
    for name in sorted(conversations):
        conversation = conversations[name]
        yield from _handoff_checksums(conversation)
        faults = latest_faults(index, conversation)
        yield from _state(
            conversation,
            reported,
            renamed,
            disputed_fields(faults),
            index.git_ignores,
            disputed_turn(conversation, faults),
        )
        lag = meta_lag(index, conversation, reported, faults)
        if lag is None or META_CHECKSUM.code not in lag.folded:
            # A meta.json written before the newest handoffs holds their checksum from then:
            # that is its AL406 (meta_lag).
            yield from _meta(conversation, reported)


def copies_once(findings: list[Diagnostic], index: RepoIndex) -> list[Diagnostic]:
    """Findings less those on ``meta.json`` that restate a latest handoff's finding in a
    value copied from it (:func:`_back_dated_copies`, :func:`_dangling_copies`)."""
    if not any(d.code in ("AL301", "AL313") for d in findings):
        return findings
    conversations = {
        c.meta_path: c for c in facts_of(index).conversations.values() if c.meta_path is not None
    }
    return _dangling_copies(_back_dated_copies(findings, conversations), index, conversations)


def _back_dated_copies(
    findings: list[Diagnostic], conversations: Mapping[str, Conversation]
) -> list[Diagnostic]:
    """A latest handoff's back-dated ``timestamp`` (its AL402) copied into ``meta.json``'s
    ``updated_at``, now earlier than ``created_at``, is that AL402, not also an AL313."""
    back_dated = {d.path for d in findings if d.code == "AL402" and d.severity is Severity.ERROR}
    if not back_dated:
        return findings
    kept = []
    for finding in findings:
        conversation = conversations.get(finding.path)
        if (
            finding.code == "AL313"
            and finding.pointer == "/updated_at"
            and conversation is not None
            and _copied_back_date(conversation, back_dated)
        ):
            continue
        kept.append(finding)
    return kept


def _copied_back_date(conversation: Conversation, back_dated: set[str]) -> bool:
    """Whether ``meta.json``'s ``updated_at`` is the back-dated time of the latest handoff
    (its AL402 an error, in ``back_dated``), and its ``created_at`` is no later than the
    handoff before: then the handoff dated right would clear the AL313 too."""
    ordered = conversation.ordered()
    meta = conversation.meta or {}
    if len(ordered) < 2 or ordered[-1].path not in back_dated:
        return False
    latest, previous = ordered[-1], ordered[-2]
    created, before = parse_timestamp(meta.get("created_at")), parse_timestamp(previous.timestamp)
    return (
        same_value(meta.get("updated_at"), latest.timestamp)
        and created is not None
        and before is not None
        and created <= before
    )


def _dangling_copies(
    findings: list[Diagnostic], index: RepoIndex, conversations: Mapping[str, Conversation]
) -> list[Diagnostic]:
    """An id that names no record, listed in a latest handoff's ``context_pointer`` and
    copied into ``meta.json``'s ``state`` list of the same name, is the handoff's AL301:
    the copy is not a second finding (one fact, one finding)."""
    dangling = [d for d in findings if d.code == "AL301"]
    if not dangling:
        return findings
    in_meta = [d for d in dangling if d.path in conversations]
    if not in_meta:
        return findings
    latest = {d.path: conversations[d.path].latest() for d in in_meta}
    wanted = {d.path for d in in_meta} | {h.path for h in latest.values() if h is not None}
    refs = [r for r in index.references if r.path in wanted]
    at = {(r.path, r.pointer): r for r in refs}
    reported = {(d.path, d.pointer): RANK[d.severity] for d in dangling}
    listed = {
        (r.path, r.field, r.value): reported[(r.path, r.pointer)]
        for r in refs
        if (r.path, r.pointer) in reported
    }
    copies = set()
    for finding in in_meta:
        ref, handoff = at.get((finding.path, finding.pointer)), latest[finding.path]
        if ref is None or handoff is None or not ref.field.startswith("state."):
            continue
        name = ref.field.removeprefix("state.").removesuffix("[]")
        source = (handoff.path, f"context_pointer.{name}[]", ref.value)
        # Only a finding at least as severe as the copy's stands for it.
        if name in CONTEXT_LISTS and listed.get(source, -1) >= RANK[finding.severity]:
            copies.add(id(finding))
    return [d for d in findings if id(d) not in copies]
