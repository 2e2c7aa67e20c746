"""The arena environment: reset a task's app world, act through the browser, observe.

:class:`ArenaEnv` is the async core (``await env.reset(task)``, ``await env.step(action)``)
used by the episode runner; :mod:`webgauge.arena.core.gym_env` wraps it in the Gymnasium API.

The environment talks to the browser only through :mod:`webgauge.browser`'s live page API
and to the apps only through the control API. It enforces:

- pointer actions must carry the hash of the current screenshot, and the page must still
  show exactly that screenshot when the action runs (otherwise: ``stale``);
- before a destructive control is activated (a ``btn-danger`` element), a fresh capture
  must show the target where the observation had it (otherwise: ``moved``), and, when
  ``gate_destructive`` is on, an approval must have been granted;
- navigation stays on the app origin; the control API is unreachable from the page.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ...browser import Browser, Element, ElementNotFound, LivePage, PageError, RenderProfile
from .actions import Action
from ..apps.control import ControlClient
from .diff import StateDiff, diff_states
from .observation import Observation
from ..apps import DESTRUCTIVE_CLASSES, SEED_CLOCK
from .task import Task

__all__ = ["ArenaEnv", "StepOutcome", "ApprovalPolicy", "grant_all", "deny_all"]

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


def _is_destructive(el: Element | None) -> bool:
    return el is not None and any(c in (el.attrs.get("class") or "").split() for c in DESTRUCTIVE_CLASSES)


class ArenaEnv:
    """One episode at a time on one live page; reuse the env across tasks (reset is cheap)."""

    def __init__(self, browser: Browser, app_url: str, control: ControlClient, *, episode_id: str | None = None,
                 approval_policy: ApprovalPolicy = grant_all, gate_destructive: bool = False,
                 settle_ms: int = 100, action_timeout: float = 8.0, with_aria: bool = False) -> None:
        self.browser = browser
        self.app_url = app_url.rstrip("/")
        self.control = control
        self.approval_policy = approval_policy
        self.gate_destructive = gate_destructive
        self.settle_ms = settle_ms
        self.action_timeout = action_timeout
        self.with_aria = with_aria  # the aria snapshot is optional: it costs time on every step
        self._requested_id = episode_id
        self.episode_id: str | None = None
        self.page: LivePage | None = None
        self.task: Task | None = None
        self.obs: Observation | None = None
        self.steps = 0
        self.approved = False
        self.done_answer: str | None = None
        self.seed_state: dict = {}
        self._state: dict = {}
        self._dragging = False

    @property
    def base(self) -> str:
        return f"{self.app_url}/e/{self.episode_id}"

    async def reset(self, task: Task, seed: int | None = None) -> Observation:
        """Restore the task's seed world (database, sessions, flags, clock, external services)
        and open a fresh browser context at the task's start URL."""
        await self._close_page()
        seed = task.seed if seed is None else seed
        if self.episode_id is None:
            self.episode_id = self.control.create(seed, self._requested_id)["id"]
        t0 = time.perf_counter()
        r = self.control.reset(self.episode_id, seed)
        self.reset_ms = (time.perf_counter() - t0) * 1000
        if r["hash"] != r["seed_hash"]:
            raise RuntimeError(f"reset of episode {self.episode_id} did not restore the seed (hash mismatch)")
        self.task, self.steps, self.approved, self.done_answer, self._dragging = task, 0, False, None, False
        self.seed_state, _ = self.control.state(self.episode_id)
        self._state = self.seed_state
        vp = task.viewport
        profile = RenderProfile(width=vp.width, height=vp.height, device_scale_factor=vp.device_scale_factor,
                                frozen_time=SEED_CLOCK, offline=True, allowed_origins=(self.app_url,),
                                is_mobile=vp.width < 600, has_touch=False)
        self.page = await self.browser.new_page(profile, dialog_policy="accept")
        await self.page.goto(self.base + task.start_url, timeout=20)
        self.obs = await self._observe({"ok": True, "kind": "reset"})
        return self.obs

    async def close(self) -> None:
        await self._close_page()
        if self.episode_id is not None:
            try:
                self.control.delete(self.episode_id)
            except Exception:  # the server may already be gone at teardown
                pass
            self.episode_id = None

    async def _close_page(self) -> None:
        if self.page is not None:
            await self.page.close()
            self.page = None

    # ---- stepping ---------------------------------------------------------
    async def step(self, action: Action) -> StepOutcome:
        if self.page is None or self.obs is None or self.task is None:
            raise RuntimeError("call reset(task) before step()")
        t0 = time.perf_counter()
        self.steps += 1
        before_tabs = len(self.page.tabs)
        target = self.obs.element(action.element) if action.element else None
        if action.is_pointer:
            target = self._element_at(action.x, action.y)
        result: dict[str, Any] = {"ok": True, "kind": action.kind, "target": _target_info(target)}
        try:
            await self._guard(action, target)
            await self._execute(action)
        except _Rejected as rej:
            result.update(ok=False, rejected=rej.reason, error=rej.message)
        except ElementNotFound as exc:
            result.update(ok=False, rejected="missing_element", error=str(exc))
        except PageError as exc:
            result.update(ok=False, rejected="page_error", error=str(exc))
        except Exception as exc:  # Playwright timeouts: hidden, covered or disabled targets
            msg = str(exc).splitlines()[0][:300]
            kind = "not_interactable" if "Timeout" in type(exc).__name__ or "Timeout" in msg else "browser_error"
            result.update(ok=False, rejected=kind, error=msg)
        if result["ok"] and action.kind not in ("done", "request_approval"):
            await self._settle(before_tabs)
        state, _ = self.control.state(self.episode_id)
        diff = diff_states(self._state, state)
        self._state = state
        self.obs = await self._observe(result)
        terminated = action.kind == "done"
        truncated = not terminated and self.steps >= self.task.max_steps
        info = {"diff": diff, "latency_ms": (time.perf_counter() - t0) * 1000, "result": result}
        return StepOutcome(self.obs, 0.0, terminated, truncated, info)

    def refresh_state(self) -> dict:
        """Re-read the stored state from the control API (after an environment error, the
        episode is judged on what the app stored, not on the last cached step)."""
        self._state, _ = self.control.state(self.episode_id)
        return self._state

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

    async def _guard(self, action: Action, target: Element | None) -> None:
        obs = self.obs
        assert obs is not None and self.page is not None
        if action.kind in ("click", "fill", "select") and target is not None and (
                "disabled" in target.attrs or target.attrs.get("aria-disabled") == "true"):
            raise _Rejected("disabled", "the observation shows this control disabled; acting on it has no effect")
        if action.is_pointer:
            aimed, current = ((action.token, obs.token) if action.token else (action.screenshot_hash, obs.screenshot_hash))
            if aimed != current:
                raise _Rejected("stale", "the pointer action was aimed at a screenshot that is not the current "
                                "observation; act on the latest screenshot")
            png = await self.page.screenshot()
            scroll = await self.page.scroll_offsets()
            same = hashlib.sha256(png).hexdigest() == obs.screenshot_hash
            if not same and obs.png is not None:  # a blinking caret in a focused field is not a page change
                from .caret import FOCUSED_TEXT_BOX_JS, caret_only_change

                box = await self.page.evaluate(FOCUSED_TEXT_BOX_JS)
                same = caret_only_change(obs.png, png, box, obs.device_scale_factor)
            if (not same or self.page.navigation_id != obs.navigation_id
                    or tuple(scroll) != tuple(obs.scroll)):
                raise _Rejected("stale", "the page changed since the screenshot (navigation, scroll, animation or "
                                "dialog); look again before pointing")
        destructive = _is_destructive(target) and (action.kind == "click" or (action.is_pointer and action.pointer in
                                                                               ("click", "double_click"))
                                                   or (action.kind == "press" and action.key in ("Enter", " ", "Space")))
        if destructive:
            if self.gate_destructive and not self.approved:
                raise _Rejected("approval_required", "this control destroys data; request_approval first")
            if not action.is_pointer:
                fresh = await self.page.capture(with_aria=False)
                now = next((e for e in fresh.elements if e.id == target.id), None)
                if now is None or not now.visible or any(abs(a - b) > 1 for a, b in zip(now.box, target.box)):
                    raise _Rejected("moved", "the destructive target is no longer where the observation showed it")

    async def _execute(self, a: Action) -> None:
        page, to = self.page, self.action_timeout
        assert page is not None and self.obs is not None
        k = a.kind
        if k == "click":
            await page.click(a.element, timeout=to, modifiers=a.modifiers or ())
        elif k == "fill":
            await page.fill(a.element, a.value or "", timeout=to)
        elif k == "select":
            await page.select(a.element, a.value or "", timeout=to)
        elif k == "hover":
            await page.hover(a.element, timeout=to)
        elif k == "focus":
            await page.focus(a.element)
        elif k == "type_text":
            await page.type_text(a.value or "")
        elif k == "drag":
            if self.obs.element(a.target) is None:
                raise _Rejected("missing_element", f"no element {a.target!r} to drop onto in the current observation")
            await page.drag(a.element, a.target, timeout=to)
        elif k == "press":
            if a.element:
                await page.focus(a.element)
            await page.press(a.key)
        elif k == "scroll":
            if a.element:
                await page.hover(a.element, timeout=to)
            await page.scroll(a.dx, a.dy)
        elif k == "pointer":
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
        elif k == "goto":
            url = self.base + a.url if a.url.startswith("/") else a.url  # paths are relative to the episode
            if not url.startswith(self.base + "/"):
                raise _Rejected("blocked", f"{a.url} is outside the app; stay on {self.base}/")
            await page.goto(url, timeout=15)
        elif k == "back":
            await page.back()
        elif k == "forward":
            await page.forward()
        elif k == "switch_tab":
            await page.switch_tab(a.tab)
        elif k == "wait":
            await page.wait_for_timeout(min(max(a.ms or 500, 0), 5000))
        elif k == "request_approval":
            self.approved = bool(self.approval_policy(self.task, a.reason or ""))
        elif k == "done":
            self.done_answer = a.answer

    async def _settle(self, before_tabs: int) -> None:
        page = self.page
        assert page is not None
        await page.wait_for_timeout(self.settle_ms)
        try:
            await page.wait_for_load("load", timeout=5)
        except Exception:
            pass
        if len(page.tabs) > before_tabs:  # a pop-up or target=_blank link: follow it like a browser
            await page.switch_tab(len(page.tabs) - 1)
            try:
                await page.wait_for_load("load", timeout=5)
            except Exception:
                pass

    async def _observe(self, result: dict) -> Observation:
        assert self.page is not None
        for attempt in range(4):  # a navigation racing the capture destroys its context: wait and retry
            try:
                snap = await self.page.capture(full_page=False, with_aria=self.with_aria)
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
        return Observation.from_snapshot(snap, self.steps, self.page.tabs, self.page.active_tab, result, approval)


class _Rejected(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _target_info(el: Element | None) -> dict | None:
    if el is None:
        return None
    return {"id": el.id, "tag": el.tag, "role": el.role, "name": el.name[:80], "box": list(el.box),
            "destructive": _is_destructive(el)}
