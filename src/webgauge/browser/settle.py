"""Settling a page before a capture: the page must look the same whenever it is captured.

A page is settled when, all at once:

- its web fonts are loaded;
- every image in the document is complete and decoded (or failed);
- no request to the page's own origin is in flight;
- its layout is stable: the document size and every element's box (in page CSS px, a
  signature over all elements) are unchanged over ``stable_frames`` consecutive animation
  frames (the layout at the call counts as the first one compared), and no finite animation or transition is running (a
  fade changes visibility, not
  boxes). Elements moved by an endless CSS animation are left out (they never stop).

Lazy images are loaded eagerly by the browser launch (``--blink-settings=lazyLoadEnabled=false``),
so a full-page capture never depends on how far the page was scrolled or how fast it loaded.

:func:`settle` waits for all of this within a time limit and says what is still moving when
it gives up; it never raises for an unsettled page. Callers decide (the capture records a
warning and marks the snapshot unsettled; builds reject it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["SettleReport", "settle", "settled_now", "probe_layout", "STABLE_FRAMES", "SETTLE_TIMEOUT"]

#: Consecutive animation frames over which the layout must not change.
STABLE_FRAMES = 3
#: Default time limit (seconds) for a page to settle.
SETTLE_TIMEOUT = 10.0


@lru_cache(maxsize=1)
def _settle_js() -> str:
    return resources.files(__package__).joinpath("settle.js").read_text()


@dataclass
class SettleReport:
    """The outcome of :func:`settle`: ``settled`` or the ``reasons`` it is not, and the state
    it ended in (page ``size`` and layout signature ``sig``)."""

    settled: bool
    frames: int = 0
    waited: float = 0.0
    size: tuple[int, int] = (0, 0)
    sig: int = 0
    reasons: list[str] = field(default_factory=list)
    #: (:func:`settled_now` only) milliseconds the DOM-mutation quiet period still has to run
    quiet_left_ms: float = 0.0
    #: what a viewport screenshot needs, measured when settled: ``running`` animations (all, endless
    #: ones too) and the visual viewport ``vv`` (page x, page y, scale); empty when not settled
    view: dict[str, Any] = field(default_factory=dict)


async def probe_layout(page: Any) -> dict[str, Any]:
    """The page's current ``{size, sig, scroll}`` without waiting (same signature as :func:`settle`)."""
    probe: dict[str, Any] = await page.evaluate(_settle_js(), {"probe": True, "budgetMs": 0})
    return probe


async def settled_now(page: Any, *, quiet_ms: int = 0,
                      run_js: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]] | None = None) -> SettleReport:
    """Is ``page`` still at this moment, without waiting for a frame: web fonts loaded, every image
    complete and decoded, no animation running, and nothing that repaints unseen by the DOM (video,
    audio, canvas, frames, plugins)? ``settled`` says so; ``quiet_left_ms`` is how long the DOM-mutation
    quiet period of :func:`settle` still has to run (counted as ``run_js`` counts it). A capture may be
    taken at once from such a state and kept when nothing changed up to the quiet period's end
    (:func:`webgauge.browser.capture.capture_page`'s ``verify``): the state it shows is then the one
    :func:`settle` would have waited for."""
    # in the change watch's world (``tracker``) a canvas is no reason to wait: the watch's check after
    # the capture compares the canvases' pixels with the arm's (webgauge.browser.cdp's _STILL_JS)
    arg = now_arg(quiet_ms, tracker=run_js is not None)
    res = await (run_js(_settle_js(), arg) if run_js is not None else page.evaluate(_settle_js(), arg))
    return now_report(res)


def now_arg(quiet_ms: int, *, tracker: bool) -> dict[str, Any]:
    """The settle script's argument for :func:`settled_now` (``tracker``: run in the change watch's world)."""
    return {"now": True, "budgetMs": 200, "quietMs": quiet_ms, "tracker": tracker}


def now_report(res: dict[str, Any]) -> SettleReport:
    """The :class:`SettleReport` of the settle script's answer in :func:`now_arg`'s mode."""
    size = (int(res["size"][0]), int(res["size"][1]))
    if not res["stable"]:
        found = (("images loading", res["images_pending"]), ("web fonts loading", res["fonts"] != "loaded"),
                 ("animations running", res["animations"]), ("media or canvas", res["media"]))
        reasons = [r for r, on in found if on]
        return SettleReport(False, 0, 0.0, size, int(res["sig"]), reasons)
    return SettleReport(True, 0, 0.0, size, int(res["sig"]), quiet_left_ms=float(res["quiet_left_ms"]),
                        view=res["view"])


async def settle(page: Any, *, timeout: float = SETTLE_TIMEOUT, pending: Callable[[], list[str]] | None = None,
                 stable_frames: int = STABLE_FRAMES, quiet_ms: int = 0, quiet_cap_ms: int = 400,
                 run_js: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]] | None = None) -> SettleReport:
    """Wait until ``page`` (a Playwright page) is settled, at most ``timeout`` seconds.

    ``pending`` returns the URLs of the requests to the page's own origin still in flight
    (``LivePage`` tracks them); the page is settled only when it returns none both before and
    after the layout is found stable. ``quiet_ms`` also requires that long without a DOM
    mutation (for at most ``quiet_cap_ms``; the arena's event-based settle after an action).
    ``run_js(script, arg)`` runs the settle script elsewhere than ``page.evaluate``: the arena runs it
    in its change watch's isolated world, where the quiet period counts from the watch's last
    mutation (:meth:`webgauge.browser.cdp.ChangeWatch.run`) instead of from the call.
    """
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + timeout
    frames = 0
    while True:
        waiting = pending() if pending else []
        while waiting and pending and loop.time() < deadline:
            await asyncio.sleep(0.005)  # requests to the own origin are answered in milliseconds
            waiting = pending()
        left = deadline - loop.time()
        if waiting:
            return SettleReport(False, frames, loop.time() - start, reasons=[
                f"{len(waiting)} request(s) to the page's own origin still pending after {timeout:.0f}s: "
                + ", ".join(u[:120] for u in waiting[:3])])
        if left <= 0.05:
            return SettleReport(False, frames, loop.time() - start,
                                reasons=[f"no time left to settle ({timeout:.0f}s)"])
        try:
            arg = {"budgetMs": int(left * 1000), "stableFrames": stable_frames, "quietMs": quiet_ms,
                   "quietCapMs": quiet_cap_ms, "tracker": run_js is not None}
            res = await asyncio.wait_for(
                run_js(_settle_js(), arg) if run_js is not None else page.evaluate(_settle_js(), arg), left + 2.0)
        except asyncio.TimeoutError:
            return SettleReport(False, frames, loop.time() - start,
                                reasons=[f"the page did not answer within {timeout:.0f}s (a script may be looping)"])
        frames += int(res["frames"])
        size = (int(res["size"][0]), int(res["size"][1]))
        if not res["stable"]:
            reasons = []
            if res["images_pending"]:
                reasons.append(f"{res['images_pending']} image(s) still loading")
            if res.get("animations"):
                reasons.append(f"{res['animations']} animation(s) or transition(s) still running")
            if res["fonts"] != "loaded":
                reasons.append("web fonts still loading")
            if not reasons:
                reasons.append(f"layout still changing after {frames} frames")
            return SettleReport(False, frames, loop.time() - start, size, int(res["sig"]),
                                [f"page did not settle within {timeout:.0f}s: " + "; ".join(reasons)])
        if pending and pending() and loop.time() < deadline:
            continue  # a request started while the layout looked stable: wait for it and look again
        return SettleReport(True, frames, loop.time() - start, size, int(res["sig"]), view=res.get("view") or {})
