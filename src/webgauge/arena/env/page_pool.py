"""Cleared browser contexts kept between arena episodes (issue 13: reset <= 250 ms).

A fresh browser context costs about a second on a loaded machine; a used one, blanked and
cleared by :meth:`webgauge.browser.LivePage.reuse`, is as good as new for any task whose
render profile it can take. :class:`PagePool` keeps a few of them for the next episodes:
an :class:`~webgauge.arena.env.ArenaEnv` takes one on reset and gives its page back on
close; :func:`pool_for` shares one pool per browser (the runner makes an env per episode).
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref

from ...browser import Browser, LivePage, RenderProfile

__all__ = ["PagePool", "pool_for"]


class PagePool:
    """At most ``size`` idle, cleared live pages; :meth:`take` one that fits a profile."""

    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._pages: list[LivePage] = []
        self._clearing: set[asyncio.Task] = set()

    def __len__(self) -> int:
        return len(self._pages)

    def take(self, profile: RenderProfile) -> LivePage | None:
        """An idle page that can be reused for ``profile`` (removed from the pool), or None."""
        page = next((p for p in self._pages if p.can_reuse(profile)), None)
        if page is not None:
            self._pages.remove(page)
        return page

    async def put(self, page: LivePage) -> None:
        """Keep ``page`` for a later episode, blanked and cleared now (no app page keeps running);
        close it when it cannot be reused (an init script, a crash) or the pool is full."""
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
        while len(self._pages) > self.size:
            await self._pages.pop(0).close()

    def put_later(self, page: LivePage) -> asyncio.Task:
        """:meth:`put` in the background: the page is blanked and cleared while the caller goes
        on (:meth:`take` only gives pages whose clearing has finished). Await the task, or
        :meth:`drain`, before relying on the page being in the pool."""
        task = asyncio.ensure_future(self.put(page))
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


_POOLS: weakref.WeakKeyDictionary[Browser, PagePool] = weakref.WeakKeyDictionary()


def pool_for(browser: Browser, size: int = 2) -> PagePool:
    """The one pool of ``browser`` (its pages close with it)."""
    if browser not in _POOLS:
        _POOLS[browser] = PagePool(size)
    return _POOLS[browser]
