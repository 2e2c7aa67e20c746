"""One client per running event loop, closed when that loop shuts down.

HTTP clients (httpx, the Anthropic and Gemini SDKs) hold connections that belong to the event
loop that opened them. A model object may be used from several loops one after another (a
sync caller doing ``asyncio.run`` per call, pytest's loop per test), so providers keep one
client per loop in :class:`PerLoop`. Each client is guarded by an async generator started in
its loop: ``asyncio.run`` finalizes pending async generators before closing the loop
(``loop.shutdown_asyncgens``), which closes the client there, so no socket outlives its loop.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["PerLoop"]

T = TypeVar("T")


class PerLoop(Generic[T]):
    """``await per_loop.get()`` returns this loop's resource, made by ``make()`` on first use."""

    def __init__(self, make: Callable[[], T], close: Callable[[T], Awaitable[None]]) -> None:
        self._make = make
        self._close = close
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple] = weakref.WeakKeyDictionary()

    async def get(self) -> T:
        """The running loop's resource (made now if needed)."""
        loop = asyncio.get_running_loop()
        entry = self._by_loop.get(loop)
        if entry is None:
            for old in [lp for lp in self._by_loop if lp.is_closed()]:  # already closed with their loop
                del self._by_loop[old]
            resource = self._make()
            guard = self._guard(resource)
            await guard.__anext__()  # registers the generator with this loop's shutdown_asyncgens
            entry = self._by_loop[loop] = (resource, guard)
        return entry[0]

    async def _guard(self, resource: T) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await self._close(resource)

    async def aclose(self) -> None:
        """Close the running loop's resource now (others close with their loops)."""
        entry = self._by_loop.pop(asyncio.get_running_loop(), None)
        if entry is not None:
            await entry[1].aclose()

    def __len__(self) -> int:
        return len(self._by_loop)
