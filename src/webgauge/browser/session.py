"""Launching the system Chromium and driving live pages through Playwright's async API.

This module and its parts (:mod:`page_actions`, :mod:`page_capture`, :mod:`page_reuse`), with
:mod:`capture`, are the only place in webgauge that imports Playwright. :class:`LivePage` here is
the page lifecycle (context, routing, events, tabs, navigation, close); the parts add acting,
reading and reuse.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import fnmatch
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from .chromium import LAUNCH_FLAGS, chromium_version, find_chromium, is_headless_shell
from .errors import BrowserError, PageError
from .http_cache import CACHEABLE_KINDS, HttpCache
from .origins import is_loopback_url, origin_of
from .page_actions import PageActions
from .page_capture import PageCapture
from .page_pool import PagePool
from .page_reuse import PageReuse
from .profile import DEFAULT_PROFILE, RenderProfile
from .settle import SETTLE_TIMEOUT
from .snapshot import Snapshot

__all__ = ["Browser", "LivePage", "RequestGate", "is_loopback_url", "origin_of"]

#: asked about every request before it leaves the browser: (method, url, headers, body as sent or None)
#: -> None (let it go) or (status, body, content type) to answer it in the browser instead
RequestGate = Callable[[str, str, dict[str, str], "bytes | None"], "tuple[int, bytes, str] | None"]


def _playwright() -> Callable[[], Any]:
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise BrowserError(
            "Playwright is not installed: `pip install playwright` (no browser download needed).") from exc
    return async_playwright


#: Chromium's pop-up blocker for the headless shell, which has none: ``window.open`` without the
#: transient activation a user gesture gives returns ``null`` (what Chromium's blocker does), so a
#: page cannot flood the run with tabs; one opened from a click still opens (and uses the
#: activation up, as in Chromium). Added to each of the shell's contexts before any document.
#: A script clicking a ``target=_blank`` link without a gesture still opens a tab there.
SHELL_POPUP_BLOCKER_JS = """(() => {
  const open = window.open, activation = navigator.userActivation;
  if (typeof open !== "function" || !activation) return;
  Object.defineProperty(window, "open", {
    configurable: true, enumerable: true, writable: true,
    value: { open(...args) { return activation.isActive ? open.apply(this, args) : null; } }.open,
  });
})();"""


#: The generic font families Chromium's headless shell sends a tab whenever its preferences are sent
#: again, as a full-page capture (``captureBeyondViewport``) does; a new document starts from
#: fontconfig's ``monospace`` instead (DejaVu Sans Mono here, Liberation Mono after). The shell's
#: first tab of each page gets them before its first document, so a capture changes no font under
#: the page (docs/performance.md, "Headless shell"). A pop-up tab keeps its own start: its captures
#: are of the viewport, which sends nothing.
SHELL_FONT_FAMILIES = {"fixed": "Courier New"}


class Browser:
    """One running system Chromium. Use ``async with Browser.launch() as browser``.

    Every page gets its own browser context (cookies, storage and routing are isolated),
    so pages never see one another.
    """

    def __init__(self, executable: str | None = None, headless: bool = True, hide_scrollbars: bool = True,
                 extra_args: tuple[str, ...] = (), headless_shell: bool = True) -> None:
        # headless_shell: Chromium's headless shell when installed (webgauge's browser; see
        # webgauge.browser.chromium.HEADLESS_SHELL), False for the full one; a headed browser is
        # always the full one
        self.executable = find_chromium(executable, headless_shell=headless_shell and headless)
        self.headless = headless
        self.hide_scrollbars = hide_scrollbars
        self.extra_args = tuple(extra_args)
        self._pw_cm: Any = None
        self._pw: Any = None
        self._browser: Any = None
        # cleared pages capture_url(keep=True) left for the next, any render profile
        self._kept = PagePool(size=self.KEEP_PAGES, max_pages=self.KEEP_PAGES)
        # static sub-resources of loopback apps, shared by the pages opened with http_cache=True
        self.http_cache = HttpCache()

    @classmethod
    def launch(cls, executable: str | None = None, **kwargs: Any) -> Browser:
        """A browser to be started with ``async with`` (or ``await browser.start()``)."""
        return cls(executable, **kwargs)

    async def start(self) -> Browser:
        if self._browser is not None:
            return self
        self._pw_cm = _playwright()()
        self._pw = await self._pw_cm.__aenter__()
        args = list(LAUNCH_FLAGS) + list(self.extra_args)
        # Keep Chromium's own pop-up blocker: window.open without a user gesture is blocked,
        # as in a real browser, so a page cannot flood the run with tabs (the headless shell has
        # none: SHELL_POPUP_BLOCKER_JS stands in).
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
        self._kept = PagePool(size=self.KEEP_PAGES, max_pages=self.KEEP_PAGES)  # closed with their browser
        if self._browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._browser.close(), 30)
        if self._pw_cm is not None:
            with contextlib.suppress(Exception):
                await self._pw_cm.__aexit__(None, None, None)
        self._browser = self._pw = self._pw_cm = None

    async def __aenter__(self) -> Browser:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
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
                       stand_ins: dict[str, tuple[bytes, str]] | None = None, http_cache: bool = False) -> LivePage:
        """A blank live page in a fresh context. Close it with ``await page.close()``.

        ``require_settled`` makes every capture (and :meth:`LivePage.settle`) of a page that does
        not settle within ``settle_timeout`` seconds raise ``PageError("unsettled")`` instead of
        returning a snapshot marked unsettled: builds that promise byte-identical output use it.
        ``timeout`` (seconds) replaces the default time limit of captures and scripts (20 s) and
        of reloads (10 s): builds on a busy machine give pages more time rather than fail them.
        ``stand_ins`` (``{url: (body, content type)}``) answers those exact remote URLs locally
        when offline routing would block them (recorded in ``stood_in_requests``). ``http_cache``:
        the page's static sub-resources go through this browser's :attr:`http_cache` (see
        :mod:`webgauge.browser.http_cache`), shared with its other pages that ask for it."""
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
        shell = is_headless_shell(self.executable)
        if shell:
            await ctx.add_init_script(SHELL_POPUP_BLOCKER_JS)
        page = LivePage(ctx, profile, allowed_origins=tuple(profile.allowed_origins) + tuple(allowed_origins),
                        max_tabs=max_tabs, dialog_policy=dialog_policy, require_settled=require_settled,
                        settle_timeout=settle_timeout, timeout=timeout, stand_ins=stand_ins, headless_shell=shell,
                        http_cache=self.http_cache if http_cache else None)
        await page._setup()
        return page

    @contextlib.asynccontextmanager
    async def open(self, url: str, profile: RenderProfile = DEFAULT_PROFILE, *, timeout: float = 30.0,
                   **kwargs: Any) -> AsyncIterator[LivePage]:
        """``async with browser.open(url, profile) as page``: a live page at ``url``."""
        page = await self.new_page(profile, **kwargs)
        try:
            await page.goto(url, timeout=timeout)
            yield page
        finally:
            await page.close()

    async def capture_url(self, url: str, profile: RenderProfile = DEFAULT_PROFILE, *, full_page: bool = True,
                          timeout: float = 30.0, keep: bool = False, **kwargs: Any) -> Snapshot:
        """Open ``url``, capture it and close it, all within ``timeout`` seconds.

        ``keep``: capture on a page an earlier ``keep`` capture left, cleared as a new one
        (:meth:`LivePage.reuse`: the same snapshot as in a new browser context, which costs
        Chromium about as much as the capture itself), and leave this one for the next (up to
        :attr:`KEEP_PAGES`; a page that failed is closed). Takes no other page options.

        Raises :class:`PageError` (never hangs) when the page cannot be captured in time.
        """
        if keep and kwargs:
            raise ValueError(f"capture_url(keep=True) takes no page options ({', '.join(kwargs)}): "
                             "a kept page only changes its render profile")
        page = await (self._kept_or_new_page(profile) if keep else self.new_page(profile, **kwargs))
        done = False
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout

            async def _go() -> Snapshot:
                await page.goto(url, timeout=timeout * 0.6)
                return await page.capture(full_page=full_page, timeout=max(1.0, deadline - loop.time()))
            try:
                snap = await asyncio.wait_for(_go(), timeout)
            except asyncio.TimeoutError:
                raise PageError("timeout", f"page did not finish capture within {timeout:.0f}s "
                                "(a script may be looping or the page is too heavy)", url) from None
            done = True
            return snap
        finally:
            if keep and done:
                await self._kept.put(page)  # cleared now (nothing of it runs while kept), or closed
            else:
                await page.close()

    #: Pages :meth:`capture_url` keeps for later ``keep=True`` captures (one per capture running at once).
    KEEP_PAGES = 4

    async def _kept_or_new_page(self, profile: RenderProfile) -> LivePage:
        page: LivePage | None = self._kept.take(profile)
        if page is not None:
            try:
                await page.reuse(profile)  # cleared when kept: only the profile changes here
                return page
            except Exception:  # noqa: BLE001 - a page that cannot be made fresh is replaced
                with contextlib.suppress(Exception):
                    await page.close()
        return await self.new_page(profile)


class LivePage(PageActions, PageCapture, PageReuse):
    """A live page (with its tabs) in its own browser context.

    Element targets are either element ids from an earlier capture of this page, or
    Playwright-style selectors prefixed ``css=``, ``xpath=``, ``text=`` or ``role=``.
    """

    def __init__(self, ctx: Any, profile: RenderProfile, allowed_origins: tuple[str, ...], max_tabs: int,
                 dialog_policy: str | Callable[..., Any], require_settled: bool = False,
                 settle_timeout: float = SETTLE_TIMEOUT, timeout: float | None = None,
                 stand_ins: dict[str, tuple[bytes, str]] | None = None, headless_shell: bool = False,
                 http_cache: HttpCache | None = None) -> None:
        self._ctx = ctx
        self._stand_ins = dict(stand_ins or {})  # remote URL -> (body, content type), answered offline
        # the static sub-resources' HTTP cache (Chromium's is off in a routed context); None: none
        self.http_cache: HttpCache | None = http_cache
        self.stood_in_requests = []
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
        # a watched capture (capture(watch=True)) of a page that is still is taken without the settle's
        # frames, and kept when nothing changed up to the end of its quiet period; how many were kept
        self.capture_at_once = True
        self.captures_at_once = 0
        self.captures_at_load = 0
        self._checked_at_load = False
        self.headless_shell = headless_shell  # the browser is Chromium's headless shell (see _setup)
        self._cdp = {}  # Playwright page -> CDP session
        self._metrics = {}  # CDP session -> the metrics its device emulation mirrors (PageCapture.cdp)
        self._watches = {}  # Playwright page -> ChangeWatch
        self._tracking_sessions = set()  # CDP sessions whose tab tracks changes from each document's creation
        self._tab_navs = {}  # Playwright page -> its own main-frame navigations (the watch's new documents)
        self._origins_seen = set()  # origins whose data reuse() clears
        self._last_cleared = set()  # origins the last reuse() cleared (sweep_late_storage() clears IndexedDB again)
        self._init_scripts = 0  # init scripts cannot be removed: a page that has any is not reusable
        self.profile = profile
        self._allowed = {origin_of(o) for o in allowed_origins}
        self.max_tabs = max_tabs
        self.dialog_policy = dialog_policy
        self._pages = []
        self._active = 0
        self._paths = {}
        self.id_salt = ""  # salts the element ids of captures (the arena sets one per episode)
        # asked about every request before it leaves the browser: (method, url, headers, body) -> None (let it go)
        # or (status, body, content type) to answer it here (the arena's approval gate for apps it does not serve)
        self.request_gate: RequestGate | None = None
        self.blocked_requests = []
        self.dialogs = []
        self.popups = []
        self.downloads = []
        self.file_choosers = []  # file choosers a click opened (Playwright FileChooser), oldest first
        self.warnings = []
        self.navigation_id = 0
        self._cleared = False  # reuse() cleared it and it has not navigated since
        self._scripts_off = False  # freeze() stopped its scripts (reuse() turns them on again)
        self.late_cookies_cleared = 0  # cookies that reached the store after a reuse()'s clear (cleared again)
        self.crashed = False
        self._delays = []
        self._closed = False
        self.require_settled = require_settled
        self.settle_timeout = settle_timeout
        self.timeout = timeout  # None: each method's own default
        self._inflight = {}  # request -> (tab, url), for settling

    # ---- setup and events -------------------------------------------------
    async def _setup(self) -> None:
        await self._ctx.route("**/*", self._route)
        self._ctx.on("page", self._on_new_page)
        page = await self._ctx.new_page()
        self._register(page)
        await self._freeze_clock(page)
        if self.headless_shell:  # the shell's font families, before the tab's first document
            await (await self.cdp(page)).send("Page.setFontFamilies", {"fontFamilies": SHELL_FONT_FAMILIES})

    def _register(self, page: Any) -> bool:
        """Attach the event handlers (synchronously, before the page can fire anything)."""
        if page in self._pages:
            return False
        self._pages.append(page)
        page.on("dialog", lambda d: asyncio.ensure_future(self._on_dialog(d)))
        page.on("crash", lambda _p: self._on_crash())
        page.on("download", lambda d: asyncio.ensure_future(self._on_download(d)))
        # a listener: Playwright intercepts the native dialog
        page.on("filechooser", lambda fc: self.file_choosers.append(fc))
        page.on("framenavigated", lambda f: self._on_nav(page, f))
        page.on("request", lambda r: self._inflight.__setitem__(r, (page, r.url)))
        page.on("requestfinished", lambda r: self._inflight.pop(r, None))
        page.on("requestfailed", lambda r: self._inflight.pop(r, None))
        return True

    async def _freeze_clock(self, page: Any) -> None:
        if self.profile.frozen_time:
            with contextlib.suppress(Exception):
                when = _dt.datetime.fromisoformat(self.profile.frozen_time.replace("Z", "+00:00"))
                await page.clock.set_fixed_time(when)

    def _on_nav(self, page: Any, frame: Any) -> None:
        if frame == page.main_frame:
            self.navigation_id += 1
            self._tab_navs[page] = self._tab_navs.get(page, 0) + 1
        if frame.url.startswith(("http://", "https://")):
            self._origins_seen.add(origin_of(frame.url))

    def _on_crash(self) -> None:
        self.crashed = True
        self.warnings.append("renderer crashed")

    def _on_new_page(self, page: Any) -> None:
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

    async def _on_dialog(self, dialog: Any) -> None:
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

    async def _on_download(self, download: Any) -> None:
        self.downloads.append({"url": download.url, "suggested_filename": download.suggested_filename})
        with contextlib.suppress(Exception):
            await download.cancel()

    async def _pass(self, route: Any) -> None:
        """Let a request go to its server, or answer it from :attr:`http_cache` (see
        :mod:`webgauge.browser.http_cache`: the cache a routed context loses) when it holds it fresh."""
        cache, req = self.http_cache, route.request
        if cache is None or req.method != "GET" or req.resource_type not in CACHEABLE_KINDS:
            await route.continue_()
            return
        headers = req.headers
        hit = cache.lookup(req.method, req.resource_type, req.url, headers)
        if hit is not None:
            await route.fulfill(status=hit.status, headers=hit.headers, body=hit.body)
            return
        try:
            resp = await route.fetch(max_redirects=0)
            body = await resp.body()
        except Exception:  # the server went away mid-request, a redirect...: the browser fetches it itself
            await route.continue_()
            return
        cache.store(req.method, req.resource_type, req.url, headers, resp.status, resp.headers, body)
        await route.fulfill(response=resp, body=body)

    async def _route(self, route: Any) -> None:
        req = route.request
        url = req.url
        if self.request_gate is not None:
            refusal = self.request_gate(req.method, url, dict(req.headers), req.post_data_buffer)
            if refusal is not None:
                await route.fulfill(status=refusal[0], body=refusal[1], content_type=refusal[2])
                return
        scheme = urlsplit(url).scheme
        for pattern, ms in self._delays:
            if fnmatch.fnmatchcase(url, pattern):
                await asyncio.sleep(ms / 1000)
                break
        if not self.profile.offline or scheme in ("data", "blob", "about", "chrome-extension"):
            await self._pass(route)
            return
        if not self._allowed and is_loopback_url(url):
            self._allowed.add(origin_of(url))
        if origin_of(url) in self._allowed and is_loopback_url(url):
            await self._pass(route)
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
    def _page(self) -> Any:
        return self._live_tab()

    def _live_tab(self) -> Any:
        """The active tab, after pruning closed tabs (fails when the page or every tab is closed)."""
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
        self._live_tab()
        if not 0 <= index < len(self._pages):
            raise BrowserError(f"no tab {index}; open tabs: {len(self._pages)}")
        self._active = index
        await self._pages[index].bring_to_front()

    async def close_tab(self, index: int | None = None) -> None:
        page = self._pages[self._active if index is None else index]
        await page.close()
        self._live_tab()

    @property
    def url(self) -> str:
        url: str = self._page.url
        return url

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

    async def __aenter__(self) -> LivePage:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _safe_url(self) -> str | None:
        with contextlib.suppress(Exception):
            url: str = self._page.url
            return url
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
