"""One :class:`~webgauge.browser.page_pool.PagePool` per browser for the arena's envs (the runner
makes an env per episode; their pages go back to the browser's pool)."""

from __future__ import annotations

import weakref

from ...browser import Browser
from ...browser.page_pool import PagePool

__all__ = ["PagePool", "pool_for"]

_POOLS: weakref.WeakKeyDictionary[Browser, PagePool] = weakref.WeakKeyDictionary()


def pool_for(browser: Browser, size: int = 2) -> PagePool:
    """The one pool of ``browser`` (its pages close with it)."""
    if browser not in _POOLS:
        _POOLS[browser] = PagePool(size)
    return _POOLS[browser]
