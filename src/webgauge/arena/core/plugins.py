"""Extending the arena from another package, through entry points (no fork, no private hooks).

Two entry-point groups, read once when :mod:`webgauge.arena` is imported:

- ``webgauge.arena.apps``: each entry point loads an :class:`~webgauge.arena.apps.asgi.AsgiApp`
  (a Starlette app, its schema, seed function, flags and irreversible controls). It is
  served by the episode server under its prefix, seeded into every episode database and
  restored by reset like the built-in apps.
- ``webgauge.arena.families``: each entry point loads either one family function
  ``(seed, state) -> Task`` (registered as the entry point's name) or a module with a
  ``FAMILIES`` tuple (registered as ``<entry point name>.<function name>``).

In ``pyproject.toml`` of the plug-in package::

    [project.entry-points."webgauge.arena.apps"]
    helpdesk = "my_pkg.helpdesk:APP"
    [project.entry-points."webgauge.arena.families"]
    helpdesk = "my_pkg.helpdesk_tasks"

A plug-in that fails to load is a clear error naming the entry point and the fix.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

__all__ = ["APPS_GROUP", "FAMILIES_GROUP", "load_plugins", "PluginError"]

APPS_GROUP = "webgauge.arena.apps"
FAMILIES_GROUP = "webgauge.arena.families"


class PluginError(RuntimeError):
    """An arena plug-in entry point that cannot be loaded or has the wrong type."""


def load_plugins(group: str) -> list[tuple[str, Any]]:
    """``(name, loaded object)`` of every entry point in ``group``, sorted by name."""
    out = []
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            out.append((ep.name, ep.load()))
        except Exception as exc:
            raise PluginError(f"arena plug-in {ep.name!r} ({ep.value}) in group {group!r} failed to load: "
                              f"{type(exc).__name__}: {exc}; fix or uninstall the package that declares it") from exc
    return out
