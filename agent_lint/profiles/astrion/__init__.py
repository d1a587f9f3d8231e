"""The Astrion profile: the Astrion multi-agent store (roles, conversations, sub-agents).

The profile value is :data:`agent_lint.profiles.astrion.profile.PROFILE`.
"""

from __future__ import annotations

from agent_lint.profile import Marker

TITLE = "Astrion"

_STORE = ("state.json", "conversations/")

#: Where the store is found: ``.astrion/``, the host's multi-agent folder in it, or the
#: folder searched itself, each holding ``state.json`` and ``conversations/``.
MARKERS: tuple[Marker, ...] = (
    Marker(".astrion", all_of=_STORE),
    Marker(".astrion/astrion/host/mutiagents", all_of=_STORE),
    Marker("", all_of=_STORE),
)

RECORD_FOLDERS: frozenset[str] = frozenset({"agents", "conversations"})
