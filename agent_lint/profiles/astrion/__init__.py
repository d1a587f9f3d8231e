"""The Astrion profile: the Astrion multi-agent store (roles, conversations, sub-agents).

The profile value is :data:`agent_lint.profiles.astrion.profile.PROFILE`.
"""
