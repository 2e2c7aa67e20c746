"""The scripted upper bound: replays a task's oracle solution through the normal action space.

The oracle is the only agent that sees more than the task's public view (it holds the
task's scripted steps, and on a variant task what the harness knows about the variant); it
still acts through element ids and pointer coordinates of the current observation, so stale
checks and destructive-action guards apply to it too.
"""

from __future__ import annotations

import dataclasses

from ..apps import declared_controls
from ..core.actions import Action
from ..core.agent import AgentStep
from ..core.hooks import WorldEvents
from ..core.irreversible import IrreversibleControls
from ..core.observation import Observation
from ..core.script import ScriptError, Step, by_element, by_element_out_of_view
from ..core.task import Task

__all__ = ["OracleAgent", "RETRYABLE", "solve_with_oracle"]

RETRYABLE = ("stale", "moved", "not_interactable", "missing_element", "page_error", "browser_error")
"""Rejections after which the oracle looks again and repeats the step."""


class OracleAgent:
    """The scripted upper bound, on base and variant tasks alike (the only oracle).

    It replays the task's scripted oracle steps through the normal action space (element ids
    and pointer coordinates of the current observation, so the env's stale and destructive
    guards apply to it too) and adds what the harness knows about the variant: it first
    closes any injected pop-up (by its known dismiss control), sees
    perturbed labels under their original text, waits and retries a step whose target is
    not there yet or whose action was rejected (stale, moved, covered), pauses after acting
    on slow loads, and asks for approval before a destructive control (an approval policy
    may refuse, and then it stops). ``extra_dismiss_ids`` adds controls to close (traps).
    """

    name = "oracle"
    kind = "oracle"
    obs_mode = "screenshot+tree"

    def __init__(self, task: Task, variant=None, events: WorldEvents | None = None, *,
                 ask_approval: bool = True, extra_dismiss_ids: tuple[str, ...] = (), max_retries: int = 8,
                 irreversible: IrreversibleControls | None = None) -> None:
        if task.oracle is None:
            raise ValueError(f"task {task.id} has no scripted oracle solution")
        self.task = task
        # the variant is duck-typed (its dismiss_ids and wait_after_action_ms); events are the env's
        self.dismiss_ids = tuple(getattr(variant, "dismiss_ids", ())) + tuple(extra_dismiss_ids)
        self.wait_after_action_ms = int(getattr(variant, "wait_after_action_ms", 0))
        self.events = events if events is not None else WorldEvents()
        self.ask_approval = ask_approval
        self.max_retries = max_retries
        self.irreversible = declared_controls() if irreversible is None else irreversible  # what it asks approval for

    def start(self, public_task: dict, base_url: str) -> None:
        if public_task["id"] != self.task.id:
            raise ValueError(f"oracle for {self.task.id} started on {public_task['id']}")
        if self.task.oracle is None:
            raise ValueError(f"task {self.task.id} has no scripted solution (oracle) to play")
        self._steps: list[Step] = list(self.task.oracle())
        if self.obs_mode == "dom":  # no screenshot, so no pointer action: element actions where they do the same
            self._steps = by_element(self._steps)
        self._base = base_url
        self._last: Step | None = None
        self._retries = 0
        self._pending_wait = False
        self._keyboard = False
        self._menu_nav: int | None = None

    def _view(self, obs: Observation) -> Observation:
        """The observation with perturbed labels shown under their original text."""
        if not self.events.text_map or not obs.elements:
            return obs
        els = []
        for e in obs.elements:
            m = self.events.text_map.get(e.path)
            if m:
                e = dataclasses.replace(e, name=(e.name or "").replace(m[0], m[1]),
                                        text=(e.text or "").replace(m[0], m[1]))
            els.append(e)
        return dataclasses.replace(obs, elements=els)

    async def act(self, obs: Observation) -> AgentStep:
        last = obs.last_result or {}
        if self._pending_wait:
            self._pending_wait = False
            return AgentStep(Action("wait", ms=self.wait_after_action_ms), thought="let the slow load finish")
        for el in obs.elements or []:
            if el.visible and el.attrs.get("id") in self.dismiss_ids:
                return AgentStep(Action("click", element=el.id), thought=f"close the pop-up ({el.attrs['id']})")
        if obs.approval == "denied":
            return AgentStep(Action("done", answer=None), thought="approval refused: stop without acting")
        if self._last is not None and last.get("ok") is False and last.get("rejected") in RETRYABLE + (
            "approval_required",):
            if self._retries >= self.max_retries:
                return AgentStep(Action("done", answer=None), thought=f"gave up after {self._retries} retries")
            self._retries += 1
            self._steps.insert(0, self._last)
            self._last = None
            # a covered control: activate it from the keyboard instead of clicking through the cover
            self._keyboard = last.get("rejected") == "not_interactable" and last.get("kind") == "click"
            if last.get("rejected") in ("stale", "moved"):
                return AgentStep(Action("wait", ms=150), thought=f"rejected as {last['rejected']}: look again")
            menu = _menu_button(obs)
            if (last.get("rejected") == "not_interactable" and menu is not None
                    and menu.attrs.get("aria-expanded") == "true"):
                self._keyboard = False  # the open menu covers the target (a phone's layout): close it
                return AgentStep(Action("click", element=menu.id), thought="close the menu that covers the target")
        if not self._steps:
            return AgentStep(Action("done", answer=self.task.answer), thought="script finished")
        view = self._view(obs)
        try:
            if self.obs_mode != "screenshot":  # a point outside the view: the element action scrolls to it
                swap = by_element_out_of_view(self._steps, view)
                if swap is not None:
                    self._steps[:swap[0]] = swap[1]
            step = self._steps[0]
            action = step.act(view, self._base)
        except ScriptError as exc:
            menu = _menu_button(obs)
            if menu is not None and self._menu_nav != obs.navigation_id:
                self._menu_nav = obs.navigation_id  # a responsive layout hides the target behind the menu
                return AgentStep(Action("click", element=menu.id), thought=f"open the collapsed menu: {exc}")
            if self._retries >= self.max_retries:
                return AgentStep(Action("done", answer=None), thought=f"script step failed: {exc}")
            self._retries += 1
            return AgentStep(Action("wait", ms=400), thought=f"target not there yet: {exc}")
        target = obs.element(action.element) if action.kind == "click" and action.element else None
        if self.ask_approval and target is not None and self.irreversible.covers(target, obs.url) \
                and obs.approval != "granted":  # an approval unlocks one activation on the very next step
            return AgentStep(Action("request_approval", reason=f"{self.task.instruction} (irreversible control)",
                                    value=" ".join(target.name.split())), thought="irreversible control: ask first")
        if self._keyboard and action.kind == "click":
            action = Action("press", element=action.element, key="Enter")
        self._keyboard = False
        self._steps.pop(0)
        self._last = step
        if self.wait_after_action_ms and action.kind in ("click", "press", "pointer", "select"):
            self._pending_wait = True
        return AgentStep(action, thought=repr(step))


def _menu_button(obs: Observation):
    """The visible button of a collapsed navigation menu (class ``menu-btn``), if the page shows one."""
    return next((e for e in obs.elements or [] if e.visible and e.role == "button"
                 and "menu-btn" in (e.attrs.get("class") or "").split()), None)


async def solve_with_oracle(env, task: Task, **oracle_kwargs) -> dict:
    """Run the oracle on ``task`` in ``env`` (a variant env) and judge the state (the variant check).

    Returns ``{"success", "errors", "violations", "rejections", "steps", "events"}``; a
    variant keeps its task when ``success`` is true and ``violations`` is empty.
    """
    from ..env.episode import play

    agent = OracleAgent(task, getattr(env, "variant", None), env.events, **oracle_kwargs)
    rec, _ = await play(env, agent, task, keep_dom=False)
    rejections = [s.result["rejected"] for s in rec.steps if s.result.get("rejected")]
    return {"success": rec.success, "errors": rec.validator_errors, "rejections": rejections, "steps": rec.n_steps,
            "violations": rec.forbidden_violations, "events": rec.variant_events}
