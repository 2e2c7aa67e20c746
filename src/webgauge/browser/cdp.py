"""Chrome DevTools Protocol helpers for live pages (arena speed, issue 13).

- :func:`viewport_png`: a viewport screenshot straight from ``Page.captureScreenshot``
  (``optimizeForSpeed``, from the compositor surface): the same pixels as Playwright's
  ``page.screenshot`` for the viewport, without its per-shot preparation round trips.
- :func:`full_page_png`: a full-page screenshot the same way (``captureBeyondViewport`` with a
  clip of the whole document, as Playwright's ``full_page=True`` takes it): the same pixels,
  without Playwright's preparation round trips; ``optimize_for_speed`` picks Chromium's fast
  PNG encoder (the same pixels, other bytes).
- :func:`clear_origin_data`: everything an origin stored: cookies, localStorage, sessionStorage,
  IndexedDB, Cache Storage, service workers (``Storage.clearDataForOrigin``); used to reuse
  one browser context for the next episode.
- :class:`ChangeWatch`: change tracking from an isolated world the page cannot see (its
  own JavaScript globals; shared DOM). Armed before an observation's screenshot, it answers
  "did anything that can change the pixels happen since?" (DOM mutations, scroll, resize,
  loads, fonts, focus, animations and transitions, canvas pixels, media) without a screenshot.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import math
from typing import Any

__all__ = ["viewport_png", "full_page_png", "mirror_device_metrics", "clear_origin_data", "ChangeWatch",
           "RUNNING_ANIMATIONS_JS", "STORAGE_TYPES", "flush_cookie_writes"]

#: Counts the running animations and transitions (Playwright freezes those in its screenshots,
#: a raw CDP capture does not, so a page with any falls back to Playwright's screenshot).
RUNNING_ANIMATIONS_JS = ("() => document.getAnimations ? "
                         "document.getAnimations().filter(a => a.playState === 'running').length : 0")


async def mirror_device_metrics(cdp: Any, width: int, height: int, device_scale_factor: float = 1.0,
                                mobile: bool = False) -> None:
    """Give this CDP session the page's device emulation, the very metrics Playwright set on its
    own session for the context's viewport (a screen of the viewport's size). ``Page.captureScreenshot``
    with a clip emulates the clip on the session that sends it, then restores that session's own
    emulation: on a session with none, every capture left the page at the headless window's real
    metrics until its next document (``devicePixelRatio`` 1, an 800x600 landscape screen; Chromium
    156). On a session that carries the page's metrics, the restore keeps them, and a clip of scale
    1 gives Playwright's pixels at the emulated device scale factor."""
    if mobile:
        orientation = {"angle": 90, "type": "landscapePrimary"} if width > height else \
            {"angle": 0, "type": "portraitPrimary"}
    else:
        orientation = {"angle": 0, "type": "landscapePrimary"}
    await cdp.send("Emulation.setDeviceMetricsOverride", {
        "mobile": mobile, "width": width, "height": height, "screenWidth": width, "screenHeight": height,
        "deviceScaleFactor": device_scale_factor, "screenOrientation": orientation})


async def viewport_png(cdp: Any, width: int, height: int, device_scale_factor: float = 1.0,
                       visual_viewport: tuple[float, float, float] | list[float] | None = None) -> bytes:
    """PNG bytes of the ``width x height`` CSS px viewport at device pixels (``Page.captureScreenshot``
    optimized for speed, clipped to the visual viewport as Playwright clips it). ``device_scale_factor``
    scales the clip: 1 on a session that carries the page's device emulation
    (:func:`mirror_device_metrics`; every ``LivePage.cdp()`` session does), the emulated factor on a
    bare session (which leaves the page without its emulation after the capture).
    ``visual_viewport`` ``(page x, page y, scale)`` in CSS px, when the caller just measured it
    (``window.visualViewport``), saves the ``Page.getLayoutMetrics`` round trip."""
    if visual_viewport is not None:
        px, py, scale = visual_viewport
        vv = {"pageX": px, "pageY": py, "scale": scale}
    else:
        vv = (await cdp.send("Page.getLayoutMetrics"))["visualViewport"]
    scale = vv.get("scale", 1) or 1
    clip = {"x": vv["pageX"], "y": vv["pageY"], "width": math.ceil(width / scale - 1e-9),
            "height": math.ceil(height / scale - 1e-9), "scale": scale * device_scale_factor}
    r = await cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True, "fromSurface": True,
                                                  "captureBeyondViewport": False, "clip": clip})
    return base64.b64decode(r["data"])


async def full_page_png(cdp: Any, page_size: tuple[int, int] | list[int], viewport: tuple[int, int] | list[int],
                        device_scale_factor: float = 1.0, *, optimize_for_speed: bool = True) -> bytes:
    """PNG bytes of the whole ``page_size`` (CSS px, measured as Playwright measures it for a
    full-page screenshot) at device pixels: ``Page.captureScreenshot`` with a clip of the document
    and ``captureBeyondViewport`` when the page does not fit the ``viewport``, Playwright's own call
    for ``full_page=True`` (``device_scale_factor`` as for :func:`viewport_png`). With
    ``optimize_for_speed=False`` the bytes are Playwright's too; with it, Chromium's faster PNG encoder
    writes the same pixels in other bytes. The caller makes sure no animation runs (Playwright
    freezes them; this does not)."""
    w, h = int(page_size[0]), int(page_size[1])
    fits = w <= viewport[0] and h <= viewport[1]
    params = {"format": "png", "captureBeyondViewport": not fits,
              "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": device_scale_factor}}
    if optimize_for_speed:
        params["optimizeForSpeed"] = True
    r = await cdp.send("Page.captureScreenshot", params)
    return base64.b64decode(r["data"])


#: What :func:`clear_origin_data` removes (``"all"`` also clears browser-wide caches such as
#: the shader cache, several times slower and nothing a page can read back).
STORAGE_TYPES = ("cookies,local_storage,indexeddb,cache_storage,service_workers,file_systems,websql,"
                 "shared_storage,storage_buckets")


async def clear_origin_data(cdp: Any, origins: set[str] | list[str], storage_types: str = STORAGE_TYPES) -> None:
    """Remove everything ``origins`` stored in this browser context (``Storage.clearDataForOrigin``:
    cookies, localStorage and sessionStorage, IndexedDB, Cache Storage, service workers, ...)."""
    await asyncio.gather(*(cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": storage_types})
                           for origin in sorted(origins)))


#: Reads the document's cookies through the platform's own getter (a page's override of ``cookie`` is
#: bypassed): a synchronous call on the pipe the document writes its cookies through.
_COOKIE_BARRIER_JS = "Object.getOwnPropertyDescriptor(Document.prototype, 'cookie').get.call(document).length"


async def flush_cookie_writes(cdp: Any) -> None:
    """Wait until every cookie the tab's document has written (``document.cookie = ...``) is in the
    browser context's cookie store. A document's writes are messages on a pipe of its own to the
    network service, not answered; a clear of the store sent later by the browser travels on
    another pipe and can overtake them (seen once in CI: all five cookies an ending page wrote, its
    timer's and its unload handlers', were in the next episode). A read goes on the document's
    pipe and is answered after every write before it. Works with the page's scripts disabled; a
    tab without a live document (crashed) is skipped."""
    with contextlib.suppress(Exception):
        await cdp.send("Runtime.evaluate", {"expression": _COOKIE_BARRIER_JS, "returnByValue": True})


_WORLD = "webgauge-change-watch"
#: The binding through which a tracker says it armed itself at its document's load (only its world has it).
_LOADED_BINDING = "__wgLoaded"

_CANVAS_SIG_JS = """var __wgView = () => [scrollX, scrollY, innerWidth, innerHeight].join(',');
// The same fingerprint at once (each canvas drawn onto one of ours, no await): the arm at the load event's.
var __wgCanvasSigNow = () => {
  const out = [];
  for (const c of document.querySelectorAll('canvas')) {
    try {
      if (!c.width || !c.height) { out.push('empty'); continue; }
      const ctx = new OffscreenCanvas(c.width, c.height).getContext('2d');
      ctx.drawImage(c, 0, 0);
      out.push(__wgPixelsSig(c, ctx));
    } catch (e) { out.push('unreadable:' + Math.random()); }
  }
  return out.join(',');
};
var __wgPixelsSig = (c, ctx) => {
  const d = new Uint32Array(ctx.getImageData(0, 0, c.width, c.height).data.buffer);
  let h1 = 0x811c9dc5 | 0, h2 = 0;
  for (let i = 0; i < d.length; i++) { h1 = Math.imul(h1 ^ d[i], 16777619); h2 = (h2 + d[i] * (i + 1)) | 0; }
  return c.width + 'x' + c.height + ':' + h1 + ':' + h2;
};
var __wgCanvasSig = async () => {
  // A fingerprint of every canvas's pixels (canvases repaint without DOM mutations). Read
  // through createImageBitmap: it never creates a context on the page's canvas.
  const out = [];
  for (const c of document.querySelectorAll('canvas')) {
    try {
      if (!c.width || !c.height) { out.push('empty'); continue; }
      const bmp = await createImageBitmap(c);
      const ctx = new OffscreenCanvas(c.width, c.height).getContext('2d');
      ctx.drawImage(bmp, 0, 0);
      bmp.close();
      out.push(__wgPixelsSig(c, ctx));
    } catch (e) { out.push('unreadable:' + Math.random()); }  // unreadable: always "changed"
  }
  return out.join(',');
};
"""

#: The watch's state for one document, made once in its isolated world (idempotent): a
#: MutationObserver from the world's creation (``born``) keeps the time of the last DOM mutation
#: made after parsing (``last``; the settle's quiet period counts from it) and marks what may change the pixels
#: (``dirty``, cleared by each arm).
_TRACKER_JS = """(() => {
  if (window.__wgWatch) return window.__wgWatch;
  const s = {dirty: [], canvas: '', view: __wgView(), nav: false, armed: false, born: performance.now(), last: -1e9};
  const mark = (why) => { if (s.dirty.length < 8 && !s.dirty.includes(why)) s.dirty.push(why); };
  // the parser's own insertions (readyState "loading") do not count for the quiet period: they are
  // over by DOMContentLoaded; scripts' changes from then on do
  s.mutated = () => { if (document.readyState !== 'loading') s.last = performance.now(); mark('mutation'); };
  // a link, form or script starting a navigation to another document (the Navigation API fires
  // 'navigate' at once; the new document commits later)
  if (window.navigation) navigation.addEventListener('navigate', (e) => { if (!e.destination.sameDocument) s.nav = \
true; });
  // Chromium submits a form in a task it posts after the 'submit' event, so 'navigate' fires only
  // then: a check between the two would miss the navigation. The event itself says it is coming
  // (unless a handler cancels it, or it targets another window or a dialog).
  window.addEventListener('submit', (e) => { s.submit = e; }, {capture: true});
  s.navigating = () => {
    const e = s.submit;
    if (s.nav || !e || e.defaultPrevented) return s.nav;
    const sub = e.submitter, form = e.target;
    const method = ((sub && sub.getAttribute('formmethod')) || form.getAttribute('method') || '').toLowerCase();
    const target = (sub && sub.getAttribute('formtarget')) || form.getAttribute('target') || '';
    return method !== 'dialog' && (target === '' || target === '_self');
  };
  s.mo = new MutationObserver(() => s.mutated());
  s.mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  for (const ev of ['scroll', 'resize']) window.addEventListener(ev, () => mark(ev), {capture: true, passive: true});
  for (const ev of ['load', 'error', 'animationstart', 'transitionrun', 'play', 'playing', 'seeked', 'timeupdate',
                    'focusin', 'focusout', 'input', 'selectionchange', 'toggle', 'fullscreenchange'])
    document.addEventListener(ev, () => mark(ev), {capture: true, passive: true});
  if (window.visualViewport) window.visualViewport.addEventListener('resize', () => mark('resize'));
  if (document.fonts) document.fonts.addEventListener('loadingdone', () => mark('font'));
  window.__wgWatch = s;
  return s;
})()"""

_TRACK_JS = _CANVAS_SIG_JS + _TRACKER_JS + ", 'tracking'"

#: Made with the tracker in every new document of a tab that tracks them (:meth:`ChangeWatch.track_new_documents`):
#: the watch armed as the document's load event begins (this listener is the first: the world is made
#: before the page's scripts run), unless a capture armed it before (a document captured while it
#: loaded), and told through the binding before the browser reports the load: the first capture after
#: it may then send its screenshot with no arm of its own first (:meth:`ChangeWatch.check_armed_at_load`).
#: The page's own load handlers run after this, and what they change is marked; canvases are
#: fingerprinted at once, and a capture's check compares them after it, as with any arm.
_ARM_AT_LOAD_JS = """(() => {
  const s = window.__wgWatch;
  window.addEventListener('load', () => {
    if (s.armed) return;
    if (s.mo.takeRecords().length) s.mutated();
    s.dirty = []; s.view = __wgView(); s.canvas = __wgCanvasSigNow(); s.armed = true; s.atLoad = true;
    if (typeof """ + _LOADED_BINDING + """ === 'function') """ + _LOADED_BINDING + """('armed');
  });
})()"""

_ARM_FN = """async () => {
  const s = """ + _TRACKER_JS + """;
  if (s.mo.takeRecords().length) s.last = performance.now();
  s.dirty = []; s.nav = false; s.submit = null; s.view = __wgView(); s.canvas = await __wgCanvasSig();
  const again = s.armed && !s.atLoad;
  s.armed = true; s.atLoad = false;
  return again ? 'rearmed' : 'armed';
}"""

_ARM_JS = _CANVAS_SIG_JS + "(" + _ARM_FN + ")()"

_CHECK_JS = _CANVAS_SIG_JS + """(async () => {
  const s = window.__wgWatch;
  if (!s || !s.armed) return ['unarmed'];
  // scroll and resize events fire at the next frame: let one pass, and compare the viewport too
  await new Promise((resolve) => { requestAnimationFrame(() => resolve()); setTimeout(resolve, 100); });
  if (s.mo.takeRecords().length) s.mutated();
  if (__wgView() !== s.view) s.dirty.push('viewport');
  const out = s.dirty.slice();
  if (document.getAnimations && document.getAnimations().some(a => a.playState === 'running')) out.push('animation');
  if (await __wgCanvasSig() !== s.canvas) out.push('canvas');
  if (document.querySelector('video, iframe, embed, object')) out.push('media');  // can repaint silently
  return out;
})()"""

#: What changed since the arm, with no frame waited: nothing, or else at once; when nothing, once
#: more after the quiet period (``quietMs`` since the document's last mutation) has run out, and
#: then whether a canvas's pixels differ from the arm's.
_STILL_JS = """(async (quietMs) => {
  const s = window.__wgWatch;
  if (!s || !s.armed) return ['unarmed'];
  const marks = () => {
    if (s.mo.takeRecords().length) s.mutated();
    return __wgView() !== s.view ? s.dirty.concat(['viewport']) : s.dirty.slice();
  };
  let out = marks();
  const left = quietMs - (performance.now() - Math.max(s.born, s.last));
  if (out.length) return out;
  if (left > 0) {
    await new Promise((resolve) => setTimeout(resolve, left));
    out = marks();
    if (out.length) return out;
  }
  // canvases repaint without a DOM mutation: their pixels against the arm's
  if (document.querySelector('canvas') && await __wgCanvasSig() !== s.canvas) out.push('canvas');
  return out;
})"""


class _ContextGone(Exception):
    """The watched document's world is gone (a navigation replaced the document)."""


class ChangeWatch:
    """Change tracking for one tab's main frame from an isolated world.

    :meth:`arm` starts (or restarts) the watch; :meth:`changes` returns why the page may
    look different since (empty: nothing happened that can change its pixels). A new
    document destroys the world: :meth:`changes` then says ``navigation``.
    """

    def __init__(self, cdp: Any) -> None:
        self.cdp = cdp
        self._ctx_id: int | None = None
        self._frame_id: str | None = None
        #: the tab's own navigation count when last used (kept by the caller, see ``arm(new_document)``)
        self.navigation_id: int | None = None
        self._armed_ctx: int | None = None  # the world (document) this watch last armed in
        self._loaded_ctx: int | None = None  # the last world (document) whose tracker armed itself at its load
        #: the current document (since its world was found) started a fetch/XHR: it renders what comes
        #: back, likely after its load (its first capture arms the watch itself, see armed_at_load)
        self.fetched_in_document = False
        self._fetches: set[str] = set()  # ids of the page's fetch/XHR requests still in flight
        self._net_on = False
        self._page_on = False  # Page domain enabled on the session
        #: windows this tab asked the browser to open (links with a target, window.open, forms)
        self.windows_opened = 0

    def restart(self) -> ChangeWatch:
        """Forget the tab's documents, requests and windows (the tab is reused as a new one): the
        handlers and domains this watch turned on stay on its CDP session, once, rather than a new
        watch adding its own beside them for every episode the tab serves."""
        self._ctx_id = self.navigation_id = self._armed_ctx = self._loaded_ctx = None
        self._fetches.clear()
        self.windows_opened = 0
        return self

    async def _enable_page(self) -> None:
        if not self._page_on:
            self._page_on = True
            await self.cdp.send("Page.enable")

    async def _track_fetches(self) -> None:
        """Follow the page's fetch/XHR requests on this CDP session (its Network events come from the
        renderer in order with the session's replies, so a request a script started before a round
        trip is known when the reply arrives), and count the windows it opens."""
        if self._net_on:
            return
        self._net_on = True

        def sent(e: dict[str, Any]) -> None:
            if e.get("type") in ("Fetch", "XHR"):
                self._fetches.add(e["requestId"])
                self.fetched_in_document = True

        def done(e: dict[str, Any]) -> None:
            self._fetches.discard(e.get("requestId"))

        def opened(_e: dict[str, Any]) -> None:
            self.windows_opened += 1

        self.cdp.on("Network.requestWillBeSent", sent)
        self.cdp.on("Network.loadingFinished", done)
        self.cdp.on("Network.loadingFailed", done)
        # Page.windowOpen comes as the browser creates the window, before the new tab is set up and
        # announced: a step that opened one can wait for it instead of ending before it shows
        self.cdp.on("Page.windowOpen", opened)
        await self.cdp.send("Network.enable", {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0})
        await self._enable_page()

    async def fetches_pending(self) -> bool:
        """Is a fetch/XHR the page started (e.g. from a click handler) still in flight? One round trip."""
        if not self._net_on:
            return False
        try:
            await self.cdp.send("Runtime.evaluate", {"expression": "0", "returnByValue": True, "silent": True})
        except Exception:  # the session is gone with its page
            return False
        return bool(self._fetches)

    async def _world(self, new_document: bool = False) -> int:
        """The execution context of the watch's world in the current document, made (with its
        tracker) when there is none yet. ``new_document``: the caller saw the tab navigate."""
        if self._ctx_id is not None and not new_document:
            return self._ctx_id
        self._ctx_id = None
        self.fetched_in_document = False
        if self._frame_id is None:  # the main frame keeps its id across the tab's navigations
            self._frame_id = (await self.cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
        world = await self.cdp.send("Page.createIsolatedWorld", {"frameId": self._frame_id, "worldName": _WORLD,
                                                                 "grantUniveralAccess": False})
        self._ctx_id = world["executionContextId"]
        return self._ctx_id

    async def _in_world(self, js: str, new_document: bool = False, again: bool = True) -> Any:
        """``js`` in the watch's world of the current document (made again once when the one it
        had is gone, unless ``again`` is off)."""
        await self._track_fetches()
        try:
            return await self._eval(js, await self._world(new_document))
        except _ContextGone:
            if not again:
                raise
            return await self._eval(js, await self._world(True))

    async def enter_new_document(self) -> None:
        """Find the watch's world in the document that just committed (one round trip, which a first
        call in it would otherwise make before its own): called while the document loads."""
        await self._world(True)

    async def track_new_documents(self) -> None:
        """Have the browser make the watch's world, with its tracker, in every document this tab
        loads from now on, as the document is created (``Page.addScriptToEvaluateOnNewDocument``
        with the world's name; :meth:`_world` then finds that world): no round trip at commit,
        and mutations are counted from the document's first node."""
        await self._enable_page()  # the browser runs such scripts only with it on

        def loaded(e: dict[str, Any]) -> None:  # the tracker armed itself at its document's load
            if e.get("name") == _LOADED_BINDING:
                self._loaded_ctx = e.get("executionContextId")

        self.cdp.on("Runtime.bindingCalled", loaded)
        await self.cdp.send("Runtime.enable")  # a binding reaches this session only with it on
        await self.cdp.send("Runtime.addBinding", {"name": _LOADED_BINDING, "executionContextName": _WORLD})
        await self.cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": f"{_TRACK_JS};\n{_ARM_AT_LOAD_JS}",
                                                                        "worldName": _WORLD})

    async def track(self, new_document: bool = False) -> None:
        """Start tracking the current document's mutations (without arming the stale check):
        called as soon as a new document commits, so the quiet period of the capture's settle
        counts from then, not from the capture."""
        await self._in_world(_TRACK_JS, new_document)

    async def run(self, fn_js: str, arg: Any, new_document: bool = False) -> Any:
        """``fn_js(arg)`` (a function, possibly async) in the watch's world: the capture's settle
        runs here, its quiet period counted from the tracker's last mutation when :meth:`track` or
        :meth:`arm` installed one in this document (else from the call, as in the page's world)."""
        return await self._run(f"({fn_js})({json.dumps(arg)})", new_document)

    async def _run(self, js: str, new_document: bool, again: bool = True) -> Any:
        try:
            return await self._in_world(js, new_document, again)
        except _ContextGone as exc:  # the document went away under the script: as Playwright says it
            raise RuntimeError(f"Execution context was destroyed (the page navigated): {exc}") from None

    async def arm(self, new_document: bool = False) -> None:
        """Start (or restart) the stale check: nothing marked from here on is what the last
        screenshot shows. ``new_document``: the tab navigated since the last arm (the caller saw
        it), so its world is made at once instead of after a failed round trip in the old one."""
        await self._in_world(_ARM_JS, new_document)
        self._armed_ctx = self._ctx_id

    @property
    def armed_at_load(self) -> bool:
        """Did the current document's tracker arm itself at the document's load (it said so through
        its binding, in a tab that :meth:`track_new_documents`), with no capture armed or checked in
        it since, and no fetch/XHR of its own seen (whose answer it renders after its load, as a
        client-rendered page does)? Its first capture may then send its screenshot at once: the
        arm came before the browser reported the load, so before any frame drawn after it."""
        return (self._ctx_id is not None and self._loaded_ctx == self._ctx_id and self._ctx_id != self._armed_ctx
                and not self.fetched_in_document)

    async def check_armed_at_load(self, fn_js: str, arg: Any) -> Any:
        """``fn_js(arg)`` in the watch's world of the current document, without arming, its answer (an
        object) with ``armed_at_load``: whether the tracker armed itself at the document's load and
        nothing armed it since (a capture sent with this check is then checked against the load;
        :func:`webgauge.browser.capture.capture_page`'s ``settle_loaded_in``)."""
        js = (f"{_CANVAS_SIG_JS}(async () => {{ const r = await ({fn_js})({json.dumps(arg)}); "
              "const s = window.__wgWatch; r.armed_at_load = !!(s && s.armed && s.atLoad); return r; })()")
        self._armed_ctx = self._ctx_id  # once per document: its later captures arm the watch themselves
        # in this document only (a capture of the next one is taken afresh, not checked here); its fetches
        # followed from here, as an arm would
        return await self._run(js, False, again=False)

    async def arm_then(self, fn_js: str, arg: Any, new_document: bool = False) -> Any:
        """:meth:`arm`, then ``fn_js(arg)`` in the watch's world, in one round trip (a capture taken at
        once arms the watch and asks whether the page is still together)."""
        js = f"{_CANVAS_SIG_JS}(async () => {{ await ({_ARM_FN})(); return await ({fn_js})({json.dumps(arg)}); }})()"
        out = await self._run(js, new_document)
        self._armed_ctx = self._ctx_id
        return out

    async def changes(self) -> list[str]:
        if self._ctx_id is None:
            return ["unarmed"]
        try:
            return list(await self._eval(_CHECK_JS))
        except Exception:  # the armed document is gone (navigation, crash)
            return ["navigation"]

    async def changes_until_quiet(self, quiet_ms: int) -> list[str]:
        """Why the page may look different since :meth:`arm`, asked without waiting for a frame: at
        once when something changed, else when ``quiet_ms`` have passed since the document's last
        mutation (asked again then). Empty: the state armed on is still the page's, and was quiet
        that long. A capture taken right after the arm is checked with it."""
        if self._ctx_id is None:
            return ["unarmed"]
        try:
            return list(await self._eval(f"{_CANVAS_SIG_JS}{_STILL_JS}({int(quiet_ms)})"))
        except Exception:  # the armed document is gone (navigation, crash)
            return ["navigation"]

    async def navigation_started(self) -> bool:
        """Has the watched document started a navigation to another document since :meth:`arm`
        (or already been replaced)? A submitted form counts from its 'submit' event, before
        Chromium starts the submission in a task of its own. One round trip, no waiting."""
        if self._ctx_id is None:
            return False
        try:
            return bool(await self._eval("!!(window.__wgWatch && window.__wgWatch.navigating())"))
        except Exception:  # the armed document is gone: it navigated
            return True

    async def call(self, fn_js: str, arg: Any) -> object:
        """``fn_js(arg)`` in the watch's isolated world (the page's own scripts cannot tamper with
        the DOM functions it calls); raises when the watched document is gone."""
        if self._ctx_id is None:
            raise RuntimeError("the change watch is not armed")
        return await self._eval(f"({fn_js})({json.dumps(arg)})")

    async def _eval(self, js: str, ctx_id: int | None = None) -> Any:
        try:
            r = await self.cdp.send("Runtime.evaluate", {"expression": js, "contextId": ctx_id or self._ctx_id,
                                                         "returnByValue": True, "awaitPromise": True, "silent": True})
        except Exception as exc:  # no such context any more, or it was destroyed while the script ran
            if "context" in str(exc).lower():
                raise _ContextGone(str(exc).splitlines()[0][:200]) from None
            raise
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("text", "script error"))
        return r["result"].get("value")
