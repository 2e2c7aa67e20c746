"""Chrome DevTools Protocol helpers for live pages (arena speed, issue 13).

- :func:`viewport_png`: a viewport screenshot straight from ``Page.captureScreenshot``
  (``optimizeForSpeed``, from the compositor surface): the same pixels as Playwright's
  ``page.screenshot`` for the viewport, without its per-shot preparation round trips.
- :func:`clear_origin_data`: everything an origin stored (cookies aside): localStorage,
  sessionStorage, IndexedDB, Cache Storage, service workers, via ``Storage.clearDataForOrigin``
  and ``DOMStorage.clear``; used to reuse one browser context for the next episode.
- :class:`ChangeWatch`: change tracking from an isolated world the page cannot see (its
  own JavaScript globals; shared DOM). Armed before an observation's screenshot, it answers
  "did anything that can change the pixels happen since?" (DOM mutations, scroll, resize,
  loads, fonts, focus, animations and transitions, media) without taking a screenshot.
"""

from __future__ import annotations

import base64
import math

__all__ = ["viewport_png", "clear_origin_data", "ChangeWatch", "RUNNING_ANIMATIONS_JS"]

#: Counts the running animations and transitions (Playwright freezes those in its screenshots,
#: a raw CDP capture does not, so a page with any falls back to Playwright's screenshot).
RUNNING_ANIMATIONS_JS = ("() => document.getAnimations ? "
                         "document.getAnimations().filter(a => a.playState === 'running').length : 0")


async def viewport_png(cdp, width: int, height: int, device_scale_factor: float = 1.0) -> bytes:
    """PNG bytes of the ``width x height`` CSS px viewport at device pixels (``Page.captureScreenshot``
    optimized for speed, clipped to the visual viewport as Playwright clips it). The device scale
    factor emulation belongs to Playwright's own CDP session, not this one: pass it to scale the clip."""
    vv = (await cdp.send("Page.getLayoutMetrics"))["visualViewport"]
    scale = vv.get("scale", 1) or 1
    clip = {"x": vv["pageX"], "y": vv["pageY"], "width": math.ceil(width / scale - 1e-9),
            "height": math.ceil(height / scale - 1e-9), "scale": scale * device_scale_factor}
    r = await cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True, "fromSurface": True,
                                                  "captureBeyondViewport": False, "clip": clip})
    return base64.b64decode(r["data"])


async def clear_origin_data(cdp, origins: set[str] | list[str]) -> None:
    """Remove everything ``origins`` stored in this context (all storage types, then each
    origin's sessionStorage in this tab). Cookies are cleared by the caller (context-wide)."""
    for origin in sorted(origins):
        await cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        for local in (False, True):
            try:
                await cdp.send("DOMStorage.clear", {"storageId": {"securityOrigin": origin, "isLocalStorage": local}})
            except Exception:  # no storage area was ever opened for the origin in this tab
                pass


_WORLD = "webgauge-change-watch"

_ARM_JS = """(() => {
  const old = window.__wgWatch;
  if (old) { old.mo.takeRecords(); old.dirty = []; return 'rearmed'; }
  const s = {dirty: []};
  const mark = (why) => { if (s.dirty.length < 8 && !s.dirty.includes(why)) s.dirty.push(why); };
  s.mo = new MutationObserver(() => mark('mutation'));
  s.mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  for (const ev of ['scroll', 'resize']) window.addEventListener(ev, () => mark(ev), {capture: true, passive: true});
  for (const ev of ['load', 'error', 'animationstart', 'transitionrun', 'play', 'playing', 'seeked', 'timeupdate',
                    'focusin', 'focusout', 'input', 'selectionchange', 'toggle', 'fullscreenchange'])
    document.addEventListener(ev, () => mark(ev), {capture: true, passive: true});
  if (window.visualViewport) window.visualViewport.addEventListener('resize', () => mark('resize'));
  if (document.fonts) document.fonts.addEventListener('loadingdone', () => mark('font'));
  window.__wgWatch = s;
  return 'armed';
})()"""

_CHECK_JS = """(() => {
  const s = window.__wgWatch;
  if (!s) return ['unarmed'];
  if (s.mo.takeRecords().length) s.dirty.push('mutation');
  const out = s.dirty.slice();
  if (document.getAnimations && document.getAnimations().some(a => a.playState === 'running')) out.push('animation');
  if (document.querySelector('canvas, video, iframe, embed, object')) out.push('media');  // can repaint silently
  return out;
})()"""


class ChangeWatch:
    """Change tracking for one tab's main frame from an isolated world.

    :meth:`arm` starts (or restarts) the watch; :meth:`changes` returns why the page may
    look different since (empty: nothing happened that can change its pixels). A new
    document destroys the world: :meth:`changes` then says ``navigation``.
    """

    def __init__(self, cdp) -> None:
        self.cdp = cdp
        self._ctx_id: int | None = None

    async def arm(self) -> None:
        if self._ctx_id is not None:  # the same document: restart the watch in its world
            try:
                await self._eval(_ARM_JS)
                return
            except Exception:  # a new document: make its world
                self._ctx_id = None
        tree = await self.cdp.send("Page.getFrameTree")
        world = await self.cdp.send("Page.createIsolatedWorld", {"frameId": tree["frameTree"]["frame"]["id"],
                                                                 "worldName": _WORLD, "grantUniveralAccess": False})
        self._ctx_id = world["executionContextId"]
        await self._eval(_ARM_JS)

    async def changes(self) -> list[str]:
        if self._ctx_id is None:
            return ["unarmed"]
        try:
            return list(await self._eval(_CHECK_JS))
        except Exception:  # the armed document is gone (navigation, crash)
            return ["navigation"]

    async def _eval(self, js: str):
        r = await self.cdp.send("Runtime.evaluate", {"expression": js, "contextId": self._ctx_id,
                                                     "returnByValue": True, "silent": True})
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("text", "script error"))
        return r["result"].get("value")
