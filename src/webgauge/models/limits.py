"""Per-endpoint concurrency limits: one ``asyncio.Semaphore`` per (provider, endpoint, event loop).

Every model object that talks to the same provider at the same endpoint shares one
semaphore, so ten ``get_model("openai:...", base_url=X)`` objects still send at most
``limit`` requests to X at a time. Semaphores belong to an event loop, so they are kept
per loop (a weak map: a closed loop's semaphores go away with it).

The limit of an endpoint is fixed by the first model that uses it in a loop; a later model
asking for a different limit gets a clear error instead of a silently different limit.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref

from webgauge.models.errors import ModelConfigError

__all__ = ["endpoint_semaphore", "default_concurrency"]

_lock = threading.Lock()
_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict] = weakref.WeakKeyDictionary()


def default_concurrency(provider_default: int) -> int:
    """The limit used when a model sets none: ``WEBGAUGE_MAX_CONCURRENCY`` or the provider's default."""
    env = os.environ.get("WEBGAUGE_MAX_CONCURRENCY")
    if env:
        try:
            value = int(env)
        except ValueError:
            raise ModelConfigError(f"WEBGAUGE_MAX_CONCURRENCY must be an integer, got {env!r}") from None
        if value < 1:
            raise ModelConfigError("WEBGAUGE_MAX_CONCURRENCY must be >= 1")
        return value
    return provider_default


def endpoint_semaphore(provider: str, endpoint: str, limit: int,
                       loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Semaphore:
    """The shared semaphore for ``provider`` at ``endpoint`` in the running loop."""
    if limit < 1:
        raise ModelConfigError(f"max_concurrency must be >= 1, got {limit}")
    loop = loop or asyncio.get_running_loop()
    key = (provider, endpoint)
    with _lock:
        for old in [lp for lp in _by_loop if lp.is_closed()]:  # a semaphore may hold its loop alive
            del _by_loop[old]
        table = _by_loop.setdefault(loop, {})
        entry = table.get(key)
        if entry is None:
            entry = (limit, asyncio.Semaphore(limit))
            table[key] = entry
        elif entry[0] != limit:
            raise ModelConfigError(
                f"{provider} endpoint {endpoint or '(local)'} already has max_concurrency={entry[0]} "
                f"in this event loop; asked for {limit}. Give every model of one endpoint the same "
                f"max_concurrency (or set WEBGAUGE_MAX_CONCURRENCY).")
        return entry[1]
