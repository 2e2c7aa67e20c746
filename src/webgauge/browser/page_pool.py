"""Cleared browser contexts kept for the next use.

A fresh browser context costs about a second on a loaded machine; a used one, blanked and
cleared by :meth:`webgauge.browser.LivePage.reuse`, is as good as new for any page whose
render profile it can take. :class:`PagePool` keeps a few of them: an
:class:`~webgauge.arena.env.ArenaEnv` takes one on reset and gives its page back on close
(:func:`webgauge.arena.pool_for` shares one pool per browser), and
:meth:`~webgauge.browser.Browser.capture_url` with ``keep`` captures on them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from .profile import RenderProfile

__all__ = ["PagePool", "Reusable"]


class Reusable(Protocol):
    """What the pool needs of a page (a :class:`~webgauge.browser.LivePage`)."""

    profile: RenderProfile

    def can_reuse(self, profile: RenderProfile) -> bool: ...

    async def reuse(self, profile: RenderProfile, *, allowed_origins: tuple[str, ...] = ()) -> None: ...

    async def close(self) -> None: ...


class PagePool:
    """Idle, cleared live pages: at most ``size`` of each render profile and ``max_pages`` in all
    (the least recently kept page goes first); :meth:`take` one that fits a profile.

    Kept per profile, not per pool: a run whose tasks use several viewports (desktop, tablet,
    phone, 2x) finds its pages again when the viewport comes back, instead of each profile
    pushing the others out. :meth:`warm` opens them ahead for the profiles a run will use."""

    def __init__(self, size: int = 2, max_pages: int = 12) -> None:
        self.size = size
        self.max_pages = max(max_pages, size)
        self._pages: list[Any] = []  # oldest first
        self._clearing: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._pages)

    def count(self, profile: RenderProfile) -> int:
        """Idle pages that can be reused for ``profile``."""
        return sum(1 for p in self._pages if p.can_reuse(profile))

    def take(self, profile: RenderProfile) -> Any | None:
        """An idle page that can be reused for ``profile`` (removed from the pool), or None."""
        page = next((p for p in reversed(self._pages) if p.can_reuse(profile)), None)
        if page is not None:
            self._pages.remove(page)
        return page

    async def put(self, page: Reusable) -> None:
        """Keep ``page`` for a later episode, blanked and cleared now (no app page keeps running);
        close it when it cannot be reused (an init script, a crash) or its profile's share of the
        pool is full (then the oldest idle page of the profile goes; past ``max_pages``, the
        oldest of all)."""
        if self.size <= 0 or not page.can_reuse(page.profile):
            await page.close()
            return
        try:
            await page.reuse(page.profile)
        except Exception:  # the browser went away or the tab is stuck: not worth keeping
            with contextlib.suppress(Exception):
                await page.close()
            return
        self._pages.append(page)
        same = [p for p in self._pages if p.can_reuse(page.profile)]
        for old in same[:max(0, len(same) - self.size)]:
            self._pages.remove(old)
            await old.close()
        while len(self._pages) > self.max_pages:
            await self._pages.pop(0).close()

    async def warm(self, profiles: Iterable[RenderProfile],
                   open_page: Callable[[RenderProfile], Awaitable[Any]]) -> int:
        """Open and clear pages ahead until each of ``profiles`` has ``size`` idle pages (at most
        ``max_pages`` in all, the first profiles first), so that no reset of them waits on a new
        browser context (150-250 ms on 2 cores). ``open_page`` opens a page as its users would.
        Returns the number of pages opened."""
        opened = 0
        for pr in profiles:  # a profile named again already has its pages (count goes by can_reuse)
            while self.count(pr) < self.size and len(self._pages) < self.max_pages:
                page = await open_page(pr)
                if not page.can_reuse(pr):
                    await page.close()
                    raise ValueError("open_page gave a page that cannot be reused for its profile "
                                     "(an init script added, or a different profile)")
                before = self.count(pr)
                await self.put(page)
                opened += 1
                if self.count(pr) <= before:  # put closed it (the clear failed): the browser is in trouble
                    raise RuntimeError("a page opened to warm the pool could not be cleared; is the browser alive?")
        return opened

    def put_later(self, page: Reusable, after: Awaitable[Any] | None = None) -> asyncio.Task[None]:
        """:meth:`put` in the background: the page is blanked and cleared while the caller goes
        on (:meth:`take` only gives pages whose clearing has finished), once ``after`` (the page's
        freeze, still on its way) is done. Await the task, or :meth:`drain`, before relying on the
        page being in the pool."""
        async def put_after() -> None:
            if after is not None:
                with contextlib.suppress(Exception):  # the clear freezes it again if this failed
                    await after
            await self.put(page)

        task = asyncio.ensure_future(put_after())
        self._clearing.add(task)
        task.add_done_callback(self._clearing.discard)
        return task

    async def drain(self) -> None:
        """Wait for every background :meth:`put_later` to finish."""
        while self._clearing:
            await asyncio.gather(*list(self._clearing), return_exceptions=True)

    async def close(self) -> None:
        await self.drain()
        while self._pages:
            with contextlib.suppress(Exception):
                await self._pages.pop().close()
