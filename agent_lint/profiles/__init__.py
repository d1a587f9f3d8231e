"""The built-in profiles, registered here: one line per profile.

A profile package (``agent_lint/profiles/<name>/``) declares its value in its
``profile`` module; :func:`get` and :func:`builtin` import them on first use,
so importing a profile's own modules (its kinds, its facts) never loads the
others. A package may also declare in its ``__init__`` what finding its store
takes (``TITLE``, ``MARKERS``, ``RECORD_FOLDERS``): store detection then reads
only that (:func:`outlines`), and a run loads the one profile that matched.
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


#: The built-in profiles whose modules are loaded, by name.
_LOADED: dict[str, Profile] = {}


def _load(name: str) -> Profile:
    """The value of the built-in profile ``name``, its modules imported on first use."""
    profile = _LOADED.get(name)
    if profile is None:
        module = importlib.import_module(f"agent_lint.profiles.{name}.profile")
        profile = module.PROFILE
        assert isinstance(profile, Profile) and profile.name == name, name
        _LOADED[name] = profile
    return profile


def loaded() -> tuple[Profile, ...]:
    """The built-in profiles loaded so far, in :data:`BUILTIN` order."""
    return tuple(_LOADED[name] for name in BUILTIN if name in _LOADED)


@functools.cache
def builtin() -> tuple[Profile, ...]:
    """Every built-in profile value, in :data:`BUILTIN` order."""
    return tuple(_load(name) for name in BUILTIN)


def names() -> tuple[str, ...]:
    """The names of the built-in profiles."""
    return BUILTIN


def get(name: str) -> Profile:
    """The built-in profile called ``name`` (KeyError when there is none); loads only it."""
    if name not in BUILTIN:
        raise KeyError(name)
    return _load(name)


@functools.cache
def _outline(name: str) -> Profile:
    """What store detection needs of the built-in profile ``name`` (see :func:`outlines`)."""
    package = importlib.import_module(f"agent_lint.profiles.{name}")
    if not all(hasattr(package, key) for key in ("TITLE", "MARKERS", "RECORD_FOLDERS")):
        return _load(name)  # a package that declares no outline is detected by its value
    return Profile(
        name=name,
        title=package.TITLE,
        description="",
        markers=package.MARKERS,
        kinds=(),
        namespaces={},
        record_folders=package.RECORD_FOLDERS,
        schema_folder="",
    )


def outline(name: str) -> Profile:
    """The built-in profile ``name`` as store detection sees it (KeyError when there is none).

    Only its name, title, markers and record folders are set, so finding a
    store imports none of its kinds, checks or facts; :func:`get` with the
    same name gives the whole value.
    """
    if name not in BUILTIN:
        raise KeyError(name)
    return _outline(name)


def outlines() -> tuple[Profile, ...]:
    """Every built-in profile as store detection sees it, in :data:`BUILTIN` order."""
    return tuple(outline(name) for name in BUILTIN)
