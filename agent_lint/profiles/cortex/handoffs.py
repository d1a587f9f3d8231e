"""Facts about conversations and handoffs, gathered in the one pass.

The ordering (AL4xx) and agreement (AL5xx) checks and ``--fix`` all work
from these small records; no parsed document is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from agent_lint.frozen import field, record
from agent_lint.kinds import whole
from agent_lint.profiles.cortex import checksum
from agent_lint.validators.indexes import same_value

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
    note_ref: Any = None  # artifacts.markdown_ref: where it says its note is
    recorded_id: Any = None  # the handoff_id it holds (its id is the file stem)

    @property
    def unverified(self) -> bool:
        """Whether its ``checksum`` is not the checksum of its content (its AL501)."""
        return (
            self.clean
            and self.checksum_error is None
            and isinstance(self.checksum, str)
            and self.computed is not None
            and self.checksum != self.computed
        )

    def mirrored_checksum(self, held: Any, lenient: bool) -> Any:
        """The checksum a mirror of this handoff (state.json, meta.json) should carry, which
        holds ``held`` now.

        Its ``checksum``, as written. When that does not verify and ``lenient`` (AL501
        reports it), the checksum of its content is right too: a mirror holding either
        agrees (the handoff's AL501 is the one finding), and one holding neither gets the
        computed value, never a copy of the mistake.
        """
        if lenient and self.unverified:
            return held if held in (self.checksum, self.computed) else self.computed
        return self.checksum

    def mirrored_time(self, held: Any) -> Any:
        """The ``timestamp`` a mirror of this handoff should hold, that holds ``held`` now:
        ``held`` itself when it is the same moment written another way (``…:00.000Z``,
        ``+08:00``; the writers' languages differ), else the handoff's own."""
        return held if held is not None and same_value(held, self.timestamp) else self.timestamp

    def entry(
        self, held: Any = None, lenient: bool = False, held_time: Any = None
    ) -> dict[str, Any]:
        """The ``meta.json`` ``handoffs[]`` entry that mirrors this handoff (``held``: the
        checksum the entry holds now, see :meth:`mirrored_checksum`; ``held_time``: its
        timestamp, see :meth:`mirrored_time`)."""
        return {
            "handoff_id": self.id,
            "from_agent": self.from_agent.get("agent_id"),
            "to_agent": self.to_agent.get("agent_id"),
            "timestamp": self.mirrored_time(held_time),
            "reason": self.reason,
            "checksum": self.mirrored_checksum(held, lenient),
        }

    def active_agent(self) -> dict[str, Any]:
        """The active agent after this handoff: its ``to_agent``."""
        return {
            "type": self.to_agent.get("type"),
            "agent_id": self.to_agent.get("agent_id"),
            "session_id": self.to_agent.get("target_session"),
        }


class Turn(NamedTuple):
    """One turn file: the number of its name, its timestamp, and the ``turn`` it records
    (None when that is not an integer)."""

    number: int
    path: str
    timestamp: Any
    recorded: int | None = None


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

    def numbered_turns(self) -> list[tuple[int, str]]:
        """Each turn file's number and path: the number of its name, except for a file
        misnamed: one that records a turn that the N files leave out of 1 to N.

        ``0009.yaml`` that records ``turn: 2`` beside ``0001.yaml`` alone is turn 2 with
        a wrong name (its AL202), not a gap from 0002 to 0008 that meta.json and
        state.json then disagree with: one fact, one finding.
        """
        holes = set(range(1, len(self.turn_files) + 1))
        holes.difference_update(number for number, _ in self.turn_files)
        if not holes:
            return self.turn_files
        recorded = {turn.path: turn.recorded for turn in self.turns}
        numbered = []
        for number, path in self.turn_files:
            said = recorded.get(path)
            numbered.append((said if said is not None and said in holes else number, path))
        return numbered

    def numbered_handoffs(self, misnamed: Callable[[str], bool]) -> list[tuple[int | None, str]]:
        """Each handoff file's number and path, as :meth:`numbered_turns` numbers turns:
        a misnamed file whose ``handoff_id`` is a number the files leave out of 1 to N is
        that number (``H-005.json`` holding ``H-004`` after H-003 is its AL202, not also a
        gap at H-004), where ``misnamed(path)`` says its AL202 is reported as an error."""
        holes = set(range(1, len(self.handoff_files) + 1))
        holes.difference_update(number for number, _ in self.handoff_files)
        if not holes:
            return self.handoff_files
        recorded = {
            h.path: handoff_number(h.recorded_id)
            for h in self.handoffs
            if isinstance(h.recorded_id, str)
        }
        numbered = []
        for number, path in self.handoff_files:
            said = recorded.get(path)
            renamed = said is not None and said in holes and misnamed(path)
            numbered.append((said if renamed else number, path))
        return numbered

    def latest_turn(self) -> int | None:
        """N: the highest turn number (:meth:`numbered_turns`), or None without turn files."""
        return max((number for number, _ in self.numbered_turns()), default=None)

    def own_ids(self, renamed: Mapping[str, str]) -> set[str]:
        """The ids the conversation's files may carry: its folder's name and, for a folder
        whose ``meta.json`` carries another id (its AL202: a renamed folder, or a
        mistyped id), that id too.

        ``renamed`` is :func:`~agent_lint.validators.identity.renamed_folders`.
        """
        named = renamed.get(self.folder)
        return {self.name} if named is None else {self.name, PurePosixPath(named).name}

    def _turn_without_files(self, latest: Handoff) -> Any:
        """``latest_turn`` when no turn file is known (turns kept out of git, or not
        written): N is unknown, so the value state.json holds stands when it is a whole
        number no lower than the latest handoff's ``context_pointer.latest_turn`` (turns
        only grow after a handoff); otherwise, and for a new state.json, that one."""
        held = self.state.get("latest_turn") if self.state is not None else None
        context = latest.context_turn
        whole = isinstance(held, int) and not isinstance(held, bool) and held >= 0
        context_whole = isinstance(context, int) and not isinstance(context, bool)
        if whole and (not context_whole or held >= context):
            return held
        return context

    def derived_state(
        self,
        reported: Callable[[Handoff], bool] | None = None,
        renamed: Mapping[str, str] | None = None,
    ) -> dict[str, Any] | None:
        """The ``handoffs/state.json`` this conversation should have, or None.

        None when there is no handoff, or when a handoff file did not parse or
        has findings of its own (the latest state cannot be known). ``reported``
        tells whether AL501 is reported on a handoff (see
        :meth:`Handoff.mirrored_checksum`); without it, never. ``renamed`` tells
        which folders were renamed away from their id (:meth:`own_ids`): a
        ``conversation_id`` that is one of them stands.
        """
        latest = self.latest()
        if latest is None or self.broken:
            return None
        turn = self.latest_turn()
        held = self.state.get("checksum") if self.state is not None else None
        held_id = self.state.get("conversation_id") if self.state is not None else None
        return {
            "conversation_id": held_id
            if isinstance(held_id, str) and held_id in self.own_ids(renamed or {})
            else self.name,
            "latest_handoff_id": latest.id,
            "active_agent": latest.active_agent(),
            "latest_turn": turn if turn is not None else self._turn_without_files(latest),
            "checksum": latest.mirrored_checksum(held, reported is not None and reported(latest)),
            "updated_at": latest.mirrored_time(
                self.state.get("updated_at") if self.state else None
            ),
        }


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
        note_ref=note_ref(data),
        recorded_id=data.get("handoff_id"),
    )


def note_ref(data: dict[str, Any]) -> Any:
    """A handoff's ``artifacts.markdown_ref``: where it says its Markdown note is."""
    return _dict(data.get("artifacts")).get("markdown_ref")


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
    note_ref: Any = None
