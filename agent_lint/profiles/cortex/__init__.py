"""The Cortex profile: the ``.agent/`` directory of Cortex-style agents.

The profile value is :data:`agent_lint.profiles.cortex.profile.PROFILE`; its
kinds are in :mod:`~agent_lint.profiles.cortex.kinds`, its facts in
:mod:`~agent_lint.profiles.cortex.facts`, its fixer in
:mod:`~agent_lint.profiles.cortex.fixes` and its job summary section in
:mod:`~agent_lint.profiles.cortex.summary`.
"""
