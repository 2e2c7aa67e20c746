"""Reading a live page: settling, capture, screenshots, script evaluation and change watching."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from .capture import _freeze_js, capture_page, png_size, screenshot_page
from .cdp import RUNNING_ANIMATIONS_JS, ChangeWatch, full_page_png, mirror_device_metrics, viewport_png
from .errors import PageError
from .page_state import PageState
from .settle import STABLE_FRAMES, SettleReport, probe_layout, settle
from .snapshot import Snapshot

#: Seconds a capture may still take after the page navigated under it before it is taken afresh.
NAVIGATION_GRACE = 3.0


class _StuckAfterNavigation(Exception):
    """A capture that did not finish within :data:`NAVIGATION_GRACE` of a navigation under it."""


def _sorted_unique(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Event records (dicts of strings) deduplicated and sorted, so their order never depends on timing."""
    seen = {json.dumps(r, sort_keys=True): r for r in records}
    return [seen[k] for k in sorted(seen)]


class PageCapture(PageState):
    """Reading a live page: settling, capture, screenshots, script evaluation and change watching."""

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
        attempt, stalled = 0, False
        while True:
            attempt += 1
            nav_before = self.navigation_id
            remaining = max(0.5, deadline - loop.time())
            try:
                snap = await self._unless_stuck_after_navigation(
                    capture_page(self._page, self.profile, full_page=full_page, max_elements=max_elements,
                                 with_aria=with_aria, with_screenshot=with_screenshot, timeout=remaining,
                                 settle_timeout=min(self.settle_timeout, remaining * 0.6),
                                 pending=self.pending_requests,
                                 viewport_screenshot=self.viewport_png if self.fast_screenshots or stalled else None,
                                 stable_frames=stable_frames, quiet_ms=quiet_ms,
                                 before_screenshot=self.watch_changes if watch else None,
                                 settle_in=self.run_in_watch if watch else None,
                                 full_page_screenshot=self.full_page_png if self.fast_full_page or stalled else None,
                                 id_salt=self.id_salt, fresh_layout=self.headless_shell,
                                 verify=self._changes_until_quiet if watch and self.capture_at_once else None,
                                 settle_armed_in=self.arm_and_run_in_watch if watch else None,
                                 settle_loaded_in=self._check_armed_at_load
                                 if watch and self.capture_at_once and self._armed_at_load() else None),
                    nav_before, remaining + 2.0)
            except _StuckAfterNavigation:
                if attempt < 3 and deadline - loop.time() > 1:
                    # the new document is taken afresh, through CDP: Playwright queues a page's screenshots,
                    # and the stalled one holds the queue until its own timeout
                    stalled = True
                    continue
                raise PageError("timeout", f"capture did not finish after the page navigated (within "
                                f"{NAVIGATION_GRACE:.0f}s, 3 times)", self._safe_url()) from None
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
        if stalled:
            snap.warnings.append(f"a capture stalled for {NAVIGATION_GRACE:.0f}s after the page navigated under it; "
                                 "the new document was captured through CDP (CSS animations not paused)")
        if not snap.settled and self.require_settled:
            reasons = [w[len("unsettled: "):] for w in snap.warnings if w.startswith("unsettled: ")]
            raise PageError("unsettled", "; ".join(reasons) or "page did not settle", self._safe_url())
        return snap

    async def _unless_stuck_after_navigation(self, capture: Any, nav_before: int, limit: float) -> Snapshot:
        """Await ``capture`` (a coroutine), at most ``limit`` seconds (``asyncio.TimeoutError``). When
        the page navigates while it runs, the capture gets :data:`NAVIGATION_GRACE` seconds more to
        finish (its own code takes a new document again) and is then abandoned
        (:class:`_StuckAfterNavigation`): a screenshot Playwright began on the old document can wait
        for a frame that never comes (seen once in a suite run: 20 s, then a timeout)."""
        loop = asyncio.get_running_loop()
        task: asyncio.Future[Snapshot] = asyncio.ensure_future(capture)
        end, moved_at = loop.time() + limit, None
        try:
            while not task.done():
                now = loop.time()
                if moved_at is None and self.navigation_id != nav_before:
                    moved_at = now
                if now >= end:
                    raise asyncio.TimeoutError
                if moved_at is not None and now - moved_at >= NAVIGATION_GRACE:
                    raise _StuckAfterNavigation
                await asyncio.wait({task}, timeout=min(0.05, end - now))
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        return task.result()

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
        html: str = await self._page.content()
        return html

    async def scroll_offsets(self) -> tuple[float, float]:
        x, y = await self.evaluate("() => [window.scrollX, window.scrollY]")
        return (x, y)

    # ---- CDP: fast screenshots, change watch, reuse across episodes --------
    async def cdp(self, page: Any = None) -> Any:
        """The CDP session of a tab (the active one by default), opened once, carrying the tab's
        device emulation (:func:`~webgauge.browser.cdp.mirror_device_metrics`; again after the
        viewport or the profile changed), so that a screenshot through it leaves the page as it was."""
        page = page or self._page
        size = page.viewport_size or {"width": self.profile.width, "height": self.profile.height}
        if page not in self._cdp:
            self._cdp[page] = await self._ctx.new_cdp_session(page)
        cdp = self._cdp[page]
        metrics = (size["width"], size["height"], self.profile.device_scale_factor, self.profile.is_mobile)
        if self._metrics.get(cdp) != metrics:  # a new session, viewport, or profile (a reused page's next episode)
            await mirror_device_metrics(cdp, *metrics)
            self._metrics[cdp] = metrics
        return cdp

    async def viewport_png(self, view: dict[str, Any] | None = None) -> bytes:
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
        return await viewport_png(await self.cdp(page), size["width"], size["height"], 1.0,  # the session's own
                                  visual_viewport=view["vv"] if view else None)

    async def full_page_png(self, view: dict[str, Any] | None = None, size: tuple[int, int] | None = None) -> bytes:
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
        png = await full_page_png(await self.cdp(page), size, (vsize["width"], vsize["height"]), 1.0)
        dpr = self.profile.device_scale_factor
        want = (round(int(size[0]) * dpr), round(int(size[1]) * dpr))
        if abs(png_size(png)[0] - want[0]) > 1 or abs(png_size(png)[1] - want[1]) > 1:
            # the clip came back cut to a size of Chromium's own (a real page's was 8 px short of the
            # page): Playwright's full-page screenshot, which measures the page itself, has its height
            return await self.screenshot(full_page=True)
        return png

    async def freeze_animations(self) -> None:
        """Freeze every animation and transition of the active tab's document for the rest of its
        life, at a fixed point (``freeze.js``: finite ones finished, endless ones cancelled, ones that start
        later frozen as they start). For callers that read and
        edit a page and need the same state whenever they look (the understand build); a capture
        freezes and thaws on its own. Call again after every load or reload."""
        await self._page.evaluate(f"async () => {{ await ({_freeze_js().strip()})({{}}); return true; }}")

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

    async def enter_new_document(self) -> None:
        """In a tab that :attr:`tracks_new_documents`, find the change watch's world in the document
        that just committed (pass it as ``goto``'s ``on_commit``): the round trip runs while the page
        loads, not in the first capture after it. (Elsewhere, :meth:`track_changes` does this.)"""
        if not self.tracks_new_documents:
            await self.track_changes()
            return
        watch, new_document = await self._watch()
        if new_document:
            await watch.enter_new_document()

    async def arm_and_run_in_watch(self, js: str, arg: dict[str, Any]) -> Any:
        """:meth:`watch_changes`, then ``js(arg)`` in the change-watch world, in one round trip."""
        watch, new_document = await self._watch()
        self._checked_at_load = False
        return await watch.arm_then(js, arg, new_document=new_document)

    async def run_in_watch(self, js: str, arg: dict[str, Any]) -> Any:
        """``js(arg)`` (a function's source) in the active tab's change-watch world, its tracker
        installed (the capture's settle runs here when ``watch=True``)."""
        watch, new_document = await self._watch()
        return await watch.run(js, arg, new_document=new_document)

    def _armed_at_load(self) -> bool:
        """Did the active tab's change watch arm itself at its document's load, with no capture in it
        since (:meth:`ChangeWatch.armed_at_load`; its world found at the document's commit)?"""
        watch = self._watches.get(self._page)
        return (watch is not None and self.tracks_new_documents and watch.armed_at_load
                and watch.navigation_id == self._tab_navs.get(self._page, 0))

    async def _check_armed_at_load(self, js: str, arg: dict[str, Any]) -> Any:
        """``js(arg)`` in the change watch's world, with whether the watch armed itself at the document's
        load (see :meth:`ChangeWatch.check_armed_at_load`); a capture kept on it is counted in
        ``captures_at_load``."""
        watch = self._watches[self._page]
        res = await watch.check_armed_at_load(js, arg)
        self._checked_at_load = bool(res.get("armed_at_load"))
        return res

    async def _changes_until_quiet(self, quiet_ms: int) -> list[str]:
        """The check of a capture taken at once (see :func:`capture_page`'s ``verify``): none means it is kept."""
        watch = self._watches.get(self._page)
        changes = ["unarmed"] if watch is None else await watch.changes_until_quiet(quiet_ms)
        self.captures_at_once += not changes
        self.captures_at_load += not changes and self._checked_at_load
        self._checked_at_load = False
        return changes

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
