"""The built-in profiles, registered here: one line per profile.

A profile package (``agent_lint/profiles/<name>/``) declares its value in its
``profile`` module; :func:`builtin` imports them on first use, so importing a
profile's own modules (its kinds, its facts) never loads the others.
"""

from __future__ import annotations

import functools
import importlib

from agent_lint.profile import Profile

#: The built-in profiles, in the order detection and ``--list-profiles`` show them.
BUILTIN: tuple[str, ...] = (
    "cortex",
    "astrion",
    "personal_bot",
)


@functools.cache
def builtin() -> tuple[Profile, ...]:
    """Every built-in profile value, in :data:`BUILTIN` order."""
    found = []
    for name in BUILTIN:
        module = importlib.import_module(f"agent_lint.profiles.{name}.profile")
        profile = module.PROFILE
        assert isinstance(profile, Profile) and profile.name == name, name
        found.append(profile)
    return tuple(found)


def names() -> tuple[str, ...]:
    """The names of the built-in profiles."""
    return BUILTIN


def get(name: str) -> Profile:
    """The built-in profile called ``name`` (KeyError when there is none)."""
    for profile in builtin():
        if profile.name == name:
            return profile
    raise KeyError(name)
