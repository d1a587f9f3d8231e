"""The Cortex profile: the ``.agent/`` directory of Cortex-style agents.

The profile value is :data:`agent_lint.profiles.cortex.profile.PROFILE`; its
kinds are in :mod:`~agent_lint.profiles.cortex.kinds`, its facts in
:mod:`~agent_lint.profiles.cortex.facts`, its own checks in
:mod:`~agent_lint.profiles.cortex.ordering` (AL4xx),
:mod:`~agent_lint.profiles.cortex.agreement` (AL5xx),
:mod:`~agent_lint.profiles.cortex.states` (AL308-AL313),
:mod:`~agent_lint.profiles.cortex.notes` (AL314, AL315) and
:mod:`~agent_lint.profiles.cortex.conversations` (AL206, AL316), its fixer in
:mod:`~agent_lint.profiles.cortex.fixes` and its job summary section in
:mod:`~agent_lint.profiles.cortex.summary`.
"""

from __future__ import annotations

from agent_lint.profile import Marker

TITLE = "Cortex"

#: Top-level folders of the agent dir that hold records. Every ``.json`` or
#: ``.yaml`` file under one of them is parsed; one that matches no kind (and
#: is not a support file) is reported with the name it should have (AL205).
RECORD_FOLDERS: frozenset[str] = frozenset(
    {
        "agents",
        "conversations",
        "decisions",
        "handoffs",
        "inbox",
        "memory",
        "missions",
        "runs",
        "sessions",
        "tasks",
        "waitpoints",
    }
)

#: Where the store is found: ``.agent/``, or a folder holding record folders (and no
#: ``state.json``, which marks an Astrion store).
MARKERS: tuple[Marker, ...] = (
    Marker(".agent"),
    Marker(
        "",
        any_of=tuple(f"{folder}/" for folder in sorted(RECORD_FOLDERS)),
        none_of=("state.json",),
    ),
)
