"""Facts about conversations and handoffs, gathered in the one pass.

The ordering (AL4xx) and agreement (AL5xx) checks and ``--fix`` all work
from these small records; no parsed document is kept.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, NamedTuple

from agent_lint.frozen import field, record
from agent_lint.kinds import whole
from agent_lint.profiles.cortex import checksum
from agent_lint.schemas import parse_timestamp

# ASCII digits only: "H-٠٠٤" is not handoff 4, and "0004\n" is not turn 4.
_NUMBER = whole("H-([0-9]{3,})")
_TIMED = whole("(?:H-)?([0-9]{8})-([0-9]{6})(?:-.*)?")
_TURN = whole("[0-9]+")


class Handoff(NamedTuple):
    """One conversation handoff file."""

    id: str
    number: int
    path: str
    conversation_id: Any
    timestamp: Any
    from_agent: dict[str, Any]
    to_agent: dict[str, Any]
    reason: Any
    checksum: Any
    computed: str | None
    checksum_error: str | None
    context_turn: Any
    clean: bool = True

    def entry(self) -> dict[str, Any]:
        """The ``meta.json`` ``handoffs[]`` entry that mirrors this handoff."""
        return {
            "handoff_id": self.id,
            "from_agent": self.from_agent.get("agent_id"),
            "to_agent": self.to_agent.get("agent_id"),
            "timestamp": self.timestamp,
            "reason": self.reason,
            "checksum": self.checksum,
        }

    def misplaced_in(self, conversation: str) -> bool:
        """Whether its ``conversation_id`` names another conversation than its folder (AL403)."""
        return isinstance(self.conversation_id, str) and self.conversation_id != conversation

    def checksum_wrong(self) -> bool:
        """Whether its checksum is not its content's, or cannot be computed (AL501, AL505)."""
        if self.checksum_error is not None:
            return True
        return isinstance(self.checksum, str) and self.checksum != self.computed

    def active_agent(self) -> dict[str, Any]:
        """The active agent after this handoff: its ``to_agent``."""
        return {
            "type": self.to_agent.get("type"),
            "agent_id": self.to_agent.get("agent_id"),
            "session_id": self.to_agent.get("target_session"),
        }


class Turn(NamedTuple):
    """One turn file: its number and timestamp; ``clean`` when it has no error of its own."""

    number: int
    path: str
    timestamp: Any
    clean: bool = True


@record
class Conversation:
    """Everything ordering and agreement checks need about one conversation."""

    name: str
    folder: str
    handoffs: list[Handoff] = field(default_factory=list)
    handoff_files: list[tuple[int | None, str]] = field(default_factory=list)
    notes: set[str] = field(default_factory=set)
    turns: list[Turn] = field(default_factory=list)
    turn_files: list[tuple[int, str]] = field(default_factory=list)
    meta_path: str | None = None
    meta: dict[str, Any] | None = None
    state_path: str | None = None
    state: dict[str, Any] | None = None
    state_exists: bool = False
    resume_path: str | None = None
    resume_handoff: Any = None
    broken: set[str] = field(default_factory=set)

    def ordered(self) -> list[Handoff]:
        """Handoffs by number, then path."""
        return sorted(self.handoffs, key=lambda h: (h.number, h.path))

    def latest(self) -> Handoff | None:
        """The handoff with the highest number."""
        ordered = self.ordered()
        return ordered[-1] if ordered else None

    def latest_turn(self) -> int | None:
        """N: the highest turn file number, or None when there are no turn files."""
        return max((number for number, _ in self.turn_files), default=None)

    def turns_known(self) -> bool:
        """Whether every turn read has no error of its own. A turn file renamed (its
        ``turn`` is not its name: AL202) or broken leaves the latest turn unknown: the
        counts that mirror it are judged, and written by ``--fix``, once it is fixed."""
        return all(turn.clean for turn in self.turns)

    def unsound(self) -> set[str]:
        """The handoffs that the ordering or agreement checks report: stored in another
        conversation (AL403), handed over by an agent that did not hold the conversation
        (AL404), back-dated (AL402), or with a checksum that is not its content's (AL501,
        AL505). Such a handoff cannot judge the files that mirror it (see :meth:`judges`)."""
        found: set[str] = set()
        previous: Handoff | None = None
        for handoff in self.ordered():
            if handoff.number < 0:
                continue
            follows = previous is None or not (
                time_reversed(previous, handoff) or chain_broken(previous, handoff)
            )
            if handoff.misplaced_in(self.name) or handoff.checksum_wrong() or not follows:
                found.add(handoff.path)
            previous = handoff
        return found

    def judges(self, latest_only: bool = False) -> bool:
        """Whether the handoffs can judge the files that mirror them, and give what
        ``--fix`` writes there: meta.json's ``handoffs[]`` mirrors every handoff,
        state.json, turn_resumed.yaml and the rest of meta.json the latest
        (``latest_only``).

        Not when a handoff did not parse or has errors of its own (``broken``),
        nor when a handoff mirrored is :meth:`unsound`, nor, for every handoff,
        across a gap in their numbers: that finding is then the one reported,
        and the mirrors, often right, are judged once it is fixed, never
        rewritten from the mistake.
        """
        if self.broken:
            return False
        unsound = self.unsound()
        if not latest_only:
            # A gap in the numbers (AL401) is a handoff missing, which meta.json may list.
            numbers = sorted(h.number for h in self.handoffs if h.number >= 0)
            return not unsound and numbers == list(range(1, len(numbers) + 1))
        latest = self.latest()
        return latest is not None and latest.path not in unsound

    def derived_state(self) -> dict[str, Any] | None:
        """The ``handoffs/state.json`` this conversation should have, or None.

        None when there is no handoff, or when the latest cannot judge it
        (:meth:`judges`: the latest state cannot be known).
        """
        latest = self.latest()
        if latest is None or not self.judges(latest_only=True) or not self.turns_known():
            return None
        turn = self.latest_turn()
        return {
            "conversation_id": self.name,
            "latest_handoff_id": latest.id,
            "active_agent": latest.active_agent(),
            "latest_turn": turn if turn is not None else latest.context_turn,
            "checksum": latest.checksum,
            "updated_at": latest.timestamp,
        }


def time_reversed(previous: Handoff, handoff: Handoff) -> bool:
    """Whether ``handoff``'s timestamp is not later than the one before it (AL402)."""
    before, after = parse_timestamp(previous.timestamp), parse_timestamp(handoff.timestamp)
    return bool(before and after and after <= before)


def chain_broken(previous: Handoff, handoff: Handoff) -> bool:
    """Whether ``handoff``, the next number after ``previous``, is handed over by another
    agent than the one ``previous`` handed the conversation to (AL404). Across a gap in
    the numbers (AL401) nothing is compared: the missing handoff may have been between."""
    if handoff.number != previous.number + 1:
        return False
    handed_to = previous.to_agent.get("agent_id")
    handed_from = handoff.from_agent.get("agent_id")
    return isinstance(handed_to, str) and isinstance(handed_from, str) and handed_to != handed_from


def file_name(path: str) -> str:
    """The last component of a repository path (``H-002.json``)."""
    return PurePosixPath(path).name


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def handoff_from(path: str, stem: str, data: dict[str, Any], clean: bool) -> Handoff:
    """Extract a :class:`Handoff` from a parsed conversation handoff file.

    Its id is the file stem: agents find handoffs by file name, and an id
    that disagrees with it is reported on its own (AL202). ``clean`` is false
    when the file has error findings of its own.
    """
    match = _NUMBER.match(stem)
    computed: str | None = None
    error: str | None = None
    try:
        computed = checksum.compute(data)
    except checksum.ChecksumError as exc:
        error = str(exc)
    return Handoff(
        id=stem,
        number=int(match.group(1)) if match else -1,
        path=path,
        conversation_id=data.get("conversation_id"),
        timestamp=data.get("timestamp"),
        from_agent=_dict(data.get("from_agent")),
        to_agent=_dict(data.get("to_agent")),
        reason=data.get("reason"),
        checksum=data.get("checksum"),
        computed=computed,
        checksum_error=error,
        context_turn=_dict(data.get("context_pointer")).get("latest_turn"),
        clean=clean,
    )


def handoff_number(stem: str) -> int | None:
    """The number of a conversation handoff file stem (``H-007`` -> 7)."""
    match = _NUMBER.match(stem)
    return int(match.group(1)) if match else None


def turn_number(stem: str) -> int | None:
    """The number of a turn file stem (``0007`` -> 7), if it is ASCII digits only.

    A stem shorter than four digits still counts (AL204 reports its name once).
    """
    return int(stem) if _TURN.match(stem) else None


def embedded_time(handoff_id: str) -> str | None:
    """``YYYYMMDD-HHMMSS`` embedded in a project or mission handoff name, if any."""
    match = _TIMED.match(handoff_id)
    return f"{match.group(1)}-{match.group(2)}" if match else None


class TimedHandoff(NamedTuple):
    """A project or mission handoff: its folder, id time and ``produced_at``."""

    folder: str
    id: str
    path: str
    produced_at: Any
    mission: str | None
    mission_id: Any
