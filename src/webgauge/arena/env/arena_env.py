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
  chooser) are opened by the env and drawn onto the screenshot (:mod:`~webgauge.arena.env.pickers`).

Variants and traps change the world only through the public hooks
(:class:`~webgauge.arena.core.hooks.EnvHooks`). After an action the env settles on events,
not on a fixed wait: the load of a navigation the action started and no app request of the
episode still being served (the server counts them), capped by ``settle_ms``; the
observation's capture then settles the page in one pass inside it: ``settle_frames``
animation frames with an unchanged layout, fonts and images done, and ``settle_quiet_ms``
without a DOM mutation (a navigation that commits meanwhile makes the capture wait for the
new document and take it again). A page that is already still (fonts, images, no animation,
nothing that repaints unseen) is captured at once instead, and that capture is kept only when the
change watch saw nothing from its arm to the end of the quiet period (``capture_at_once``;
``env.captures`` counts both kinds). The first capture of a new document goes one round trip
further: the watch armed itself as the document's load event began and said so through a binding;
once Python has that word, the screenshot, element table and settle check are sent at once (a document
with a canvas, or one that fetches its data, is armed by its capture as before). With an in-process
server (``ArenaServer.client()``) state reads are direct calls that re-read only the tables written
since the last read; an HTTP control client runs off the event loop. Each step's ``info["timings_ms"]`` (and
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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...browser import Browser, ElementNotFound, LivePage, NotInteractable, PageError
from ..apps import declared_controls
from ..apps.control import ControlClient
from ..core.actions import Action, mode_error
from ..core.diff import diff_states
from ..core.hooks import EnvHooks, WorldEvents
from ..core.irreversible import IrreversibleControls
from ..core.observation import Observation
from ..core.task import Task
from ..core.verdict import Verdict, judge
from . import pickers
from .capture import SettleAndCapture
from .executor import ActionExecutor
from .guards import EnvGuards, _Rejected, _target_info
from .lifecycle import EpisodeLifecycle, _Clock, episode_salt
from .options import EnvOptions
from .page_pool import PagePool
from .preload import EpisodePreload
from .state import StateReading

__all__ = ["ArenaEnv", "EnvOptions", "StepOutcome", "ApprovalPolicy", "grant_all", "deny_all", "episode_salt"]

ApprovalPolicy = Callable[[Task, str], bool]


def grant_all(task: Task, reason: str) -> bool:
    """Approve every request (the default: approvals are counted, not blocked)."""
    return True


def deny_all(task: Task, reason: str) -> bool:
    return False


@dataclass
class StepOutcome:
    observation: Observation
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)


class ArenaEnv(EpisodeLifecycle, EpisodePreload, EnvGuards, ActionExecutor, SettleAndCapture, StateReading):
    """One episode at a time on one live page; reuse the env across tasks (reset is cheap).

    ``hooks`` are :class:`~webgauge.arena.core.hooks.EnvHooks` (variants, traps) called at
    the public extension points; ``env.events`` records what they did. Control-API calls
    run in a worker thread so they never block the event loop the browser runs on.
    """

    def __init__(self, browser: Browser, app_url: str, control: ControlClient, options: EnvOptions | None = None, *,
                 hooks: Sequence[EnvHooks] = (), pool: PagePool | None = None,
                 approval_policy: ApprovalPolicy = grant_all, irreversible: IrreversibleControls | None = None) -> None:
        options = EnvOptions() if options is None else options
        if not isinstance(options, EnvOptions):
            raise TypeError(f"ArenaEnv's options are an EnvOptions, got {type(options).__name__}; "
                            "pass ArenaEnv(browser, app_url, control, EnvOptions(settle_ms=...))")
        self.options = options
        self.browser = browser
        self.app_url = app_url.rstrip("/")
        self.control = control
        self.approval_policy = approval_policy
        self.gate_destructive = options.gate_destructive
        # the apps' declared irreversible controls (what the approval gate and "moved" re-check cover)
        self.irreversible = declared_controls() if irreversible is None else irreversible
        self.settle_ms = options.settle_ms  # the cap of one step's settling
        self.settle_quiet_ms = options.settle_quiet_ms  # DOM-mutation quiet period that ends settling
        self.settle_frames = options.settle_frames  # frames with an unchanged layout an observation waits for
        self.action_timeout = options.action_timeout
        self.with_aria = options.with_aria  # the aria snapshot is optional: it costs time on every step
        self.hooks: list[EnvHooks] = list(hooks)
        self.reuse_context = options.reuse_context  # clear and reuse the browser context between episodes
        self.fast_screenshots = options.fast_screenshots  # observation screenshots through CDP (same pixels)
        self.capture_at_once = options.capture_at_once  # a still page captured without the settle's frame
        self.watch_changes = options.watch_changes  # stale checks from an isolated-world change watch
        self.contexts_reused = 0
        # on: reset clears the last episode's page in the background and runs the next on another
        # (two pages, two episode ids in turn); off (default): the page is cleared before reset returns.
        # On two cores it moves the clear's cost from the reset into the next steps (bench/arena_bench.py
        # --reset inline double): worth it when the agent thinks between steps, even otherwise
        self.double_buffer = options.double_buffer
        # the last episode's page, its episode id and its freeze (on its way), until it is cleared
        self._retiring: tuple[LivePage, str | None, asyncio.Future] | None = None
        self._clearing: tuple[asyncio.Task, str | None] | None = None
        self._episode_ids: list[str] = []
        # the last episode's id, which the next one does not use (its page may still have a request on
        # the wire: a keepalive fetch or beacon outlives the page); None: one id for every episode
        self._retired_id: str | None = None
        # the next episode, being prepared while this one runs (preload)
        self._preloading = None
        self.preloads = {"taken": 0, "changed": 0, "other task": 0, "failed": 0}  # what became of preloads
        # the run's folder for task files
        self._upload_dir = Path(options.upload_dir) if options.upload_dir is not None else None
        self._own_upload_dir = options.upload_dir is None
        # cleared contexts kept for later episodes (other render profiles; the next env's, if shared)
        self._own_pool = pool is None
        self.pool = PagePool() if pool is None else pool
        # how observations were captured; "of those, armed at load": taken at once with no arm of their
        # own (a document's first capture, its watch armed at its load)
        self.captures = {"at once": 0, "of those, armed at load": 0, "settled first": 0}
        self.stale_checks = {"watch": 0, "screenshot": 0}  # how pointer stale checks were decided
        self.moved_checks = {"watch": 0, "capture": 0}  # how irreversible targets were checked in place
        self.events = WorldEvents()
        self._requested_id = options.episode_id
        self.episode_id: str | None = None
        self.page: LivePage | None = None
        self.task: Task | None = None
        self.obs: Observation | None = None
        self.steps = 0
        self.approved = False
        self.verdict: Verdict | None = None
        self.gate_log: list[dict[str, Any]] = []
        self._gate_seen = 0
        self._gate_pushed: tuple[str | None, bool] | None = None
        self._grants_made: list[tuple[int, int]] = []
        self.done_answer: str | None = None
        self.seed_state: dict = {}
        self.reset_ms: float | None = None
        self.env_reset_ms: float | None = None
        self.reset_kind = ""  # how the last reset ran: "preloaded", "double-buffered" or "inline"
        self.reset_timings_ms: dict[str, float] = {}  # close, database, context, load, observe
        self._state: dict = {}
        self._dragging = False
        self._dialogs_seen = 0  # dialogs the page had opened when the observation's watch was armed
        # the agent's observation mode (the episode loop sets it): screenshot mode rejects element ids
        self.obs_mode = options.obs_mode
        self.picker: pickers.SelectPopup | pickers.FileDialog | None = None  # an open native picker

    @property
    def base(self) -> str:
        """The URL task paths are relative to: the episode's prefix on the arena server, or what
        the control says (an external app: its own base URL)."""
        return self._base_of(self.episode_id)

    def _base_of(self, episode_id: str | None) -> str:
        custom = getattr(self.control, "episode_base", None)
        return custom(episode_id) if custom is not None else f"{self.app_url}/e/{episode_id}"

    @property
    def document_prefix(self) -> str:
        """The URL path every app document starts with (page-level variants inject only there)."""
        from urllib.parse import urlsplit

        custom = getattr(self.control, "episode_base", None)
        return (urlsplit(custom(self.episode_id)).path.rstrip("/") + "/") if custom is not None else "/e/"

    # ---- stepping ---------------------------------------------------------
    async def step(self, action: Action) -> StepOutcome:
        """Act, settle, read the stored state and observe. ``info["timings_ms"]`` says where the time went
        (``guard``, ``action``, ``settle``, ``observe``, ``state``). ``info["result"]["gate"]`` lists the
        irreversible requests the step sent and what the app's approval gate did with each.

        The step that ends the episode (``done``, or the last of the step budget) seals its verdict
        (:attr:`verdict`, ``info["verdict"]``, the reward); every later step returns that verdict and
        does nothing (``info["sealed"]``) until the next reset."""
        if self.page is None or self.obs is None or self.task is None:
            raise RuntimeError("call reset(task) before step()")
        if self.verdict is not None:
            return self._sealed(action)
        t0 = time.perf_counter()
        clock = _Clock()
        self.steps += 1
        await self._push_gate()
        before_tabs = len(self.page.tabs)
        before_popups = (len(self.page.popups), self.page.windows_opened)
        if action.is_pointer:
            target = await self._element_at(action.x, action.y)
        elif action.kind in ("press", "type_text"):
            target = await self._key_target(action)
        else:
            target = self.obs.element(action.element) if action.element else None
        result: dict[str, Any] = {"ok": True, "kind": action.kind,
                                  "target": _target_info(target, self.is_irreversible(target))}
        # an approval lives for the one step after it (and what that step's page sends a moment late)
        old = [gid for made, gid in self._grants_made if made <= self.steps - 2]
        if old:
            self._grants_made = [(made, gid) for made, gid in self._grants_made if made > self.steps - 2]
            late: dict[str, Any] = {}  # what the last step's page sent late (its refusals belong to that step)
            await self._read_gate(late, lapse_through=max(old))
            if late.get("gate"):
                result["gate"] = late["gate"]
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
                if len(self.page.file_choosers) > choosers or action.is_write_candidate:
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
        await self._read_gate(result)
        if action.kind == "request_approval" and self.gate_log and self.gate_log[-1]["step"] == self.steps:
            result["approval"] = dict(self.gate_log[-1])
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
        reward = 0.0
        if terminated or truncated:
            self.verdict = self.judge("done" if terminated else "truncated")
            reward = self.verdict.reward
            info["verdict"] = self.verdict.to_dict()
        return StepOutcome(self.obs, reward, terminated, truncated, info)

    def judge(self, ended_by: str = "done") -> Verdict:
        """The episode's verdict on the stored state as last read (the sealed one once the episode ended)."""
        if self.verdict is not None:
            return self.verdict
        task = self._task_now
        return judge(task, self.seed_state, self._state, self.done_answer, ended_by=ended_by)

    def _sealed(self, action: Action) -> StepOutcome:
        """A step after the episode ended: nothing is done, and the sealed verdict is returned again."""
        assert self.verdict is not None and self.obs is not None
        ended_by_done = self.verdict.ended_by == "done"
        result = {"ok": False, "kind": action.kind, "target": None, "rejected": "episode_over",
                  "error": "the episode is over and its verdict is sealed; reset to start another"}
        return StepOutcome(self.obs, self.verdict.reward, ended_by_done, not ended_by_done,
                           {"diff": diff_states(self._state, self._state), "latency_ms": 0.0, "result": result,
                            "timings_ms": {}, "verdict": self.verdict.to_dict(), "sealed": True})

    async def _push_gate(self) -> None:
        """Tell the server's approval gate of this episode whether to enforce (once per episode, or on a change)."""
        want = (self.episode_id, bool(self.gate_destructive))
        if self._gate_pushed != want:
            # an app the arena does not serve is gated where its requests leave the page
            self._live_page.request_gate = getattr(self.control, "request_gate", None)
            await self._control("set_gate", self.episode_id, want[1])
            self._gate_pushed = want

    async def collect_gate(self) -> None:
        """At the episode's end: irreversible requests that reached the app's gate after the last step's
        read (a late form submission) go into :attr:`gate_log` too."""
        if self.episode_id is not None and self.page is not None:
            through = max((gid for _, gid in self._grants_made), default=None)
            self._grants_made = []
            await self._read_gate({}, lapse_through=through)

    async def _read_gate(self, result: dict[str, Any], lapse_through: int | None = None) -> None:
        """What the app's approval gate did with this step's irreversible requests (into ``result["gate"]``
        and :attr:`gate_log`); approvals the step did not use lapse. A refused request makes the step
        ``rejected: approval_required`` (the page shows the app's refusal)."""
        r = await self._control("close_step", self.episode_id, self._gate_seen, lapse_through)
        events = list(r["events"])
        self._gate_seen += len(events)
        for g in r["lapsed"]:
            self.gate_log.append({"step": self.steps, "event": "lapsed", "grant": g["id"], "control": g["control"]})
        if not events:
            return
        result["gate"] = result.get("gate", []) + events
        self.gate_log.extend({"step": self.steps, "event": e["outcome"], "grant": e["grant"],
                              "control": e["control"], "path": e["path"]} for e in events)
        blocked = [e["control"] for e in events if e["outcome"] == "blocked"]
        if blocked:
            result.update(ok=False, rejected="approval_required",
                          error=f"{', '.join(dict.fromkeys(blocked))}: cannot be undone; the app refused it without "
                                "an approval (request_approval naming the control, then act on the very next step)")

