"""Preparing the next episode while this one runs: its world, its start page and its first
observation, so that its reset only swaps pages and checks that nothing changed.

A double-buffered reset (``EnvOptions(double_buffer=True)``) already runs each episode on another
page and episode id than the last. :meth:`EpisodePreload.preload` goes one step further: told the
task the next reset will take, the env resets that task's world on a third episode id, opens its
start page on a cleared page of the pool and captures its first observation in the background
(``play(..., next_task=...)`` asks right after the episode's reset). ``reset(task)`` then takes the prepared page if it
is for the same task and seed and the change watch saw nothing on it since its capture (no
mutation, scroll, resize, load, animation, navigation or dialog): the observation it returns is
the one a fresh reset would have captured, and the world is the seed's plus what the start page
itself wrote, as after a fresh reset. Anything else (another task, a failed or changed preload)
falls back to the ordinary reset, and the prepared page is cleared and kept for later.

Only for an env with no hooks (variants and traps act on the episode's own page at reset) that picks
its own episode ids on the arena server. The work is moved, not removed: it runs while the agent
thinks (or, in a bench, while the oracle steps), and ``env.preloads`` counts what happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from ...browser import LivePage, Snapshot
from ..core.observation import Observation
from ..core.task import Task
from .env_state import EnvState
from .lifecycle import _Clock, episode_salt

__all__ = ["EpisodePreload", "Prepared"]


@dataclass
class Prepared:
    """A next episode made ready in the background: its page, episode id, stored states and first capture."""

    task: Task
    seed: int
    page: LivePage | None = None
    episode_id: str | None = None
    reused: bool = False  # the page came from the pool (a cleared context), not a new one
    seed_state: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)  # after the start page (what it wrote included)
    snap: Snapshot | None = None
    at_once: bool = False
    at_load: bool = False  # taken at once with the watch the document armed at its load
    dialogs: int = 0  # dialogs the page had opened when the capture's watch was armed
    reset_ms: float | None = None  # the database reset, inside the preload
    timings_ms: dict[str, float] = field(default_factory=dict)

    def is_for(self, task: Task, seed: int) -> bool:
        """Is this the episode of ``task`` (the same id and fingerprint) at ``seed``?"""
        return self.task.id == task.id and self.task.fingerprint == task.fingerprint and self.seed == seed


class EpisodePreload(EnvState):
    """``preload(task)``: the next episode prepared in the background (see the module)."""

    _preloading: tuple[Prepared, asyncio.Task[Prepared]] | None
    preloads: dict[str, int]

    def preload(self, task: Task, seed: int | None = None) -> bool:
        """Say which task (and seed; default: the task's) the next :meth:`reset` will take: its
        episode is prepared in the background from now on (call it from the env's event loop, while
        an episode runs or before the first). One at a time: while another task's preparation is
        under way this returns False and changes nothing (the next reset, if it is not for that
        task, gives it up and is an ordinary one). Also False, doing nothing, when this env cannot
        prepare ahead (not double-buffered, hooks, a requested episode id or an external app)."""
        if not self._can_preload:
            return False
        seed = task.seed if seed is None else seed
        if self._preloading is not None:
            return self._preloading[0].is_for(task, seed)
        prep = Prepared(task, seed)
        self._preloading = (prep, asyncio.ensure_future(self._prepare(prep)))
        return True

    @property
    def _can_preload(self) -> bool:
        return (self.reuse_context and self.double_buffer and not self.hooks and self._requested_id is None
                and getattr(self.control, "episode_base", None) is None)

    async def _preload_id(self, seed: int) -> str:
        """An episode id no other page may write to: not the current episode's, the last one's
        (:attr:`_retired_id`) or one whose page is being cleared (:meth:`_free_episode_id`); its reset
        undoes whatever a late request of its earlier episode wrote."""
        busy = {self.episode_id, self._retired_id, (self._retiring or (None, None))[1],
                (self._clearing or (None, None))[1]} - {None}
        return await self._free_episode_id(busy, seed)

    async def _prepare(self, prep: Prepared) -> Prepared:
        """Reset the world on a free episode id, open the start page on a cleared page, capture it."""
        clock = _Clock()
        task, seed = prep.task, prep.seed
        profile = self._profile(task)
        prep.episode_id = eid = await self._preload_id(seed)
        prep.page = self.pool.take(profile)
        if prep.page is None and self._clearing is not None:  # the page of the last swap: cleared in a moment
            with contextlib.suppress(Exception):
                await self._clearing[0]
            prep.page = self.pool.take(profile)
        prep.reused = prep.page is not None
        if prep.page is None:
            prep.page = await self._new_page(profile)
        page = prep.page
        self._set_page_options(page)

        async def database() -> None:
            prep.reset_ms = await self._restore_seed(eid, seed)
            prep.seed_state, _ = await self._control("state", eid)

        async def clean_page() -> None:
            if prep.reused:  # what the old document's unload handlers opened late, then the profile
                await page.sweep_late_storage()
                await page.reuse(profile)

        await asyncio.gather(database(), clean_page())
        if self.watch_changes:
            await page.track_new_documents()
        clock.lap("prepare")
        page.id_salt = episode_salt(task, seed)
        await page.goto(self._base_of(eid) + task.start_url, timeout=20,
                        on_commit=page.enter_new_document if self.watch_changes else None)
        prep.state, _ = await self._control("state", eid)
        clock.lap("load")
        before, before_load = page.captures_at_once, page.captures_at_load
        prep.snap, prep.dialogs = await self._capture_page(page)
        prep.at_once, prep.at_load = page.captures_at_once > before, page.captures_at_load > before_load
        clock.lap("observe")
        prep.timings_ms = clock.laps
        return prep

    async def _take_preloaded(self, task: Task, seed: int) -> Prepared | None:
        """The prepared episode of ``task`` at ``seed``, still showing its first capture; None (the
        preload, if any, discarded) when there is none, it is another task's or seed's, it failed, or
        the page changed since its capture."""
        if self._preloading is None:
            return None
        (prep, job), self._preloading = self._preloading, None
        if not prep.is_for(task, seed):
            self.preloads["other task"] += 1
            await self._discard(prep, job)
            return None
        try:
            await job
        except Exception:
            self.preloads["failed"] += 1
            await self._discard(prep, job)
            return None
        page = prep.page
        assert page is not None and prep.snap is not None
        if (self.watch_changes and page.navigation_id == prep.snap.navigation_id
                and len(page.dialogs) == prep.dialogs and not await page.changes_since_watch()):
            self.preloads["taken"] += 1
            return prep
        self.preloads["changed"] += 1  # a timer or late data changed it: an ordinary reset instead
        await self._discard(prep, job)
        return None

    async def _discard(self, prep: Prepared, job: asyncio.Task[Prepared]) -> None:
        """Give a preload's page back to the pool, frozen and cleared before this returns (so that its
        episode id, which the next reset may pick, has no document left to write to it; that reset
        restores its seed world again)."""
        if not job.done():
            job.cancel()
        with contextlib.suppress(BaseException):
            await job
        if prep.page is not None:
            page, prep.page = prep.page, None
            with contextlib.suppress(Exception):
                await self.pool.put_later(page, after=asyncio.ensure_future(page.freeze()))

    async def _cancel_preload(self) -> None:
        """Withdraw whatever is being prepared (at close)."""
        if self._preloading is not None:
            (prep, job), self._preloading = self._preloading, None
            await self._discard(prep, job)

    async def _reset_from_preload(self, task: Task, seed: int, clock: _Clock, t_start: float) -> Observation | None:
        """Reset onto the episode prepared for ``task`` at ``seed`` (:meth:`preload`), if there is one
        that still shows its first capture (else None: an ordinary reset follows). The last episode's
        page is frozen and cleared in the background, as in a double-buffered reset, and the prepared
        page, its episode id, stored states and first observation become the episode's."""
        prep = await self._take_preloaded(task, seed)
        if prep is None:
            return None
        try:
            await self._retire_page()
            self._retired_id = self.episode_id
            return self._swap_to(prep, clock, t_start)
        finally:
            self._start_clearing()

    def _swap_to(self, prep: Prepared, clock: _Clock, t_start: float) -> Observation:
        """The prepared episode becomes the env's: page, episode id, stored states, first observation."""
        self.page, self.episode_id = prep.page, prep.episode_id
        self.contexts_reused += prep.reused
        self.reset_ms = prep.reset_ms
        self._begin_episode(prep.task)
        self.events.clear()
        self.seed_state, self._state = prep.seed_state, prep.state
        self.picker, self._dialogs_seen = None, prep.dialogs
        self.captures["at once" if prep.at_once else "settled first"] += 1
        self.captures["of those, armed at load"] += prep.at_load
        assert prep.page is not None and prep.snap is not None
        self.obs = Observation.from_snapshot(prep.snap, 0, prep.page.tabs, prep.page.active_tab,
                                             {"ok": True, "kind": "reset"}, None)
        clock.lap("take")
        self.env_reset_ms = (time.perf_counter() - t_start) * 1000
        self.reset_timings_ms = {**clock.laps, **{f"preloaded {k}": v for k, v in prep.timings_ms.items()}}
        return self.obs
