"""Settle and capture: after an action, wait on events (a navigation's load, the app's requests), then observe."""

from __future__ import annotations

import asyncio
import contextlib

from ...browser import LivePage, PageError, Snapshot
from ..core.observation import Observation
from . import pickers
from .env_state import EnvState


class SettleAndCapture(EnvState):
    """Settle and capture: after an action, wait on events (a navigation's load, the app's requests), then observe."""

    async def _settle(self, before_tabs: int, before_popups: tuple[int, int] = (0, 0)) -> None:
        """Wait for the action's own consequences, not a fixed time: a navigation it started (the
        change watch saw it begin) has committed and loaded, no fetch/XHR the page started is in
        flight (seen from the renderer's Network events, so a request a click handler sent is not
        missed while it is still on its way to the server), and the app server handles no request
        of this episode (capped at ``settle_ms``), and a window the action opened is a tab (the
        browser announces it before the tab is set up; capped at ``action_timeout``: a step must
        not end with its pop-up still on the way, or the next step's tab choice is overruled).
        The observation's capture then settles the page itself: ``settle_frames`` frames with
        the same layout and ``settle_quiet_ms`` without a DOM mutation (one pass in the page)."""
        page = self.page
        assert page is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settle_ms / 1000
        if self.watch_changes and page.navigation_id == self._obs_now.navigation_id and await page.navigation_started():
            while page.navigation_id == self._obs_now.navigation_id and loop.time() < deadline:
                await asyncio.sleep(0.005)  # the action started a navigation: wait for the new document to commit
        if self.watch_changes and page.navigation_id != self._obs_now.navigation_id and not page.tracks_new_documents:
            with contextlib.suppress(Exception):  # the capture makes the world itself if this fails
                await page.track_changes()  # the capture's quiet period counts from the commit, not from the capture
        while True:
            await self._wait_load()
            if loop.time() >= deadline:
                break
            if not (await self._control("inflight", self.episode_id)
                    or (self.watch_changes and await page.fetches_pending())):
                break
            await asyncio.sleep(0.005)  # a request is still being served or sent: its response may change the page
        popups, windows = before_popups
        opened = page.windows_opened - windows
        if opened > 0:
            popup_deadline = loop.time() + self.action_timeout
            while len(page.popups) - popups < opened and loop.time() < popup_deadline:
                await asyncio.sleep(0.005)
        if len(page.tabs) > before_tabs:  # a pop-up or target=_blank link: follow it like a browser
            await page.switch_tab(len(page.tabs) - 1)
            await self._wait_load()

    async def _wait_load(self) -> None:
        try:
            await self._live_page.wait_for_load("load", timeout=5)
        except Exception:
            pass

    async def _capture_page(self, page: LivePage) -> tuple[Snapshot, int]:
        """An observation's capture of ``page`` (the change watch armed after the settle, right before
        the screenshot: any later change counts), and the dialogs the page had opened when it began; a
        navigation racing it is waited for and it is taken again."""
        for attempt in range(4):  # a navigation racing the capture destroys its context: wait and retry
            try:
                dialogs = len(page.dialogs)
                return await page.capture(full_page=False, with_aria=self.with_aria, watch=self.watch_changes,
                                          stable_frames=self.settle_frames, quiet_ms=self.settle_quiet_ms), dialogs
            except PageError as exc:
                if exc.kind != "navigation" or attempt == 3:
                    raise
                try:
                    await page.wait_for_load("load", timeout=5)
                except Exception:
                    await page.wait_for_timeout(200)
        raise AssertionError("unreachable")

    async def _observe(self, result: dict) -> Observation:
        assert self.page is not None
        for h in self.hooks:
            await h.before_observe(self)
        at_once, at_load = self._live_page.captures_at_once, self._live_page.captures_at_load
        snap, self._dialogs_seen = await self._capture_page(self.page)
        self.captures["at once" if self._live_page.captures_at_once > at_once else "settled first"] += 1
        self.captures["of those, armed at load"] += self._live_page.captures_at_load > at_load
        approval = None
        if result.get("kind") == "request_approval":
            approval = "granted" if self.approved else "denied"
        obs = Observation.from_snapshot(snap, self.steps, self.page.tabs, self.page.active_tab, result, approval)
        obs = pickers.overlay(self, obs)  # an open native picker, drawn where the browser would show it
        for h in self.hooks:
            await h.after_observe(self, obs)
        return obs
