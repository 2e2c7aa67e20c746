"""Real open-source web apps run on loopback and reset from SQLite snapshots (see docs/arena-real-apps.md)."""

from __future__ import annotations

from .base import AppNotInstalled, AppStats, ContentCount, InstallReport, RealAppSpec, apps_home

__all__ = ["AppNotInstalled", "AppStats", "ContentCount", "InstallReport", "RealAppSpec", "apps_home", "get_spec",
           "irreversible_names", "specs"]


def specs() -> dict[str, RealAppSpec]:
    from .mediawiki.app import SPEC as MEDIAWIKI
    from .oscar.app import SPEC as OSCAR
    from .roundup.app import SPEC as ROUNDUP
    from .spirit.app import SPEC as SPIRIT
    from .trac.app import SPEC as TRAC

    return {s.name: s for s in (ROUNDUP, MEDIAWIKI, OSCAR, TRAC, SPIRIT)}


def irreversible_names(name: str) -> tuple[str, ...]:
    """The controls real app ``name`` declares irreversible (its ``IRREVERSIBLE``: what the approval gate
    asks before); no install needed."""
    import importlib

    get_spec(name)  # an unknown app fails here, naming the known ones
    return tuple(importlib.import_module(f"{__name__}.{name}.app").IRREVERSIBLE)


def get_spec(name: str) -> RealAppSpec:
    all_ = specs()
    if name not in all_:
        raise KeyError(f"unknown real app {name!r}; known: {', '.join(sorted(all_))}")
    return all_[name]
