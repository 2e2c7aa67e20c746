"""The episode lifecycle: reset (database, page, navigation, first observation), the page pool
and double buffering, close."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import shutil
import time
from collections.abc import Iterable

from ...browser import LivePage, RenderProfile
from ..apps import SEED_CLOCK
from ..core.observation import Observation
from ..core.task import Task
from .env_state import EnvState


def episode_salt(task: Task, seed: int) -> str:
    """The element-id salt of an episode: fixed by the task and seed (a replay of a recorded run sees
    the same ids), different for every other task or seed (an id remembered from one is no id in another)."""
    return hashlib.sha256(f"{task.id}|{task.fingerprint}|{seed}".encode()).hexdigest()[:12]


class _Clock:
    """Milliseconds per named phase of a step (a phase not reached is absent)."""

    def __init__(self) -> None:
        self._t = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = round(self.laps.get(name, 0.0) + (now - self._t) * 1000, 2)
        self._t = now


class EpisodeLifecycle(EnvState):
    """The episode lifecycle: reset (database, page, navigation, first observation), the page pool
and double buffering, close."""

    async def _control(self, method: str, *args):
        """A control-API call: direct for an in-process server (milliseconds), else off the event loop."""
        if getattr(self.control, "in_process", False):
            return getattr(self.control, method)(*args)
        return await asyncio.to_thread(getattr(self.control, method), *args)

    async def reset(self, task: Task, seed: int | None = None) -> Observation:
        """Restore the task's seed world (database, sessions, flags, clock, external services)
        and open the task's start URL in a clean browser context: the last episode's context,
        blanked and cleared (cookies, storage, IndexedDB, caches, service workers, history,
        permissions), when ``reuse_context`` is on and it can take the task's render profile
        (or one from ``pool``: pages of earlier episodes, cleared); else a fresh one. With
        ``double_buffer`` the last episode's page is frozen and cleared in the
        background while this episode runs on another page and episode id (:meth:`_swap_page`)."""
        t_start = time.perf_counter()
        clock = _Clock()
        profile = self._profile(task)
        seed = task.seed if seed is None else seed
        obs = await self._reset_from_preload(task, seed, clock, t_start)  # prepared while the last one ran
        if obs is not None:
            self.reset_kind = "preloaded"
            return obs
        if self._own_ids:  # the next episode runs on another id: a late request of this one cannot reach it
            self._retired_id = self.episode_id
        sweep = None  # a page cleared in the background: its late storage is swept as the database resets
        if self._double_buffered and self.page is not None:
            sweep = await self._swap_page(profile)
            reuse = sweep is not None
        else:
            reuse = self.reuse_context and await self._take_page(profile)
        self.reset_kind = "double-buffered" if sweep is not None else "inline"
        database = None
        if reuse:  # blank and clear the last episode's context (no app page runs during the db reset)
            if self._own_ids:  # the database reset is another episode id's: it overlaps the clear
                database = asyncio.ensure_future(self._reset_database(task, seed))
            try:
                await self._live_page.reuse(profile)  # (a page cleared in the background only takes the profile)
            finally:
                # both done before the start page loads
                await asyncio.gather(*(f for f in (sweep, database) if f is not None))
        clock.lap("close")
        try:
            return await self._reset_on_page(task, seed, profile, reuse, clock, t_start, database is not None)
        finally:  # the last episode's page (double-buffered): cleared from here on, in the background
            self._start_clearing()

    def _profile(self, task: Task) -> RenderProfile:
        """The render profile of ``task``'s episodes: its viewport, the seed's clock, offline but for the app."""
        vp = task.viewport
        return RenderProfile(width=vp.width, height=vp.height, device_scale_factor=vp.device_scale_factor,
                             frozen_time=SEED_CLOCK, offline=True, allowed_origins=(self.app_url,),
                             is_mobile=vp.width < 600, has_touch=False)

    async def prepare(self, tasks: Iterable[Task]) -> int:
        """Open cleared pages ahead in the pool for the render profiles of ``tasks`` (``pool.size``
        of each: the double-buffered reset uses two in turn), so that no later reset of them waits
        on a new browser context. Nothing when ``reuse_context`` is off. Returns the pages opened."""
        if not self.reuse_context:
            return 0
        return await self.pool.warm((self._profile(t) for t in tasks), self._new_page)

    async def _new_page(self, profile: RenderProfile) -> LivePage:
        """A page in a new browser context, as every episode's page starts (dialogs accepted)."""
        return await self.browser.new_page(profile, dialog_policy="accept", http_cache=self.options.http_cache)

    @property
    def _own_ids(self) -> bool:
        """Does the env pick its episode ids on the arena server (no requested id, no external app)?"""
        return self._requested_id is None and getattr(self.control, "episode_base", None) is None

    async def _reset_database(self, task: Task, seed: int) -> None:
        """Pick the episode id (:meth:`_pick_episode`), restore its seed world and read it."""
        await self._pick_episode(seed)
        assert self.episode_id is not None
        self.reset_ms = await self._restore_seed(self.episode_id, seed)
        self._begin_episode(task)
        self.events.clear()
        for h in self.hooks:
            h.on_reset(self)
        self.seed_state, _ = await self._control("state", self.episode_id)
        self._state = self.seed_state

    async def _restore_seed(self, episode_id: str, seed: int) -> float:
        """Restore episode ``episode_id``'s seed world (checked by its hash); returns the milliseconds it took."""
        t0 = time.perf_counter()
        r = await self._control("reset", episode_id, seed)
        if r["hash"] != r["seed_hash"]:
            raise RuntimeError(f"reset of episode {episode_id} did not restore the seed (hash mismatch)")
        return (time.perf_counter() - t0) * 1000

    async def _reset_on_page(self, task: Task, seed: int, profile: RenderProfile, reuse: bool, clock: _Clock,
                             t_start: float, database_done: bool = False) -> Observation:
        if not database_done:
            await self._reset_database(task, seed)
        clock.lap("database")
        if not reuse:
            await self._close_page()
            self.page = await self._new_page(profile)
            self._set_page_options()
        self.contexts_reused += reuse
        for h in self.hooks:
            await h.on_new_page(self, self.page)
        if self.watch_changes:  # once per page: the change tracker is made with each new document
            await self._live_page.track_new_documents()
        clock.lap("context")
        self._live_page.id_salt, self.picker = episode_salt(task, seed), None
        self._live_page.request_gate = getattr(self.control, "request_gate", None)  # (an external app's gate)
        # the change watch's world is found in the new document while it loads (first capture: one round trip less)
        await self._live_page.goto(self.base + task.start_url, timeout=20,
                                   on_commit=self._live_page.enter_new_document if self.watch_changes else None)
        clock.lap("load")
        # what the start page itself wrote (a sign-in link's session) is where the episode starts: the first
        # step's diff shows the step's own changes; the final diff against the seed still shows everything
        self._state, _ = await self._control("state", self.episode_id)
        self.obs = await self._observe({"ok": True, "kind": "reset"})
        clock.lap("observe")
        self.env_reset_ms = (time.perf_counter() - t_start) * 1000
        self.reset_timings_ms = clock.laps
        return self.obs

    @property
    def _double_buffered(self) -> bool:
        """Two pages and two episode ids used in turn (see :meth:`_swap_page`): only when the env
        picks its own episode ids on the arena server (no requested id, no external app)."""
        return (self.reuse_context and self.double_buffer and self._requested_id is None
                and getattr(self.control, "episode_base", None) is None)

    async def _swap_page(self, profile: RenderProfile) -> asyncio.Future | None:
        """Double-buffered reset: the next episode runs on another, already cleared page (from the
        pool, else a new one) and the last episode's page is blanked and cleared in the background
        once the reset has its first observation (clearing it during the start page's load slowed
        the load more than the clear cost: both want the browser's process). Its freeze is asked for
        at once (none of its timers or fetches runs once its renderer has it; the reset does not
        wait for that), and whatever it had already sent can only reach its own episode id, which
        the next episode does not use (:meth:`_pick_episode`). Returns the sweep of the page's late
        storage (:meth:`~webgauge.browser.LivePage.sweep_late_storage`), under way: the reset awaits it
        before the start page loads; None: no cleared page fits ``profile``."""
        await self._retire_page()
        self.page = self.pool.take(profile)
        if self.page is None:
            return None
        self._set_page_options()
        # what the old document's unload handlers opened late: swept while the database resets
        return asyncio.ensure_future(self._live_page.sweep_late_storage())

    async def _retire_page(self) -> None:
        """Set the last episode's page (if any) to be cleared once the reset has its first observation
        (:meth:`_start_clearing`), after the page of two episodes ago has been (so its episode id is free).
        None of its scripts runs from here on: its freeze is asked for at once and not waited for,
        since it is another process's work and nothing of that page can reach the next episode
        (another browser context, another episode id); its clear waits for it."""
        await self._await_clearing()
        if self.page is not None:
            old, self.page = self.page, None
            self._retiring = (old, self.episode_id, asyncio.ensure_future(old.freeze()))

    def _set_page_options(self, page: LivePage | None = None) -> None:
        """The env's own settings on the episode's page (or ``page``): CDP screenshots and fast actions
        (speed-ups), and an element action on a covered, inert or unreachable target rejected at once (always)."""
        page = self._live_page if page is None else page
        page.fast_screenshots = page.fast_actions = self.fast_screenshots
        page.capture_at_once = self.capture_at_once
        page.reject_blocked = True

    def _start_clearing(self) -> None:
        if self._retiring is not None:
            (page, eid, freezing), self._retiring = self._retiring, None
            self._clearing = (self.pool.put_later(page, after=freezing), eid)

    async def _await_clearing(self) -> None:
        self._start_clearing()
        if self._clearing is not None:
            task, self._clearing = self._clearing[0], None
            with contextlib.suppress(Exception):
                await task

    async def _pick_episode(self, seed: int) -> None:
        """The episode id of the next episode: the requested one, or one of this env's own ids
        that neither the last episode (:attr:`_retired_id`) nor a page still being cleared may
        write to (created on first use; two in turn). An id used again waits until the server
        handles no request of it (at most 2 s), and its reset then undoes whatever a late request
        of its earlier episode wrote."""
        busy = {(self._retiring or self._clearing or (None, None))[1], self._retired_id} - {None}
        if self.episode_id is not None and self.episode_id not in busy:
            return
        self.episode_id = await self._free_episode_id(busy, seed)

    async def _free_episode_id(self, busy: set[str | None], seed: int) -> str:
        """One of this env's episode ids not in ``busy``, once the server handles no request of it
        (at most 2 s), or a new one (created at ``seed``)."""
        free = [i for i in self._episode_ids if i not in busy]
        if free:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 2.0
            while await self._control("inflight", free[0]) and loop.time() < deadline:
                await asyncio.sleep(0.005)
            return free[0]
        eid = (await self._control("create", seed, self._requested_id))["id"]
        self._episode_ids.append(eid)
        return eid

    async def _take_page(self, profile: RenderProfile) -> bool:
        """Make ``self.page`` a page that can be reused for ``profile`` (the last one, or one from
        the pool); the last one goes to the pool otherwise. False: there is none."""
        page = self.page
        if page is not None and page.can_reuse(profile):
            return True
        self.page = None
        if page is not None:
            await self.pool.put(page)  # another render profile: kept, cleared, for a later task
        self.page = self.pool.take(profile)
        if self.page is not None:
            self._set_page_options()
        return self.page is not None

    async def close(self) -> None:
        """Delete the episode; the page goes back to the pool (cleared) when context reuse is on."""
        await self._cancel_preload()
        await self._await_clearing()
        if self.page is not None and self.reuse_context:
            page, self.page = self.page, None
            await self.pool.put(page)
        await self._close_page()
        if self._own_upload_dir and self._upload_dir is not None:
            shutil.rmtree(self._upload_dir, ignore_errors=True)
            self._upload_dir = None
        if self._own_pool:
            await self.pool.close()
        for eid in dict.fromkeys(self._episode_ids + ([self.episode_id] if self.episode_id else [])):
            try:
                await self._control("delete", eid)
            except Exception:  # the server may already be gone at teardown
                pass
        self._episode_ids.clear()
        self.episode_id = None

    async def _close_page(self) -> None:
        if self.page is not None:
            await self.page.close()
            self.page = None
