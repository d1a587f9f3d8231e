"""The Personal Bot profile: Pi Personal Bot storage (control records, teams, history).

The profile value is :data:`agent_lint.profiles.personal_bot.profile.PROFILE`.
"""

from __future__ import annotations

from agent_lint.profile import Marker

TITLE = "Personal Bot"

#: Where the store is found: the folder searched, holding the history archive or an agent
#: dir's sub-agents or teams.
MARKERS: tuple[Marker, ...] = (
    Marker(
        "",
        any_of=(
            ".pi/pbot/history/",
            ".pi/agent/pbot/subagents/",
            ".pi/agent/pbot/teams/",
            "pbot/subagents/",
            "pbot/teams/",
        ),
    ),
)

RECORD_FOLDERS: frozenset[str] = frozenset({"pbot", ".pi/pbot", ".pi/agent/pbot"})
