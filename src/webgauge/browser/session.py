"""Launching the system Chromium and driving live pages through Playwright's async API.

This module (with :mod:`capture`) is the only place in webgauge that imports Playwright.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import fnmatch
import ipaddress
import json
import time
from pathlib import Path
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit

from .capture import capture_page, screenshot_page
from .settle import SETTLE_TIMEOUT, STABLE_FRAMES, SettleReport, settle
from .settle import probe_layout
from .chromium import LAUNCH_FLAGS, chromium_version, find_chromium
from .errors import BrowserError, ElementNotFound, NotInteractable, PageError
from .profile import DEFAULT_PROFILE, RenderProfile
from .snapshot import Snapshot
from .cdp import RUNNING_ANIMATIONS_JS, ChangeWatch, clear_origin_data, viewport_png
from .cdp import full_page_png

__all__ = ["Browser", "LivePage", "is_loopback_url", "origin_of"]


def origin_of(url: str) -> str:
    """``scheme://host:port`` of a URL (ports made explicit)."""
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(parts.scheme, 0)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}:{port}"


def is_loopback_url(url: str) -> bool:
    """True when the URL's host is on this machine (127.0.0.0/8, ::1 or localhost)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _playwright():
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise BrowserError("Playwright is not installed: `pip install playwright` (no browser download needed).") from exc
    return async_playwright


class Browser:
    """One running system Chromium. Use ``async with Browser.launch() as browser``.

    Every page gets its own browser context (cookies, storage and routing are isolated),
    so pages never see one another.
    """

    def __init__(self, executable: str | None = None, headless: bool = True, hide_scrollbars: bool = True,
                 extra_args: tuple[str, ...] = ()) -> None:
        self.executable = find_chromium(executable)
        self.headless = headless
        self.hide_scrollbars = hide_scrollbars
        self.extra_args = tuple(extra_args)
        self._pw_cm = None
        self._pw = None
        self._browser = None

    @classmethod
    def launch(cls, executable: str | None = None, **kwargs) -> "Browser":
        """A browser to be started with ``async with`` (or ``await browser.start()``)."""
        return cls(executable, **kwargs)

    async def start(self) -> "Browser":
        if self._browser is not None:
            return self
        self._pw_cm = _playwright()()
        self._pw = await self._pw_cm.__aenter__()
        args = list(LAUNCH_FLAGS) + list(self.extra_args)
        # Keep Chromium's own pop-up blocker: window.open without a user gesture is blocked,
        # as in a real browser, so a page cannot flood the run with tabs.
        ignore = ["--disable-popup-blocking"] + ([] if self.hide_scrollbars else ["--hide-scrollbars"])
        if self.hide_scrollbars:
            args.append("--hide-scrollbars")
        try:
            self._browser = await self._pw.chromium.launch(
                executable_path=self.executable, headless=self.headless, args=args,
                ignore_default_args=ignore, timeout=60_000)
        except Exception as exc:
            await self._pw_cm.__aexit__(None, None, None)
            self._pw = self._pw_cm = None
            raise BrowserError(f"Chromium at {self.executable} failed to start: {exc}. "
                               "Check that it runs (`chromium --version`) or choose another with --chromium.") from exc
        return self

    async def close(self) -> None:
        if self._browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._browser.close(), 30)
        if self._pw_cm is not None:
            with contextlib.suppress(Exception):
                await self._pw_cm.__aexit__(None, None, None)
        self._browser = self._pw = self._pw_cm = None

    async def __aenter__(self) -> "Browser":
        return await self.start()

    async def __aexit__(self, *exc) -> None:
        await self.close()

    @property
    def version(self) -> str:
        """Chromium's version string (``Chromium 156.0...``)."""
        if self._browser is not None:
            return f"Chromium {self._browser.version}"
        return chromium_version(self.executable)

    @property
    def connected(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    async def new_page(self, profile: RenderProfile = DEFAULT_PROFILE, *, allowed_origins: tuple[str, ...] = (),
                       max_tabs: int = 5, dialog_policy: str = "dismiss", require_settled: bool = False,
                       settle_timeout: float = SETTLE_TIMEOUT, timeout: float | None = None,
                       stand_ins: dict[str, tuple[bytes, str]] | None = None) -> "LivePage":
        """A blank live page in a fresh context. Close it with ``await page.close()``.

        ``require_settled`` makes every capture (and :meth:`LivePage.settle`) of a page that does
        not settle within ``settle_timeout`` seconds raise ``PageError("unsettled")`` instead of
        returning a snapshot marked unsettled: builds that promise byte-identical output use it.
        ``timeout`` (seconds) replaces the default time limit of captures and scripts (20 s) and
        of reloads (10 s): builds on a busy machine give pages more time rather than fail them.
        ``stand_ins`` (``{url: (body, content type)}``) answers those exact remote URLs locally
        when offline routing would block them (recorded in ``stood_in_requests``)."""
        if self._browser is None:
            await self.start()
        if profile.hide_scrollbars != self.hide_scrollbars:
            raise BrowserError("The render profile's scrollbar policy differs from this browser's launch: "
                               f"launch with Browser.launch(hide_scrollbars={profile.hide_scrollbars}).")
        ctx = await self._browser.new_context(
            viewport={"width": profile.width, "height": profile.height},
            device_scale_factor=profile.device_scale_factor,
            locale=profile.locale,
            timezone_id=profile.timezone,
            reduced_motion="reduce" if profile.reduced_motion else "no-preference",
            color_scheme=profile.color_scheme,
            user_agent=profile.user_agent,
            is_mobile=profile.is_mobile,
            has_touch=profile.has_touch,
            service_workers="block",
            accept_downloads=True,
        )
        page = LivePage(ctx, profile, allowed_origins=tuple(profile.allowed_origins) + tuple(allowed_origins),
                        max_tabs=max_tabs, dialog_policy=dialog_policy, require_settled=require_settled,
                        settle_timeout=settle_timeout, timeout=timeout, stand_ins=stand_ins)
        await page._setup()
        return page

    @contextlib.asynccontextmanager
    async def open(self, url: str, profile: RenderProfile = DEFAULT_PROFILE, *, timeout: float = 30.0, **kwargs):
        """``async with browser.open(url, profile) as page``: a live page at ``url``."""
        page = await self.new_page(profile, **kwargs)
        try:
            await page.goto(url, timeout=timeout)
            yield page
        finally:
            await page.close()

    async def capture_url(self, url: str, profile: RenderProfile = DEFAULT_PROFILE, *, full_page: bool = True,
                          timeout: float = 30.0, **kwargs) -> Snapshot:
        """Open ``url``, capture it and close it, all within ``timeout`` seconds.

        Raises :class:`PageError` (never hangs) when the page cannot be captured in time.
        """
        page = await self.new_page(profile, **kwargs)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout

            async def _go() -> Snapshot:
                await page.goto(url, timeout=timeout * 0.6)
                return await page.capture(full_page=full_page, timeout=max(1.0, deadline - loop.time()))
            try:
                return await asyncio.wait_for(_go(), timeout)
            except asyncio.TimeoutError:
                raise PageError("timeout", f"page did not finish capture within {timeout:.0f}s "
                                "(a script may be looping or the page is too heavy)", url) from None
        finally:
            await page.close()


#: Why an element action cannot reach ``el`` now, or null when nothing here stops it (hidden and
#: uncertain cases stay Playwright's to wait for): ``['inert', what]`` inside an inert subtree or
#: outside the open modal ``<dialog>``; ``['outside', what]`` no part of it can be scrolled into the
#: viewport; ``['covered', what, animating]`` another element's subtree (``what``: its dialog, else
#: its root, as ``<tag class=..> 'its title'``) takes the pointer at the point Playwright would
#: click. An element not wholly in the viewport is first scrolled to its center, as Playwright's
#: actions scroll (``scroll`` false: null, Playwright's action scrolls); one found covered where it
#: is (a sticky header over it) is centred and checked again, as Playwright retries. Its labels stand in for it (an upload's hidden file input, a styled checkbox):
#: one of them reachable is enough. Declared as a function inside each script that uses it.
_BLOCKED_JS = """function __wgBlocked(el, scroll) {
  const text = (n) => {
    const by = n.getAttribute('aria-labelledby');
    const lab = n.getAttribute('aria-label') || (by && by.split(/\\s+/).map((i) => {
      const t = document.getElementById(i); return t ? t.textContent : ''; }).join(' '));
    const head = n.querySelector('h1,h2,h3,h4,h5,h6,[role=heading],legend');
    return (lab || (head && head.textContent) || n.innerText || n.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
  };
  const describe = (n) => {
    let tag = '<' + n.tagName.toLowerCase();
    for (const a of ['id', 'class', 'role']) if (n.getAttribute(a)) tag += ' ' + a + '=' + n.getAttribute(a).trim().slice(0, 40);
    const t = text(n);
    return tag + '>' + (t ? " '" + t + "'" : '');
  };
  const one = (e, again) => {
    const inert = e.closest('[inert]');
    if (inert) return ['inert', 'inside ' + describe(inert)];
    const modal = document.querySelector('dialog:modal');
    if (modal && !modal.contains(e)) return ['inert', 'outside the open modal ' + describe(modal)];
    if (getComputedStyle(e).visibility !== 'visible' || (e.checkVisibility && !e.checkVisibility())) return null;
    let r = e.getClientRects()[0];
    if (!r || !(r.width > 0 && r.height > 0)) return null;
    let scrolled = !!again;
    if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) {
      if (!scroll) return null;
      e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
      r = e.getClientRects()[0];
      scrolled = true;
    }
    const left = Math.max(r.left, 0), top = Math.max(r.top, 0);
    const right = Math.min(r.right, innerWidth), bottom = Math.min(r.bottom, innerHeight);
    if (!(right - left >= 1 && bottom - top >= 1)) return ['outside', describe(e)];
    const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
    if (!hit || hit === e || e.contains(hit) || hit.contains(e)) return null;
    const label = hit.closest('label');
    if (label && label.control === e) return null;
    if (scroll && !scrolled) {  // a sticky header or banner over it: centred, as Playwright retries, it may be clear
      const y0 = scrollY, x0 = scrollX;
      e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
      if (scrollY !== y0 || scrollX !== x0) return one(e, true);
    }
    let root = hit;
    while (root.parentElement && !root.parentElement.contains(e)) root = root.parentElement;
    const sel = 'dialog,[role=dialog],[role=alertdialog]';
    const dlg = root.matches(sel) ? root : root.querySelector(sel);
    const running = !!(document.getAnimations && document.getAnimations().some((a) => a.playState === 'running'));
    return ['covered', describe(dlg || root), running];
  };
  if (!(el instanceof Element) || !el.isConnected) return null;
  const first = one(el);
  if (!first || first[0] === 'inert') return first;
  for (const label of el.labels || []) if (label !== el && !one(label)) return null;
  return first;
}"""

#: ``{blocked: __wgBlocked(el)}`` of a target (an XPath), or null: reachable (or Playwright's to decide).
_REACHABLE_JS = """(xpath) => {  // (only used with reject_blocked: it scrolls)
  """ + _BLOCKED_JS + """
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const b = __wgBlocked(el, true);
  return b && {blocked: b};
}"""

#: The same for an element handle (a selector target) or the focused field (what typing reaches).
_REACHABLE_EL_JS = "(el) => { " + _BLOCKED_JS + " const b = __wgBlocked(el, true); return b && {blocked: b}; }"
_REACHABLE_FOCUS_JS = ("() => { " + _BLOCKED_JS + " const el = document.activeElement;"
                       " if (!el || !(el.isContentEditable || el.matches('input, textarea, select'))) return null;"
                       " const b = __wgBlocked(el, true); return b && {blocked: b}; }")

#: How long a covered verdict may wait for running animations (a closing dialog fading out)
#: before the action is rejected; without animations it is rejected at once.
BLOCKED_ANIMATION_WAIT = 0.25


#: The center of a target (an XPath) when a plain mouse click there is what Playwright's click
#: does (attached, one box wholly in the viewport, visible, enabled, no animation running,
#: the element or a descendant hit at the center); else null. Read-only.
_CLICK_POINT_JS = """([xpath, scroll]) => {
  """ + _BLOCKED_JS + """
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (!(el instanceof Element) || !el.isConnected) return null;
  const blocked = __wgBlocked(el, scroll);
  if (blocked) return {blocked};
  if (document.getAnimations && document.getAnimations().some((a) => a.playState === 'running')) return null;
  const rects = el.getClientRects();
  if (rects.length !== 1) return null;
  const r = rects[0];
  if (!(r.width > 0 && r.height > 0) || r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return null;
  const st = getComputedStyle(el);
  if (st.visibility !== 'visible' || st.pointerEvents === 'none') return null;
  if (el.matches(':disabled') || el.closest('[aria-disabled=true]')) return null;
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return hit && (hit === el || el.contains(hit)) ? [x, y] : null;
}"""


# Playwright's "visible, enabled, not inert" for a fill or select target, shared by both scripts
# below (they are run as expressions, so it is a function declared inside each).
_ACTIONABLE_JS = """function __wgActionable(el) {
  if (!el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0) || getComputedStyle(el).visibility !== 'visible') return false;
  if (el.checkVisibility && !el.checkVisibility()) return false;
  if (el.matches(':disabled') || el.closest('[aria-disabled=true]') || el.closest('[inert]')) return false;
  const modal = document.querySelector('dialog:modal');
  return !(modal && !modal.contains(el));
}"""

# The checks Playwright's fill makes (visible, enabled, editable, not inert) on a plain text
# input or textarea, then its selection and focus (its injected script's ``selectText``); null:
# anything else (other input types, contenteditable, a label, a check that fails), which takes
# Playwright's fill, whose waiting and errors stay as they were.
_FILL_TARGET_JS = """([xpath, scroll]) => {
  """ + _ACTIONABLE_JS + _BLOCKED_JS + """
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const blocked = __wgBlocked(el, scroll);
  if (blocked) return {blocked};
  const TEXT = ['', 'email', 'password', 'search', 'tel', 'text', 'url'];
  if (!(el instanceof Element) || !(el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && TEXT.includes(el.type.toLowerCase())))) return null;
  if (!__wgActionable(el) || el.readOnly || el.closest('[aria-readonly=true]')) return null;
  if (el.tagName === 'INPUT') { el.select(); el.focus(); }
  else { el.selectionStart = 0; el.selectionEnd = el.value.length; el.focus(); }
  return document.activeElement === el;
}"""

# Playwright's selectOptions (each value matches an option's value or label, whitespace
# normalized) on a visible, enabled <select> whose wanted options all exist and are enabled;
# null otherwise (Playwright's select_option then waits and fails as before).
_SELECT_JS = """([xpath, wanted, scroll]) => {
  """ + _ACTIONABLE_JS + _BLOCKED_JS + """
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const blocked = __wgBlocked(el, scroll);
  if (blocked) return {blocked};
  if (!(el instanceof HTMLSelectElement) || !__wgActionable(el)) return null;
  const ws = (s) => s.replace(/\\s+/g, ' ').trim();
  const options = [...el.options], chosen = [];
  let remaining = wanted.slice();
  for (const option of options) {
    const label = ws(option.label);
    const hit = (w) => w === option.value || w === option.label || ws(w) === label;
    if (!remaining.some(hit)) continue;
    if (option.disabled || (option.parentElement && option.parentElement.disabled)) return null;
    chosen.push(option);
    if (!el.multiple) { remaining = []; break; }
    remaining = remaining.filter((w) => !hit(w));
  }
  if (remaining.length) return null;
  el.value = undefined;
  chosen.forEach((o) => { o.selected = true; });
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return chosen.map((o) => o.value);
}"""

def _sorted_unique(records: list[dict]) -> list[dict]:
    """Event records (dicts of strings) deduplicated and sorted, so their order never depends on timing."""
    seen = {json.dumps(r, sort_keys=True): r for r in records}
    return [seen[k] for k in sorted(seen)]


class LivePage:
    """A live page (with its tabs) in its own browser context.

    Element targets are either element ids from an earlier capture of this page, or
    Playwright-style selectors prefixed ``css=``, ``xpath=``, ``text=`` or ``role=``.
    """

    def __init__(self, ctx, profile: RenderProfile, allowed_origins: tuple[str, ...], max_tabs: int,
                 dialog_policy: str | Callable, require_settled: bool = False,
                 settle_timeout: float = SETTLE_TIMEOUT, timeout: float | None = None,
                 stand_ins: dict[str, tuple[bytes, str]] | None = None) -> None:
        self._ctx = ctx
        self._stand_ins = dict(stand_ins or {})  # remote URL -> (body, content type), answered offline
        self.stood_in_requests: list[str] = []
        # Viewport screenshots through CDP (see viewport_png); off: Playwright's page.screenshot.
        self.fast_screenshots = False
        # clicks, fills and selects on plainly actionable captured targets without Playwright's round trips
        self.fast_actions = False
        # element actions on a covered, inert or unreachable target raise NotInteractable at once
        # (see _BLOCKED_JS) instead of Playwright's waiting out the timeout (click) or acting behind
        # a dialog (fill, select, upload, focus, typing)
        self.reject_blocked = False
        # Full-page screenshots through CDP (see full_page_png); off: Playwright's page.screenshot.
        self.fast_full_page = False
        self._cdp: dict = {}  # Playwright page -> CDP session
        self._watches: dict = {}  # Playwright page -> ChangeWatch
        self._tracking_sessions: set = set()  # CDP sessions whose tab tracks changes from each document's creation
        self._tab_navs: dict = {}  # Playwright page -> its own main-frame navigations (the watch's new documents)
        self._origins_seen: set[str] = set()  # origins whose data reuse() clears
        self._init_scripts = 0  # init scripts cannot be removed: a page that has any is not reusable
        self.profile = profile
        self._allowed = {origin_of(o) for o in allowed_origins}
        self.max_tabs = max_tabs
        self.dialog_policy = dialog_policy
        self._pages: list = []
        self._active = 0
        self._paths: dict[str, str] = {}
        self.id_salt = ""  # salts the element ids of captures (the arena sets one per episode)
        self.blocked_requests: list[dict] = []
        self.dialogs: list[dict] = []
        self.popups: list[dict] = []
        self.downloads: list[dict] = []
        self.file_choosers: list = []  # file choosers a click opened (Playwright FileChooser), oldest first
        self.warnings: list[str] = []
        self.navigation_id = 0
        self._cleared = False  # reuse() cleared it and it has not navigated since
        self.crashed = False
        self._delays: list[tuple[str, float]] = []
        self._closed = False
        self.require_settled = require_settled
        self.settle_timeout = settle_timeout
        self.timeout = timeout  # None: each method's own default
        self._inflight: dict[Any, tuple[Any, str]] = {}  # request -> (tab, url), for settling

    # ---- setup and events -------------------------------------------------
    async def _setup(self) -> None:
        await self._ctx.route("**/*", self._route)
        self._ctx.on("page", self._on_new_page)
        page = await self._ctx.new_page()
        self._register(page)
        await self._freeze_clock(page)

    def _register(self, page) -> bool:
        """Attach the event handlers (synchronously, before the page can fire anything)."""
        if page in self._pages:
            return False
        self._pages.append(page)
        page.on("dialog", lambda d: asyncio.ensure_future(self._on_dialog(d)))
        page.on("crash", lambda _p: self._on_crash())
        page.on("download", lambda d: asyncio.ensure_future(self._on_download(d)))
        page.on("filechooser", lambda fc: self.file_choosers.append(fc))  # a listener: Playwright intercepts the native dialog
        page.on("framenavigated", lambda f: self._on_nav(page, f))
        page.on("request", lambda r: self._inflight.__setitem__(r, (page, r.url)))
        page.on("requestfinished", lambda r: self._inflight.pop(r, None))
        page.on("requestfailed", lambda r: self._inflight.pop(r, None))
        return True

    async def _freeze_clock(self, page) -> None:
        if self.profile.frozen_time:
            with contextlib.suppress(Exception):
                when = _dt.datetime.fromisoformat(self.profile.frozen_time.replace("Z", "+00:00"))
                await page.clock.set_fixed_time(when)

    def _on_nav(self, page, frame) -> None:
        if frame == page.main_frame:
            self.navigation_id += 1
            self._tab_navs[page] = self._tab_navs.get(page, 0) + 1
        if frame.url.startswith(("http://", "https://")):
            self._origins_seen.add(origin_of(frame.url))

    def _on_crash(self) -> None:
        self.crashed = True
        self.warnings.append("renderer crashed")

    def _on_new_page(self, page) -> None:
        if page in self._pages:
            return
        if not self._pages:  # the first tab, opened by _setup
            self._register(page)
            return
        self.popups.append({"url": page.url, "opened_at_tab_count": len(self._pages)})
        if len(self._pages) >= self.max_tabs:
            self.warnings.append(f"closed a pop-up beyond the {self.max_tabs}-tab limit")
            asyncio.ensure_future(page.close())
            return
        self._register(page)
        asyncio.ensure_future(self._freeze_clock(page))

    async def _on_dialog(self, dialog) -> None:
        self.dialogs.append({"type": dialog.type, "message": dialog.message[:500]})
        policy = self.dialog_policy
        with contextlib.suppress(Exception):
            if callable(policy):
                accept = bool(policy(dialog.type, dialog.message))
            else:
                accept = policy == "accept" or dialog.type == "beforeunload"
            if accept:
                await dialog.accept()
            else:
                await dialog.dismiss()

    async def _on_download(self, download) -> None:
        self.downloads.append({"url": download.url, "suggested_filename": download.suggested_filename})
        with contextlib.suppress(Exception):
            await download.cancel()

    async def _route(self, route) -> None:
        req = route.request
        url = req.url
        scheme = urlsplit(url).scheme
        for pattern, ms in self._delays:
            if fnmatch.fnmatchcase(url, pattern):
                await asyncio.sleep(ms / 1000)
                break
        if not self.profile.offline or scheme in ("data", "blob", "about", "chrome-extension"):
            await route.continue_()
            return
        if not self._allowed and is_loopback_url(url):
            self._allowed.add(origin_of(url))
        if origin_of(url) in self._allowed and is_loopback_url(url):
            await route.continue_()
            return
        stand_in = self._stand_ins.get(url)
        if stand_in is not None:
            self.stood_in_requests.append(url[:500])
            await route.fulfill(status=200, body=stand_in[0], content_type=stand_in[1])
            return
        self.blocked_requests.append({"url": url[:500], "resource_type": req.resource_type})
        await route.abort("blockedbyclient")

    def delay_requests(self, pattern: str, ms: float) -> None:
        """Hold every request whose URL matches the glob ``pattern`` for ``ms`` milliseconds
        (slow-load variants). Later calls add rules; the first matching rule applies."""
        self._delays.append((pattern, float(ms)))

    async def add_init_script(self, js: str) -> None:
        """Run ``js`` in every document of this page (and its tabs) before the page's own
        scripts. Only for deliberate variants (injected pop-ups, traps): it is a mark.
        A page with an init script is not reusable (:meth:`can_reuse`)."""
        self._init_scripts += 1
        await self._ctx.add_init_script(js)

    def allow_origin(self, url: str) -> None:
        """Allow one more loopback origin for this page (offline routing)."""
        if not is_loopback_url(url):
            raise BrowserError(f"{url} is not a loopback URL; only loopback origins can be allowed offline.")
        self._allowed.add(origin_of(url))

    # ---- tabs -------------------------------------------------------------
    @property
    def _page(self):
        if self._closed:
            raise BrowserError("this page is closed")
        live = [p for p in self._pages if not p.is_closed()]
        self._pages = live
        if not live:
            raise PageError("crash", "every tab of this page is closed")
        self._active = min(self._active, len(live) - 1)
        return live[self._active]

    @property
    def tabs(self) -> list[str]:
        return [p.url for p in self._pages if not p.is_closed()]

    @property
    def active_tab(self) -> int:
        return self._active

    async def switch_tab(self, index: int) -> None:
        self._page  # prune closed tabs
        if not 0 <= index < len(self._pages):
            raise BrowserError(f"no tab {index}; open tabs: {len(self._pages)}")
        self._active = index
        await self._pages[index].bring_to_front()

    async def close_tab(self, index: int | None = None) -> None:
        page = self._pages[self._active if index is None else index]
        await page.close()
        self._page

    @property
    def url(self) -> str:
        return self._page.url

    # ---- navigation -------------------------------------------------------
    async def goto(self, url: str, *, timeout: float = 30.0,
                   on_commit: Callable[[], Awaitable[None]] | None = None) -> None:
        """Navigate and wait for ``load``; a page that never finishes loading is captured
        after DOMContentLoaded with a warning, one that never parses raises PageError.
        ``on_commit`` runs as soon as the new document commits (its errors are ignored; the arena
        starts its change tracking there, see :meth:`track_changes`)."""
        if self.profile.offline and not is_loopback_url(url) and urlsplit(url).scheme not in ("data", "about"):
            raise PageError("blocked", f"{url} is not on this machine and webgauge is offline by default; "
                            "serve the page from a folder or file (webgauge.pages) or use a 127.0.0.1 URL", url)
        if self.profile.offline and is_loopback_url(url) and not self._allowed:
            self._allowed.add(origin_of(url))
        page = self._page
        self._cleared = False
        try:
            if on_commit is None:
                await page.goto(url, wait_until="domcontentloaded", timeout=timeout * 1000 * 0.7)
            else:
                t0 = time.perf_counter()
                await page.goto(url, wait_until="commit", timeout=timeout * 1000 * 0.7)
                with contextlib.suppress(Exception):
                    await on_commit()
                left = max(1.0, timeout * 0.7 - (time.perf_counter() - t0))
                await page.wait_for_load_state("domcontentloaded", timeout=left * 1000)
        except Exception as exc:
            raise self._as_page_error(exc, url) from None
        try:
            await page.wait_for_load_state("load", timeout=timeout * 1000 * 0.3)
        except Exception:
            # no warning here: whether the load event came within the wait depends on the
            # machine's load; a capture taken before it fired says so (see capture_page)
            pass

    async def back(self, timeout: float = 10.0) -> None:
        await self._page.go_back(timeout=timeout * 1000)

    async def forward(self, timeout: float = 10.0) -> None:
        await self._page.go_forward(timeout=timeout * 1000)

    async def reload(self, timeout: float | None = None) -> None:
        timeout = timeout if timeout is not None else (self.timeout or 10.0)
        await self._page.reload(timeout=timeout * 1000)

    async def set_content(self, html: str, *, timeout: float = 30.0) -> None:
        self._cleared = False
        try:
            await self._page.set_content(html, wait_until="load", timeout=timeout * 1000)
        except Exception as exc:
            raise self._as_page_error(exc, self.url) from None

    async def set_viewport(self, width: int, height: int) -> None:
        await self._page.set_viewport_size({"width": width, "height": height})

    async def wait_for_timeout(self, ms: float) -> None:
        await self._page.wait_for_timeout(ms)

    async def wait_for_load(self, state: str = "load", timeout: float = 10.0) -> None:
        await self._page.wait_for_load_state(state, timeout=timeout * 1000)

    async def wait_for(self, target: str, *, state: str = "visible", timeout: float = 10.0) -> None:
        await self._locator(target).wait_for(state=state, timeout=timeout * 1000)

    def pending_requests(self) -> list[str]:
        """URLs (sorted) of the active tab's requests to its own origin still in flight."""
        page = self._page
        own = origin_of(page.url)
        return sorted(url for tab, url in list(self._inflight.values())
                      if tab is page and urlsplit(url).scheme in ("http", "https") and origin_of(url) == own)

    async def settle(self, timeout: float | None = None) -> SettleReport:
        """Wait until the active tab is settled (fonts, images, own-origin requests, stable
        layout; see :mod:`webgauge.browser.settle`), at most ``timeout`` seconds (default
        ``settle_timeout``). Raises ``PageError("unsettled")`` when it does not settle and the
        page was opened with ``require_settled``; otherwise returns the report."""
        report = await settle(self._page, timeout=self.settle_timeout if timeout is None else timeout,
                              pending=self.pending_requests)
        if not report.settled and self.require_settled:
            raise PageError("unsettled", "; ".join(report.reasons), self._safe_url())
        return report

    # ---- capture ----------------------------------------------------------
    async def capture(self, *, full_page: bool = False, timeout: float | None = None, max_elements: int = 20000,
                      with_aria: bool = True, with_screenshot: bool = True, stable_frames: int = STABLE_FRAMES,
                      quiet_ms: int = 0, watch: bool = False) -> Snapshot:
        """Capture the active tab: screenshot, elements and aria snapshot (read-only).

        ``stable_frames`` and ``quiet_ms`` tune the settle (see :func:`capture_page`); ``watch``
        runs the settle in the change watch's world (its quiet period counted from the watch's last
        mutation, see :meth:`track_changes`) and arms the watch (:meth:`watch_changes`) after the
        settle, right before the screenshot.

        A page that navigates during the capture (a form submitted by a timer, a redirect)
        is captured again once the new document has loaded, within the same ``timeout``.
        """
        timeout = timeout if timeout is not None else (self.timeout or 20.0)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        attempt = 0
        while True:
            attempt += 1
            nav_before = self.navigation_id
            remaining = max(0.5, deadline - loop.time())
            try:
                snap = await asyncio.wait_for(
                    capture_page(self._page, self.profile, full_page=full_page, max_elements=max_elements,
                                 with_aria=with_aria, with_screenshot=with_screenshot, timeout=remaining,
                                 settle_timeout=min(self.settle_timeout, remaining * 0.6),
                                 pending=self.pending_requests,
                                 viewport_screenshot=self.viewport_png if self.fast_screenshots else None,
                                 stable_frames=stable_frames, quiet_ms=quiet_ms,
                                 before_screenshot=self.watch_changes if watch else None,
                                 settle_in=self.run_in_watch if watch else None,
                                 full_page_screenshot=self.full_page_png if self.fast_full_page else None,
                                 id_salt=self.id_salt),
                    remaining + 2.0)
            except asyncio.TimeoutError:
                if self.navigation_id != nav_before and attempt < 3 and deadline - loop.time() > 1:
                    continue
                raise PageError("timeout", f"page did not respond to capture within {timeout:.0f}s "
                                "(a script may be looping)", self._safe_url()) from None
            except PageError:
                raise
            except Exception as exc:
                err = self._as_page_error(exc, self._safe_url())
                navigated = self.navigation_id != nav_before or "context was destroyed" in err.message
                if err.kind == "navigation" and navigated and attempt < 3 and deadline - loop.time() > 1:
                    with contextlib.suppress(Exception):
                        await self._page.wait_for_load_state("load", timeout=max(0.5, deadline - loop.time()) * 1000)
                    continue
                raise err from None
            if self.navigation_id != nav_before and attempt < 3 and deadline - loop.time() > 1:
                continue  # the document changed under the capture: take it again
            break
        for el in snap.elements:
            self._paths[el.id] = el.path
        # Events arrive in whatever order the machine's load allows: record them sorted. Dialogs
        # keep the page's own order: each one is modal and blocks the script that opened it.
        snap.blocked_requests = _sorted_unique(self.blocked_requests)
        snap.dialogs = list(self.dialogs)
        snap.warnings = sorted(set(self.warnings)) + snap.warnings
        snap.navigation_id = self.navigation_id
        if not snap.settled and self.require_settled:
            reasons = [w[len("unsettled: "):] for w in snap.warnings if w.startswith("unsettled: ")]
            raise PageError("unsettled", "; ".join(reasons) or "page did not settle", self._safe_url())
        return snap

    async def screenshot(self, *, full_page: bool = False, clip: tuple[float, float, float, float] | None = None,
                         timeout: float = 20.0) -> bytes:
        """PNG bytes of the active tab (``clip`` is ``(x, y, w, h)`` in CSS px of the page)."""
        return await screenshot_page(self._page, self.profile, full_page=full_page, clip=clip, timeout=timeout)

    async def evaluate(self, js: str, arg: Any = None, *, timeout: float | None = None) -> Any:
        """Run a JavaScript function expression in the active tab and return its JSON value."""
        timeout = timeout if timeout is not None else (self.timeout or 20.0)
        try:
            return await asyncio.wait_for(self._page.evaluate(js, arg), timeout)
        except asyncio.TimeoutError:
            raise PageError("timeout", f"script did not return within {timeout:.0f}s", self._safe_url()) from None

    async def content(self) -> str:
        return await self._page.content()

    async def scroll_offsets(self) -> tuple[float, float]:
        x, y = await self.evaluate("() => [window.scrollX, window.scrollY]")
        return (x, y)

    # ---- actions on elements ---------------------------------------------
    def _locator(self, target: str):
        if target in self._paths:
            return self._page.locator("xpath=" + self._paths[target])
        for prefix in ("css=", "xpath=", "text="):
            if target.startswith(prefix):
                return self._page.locator(target)
        if target.startswith("role="):
            role, _, name = target[5:].partition(":")
            return self._page.get_by_role(role, name=name or None, exact=bool(name))
        raise ElementNotFound(f"unknown element id {target!r}: it was not in any capture of this page; "
                              "capture first or pass a selector such as 'css=button.primary'")

    async def resolve(self, target: str, timeout: float = 5.0):
        loc = self._locator(target)
        try:
            count = await asyncio.wait_for(loc.count(), timeout)
        except asyncio.TimeoutError:
            raise PageError("timeout", "page did not respond", self._safe_url()) from None
        if count == 0:
            raise ElementNotFound(f"element {target!r} is no longer in the page")
        return loc.first

    async def box_of(self, target: str) -> tuple[float, float, float, float] | None:
        """Current ``(x, y, w, h)`` of a target in CSS px of the viewport, or None if hidden."""
        loc = await self.resolve(target)
        b = await loc.bounding_box()
        return None if b is None else (b["x"], b["y"], b["width"], b["height"])

    async def click(self, target: str, *, timeout: float = 5.0, click_count: int = 1, force: bool = False,
                    modifiers: tuple[str, ...] | list[str] = ()) -> None:
        """Click a target; ``modifiers`` are keys held during the click (e.g. ``("Shift",)``).

        With ``fast_actions`` on, a target from a capture that one read-only script finds
        attached, visible, enabled, wholly in the viewport, not animating, and hit at its
        center (the point Playwright clicks) gets the same mouse events Playwright's click
        sends, without its actionability round trips; any other target takes Playwright's click."""
        if self.fast_actions and not force and not modifiers and target in self._paths:
            point = await self._fast_unless_blocked(target, _CLICK_POINT_JS, [self._paths[target], self.reject_blocked])
            if point is not None:
                await self._page.mouse.click(point[0], point[1], click_count=click_count)
                return
        elif not force:
            await self._reachable(target)
        loc = await self.resolve(target)
        await loc.click(timeout=timeout * 1000, click_count=click_count, force=force, modifiers=list(modifiers) or None)

    async def _fast_unless_blocked(self, target: str, js: str, arg: Any,
                                   run: Callable[[str, Any], Awaitable[Any]] | None = None) -> Any:
        """``js(arg)`` by :meth:`_fast_check` (or ``run``); a script that found the target blocked (``{blocked: ...}``,
        see ``_BLOCKED_JS``) raises :class:`NotInteractable` with ``reject_blocked`` (after running
        animations ended or ``BLOCKED_ANIMATION_WAIT``), else gives None (Playwright's action decides)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BLOCKED_ANIMATION_WAIT
        while True:
            out = await (run or self._fast_check)(js, arg)
            if not (isinstance(out, dict) and "blocked" in out):
                return out
            if not self.reject_blocked:
                return None
            reason, blocker, *animating = out["blocked"]
            if not any(animating) or loop.time() >= deadline:
                raise NotInteractable(reason, blocker, target)
            await asyncio.sleep(0.03)  # the cover may be animating away (a dialog closing)

    async def _reachable(self, target: str) -> None:
        """With ``reject_blocked``: raise :class:`NotInteractable` when ``target`` is covered, inert or
        cannot be scrolled into the viewport (one script; a hidden or missing target is left to the action)."""
        if not self.reject_blocked:
            return
        if target in self._paths:
            await self._fast_unless_blocked(target, _REACHABLE_JS, self._paths[target])
            return
        loc = await self.resolve(target)

        async def check(js: str, _arg: Any) -> Any:
            with contextlib.suppress(Exception):
                return await loc.evaluate(js)
            return None
        await self._fast_unless_blocked(target, _REACHABLE_EL_JS, None, run=check)

    async def _focus_reachable(self) -> None:
        """With ``reject_blocked``: raise :class:`NotInteractable` when the focused element (what typing
        reaches) is covered or inert."""
        if self.reject_blocked:
            await self._fast_unless_blocked("the focused element", _REACHABLE_FOCUS_JS, None)

    async def _fast_check(self, js: str, arg: Any) -> Any:
        """``js(arg)`` in the change watch's isolated world when one is armed (the page cannot fake
        the checks), else in the page; None when the document is gone (Playwright's own action
        then finds out what happened)."""
        watch = self._watches.get(self._page)
        try:
            return await (watch.call(js, arg) if watch is not None else self.evaluate(js, arg))
        except Exception:
            return None

    async def fill(self, target: str, text: str, *, timeout: float = 5.0) -> None:
        """Fill a text field as Playwright's fill does: select its text, then type ``text`` in one
        ``insertText`` (an empty ``text`` presses Delete).

        With ``fast_actions`` on, a plain text input or textarea from a capture that one script
        finds visible, enabled, editable and not inert is selected and focused by that script (the
        checks and selection Playwright's fill makes, without its round trips); anything else
        takes Playwright's fill."""
        if self.fast_actions and target in self._paths:
            fast = await self._fast_unless_blocked(target, _FILL_TARGET_JS, [self._paths[target], self.reject_blocked])
        else:
            fast = None
            await self._reachable(target)
        if fast:
            if text:
                await self._page.keyboard.insert_text(text)
            else:
                await self._page.keyboard.press("Delete")
            return
        loc = await self.resolve(target)
        await loc.fill(text, timeout=timeout * 1000)

    async def select(self, target: str, value: str | list[str], *, timeout: float = 5.0) -> list[str]:
        """Select the options whose value or label is ``value`` (Playwright's select_option; with
        ``fast_actions`` on, one script does it when the select and all the options are there,
        visible and enabled). Returns the selected values."""
        values = [value] if isinstance(value, str) else value
        if self.fast_actions and target in self._paths:
            chosen = await self._fast_unless_blocked(target, _SELECT_JS, [self._paths[target], list(values), self.reject_blocked])
            if chosen is not None:
                return chosen
        else:
            await self._reachable(target)
        loc = await self.resolve(target)
        try:
            return await loc.select_option(values, timeout=timeout * 1000)
        except Exception:
            return await loc.select_option(label=values, timeout=timeout * 1000)

    async def check(self, target: str, checked: bool = True, *, timeout: float = 5.0) -> None:
        await self._reachable(target)
        loc = await self.resolve(target)
        await loc.set_checked(checked, timeout=timeout * 1000)

    async def hover(self, target: str, *, timeout: float = 5.0) -> None:
        await self._reachable(target)
        loc = await self.resolve(target)
        await loc.hover(timeout=timeout * 1000)

    async def focus(self, target: str) -> None:
        await self._reachable(target)
        loc = await self.resolve(target)
        await loc.focus()

    async def set_input_files(self, target: str, files: list[str | Path] | list[dict], *, timeout: float = 5.0) -> None:
        """Choose files for an ``<input type=file>`` (paths, or dicts name/mimeType/buffer). With
        ``reject_blocked``, the input (or one of its labels: a styled upload hides the input) must be
        reachable as for a click."""
        await self._reachable(target)
        loc = await self.resolve(target)
        await loc.set_input_files([str(f) if isinstance(f, Path) else f for f in files], timeout=timeout * 1000)

    async def choose_files(self, chooser, files: list[str | Path], *, timeout: float = 5.0) -> None:
        """Answer a file chooser a click opened (one of :attr:`file_choosers`) with ``files``."""
        await chooser.set_files([str(f) for f in files], timeout=timeout * 1000)

    async def drag(self, source: str, dest: str, *, timeout: float = 5.0) -> None:
        await self._reachable(source)
        await self._reachable(dest)
        src = await self.resolve(source)
        dst = await self.resolve(dest)
        await src.drag_to(dst, timeout=timeout * 1000)

    # ---- keyboard, scroll and pointer ------------------------------------
    async def press(self, key: str) -> None:
        await self._page.keyboard.press(key)

    async def type_text(self, text: str, delay_ms: float = 0) -> None:
        """Type into the focused element (with ``reject_blocked``: not when it is covered or inert)."""
        await self._focus_reachable()
        await self._page.keyboard.type(text, delay=delay_ms)

    async def scroll(self, dx: float, dy: float) -> None:
        """Scroll the viewport by ``(dx, dy)`` CSS px with the mouse wheel."""
        await self._page.mouse.wheel(dx, dy)
        await self._page.wait_for_timeout(50)

    async def scroll_to(self, x: float, y: float) -> None:
        await self.evaluate("([x, y]) => window.scrollTo(x, y)", [x, y])

    async def mouse_click(self, x: float, y: float, *, button: str = "left", click_count: int = 1) -> None:
        """Click at ``(x, y)`` CSS px of the viewport."""
        await self._page.mouse.click(x, y, button=button, click_count=click_count)

    async def mouse_move(self, x: float, y: float, steps: int = 1) -> None:
        await self._page.mouse.move(x, y, steps=steps)

    async def mouse_down(self, x: float, y: float, button: str = "left") -> None:
        await self._page.mouse.move(x, y)
        await self._page.mouse.down(button=button)

    async def mouse_up(self, x: float, y: float, button: str = "left", steps: int = 5) -> None:
        await self._page.mouse.move(x, y, steps=steps)
        await self._page.mouse.up(button=button)

    # ---- teardown ---------------------------------------------------------
    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await asyncio.wait_for(self._ctx.close(), 15)
        except Exception:
            # A renderer stuck in a script loop can stall a clean close; kill its pages.
            for p in self._pages:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(p.close(run_before_unload=False), 5)

    async def __aenter__(self) -> "LivePage":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    # ---- CDP: fast screenshots, change watch, reuse across episodes --------
    async def cdp(self, page=None):
        """The CDP session of a tab (the active one by default), opened once."""
        page = page or self._page
        if page not in self._cdp:
            self._cdp[page] = await self._ctx.new_cdp_session(page)
        return self._cdp[page]

    async def viewport_png(self, view: dict | None = None) -> bytes:
        """PNG of the active tab's viewport: through CDP ``Page.captureScreenshot`` (the same
        pixels as :meth:`screenshot`, less work), or Playwright's screenshot when an animation
        runs (Playwright freezes animations for the shot; a raw capture would not).

        ``view`` (a settle report's: running animations, visual viewport) saves the round trips
        that measure them; a capture passes the one its settle just took."""
        page = self._page
        running = view["running"] if view else await page.evaluate(RUNNING_ANIMATIONS_JS)
        if running:
            return await self.screenshot()
        size = page.viewport_size or {"width": self.profile.width, "height": self.profile.height}
        return await viewport_png(await self.cdp(page), size["width"], size["height"],
                                  self.profile.device_scale_factor, visual_viewport=view["vv"] if view else None)

    async def full_page_png(self, view: dict | None = None, size: tuple[int, int] | None = None) -> bytes:
        """PNG of the active tab's whole page: through CDP ``Page.captureScreenshot`` (the same
        pixels as :meth:`screenshot` with ``full_page=True``; Chromium's fast PNG encoder, so
        other bytes), or Playwright's screenshot when an animation runs.

        ``view`` and ``size`` (a settle report's: running animations, page size measured as
        Playwright measures it) save the round trips that measure them; a capture passes them."""
        page = self._page
        running = view["running"] if view else await page.evaluate(RUNNING_ANIMATIONS_JS)
        if running:
            return await self.screenshot(full_page=True)
        if size is None:
            size = (await probe_layout(page))["size"]
        vsize = page.viewport_size or {"width": self.profile.width, "height": self.profile.height}
        return await full_page_png(await self.cdp(page), size, (vsize["width"], vsize["height"]),
                                   self.profile.device_scale_factor)

    async def watch_changes(self) -> None:
        """Start watching the active tab for changes (from an isolated world the page cannot
        see); :meth:`changes_since_watch` tells what happened since. Call it before a capture."""
        watch, new_document = await self._watch()
        await watch.arm(new_document=new_document)

    async def _watch(self) -> tuple[ChangeWatch, bool]:
        """The active tab's change watch, and whether the tab navigated since it last ran
        (its world must then be made in the new document)."""
        page = self._page
        if page not in self._watches:
            self._watches[page] = ChangeWatch(await self.cdp(page))
        watch = self._watches[page]
        navs = self._tab_navs.get(page, 0)  # this tab's own: a pop-up navigating is not a new document here
        new_document = watch.navigation_id != navs
        watch.navigation_id = navs
        return watch, new_document

    async def track_changes(self) -> None:
        """Start tracking the active tab's DOM mutations from the change watch's world (without
        arming its stale check): call it when a new document commits, so the next capture's
        quiet period counts from then (:meth:`capture` with ``watch=True``). Nothing to do in a
        tab that :attr:`tracks_new_documents`."""
        if self.tracks_new_documents:
            return
        watch, new_document = await self._watch()
        await watch.track(new_document=new_document)

    async def track_new_documents(self) -> None:
        """Track the active tab's changes in every document it loads from now on from the moment
        the document is created (the browser makes the watch's world and its tracker there; see
        :meth:`ChangeWatch.track_new_documents`), instead of one round trip at each commit
        (:meth:`track_changes`). Kept for the tab's life, across :meth:`reuse`."""
        if self.tracks_new_documents:
            return
        watch, _ = await self._watch()
        await watch.track_new_documents()
        self._tracking_sessions.add(watch.cdp)

    @property
    def tracks_new_documents(self) -> bool:
        """Does the active tab track changes from each new document's creation (:meth:`track_new_documents`)?"""
        return self._cdp.get(self._page) in self._tracking_sessions

    async def run_in_watch(self, js: str, arg: dict):
        """``js(arg)`` (a function's source) in the active tab's change-watch world, its tracker
        installed (the capture's settle runs here when ``watch=True``)."""
        watch, new_document = await self._watch()
        return await watch.run(js, arg, new_document=new_document)

    async def changes_since_watch(self) -> list[str]:
        """Why the active tab may look different since :meth:`watch_changes` (mutation, scroll,
        resize, load, focus, animation, media, navigation, ...); empty when nothing happened."""
        page = self._page
        watch = self._watches.get(page)
        return ["unarmed"] if watch is None else await watch.changes()

    async def fetches_pending(self) -> bool:
        """Does the active tab have a fetch/XHR in flight that a script started since :meth:`watch_changes`
        first armed it (a client-rendered app saving a change)? False when no watch is armed."""
        watch = self._watches.get(self._page)
        return False if watch is None else await watch.fetches_pending()

    @property
    def windows_opened(self) -> int:
        """Windows the tabs asked the browser to open since their change watches began (a link with
        a target, ``window.open``, a form): compare with ``len(popups)`` to know whether a pop-up is
        still on its way (the browser has it; it is not a tab here yet)."""
        return sum(w.windows_opened for w in self._watches.values())

    async def navigation_started(self) -> bool:
        """Did the active tab start a navigation to another document since :meth:`watch_changes`
        (a clicked link, a submitted form, a script)? False when no watch is armed."""
        watch = self._watches.get(self._page)
        return False if watch is None else await watch.navigation_started()

    def can_reuse(self, profile: RenderProfile) -> bool:
        """Can :meth:`reuse` give a page equivalent to a fresh ``new_page(profile)``? Only for the
        same render profile (its allowed origins aside): not when a context-level setting (device
        scale, mobile, touch, locale, ...) or the viewport size differs, an init script was added,
        or the page crashed or was closed.

        The viewport is not resized on reuse: Chromium (156) makes a new frame host for each
        cross-document navigation, and the emulated size set on the blank page before it did not
        always reach the next document: after the arena's ``mail.forward`` episode, in three runs of
        three, the app laid out at the old size while Playwright reported the new one, so the
        screenshot, clipped to the new size, disagreed with the element table. (That episode's last
        form submission then raced the capture; with submissions seen in time it no longer showed,
        but the cause in Chromium is not known.) A page of another size comes from the pool or a
        new context instead: no page's emulated size ever changes."""
        def fixed(p: RenderProfile) -> RenderProfile:
            return p.with_(allowed_origins=())
        return not (self._closed or self.crashed or self._init_scripts) and fixed(profile) == fixed(self.profile)

    async def freeze(self) -> None:
        """Freeze every tab (``Page.setWebLifecycleState``): no timer, fetch or rendering of its
        documents runs until a navigation; a cheap way to stop a page at once before
        :meth:`reuse` blanks and clears it later (a request already on the wire still completes)."""
        self._page  # prune closed tabs

        async def one(p) -> None:
            with contextlib.suppress(Exception):
                await (await self.cdp(p)).send("Page.setWebLifecycleState", {"state": "frozen"})
        await asyncio.gather(*(one(p) for p in self._pages))

    async def reuse(self, profile: RenderProfile, *, allowed_origins: tuple[str, ...] = ()) -> None:
        """Make this page as a fresh one for ``profile`` without a new browser context: other
        tabs closed, the first blanked, its history reset to the blank page alone (a new tab's
        history: back from the first page leads there too), the pointer moved out, cookies,
        permissions and every visited origin's data (localStorage, sessionStorage, IndexedDB,
        Cache Storage, service workers, ...) cleared, and the recorded events, request delays
        and allowed origins forgotten."""
        if not self.can_reuse(profile):
            raise BrowserError("this page cannot be reused for that profile (check can_reuse first): "
                               "open a new page instead")
        self._page  # prune closed tabs
        if self._cleared and self.navigation_id == 0 and len(self._pages) == 1:
            # cleared before and nothing navigated since (a pooled page): only the allowed origins change
            self._take_profile(profile, allowed_origins)
            return
        for p in self._pages[1:]:
            with contextlib.suppress(Exception):
                await p.close(run_before_unload=False)
        page = self._pages[0]
        self._pages, self._active = [page], 0
        await page.goto("about:blank")  # unloads the app: nothing writes after the clear
        cdp = await self.cdp(page)
        # independent of one another: sent at once, so their round trips overlap
        await asyncio.gather(
            page.mouse.move(-1, -1),  # the pointer leaves the view: no hover carries over
            clear_origin_data(cdp, self._origins_seen | self._allowed),
            self._ctx.clear_cookies(), self._ctx.clear_permissions(),
            cdp.send("Page.resetNavigationHistory"))
        self._take_profile(profile, allowed_origins)
        self._origins_seen.clear()
        self._cdp = {page: cdp}
        # the tab's watch is kept (its handlers stay on the kept CDP session once) and forgets the episode
        self._watches = {page: w.restart() for p, w in self._watches.items() if p is page}
        self._tab_navs.clear()
        self._paths.clear()
        self.id_salt = ""
        self._delays.clear()
        for events in (self.blocked_requests, self.dialogs, self.popups, self.downloads, self.warnings,
                       self.file_choosers):
            events.clear()
        self.navigation_id = 0  # as a fresh page: the next goto is navigation 1
        self._cleared = True  # until the next navigation: a second reuse need not clear again

    # ---- helpers ----------------------------------------------------------
    def _take_profile(self, profile: RenderProfile, allowed_origins: tuple[str, ...]) -> None:
        self.profile = profile
        self._allowed = {origin_of(o) for o in tuple(profile.allowed_origins) + tuple(allowed_origins)}

    def _safe_url(self) -> str | None:
        with contextlib.suppress(Exception):
            return self._page.url
        return None

    def _as_page_error(self, exc: Exception, url: str | None) -> PageError:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if self.crashed or "crash" in text.lower() or "Target closed" in text or "has been closed" in text:
            return PageError("crash", f"the page crashed or closed: {text}", url)
        if "Timeout" in type(exc).__name__ or "Timeout" in text:
            return PageError("timeout", f"page did not load in time: {text}", url)
        if "ERR_BLOCKED_BY_CLIENT" in text:
            return PageError("blocked", f"the request was blocked by offline routing: {text}", url)
        return PageError("navigation", text, url)
