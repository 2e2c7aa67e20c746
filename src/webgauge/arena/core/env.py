"""The arena environment: reset a task's app world, act through the browser, observe.

:class:`ArenaEnv` is the async core (``await env.reset(task)``, ``await env.step(action)``)
used by the episode runner; :mod:`webgauge.arena.adapters.gym_env` wraps it in the Gymnasium API.

The environment talks to the browser only through :mod:`webgauge.browser`'s live page API
and to the apps only through the control API. It enforces:

- pointer actions must carry the hash of the current screenshot, and the page must still
  show exactly that screenshot when the action runs (otherwise: ``stale``). A change watch
  armed right before each observation's screenshot (after its settle), in an isolated world the page cannot see,
  decides it when nothing changed (``watch_changes``); only a change it saw costs a second
  screenshot, compared with the observation's;
- before an irreversible control is activated (one its app declares: ``irreversible`` on
  the app, see :mod:`~webgauge.arena.core.irreversible`; never guessed from a CSS class), a
  fresh capture must show the target where the observation had it (otherwise: ``moved``),
  and, when ``gate_destructive`` is on, an approval must have been granted;
- navigation stays on the app origin; the control API is unreachable from the page;
- ``upload`` sets a file input to one of the task's own files (``Task.files``), written under
  the run's upload folder (``upload_dir``; a private temporary folder when not given), never
  to a host path the agent names;
- the agent's observation mode (``obs_mode``, set by the episode loop): screenshot mode rejects
  an action that names an element id (``rejected: "mode"``); element ids are salted per episode
  (:func:`episode_salt`), so an id from another episode or seed names nothing;
- native pickers headless Chromium does not paint (an open ``<select>``'s options, a file
  chooser) are opened by the env and drawn onto the screenshot (:mod:`~webgauge.arena.core.pickers`).

Variants and traps change the world only through the public hooks
(:class:`~webgauge.arena.core.hooks.EnvHooks`). After an action the env settles on events,
not on a fixed wait: the load of a navigation the action started and no app request of the
episode still being served (the server counts them), capped by ``settle_ms``; the
observation's capture then settles the page in one pass inside it: ``settle_frames``
animation frames with an unchanged layout, fonts and images done, and ``settle_quiet_ms``
without a DOM mutation (a navigation that commits meanwhile makes the capture wait for the
new document and take it again). With an in-process server (``ArenaServer.client()``) state
reads are direct calls that re-read only the tables written since the last read; an HTTP
control client runs off the event loop. Each step's ``info["timings_ms"]`` (and
``env.reset_timings_ms``) say where the time went; ``bench/arena_bench.py`` prints their medians.

For speed (issue 13) reset reuses the last episode's browser context, cleared as a fresh one
(``reuse_context``; ``LivePage.reuse``), observations take their viewport PNG through CDP
(``fast_screenshots``: the same pixels as Playwright's screenshot, not the same bytes), and a
click, fill or select on a plainly actionable captured target does what Playwright's would
without its actionability round trips (``LivePage.fast_actions``; anything else takes
Playwright's own action).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import shutil
import tempfile
import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ...browser import Browser, Element, ElementNotFound, LivePage, NotInteractable, PageError, RenderProfile
from .actions import ACTION_KINDS, Action, mode_error
from ..apps.control import ControlClient
from .diff import StateDiff, diff_states
from .hooks import EnvHooks, WorldEvents
from . import pickers
from .observation import Observation
from .page_pool import PagePool
from ..apps import SEED_CLOCK, declared_controls
from .irreversible import IrreversibleControls
from .task import Task

__all__ = ["ArenaEnv", "StepOutcome", "ApprovalPolicy", "grant_all", "deny_all", "episode_salt"]

ApprovalPolicy = Callable[[Task, str], bool]


def grant_all(task: Task, reason: str) -> bool:
    """Approve every request (the default: approvals are counted, not blocked)."""
    return True


def deny_all(task: Task, reason: str) -> bool:
    return False


def episode_salt(task: Task, seed: int) -> str:
    """The element-id salt of an episode: fixed by the task and seed (a replay of a recorded run sees
    the same ids), different for every other task or seed (an id remembered from one is no id in another)."""
    return hashlib.sha256(f"{task.id}|{task.fingerprint}|{seed}".encode()).hexdigest()[:12]


@dataclass
class StepOutcome:
    observation: Observation
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)


class ArenaEnv:
    """One episode at a time on one live page; reuse the env across tasks (reset is cheap).

    ``hooks`` are :class:`~webgauge.arena.core.hooks.EnvHooks` (variants, traps) called at
    the public extension points; ``env.events`` records what they did. Control-API calls
    run in a worker thread so they never block the event loop the browser runs on.
    """

    def __init__(self, browser: Browser, app_url: str, control: ControlClient, *, episode_id: str | None = None,
                 approval_policy: ApprovalPolicy = grant_all, gate_destructive: bool = False,
                 settle_ms: int = 400, settle_quiet_ms: int = 30, settle_frames: int = 1,
                 action_timeout: float = 8.0, with_aria: bool = False,
                 hooks: Sequence[EnvHooks] = (), reuse_context: bool = True, fast_screenshots: bool = True,
                 watch_changes: bool = True, double_buffer: bool = False, pool: PagePool | None = None,
                 irreversible: IrreversibleControls | None = None,
                 upload_dir: str | Path | None = None, obs_mode: str | None = None) -> None:
        self.browser = browser
        self.app_url = app_url.rstrip("/")
        self.control = control
        self.approval_policy = approval_policy
        self.gate_destructive = gate_destructive
        # the apps' declared irreversible controls (what the approval gate and "moved" re-check cover)
        self.irreversible = declared_controls() if irreversible is None else irreversible
        self.settle_ms = settle_ms  # the cap of one step's settling
        self.settle_quiet_ms = settle_quiet_ms  # DOM-mutation quiet period that ends settling
        self.settle_frames = settle_frames  # frames with an unchanged layout an observation waits for
        self.action_timeout = action_timeout
        self.with_aria = with_aria  # the aria snapshot is optional: it costs time on every step
        self.hooks: list[EnvHooks] = list(hooks)
        self.reuse_context = reuse_context  # clear and reuse the browser context between episodes
        self.fast_screenshots = fast_screenshots  # observation screenshots through CDP (same pixels)
        self.watch_changes = watch_changes  # stale checks from an isolated-world change watch
        self.contexts_reused = 0
        # on: reset clears the last episode's page in the background and runs the next on another
        # (two pages, two episode ids in turn); off (default): the page is cleared before reset returns.
        # On two cores it moves the clear's cost from the reset into the next steps (bench/arena_bench.py
        # --reset inline double): worth it when the agent thinks between steps, even otherwise
        self.double_buffer = double_buffer
        self._retiring: tuple[LivePage, str | None] | None = None  # the last episode's page, until cleared
        self._clearing: tuple[asyncio.Task, str | None] | None = None
        self._episode_ids: list[str] = []
        # the last episode's id, which the next one does not use (its page may still have a request on
        # the wire: a keepalive fetch or beacon outlives the page); None: one id for every episode
        self._retired_id: str | None = None
        self._upload_dir = Path(upload_dir) if upload_dir is not None else None  # the run's folder for task files
        self._own_upload_dir = upload_dir is None
        # cleared contexts kept for later episodes (other render profiles; the next env's, if shared)
        self._own_pool = pool is None
        self.pool = PagePool() if pool is None else pool
        self.stale_checks = {"watch": 0, "screenshot": 0}  # how pointer stale checks were decided
        self.moved_checks = {"watch": 0, "capture": 0}  # how irreversible targets were checked in place
        self.events = WorldEvents()
        self._requested_id = episode_id
        self.episode_id: str | None = None
        self.page: LivePage | None = None
        self.task: Task | None = None
        self.obs: Observation | None = None
        self.steps = 0
        self.approved = False
        self.done_answer: str | None = None
        self.seed_state: dict = {}
        self.reset_ms: float | None = None
        self.env_reset_ms: float | None = None
        self.reset_timings_ms: dict[str, float] = {}  # close, database, context, load, observe
        self._state: dict = {}
        self._dragging = False
        self._dialogs_seen = 0  # dialogs the page had opened when the observation's watch was armed
        # the agent's observation mode (the episode loop sets it): screenshot mode rejects element ids
        self.obs_mode = obs_mode
        self.picker: pickers.SelectPopup | pickers.FileDialog | None = None  # an open native picker

    @property
    def base(self) -> str:
        """The URL task paths are relative to: the episode's prefix on the arena server, or what
        the control says (an external app: its own base URL)."""
        custom = getattr(self.control, "episode_base", None)
        return custom(self.episode_id) if custom is not None else f"{self.app_url}/e/{self.episode_id}"

    @property
    def document_prefix(self) -> str:
        """The URL path every app document starts with (page-level variants inject only there)."""
        from urllib.parse import urlsplit

        custom = getattr(self.control, "episode_base", None)
        return (urlsplit(custom(self.episode_id)).path.rstrip("/") + "/") if custom is not None else "/e/"

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
        vp = task.viewport
        profile = RenderProfile(width=vp.width, height=vp.height, device_scale_factor=vp.device_scale_factor,
                                frozen_time=SEED_CLOCK, offline=True, allowed_origins=(self.app_url,),
                                is_mobile=vp.width < 600, has_touch=False)
        seed = task.seed if seed is None else seed
        if self._own_ids:  # the next episode runs on another id: a late request of this one cannot reach it
            self._retired_id = self.episode_id
        if self._double_buffered and self.page is not None:
            reuse = await self._swap_page(profile)
        else:
            reuse = self.reuse_context and await self._take_page(profile)
        database = None
        if reuse:  # blank and clear the last episode's context (no app page runs during the db reset)
            if self._own_ids:  # the database reset is another episode id's: it overlaps the clear
                database = asyncio.ensure_future(self._reset_database(task, seed))
            try:
                await self.page.reuse(profile)  # (a page cleared in the background only takes the profile)
            finally:
                if database is not None:
                    await database
        clock.lap("close")
        try:
            return await self._reset_on_page(task, seed, profile, reuse, clock, t_start, database is not None)
        finally:  # the last episode's page (double-buffered): cleared from here on, in the background
            self._start_clearing()

    @property
    def _own_ids(self) -> bool:
        """Does the env pick its episode ids on the arena server (no requested id, no external app)?"""
        return self._requested_id is None and getattr(self.control, "episode_base", None) is None

    async def _reset_database(self, task: Task, seed: int) -> None:
        """Pick the episode id (:meth:`_pick_episode`), restore its seed world and read it."""
        await self._pick_episode(seed)
        t0 = time.perf_counter()
        r = await self._control("reset", self.episode_id, seed)
        self.reset_ms = (time.perf_counter() - t0) * 1000
        if r["hash"] != r["seed_hash"]:
            raise RuntimeError(f"reset of episode {self.episode_id} did not restore the seed (hash mismatch)")
        self.task, self.steps, self.approved, self.done_answer, self._dragging = task, 0, False, None, False
        self.events.clear()
        for h in self.hooks:
            h.on_reset(self)
        self.seed_state, _ = await self._control("state", self.episode_id)
        self._state = self.seed_state

    async def _reset_on_page(self, task: Task, seed: int, profile: RenderProfile, reuse: bool, clock: "_Clock",
                             t_start: float, database_done: bool = False) -> Observation:
        if not database_done:
            await self._reset_database(task, seed)
        clock.lap("database")
        if not reuse:
            await self._close_page()
            self.page = await self.browser.new_page(profile, dialog_policy="accept")
            self._set_page_options()
        self.contexts_reused += reuse
        for h in self.hooks:
            await h.on_new_page(self, self.page)
        if self.watch_changes:  # once per page: the change tracker is made with each new document
            await self.page.track_new_documents()
        clock.lap("context")
        self.page.id_salt, self.picker = episode_salt(task, seed), None
        await self.page.goto(self.base + task.start_url, timeout=20,
                             on_commit=None if self.page.tracks_new_documents or not self.watch_changes
                             else self.page.track_changes)
        clock.lap("load")
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

    async def _swap_page(self, profile: RenderProfile) -> bool:
        """Double-buffered reset: the next episode runs on another, already cleared page (from the
        pool, else a new one) and the last episode's page is blanked and cleared in the background
        once the reset has its first observation (clearing it during the start page's load slowed
        the load more than the clear cost: both want the browser's process). It is frozen at once
        (no timer or fetch of it runs during the reset), and whatever it had already sent can only
        reach its own episode id, which the next episode does not use (:meth:`_pick_episode`)."""
        await self._await_clearing()  # the page of two episodes ago: cleared, so its episode id is free
        await self.page.freeze()  # none of its scripts runs from here on (blanked and cleared later)
        self._retiring, self.page = (self.page, self.episode_id), None
        self.page = self.pool.take(profile)
        if self.page is None:
            return False
        self._set_page_options()
        return True

    def _set_page_options(self) -> None:
        """The env's own settings on the episode's page: CDP screenshots and fast actions (speed-ups),
        and an element action on a covered, inert or unreachable target rejected at once (always)."""
        self.page.fast_screenshots = self.page.fast_actions = self.fast_screenshots
        self.page.reject_blocked = True

    def _start_clearing(self) -> None:
        if self._retiring is not None:
            (page, eid), self._retiring = self._retiring, None
            self._clearing = (self.pool.put_later(page), eid)

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
        free = [i for i in self._episode_ids if i not in busy]
        if free:
            self.episode_id = free[0]
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 2.0
            while await self._control("inflight", self.episode_id) and loop.time() < deadline:
                await asyncio.sleep(0.005)
            return
        self.episode_id = (await self._control("create", seed, self._requested_id))["id"]
        self._episode_ids.append(self.episode_id)

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

    # ---- stepping ---------------------------------------------------------
    async def step(self, action: Action) -> StepOutcome:
        """Act, settle, read the stored state and observe. ``info["timings_ms"]`` says where the time went
        (``guard``, ``action``, ``settle``, ``observe``, ``state``)."""
        if self.page is None or self.obs is None or self.task is None:
            raise RuntimeError("call reset(task) before step()")
        t0 = time.perf_counter()
        clock = _Clock()
        self.steps += 1
        before_tabs = len(self.page.tabs)
        before_popups = (len(self.page.popups), self.page.windows_opened)
        target = self._element_at(action.x, action.y) if action.is_pointer else (
            self.obs.element(action.element) if action.element else None)
        result: dict[str, Any] = {"ok": True, "kind": action.kind,
                                  "target": _target_info(target, self.is_irreversible(target))}
        choosers = len(self.page.file_choosers)
        try:
            if (why := mode_error(action, self.obs_mode)) is not None:
                raise _Rejected("mode", why)
            if (picker := self.picker) is not None and await pickers.consume(self, action):
                result["target"] = {"picker": pickers.kind_of(self.picker or picker)}  # not a page element
            else:
                for h in self.hooks:
                    await h.before_action(self, action)
                await self._guard(action, target)
                clock.lap("guard")
                if not (action.is_pointer and action.pointer == "click" and await pickers.open_select(self, target)):
                    await self._execute(action)
                if len(self.page.file_choosers) > choosers or _activates(action):
                    await pickers.after_click(self, choosers, target)
        except _Rejected as rej:
            result.update(ok=False, rejected=rej.reason, error=rej.message)
        except ElementNotFound as exc:
            result.update(ok=False, rejected="missing_element", error=str(exc))
        except NotInteractable as exc:  # covered, inert or out of reach: said at once, nothing done
            result.update(ok=False, rejected="not_interactable", error=str(exc))
        except PageError as exc:
            result.update(ok=False, rejected="page_error", error=str(exc))
        except Exception as exc:  # Playwright timeouts: hidden, covered or disabled targets
            msg = str(exc).splitlines()[0][:300]
            kind = "not_interactable" if "Timeout" in type(exc).__name__ or "Timeout" in msg else "browser_error"
            result.update(ok=False, rejected=kind, error=msg)
        clock.lap("action")
        if result["ok"] and action.kind not in ("done", "request_approval"):
            await self._settle(before_tabs, before_popups)
        clock.lap("settle")
        self.obs = await self._observe(result)
        clock.lap("observe")
        # the stored state is read after the screenshot: whatever the observation shows (a page a
        # slow navigation committed after the settle's cap, say) is already in the state it reports
        state, _ = await self._control("state", self.episode_id)
        diff = diff_states(self._state, state)
        self._state = state
        clock.lap("state")
        terminated = action.kind == "done"
        truncated = not terminated and self.steps >= self.task.budget(self.obs_mode)
        info = {"diff": diff, "latency_ms": (time.perf_counter() - t0) * 1000, "result": result,
                "timings_ms": clock.laps}
        return StepOutcome(self.obs, 0.0, terminated, truncated, info)

    async def refresh_state(self) -> dict:
        """Re-read the stored state from the control API (after an environment error, the
        episode is judged on what the app stored, not on the last cached step)."""
        self._state, _ = await self._control("state", self.episode_id)
        return self._state

    async def writes(self) -> list[dict]:
        """The app's write log of this episode (the control API's ``/writes``)."""
        return await self._control("writes", self.episode_id)

    def final_diff(self) -> StateDiff:
        """The whole episode's state change (seed to now)."""
        return diff_states(self.seed_state, self._state)

    @property
    def state(self) -> dict:
        return self._state

    @property
    def judged_state(self) -> dict:
        """The stored state plus the agent's ``done`` answer (what validators judge)."""
        from .answers import with_answer

        return with_answer(self._state, self.done_answer)

    def _element_at(self, x: float | None, y: float | None) -> Element | None:
        """The deepest visible element of the current observation under a normalized point."""
        if self.obs is None or x is None or y is None or not self.obs.elements:
            return None
        px, py = x * self.obs.viewport[0], y * self.obs.viewport[1]
        best = None
        for el in self.obs.elements:
            if not el.visible:
                continue
            bx, by, bw, bh = self.obs.viewport_box(el)
            if bx <= px <= bx + bw and by <= py <= by + bh and (best is None or el.depth >= best.depth):
                best = el
        return best

    # ---- guards: each raises _Rejected with the reason the step records ----
    async def _guard(self, action: Action, target: Element | None) -> None:
        self._check_disabled(action, target)
        if action.is_pointer:
            await self._check_stale(action)
        if self.is_irreversible(target) and _activates(action):
            self._check_approval()
            if not action.is_pointer:
                await self._check_moved(target)

    def _check_disabled(self, action: Action, target: Element | None) -> None:
        if action.kind in ("click", "fill", "select", "upload") and target is not None and (
                "disabled" in target.attrs or target.attrs.get("aria-disabled") == "true"):
            raise _Rejected("disabled", "the observation shows this control disabled; acting on it has no effect")

    async def _check_stale(self, action: Action) -> None:
        """A pointer action must aim at the current screenshot, and the page must still show it."""
        obs, page = self.obs, self.page
        aimed, current = ((action.token, obs.token) if action.token else (action.screenshot_hash, obs.screenshot_hash))
        if aimed != current:  # the short token binds like the hash: another observation's token is stale
            raise _Rejected("stale", "the pointer action was aimed at a screenshot that is not the current "
                            "observation; act on the latest screenshot")
        if await self._unchanged_since_observation():  # nothing that can change a pixel happened: no screenshot
            self.stale_checks["watch"] += 1
            return
        self.stale_checks["screenshot"] += 1
        png = await (page.viewport_png() if page.fast_screenshots else page.screenshot())
        scroll = await page.scroll_offsets()
        page_png = obs.snapshot.png if obs.snapshot is not None else obs.png  # the page's own pixels (no picker drawn)
        same = hashlib.sha256(png).hexdigest() == (obs.snapshot.png_sha256 if obs.snapshot is not None
                                                   else obs.screenshot_hash)
        if not same and page_png is not None:  # a blinking caret in a focused field is not a page change
            from .caret import FOCUSED_TEXT_BOX_JS, caret_only_change

            same = caret_only_change(page_png, png, await page.evaluate(FOCUSED_TEXT_BOX_JS), obs.device_scale_factor)
        if not same or page.navigation_id != obs.navigation_id or tuple(scroll) != tuple(obs.scroll):
            raise _Rejected("stale", "the page changed since the screenshot (navigation, scroll, animation or "
                            "dialog); look again before pointing")

    async def _unchanged_since_observation(self) -> bool:
        """Did the change watch see nothing since the observation that can change a pixel or a box
        (no mutation, scroll, resize, load, animation, navigation or new dialog)? False without a watch."""
        page = self.page
        return (self.watch_changes and page.navigation_id == self.obs.navigation_id
                and len(page.dialogs) == self._dialogs_seen and not await page.changes_since_watch())

    def is_irreversible(self, el: Element | None) -> bool:
        """Is ``el`` (an element of the current observation) a control its app declares irreversible?"""
        return el is not None and self.obs is not None and self.irreversible.covers(el, self.obs.url)

    def _check_approval(self) -> None:
        if self.gate_destructive and not self.approved:
            raise _Rejected("approval_required", "this control cannot be undone; request_approval first")

    async def _check_moved(self, target: Element) -> None:
        """Before an irreversible control is activated, it must be where the observation showed it:
        the change watch saw nothing since the observation that can move a box (no mutation, scroll,
        resize, load, animation, navigation or dialog, as for a pointer's stale check), or a fresh
        element table (no screenshot: only the boxes are compared) shows it there."""
        if await self._unchanged_since_observation():
            self.moved_checks["watch"] += 1
            return
        self.moved_checks["capture"] += 1
        fresh = await self.page.capture(with_aria=False, with_screenshot=False)
        now = next((e for e in fresh.elements if e.id == target.id), None)
        if now is None or not now.visible or any(abs(a - b) > 1 for a, b in zip(now.box, target.box)):
            raise _Rejected("moved", "the irreversible target is no longer where the observation showed it")

    # ---- actions: one small coroutine per kind ------------------------------
    async def _execute(self, a: Action) -> None:
        await _ACTIONS[a.kind](self, a)

    async def _do_click(self, a: Action) -> None:
        await self.page.click(a.element, timeout=self.action_timeout, modifiers=a.modifiers or ())

    async def _do_fill(self, a: Action) -> None:
        await self.page.fill(a.element, a.value or "", timeout=self.action_timeout)

    async def _do_focus(self, a: Action) -> None:
        await self.page.focus(a.element)

    async def _do_type_text(self, a: Action) -> None:
        await self.page.type_text(a.value or "")

    async def _do_upload(self, a: Action) -> None:
        """Set the file input to one of the task's files, written under the run's upload folder."""
        if not a.element:
            raise _Rejected("no_file_chooser", "no file chooser is open: click the file input (or its button) "
                            "first, then upload one of the names it offers")
        path = self.task_file(a.value)
        await self.page.set_input_files(a.element, [path], timeout=self.action_timeout)

    def check_token(self, a: Action) -> None:
        """A pointer action must be aimed at the current observation (its token or screenshot hash)."""
        aimed, current = ((a.token, self.obs.token) if a.token else (a.screenshot_hash, self.obs.screenshot_hash))
        if aimed != current:
            raise _Rejected("stale", "the pointer action was aimed at a screenshot that is not the current "
                            "observation; act on the latest screenshot")

    def task_file(self, name: str | None) -> Path:
        """One of the task's files by name, written under the run's upload folder (else ``unknown_file``)."""
        a_value = name
        files = dict(self.task.files)
        if a_value not in files:
            raise _Rejected("unknown_file", f"{a_value!r} is not one of this task's files "
                            f"({', '.join(files) or 'this task offers none'}); upload only those")
        if self._upload_dir is None:
            self._upload_dir = Path(tempfile.mkdtemp(prefix="webgauge-uploads-"))
        folder = (self._upload_dir / f"{self.episode_id}-{self.task.id}").resolve()
        path = (folder / a_value).resolve()
        if path.parent != folder:  # Action already refuses paths; this guards the folder too
            raise _Rejected("unknown_file", f"{a_value!r} is not a bare file name")
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(files[a_value])
        return path

    async def _do_drag(self, a: Action) -> None:
        if self.obs.element(a.target) is None:
            raise _Rejected("missing_element", f"no element {a.target!r} to drop onto in the current observation")
        await self.page.drag(a.element, a.target, timeout=self.action_timeout)

    async def _do_select(self, a: Action) -> None:
        await self.page.select(a.element, a.value or "", timeout=self.action_timeout)

    async def _do_hover(self, a: Action) -> None:
        await self.page.hover(a.element, timeout=self.action_timeout)

    async def _do_press(self, a: Action) -> None:
        if a.element:
            await self.page.focus(a.element)
        await self.page.press(a.key)

    async def _do_scroll(self, a: Action) -> None:
        if a.element:
            await self.page.hover(a.element, timeout=self.action_timeout)
        await self.page.scroll(a.dx, a.dy)

    async def _do_pointer(self, a: Action) -> None:
        page = self.page
        x, y = a.x * self.obs.viewport[0], a.y * self.obs.viewport[1]
        if a.pointer == "click":
            await page.mouse_click(x, y)
        elif a.pointer == "double_click":
            await page.mouse_click(x, y, click_count=2)
        elif a.pointer == "drag_start":
            await page.mouse_down(x, y)
            self._dragging = True
        else:
            if not self._dragging:
                raise _Rejected("no_drag", "drag_end without a drag_start")
            await page.mouse_up(x, y, steps=12)
            self._dragging = False

    async def _do_goto(self, a: Action) -> None:
        url = self.base + a.url if a.url.startswith("/") else a.url  # paths are relative to the episode
        if not url.startswith(self.base + "/"):
            raise _Rejected("blocked", f"{a.url} is outside the app; stay on {self.base}/")
        await self.page.goto(url, timeout=15)

    async def _do_back(self, a: Action) -> None:
        await self.page.back()

    async def _do_forward(self, a: Action) -> None:
        await self.page.forward()

    async def _do_switch_tab(self, a: Action) -> None:
        await self.page.switch_tab(a.tab)

    async def _do_wait(self, a: Action) -> None:
        await self.page.wait_for_timeout(min(max(a.ms or 500, 0), 5000))

    async def _do_request_approval(self, a: Action) -> None:
        self.approved = bool(self.approval_policy(self.task, a.reason or ""))

    async def _do_done(self, a: Action) -> None:
        self.done_answer = a.answer

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
        if self.watch_changes and page.navigation_id == self.obs.navigation_id and await page.navigation_started():
            while page.navigation_id == self.obs.navigation_id and loop.time() < deadline:
                await asyncio.sleep(0.005)  # the action started a navigation: wait for the new document to commit
        if self.watch_changes and page.navigation_id != self.obs.navigation_id and not page.tracks_new_documents:
            with contextlib.suppress(Exception):  # the capture makes the world itself if this fails
                await page.track_changes()  # the capture's quiet period counts from the commit, not from the capture
        while True:
            await self._wait_load()
            if loop.time() >= deadline:
                break
            if not (await self._control("inflight", self.episode_id) or (self.watch_changes and await page.fetches_pending())):
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
            await self.page.wait_for_load("load", timeout=5)
        except Exception:
            pass

    async def _observe(self, result: dict) -> Observation:
        assert self.page is not None
        for h in self.hooks:
            await h.before_observe(self)
        for attempt in range(4):  # a navigation racing the capture destroys its context: wait and retry
            try:
                self._dialogs_seen = len(self.page.dialogs)
                # the change watch is armed after the settle, right before the screenshot: any later change counts
                snap = await self.page.capture(full_page=False, with_aria=self.with_aria, watch=self.watch_changes,
                                               stable_frames=self.settle_frames, quiet_ms=self.settle_quiet_ms)
                break
            except PageError as exc:
                if exc.kind != "navigation" or attempt == 3:
                    raise
                try:
                    await self.page.wait_for_load("load", timeout=5)
                except Exception:
                    await self.page.wait_for_timeout(200)
        approval = None
        if result.get("kind") == "request_approval":
            approval = "granted" if self.approved else "denied"
        obs = Observation.from_snapshot(snap, self.steps, self.page.tabs, self.page.active_tab, result, approval)
        obs = pickers.overlay(self, obs)  # an open native picker, drawn where the browser would show it
        for h in self.hooks:
            await h.after_observe(self, obs)
        return obs


_ACTIONS = {k: getattr(ArenaEnv, f"_do_{k}") for k in ACTION_KINDS}


def _activates(action: Action) -> bool:
    """Would this action activate its target (click, pointer click, Enter/Space on it)?"""
    return (
        action.kind == "click" or (action.is_pointer and action.pointer in ("click", "double_click"))
        or (action.kind == "press" and action.key in ("Enter", " ", "Space")))


class _Clock:
    """Milliseconds per named phase of a step (a phase not reached is absent)."""

    def __init__(self) -> None:
        self._t = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = round(self.laps.get(name, 0.0) + (now - self._t) * 1000, 2)
        self._t = now


class _Rejected(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _target_info(el: Element | None, irreversible: bool = False) -> dict | None:
    if el is None:
        return None
    return {"id": el.id, "tag": el.tag, "role": el.role, "name": el.name[:80], "box": list(el.box),
            "destructive": irreversible}
