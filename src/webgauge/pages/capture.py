"""Capturing a corpus of pages: one result per page, a clear error for each bad page."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass

from tqdm.auto import tqdm

from webgauge.browser import Browser, PageError, RenderProfile, Snapshot

from .source import PageRef, serve_pages

__all__ = ["CaptureResult", "capture_pages"]


@dataclass
class CaptureResult:
    """The snapshot of one page, or the error that stopped it (never both)."""

    ref: PageRef
    snapshot: Snapshot | None = None
    error: PageError | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.snapshot is not None


async def capture_pages(browser: Browser, refs: Iterable[PageRef], profile: RenderProfile | None = None, *,
                        full_page: bool = True, timeout: float = 30.0, concurrency: int = 2,
                        progress: bool = True, desc: str = "capture") -> list[CaptureResult]:
    """Capture every page; a bad page becomes a :class:`PageError` in its result and the
    rest go on. Each page has ``timeout`` seconds in all. Each of the ``concurrency`` captures at
    a time keeps its page and clears it for the next one (:meth:`~webgauge.browser.Browser.capture_url`
    with ``keep``; a page that failed is closed instead)."""
    refs = list(refs)
    profile = profile or RenderProfile()
    results: list[CaptureResult | None] = [None] * len(refs)
    sem = asyncio.Semaphore(max(1, concurrency))
    bar = tqdm(total=len(refs), desc=desc, unit="page", disable=not progress)
    loop = asyncio.get_running_loop()

    async def one(i: int, ref: PageRef, url: str) -> None:
        async with sem:
            t0 = loop.time()
            try:
                snap = await browser.capture_url(url, profile, full_page=full_page, timeout=timeout, keep=True)
                results[i] = CaptureResult(ref, snapshot=snap, seconds=loop.time() - t0)
            except PageError as err:
                results[i] = CaptureResult(ref, error=err, seconds=loop.time() - t0)
            except Exception as exc:  # a browser-level failure is still this page's failure
                results[i] = CaptureResult(ref, error=PageError("crash", f"{type(exc).__name__}: {exc}", url),
                                           seconds=loop.time() - t0)
            bar.update(1)
            bar.set_postfix(failed=sum(1 for r in results if r is not None and not r.ok))

    try:
        with serve_pages(refs) as urls:
            await asyncio.gather(*(one(i, r, urls[r.id]) for i, r in enumerate(refs)))
    finally:  # a cancelled run (Ctrl-C) or a folder that cannot be served leaves no bar behind
        bar.close()
    return [r for r in results if r is not None]
