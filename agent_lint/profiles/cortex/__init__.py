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
