"""One CDP session kept attached to each page of a webgauge episode, for two jobs the page never sees.

**Settle.** BrowserGym observes a page once its DOM content has loaded. webgauge's apps draw
parts of a page after that from their own API (the calendar's grid, a board after a drop): on
a loaded machine BrowserGym's observation could come before the drawing, so the elements drawn
later had no ``bid`` in it. :meth:`PageWatch.settle` waits until none of the page's fetch/XHR
requests is in flight (counted from the session's Network events, up to the response's last
byte) and the DOM has been quiet for ``quiet_ms`` (a MutationObserver in an isolated world of
its own), for at most ``cap_ms``. Nothing is added to the page's world: ``window.fetch``,
``XMLHttpRequest`` and the page's globals stay the browser's own, so a page script (or an
integrity check) sees what it sees without the package.

**Screenshot.** BrowserGym 0.14.3 takes each screenshot through a CDP session it opens, sets
the device metrics on, and detaches. With current Chromium the detach drops the page's
viewport emulation: for a moment after every observation the page lays out at the headless
window's size (780x493 CSS px here) and fires ``resize``, until something sets the viewport
again. A pointer drag spans two steps with an observation between them (``mouse_down``, then
``mouse_move``/``mouse_up``): when the next action came while the page was at the window's
size its coordinates hit another layout, and on a loaded machine a drop landed outside its
column. :func:`install` has BrowserGym take the screenshot through this kept session instead,
so no detach happens and the viewport never changes; the image is the same (PNG from
``Page.captureScreenshot`` at the page's viewport and BrowserGym's ``_bgym_scale_factor``).
"""

from __future__ import annotations

import base64
import io
import json
import time
from typing import Any

__all__ = ["PageWatch", "install"]

_WORLD = "webgauge-settle"

#: In the watch's isolated world of each document: the time of the last DOM mutation (the page's
#: scripts share the DOM with this world, not its globals).
_TRACK_JS = """(() => {
  if (globalThis.__wgSettle) return true;
  const s = globalThis.__wgSettle = {last: performance.now()};
  new MutationObserver(() => { s.last = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  return true;
})()"""

#: Milliseconds since the document's last DOM mutation (the tracker is made now when it is missing).
_QUIET_JS = "(" + _TRACK_JS.rstrip() + ", performance.now() - globalThis.__wgSettle.last)"


class PageWatch:
    """The kept CDP session of one page. ``PageWatch.of(page)`` makes it once (at the page's
    creation, so the requests of its first document are counted) and returns it after."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.fetches: set[str] = set()  # the page's fetch/XHR requests in flight (CDP request ids)
        self.last_request_end = time.monotonic()
        self._frame_id: str | None = None
        self.scale = 1.0  # the page's device scale factor (emulate_scale)

        def sent(e: dict) -> None:
            if e.get("type") in ("Fetch", "XHR"):
                self.fetches.add(e["requestId"])

        def done(e: dict) -> None:
            if e.get("requestId") in self.fetches:
                self.fetches.discard(e["requestId"])
                self.last_request_end = time.monotonic()

        self.cdp.on("Network.requestWillBeSent", sent)
        self.cdp.on("Network.loadingFinished", done)
        self.cdp.on("Network.loadingFailed", done)
        self.cdp.send("Network.enable", {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0})
        self.cdp.send("Page.enable")  # scripts for new documents run only with the Page domain on
        self.cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": _TRACK_JS, "worldName": _WORLD,
                                                                "runImmediately": True})
        page._webgauge_watch = self

    @classmethod
    def of(cls, page: Any) -> PageWatch:
        watch = getattr(page, "_webgauge_watch", None)
        return watch if watch is not None else cls(page)

    @classmethod
    def follow(cls, context: Any, scale: float = 1.0) -> None:
        """Watch every page the context opens from now on (a tab an action opens), from its creation,
        at device scale factor ``scale``."""

        def opened(page: Any) -> None:
            if page.is_closed():
                return
            page._bgym_scale_factor = scale
            cls.of(page).emulate_scale()

        context.on("page", opened)

    def dom_quiet_ms(self) -> float:
        """Milliseconds since the current document's last DOM mutation; raises while there is no document."""
        if self._frame_id is None:  # the main frame keeps its id across navigations
            self._frame_id = self.cdp.send("Page.getFrameTree")["frameTree"]["frame"]["id"]
        ctx = self.cdp.send("Page.createIsolatedWorld", {"frameId": self._frame_id, "worldName": _WORLD,
                                                         "grantUniveralAccess": False})["executionContextId"]
        r = self.cdp.send("Runtime.evaluate", {"expression": _QUIET_JS, "contextId": ctx, "returnByValue": True,
                                               "silent": True})
        if "exceptionDetails" in r:
            raise RuntimeError(json.dumps(r["exceptionDetails"])[:300])
        return float(r["result"]["value"])

    def settled(self, quiet_ms: int) -> bool:
        """No fetch/XHR in flight, and neither a request's end nor a DOM mutation in the last ``quiet_ms``.
        The round trips first deliver the Network events sent before them (in order on the session)."""
        dom = self.dom_quiet_ms()
        network = (time.monotonic() - self.last_request_end) * 1000
        return not self.fetches and dom >= quiet_ms and network >= quiet_ms

    def settle(self, quiet_ms: int = 250, cap_ms: int = 10_000, poll_ms: int = 50) -> bool:
        """Wait for the page to settle; True when it did within ``cap_ms`` (a page that never
        settles is observed as it is then). A navigation during the wait is followed to the new document."""
        deadline = time.monotonic() + cap_ms / 1000
        while True:
            try:
                if self.settled(quiet_ms):
                    return True
            except Exception:  # the document is being replaced (or the page closed): ask again
                if self.page.is_closed():
                    return False
            if time.monotonic() >= deadline:
                return False
            time.sleep(poll_ms / 1000)

    def _metrics(self) -> dict:
        dims = self.page.viewport_size or self.page.evaluate(
            "() => ({width: window.innerWidth, height: window.innerHeight})")
        return {"width": dims["width"], "height": dims["height"], "mobile": False}

    def emulate_scale(self) -> None:
        """The page's device scale factor from now on: ``_bgym_scale_factor`` (the task's), kept by
        this session (BrowserGym's own screenshot would put it back to 1)."""
        self.scale = float(getattr(self.page, "_bgym_scale_factor", 1.0))
        if self.scale != 1.0:
            self.cdp.send("Emulation.setDeviceMetricsOverride", {**self._metrics(), "deviceScaleFactor": self.scale})

    def screenshot(self):
        """BrowserGym's screenshot (its ``extract_screenshot``), taken through this kept session."""
        import numpy as np
        import PIL.Image

        scale = getattr(self.page, "_bgym_scale_factor", 1.0)
        metrics = self._metrics()
        # as BrowserGym does: the capture takes the size of the metrics set on its own session, then
        # they are put back (at the task's scale, 1 unless emulate_scale set one); the session stays
        # attached, so the page keeps its viewport
        self.cdp.send("Emulation.setDeviceMetricsOverride", {**metrics, "deviceScaleFactor": scale})
        try:
            data = self.cdp.send("Page.captureScreenshot", {"format": "png"})["data"]
        finally:
            self.cdp.send("Emulation.setDeviceMetricsOverride", {**metrics, "deviceScaleFactor": self.scale})
        with io.BytesIO(base64.b64decode(data)) as f:
            return np.array(PIL.Image.open(f).convert(mode="RGB"))


def install() -> bool:
    """Have BrowserGym's env take the screenshot of a watched page (a webgauge task's) through its
    kept session; other pages go to BrowserGym's own function. True when this call installed it."""
    from browsergym.core import env as bgym_env

    original = bgym_env.extract_screenshot
    if getattr(original, "_webgauge_page_watch", False):
        return False

    def extract_screenshot(page, *args, **kwargs):
        watch = getattr(page, "_webgauge_watch", None)
        if watch is None:
            return original(page, *args, **kwargs)
        return watch.screenshot()

    extract_screenshot._webgauge_page_watch = True
    bgym_env.extract_screenshot = extract_screenshot
    return True
