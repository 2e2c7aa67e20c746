"""Keeping a page between episodes: whether it can take a render profile, freezing it, and
reusing it as a fresh context."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .cdp import clear_origin_data, flush_cookie_writes
from .errors import BrowserError
from .origins import origin_of
from .page_state import PageState
from .profile import RenderProfile


class PageReuse(PageState):
    """Keeping a page between episodes: whether it can take a render profile, freezing it, and reusing it as a
    fresh context."""

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
        """Stop every tab's scripts at once (``Emulation.setScriptExecutionDisabled``): no timer,
        handler or callback of its documents runs until :meth:`reuse` blanks the page and turns
        them on again (a request already on the wire still completes), and every cookie they wrote
        is in the store (:func:`~webgauge.browser.cdp.flush_cookie_writes`), where a clear finds
        it. ``Page.setWebLifecycleState("frozen")`` looks like the tool for this but does not stop
        a visible page's timers in Chromium 156 (measured: a 1 ms interval kept writing cookies for
        300 ms after it)."""
        self._live_tab()  # prunes closed tabs

        async def one(p: Any) -> None:
            with contextlib.suppress(Exception):
                cdp = await self.cdp(p)
                # in order on the tab's session: no script runs after the first, the cookies it wrote are in
                await asyncio.gather(cdp.send("Emulation.setScriptExecutionDisabled", {"value": True}),
                                     flush_cookie_writes(cdp))
        await asyncio.gather(*(one(p) for p in self._pages))
        self._scripts_off = True

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
        self._live_tab()  # prunes closed tabs
        if self._cleared and self.navigation_id == 0 and len(self._pages) == 1:
            # cleared before and nothing navigated since (a pooled page): only the allowed origins change
            self._take_profile(profile, allowed_origins)
            return
        if not self._scripts_off:  # the app's scripts stop now, not when its documents are finally gone
            await self.freeze()
        for p in self._pages[1:]:
            with contextlib.suppress(Exception):
                await p.close(run_before_unload=False)
        page = self._pages[0]
        self._pages, self._active = [page], 0
        cdp = await self.cdp(page)
        self._last_cleared = set(self._origins_seen | self._allowed)
        await page.goto("about:blank")  # unloads the app: its unload handlers write now, before the clear
        # independent of one another: sent at once, so their round trips overlap
        await asyncio.gather(
            page.mouse.move(-1, -1),  # the pointer leaves the view: no hover carries over
            clear_origin_data(cdp, self._origins_seen | self._allowed),
            self._ctx.clear_cookies(), self._ctx.clear_permissions(),
            cdp.send("Page.resetNavigationHistory"),
            cdp.send("Emulation.setScriptExecutionDisabled", {"value": False}))  # for the next document
        await self._clear_late_cookies()  # what the unload handlers wrote as the clear went out
        self._scripts_off = False
        self._take_profile(profile, allowed_origins)
        self._origins_seen.clear()
        self._cdp = {page: cdp}
        self._metrics = {s: m for s, m in self._metrics.items() if s is cdp}  # (closed tabs' sessions go)
        # the tab's watch is kept (its handlers stay on the kept CDP session once) and forgets the episode
        self._watches = {p: w.restart() for p, w in self._watches.items() if p is page}
        self._tab_navs.clear()
        self._paths.clear()
        self.id_salt = ""
        self._delays.clear()
        for events in (self.blocked_requests, self.dialogs, self.popups, self.downloads, self.warnings,
                       self.file_choosers):
            events.clear()
        self.navigation_id = 0  # as a fresh page: the next goto is navigation 1
        self._cleared = True  # until the next navigation: a second reuse need not clear again

    async def sweep_late_storage(self) -> None:
        """Clear IndexedDB of the origins the last :meth:`reuse` cleared, once more. The old document's
        ``unload`` and ``pagehide`` handlers run during the blanking even with scripts disabled
        (Chromium 156: ``setScriptExecutionDisabled`` stops timers, not those handlers); what they
        write synchronously is gone with the clear, but an IndexedDB database one of them opens can
        be created by the browser after it (seen under load, a page cleared in the background). A page
        handed to a new episode after a background clear is swept first (a millisecond or two)."""
        origins, self._last_cleared = self._last_cleared, set()
        if origins and self._pages:
            await asyncio.gather(clear_origin_data(await self.cdp(self._pages[0]), origins, "indexeddb"),
                                 self._clear_late_cookies())

    async def _clear_late_cookies(self) -> None:
        """Clear the context's cookies again if any came in after the clear (counted in
        ``late_cookies_cleared``): the unload handlers that run as the app's document goes away
        write on the document's own pipe, which a clear sent at once can overtake (see
        :func:`~webgauge.browser.cdp.flush_cookie_writes`). One round trip when there are none."""
        late = await self._ctx.cookies()
        if late:
            await self._ctx.clear_cookies()
            self.late_cookies_cleared += len(late)

    # ---- helpers ----------------------------------------------------------
    def _take_profile(self, profile: RenderProfile, allowed_origins: tuple[str, ...]) -> None:
        self.profile = profile
        self._allowed = {origin_of(o) for o in tuple(profile.allowed_origins) + tuple(allowed_origins)}
