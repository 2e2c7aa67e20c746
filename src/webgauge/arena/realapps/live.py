"""The real apps' servers of this process: each started on first use and stopped at exit.

One installed app is one live world (its files under the apps home), so a process runs one
server per app and its episodes take turns on it; :func:`live_app` hands out the app as an
arena :class:`~webgauge.arena.realapps.base.RealApp` (reset in-process, state by SQL).
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from . import get_spec
from .base import RealApp

__all__ = ["live_app", "stop_live_apps"]

_LIVE: dict[str, tuple[Any, RealApp]] = {}
_LOCK = threading.Lock()


def live_app(name: str) -> RealApp:
    """App ``name`` served on loopback (started now if this process has not started it yet); raises
    :class:`~webgauge.arena.realapps.AppNotInstalled` with the install command when it is missing."""
    with _LOCK:
        if name not in _LIVE:
            spec = get_spec(name)
            spec.require()
            if spec.server is None or spec.arena_app is None:
                raise RuntimeError(f"real app {name!r} declares no server")
            server = spec.server()
            server.__enter__()
            if not _LIVE:
                atexit.register(stop_live_apps)
            _LIVE[name] = (server, spec.arena_app(server))
        return _LIVE[name][1]


def stop_live_apps() -> None:
    """Stop every server :func:`live_app` started in this process."""
    with _LOCK:
        while _LIVE:
            _, (server, _app) = _LIVE.popitem()
            server.__exit__(None, None, None)


def snapshot_state(name: str, seed: int) -> dict[str, list[dict[str, Any]]]:
    """App ``name``'s state at ``seed`` as validators read it: the installed app reset to the seed's
    snapshot and read with its state query (no server needed; the live world is left at the seed)."""
    import importlib

    from ..adapters.external import normalize_state

    get_spec(name).require()
    mod = importlib.import_module(f"webgauge.arena.realapps.{name}.app")
    mod.reset(seed)
    return normalize_state(mod.state())
