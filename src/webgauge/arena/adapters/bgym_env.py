"""A BrowserGym-shaped face of the arena: observation dicts with BrowserGym's main keys and
``step`` taking BrowserGym action strings.

:func:`bgym_observation` turns an arena :class:`~webgauge.arena.core.observation.Observation`
into a dict with BrowserGym's keys: ``goal``/``goal_object``, ``chat_messages``,
``screenshot`` (an ``H x W x 3`` uint8 array), ``extra_element_properties`` keyed by
element id with ``bbox`` (viewport CSS px), ``visibility`` and ``clickable``, ``axtree_txt``
(a text accessibility tree in BrowserGym's ``[bid] role 'name'`` style), ``url``,
``open_pages_urls``/``open_pages_titles``/``active_page_index``, ``focused_element_bid``,
``last_action``, ``last_action_error`` and ``elapsed_time``. ``dom_object`` and
``axtree_object`` (CDP snapshots) have no arena equivalent and are absent.

:class:`BrowserGymEpisode` drives one arena task with action strings only:
``obs, info = await ep.reset(task)`` then ``obs, reward, terminated, truncated, info =
await ep.step("click('e12')")``. A string with several calls runs them in order, each on the
then-current observation (BrowserGym's multi-action semantics); pointer calls in it are
bound to the observation the agent was shown, so a page that changed under them is still a
stale rejection. The reward is the arena's: 1.0 when the episode ends, the validator passes
on the stored state and no forbidden effect occurred. The verdict is sealed when the episode
ends: a later step (another ``send_msg_to_user``, say) does nothing and returns it again.
"""

from __future__ import annotations

import io
import time
from typing import Any

from ..core.actions import Action, ActionError
from ..core.observation import Observation
from ..core.task import Task
from ..env import ArenaEnv
from .bgym import parse_bgym_action

__all__ = ["bgym_observation", "axtree_text", "BrowserGymEpisode"]


def _screenshot_array(png: bytes | None):
    import numpy as np

    if png is None:
        return None
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def axtree_text(obs: Observation) -> str:
    """The element table as BrowserGym-style accessibility text: ``[bid] role 'name'``, indented by depth."""
    lines = []
    for e in obs.elements or []:
        if not e.visible or not (e.role or e.clickable):
            continue
        name = (e.name or e.text or "").replace("\n", " ").strip()[:100]
        props = [f"{k}={e.attrs[k]!r}" for k in ("value", "checked", "disabled", "aria-expanded") if k in e.attrs]
        lines.append("\t" * min(e.depth, 12) + f"[{e.id}] {e.role or e.tag} {name!r}"
                     + (" " + " ".join(props) if props else ""))
    return "\n".join(lines)


def bgym_observation(obs: Observation, goal: str, *, chat: list[dict] | None = None, last_action: str = "",
                     last_action_error: str = "", elapsed: float = 0.0) -> dict[str, Any]:
    """``obs`` as a BrowserGym-style observation dict (see the module docstring for the keys)."""
    props = {}
    for e in obs.elements or []:
        x, y, w, h = obs.viewport_box(e)
        props[e.id] = {"bbox": [x, y, w, h], "visibility": 1.0 if e.visible else 0.0, "clickable": bool(e.clickable),
                       "set_of_marks": bool(e.visible and e.clickable)}
    focused = next((e.id for e in obs.elements or [] if e.attrs.get("data-focused") == "true"), None)
    return {
        "goal": goal, "goal_object": [{"type": "text", "text": goal}],
        "chat_messages": list(chat or [{"role": "user", "message": goal}]),
        "screenshot": _screenshot_array(obs.png), "extra_element_properties": props,
        "axtree_txt": axtree_text(obs), "url": obs.url, "open_pages_urls": list(obs.tabs),
        "open_pages_titles": [obs.title if i == obs.active_tab else "" for i in range(len(obs.tabs))],
        "active_page_index": obs.active_tab, "focused_element_bid": focused, "last_action": last_action,
        "last_action_error": last_action_error, "elapsed_time": elapsed,
        "screenshot_token": getattr(obs, "token", None) or obs.screenshot_hash,
    }


class BrowserGymEpisode:
    """One arena task driven by BrowserGym action strings (wraps an :class:`ArenaEnv`)."""

    def __init__(self, env: ArenaEnv) -> None:
        self.env = env
        self.task: Task | None = None
        self.obs: Observation | None = None
        self.chat: list[dict] = []
        self._t0 = 0.0

    async def reset(self, task: Task) -> tuple[dict, dict]:
        self.task, self._t0 = task, time.perf_counter()
        self.obs = await self.env.reset(task)
        self.chat = [{"role": "user", "message": task.instruction}]
        return self._dict(), {"task": task.public()}

    def _dict(self, last_action: str = "", error: str = "") -> dict:
        assert self.obs is not None and self.task is not None
        return bgym_observation(self.obs, self.task.instruction, chat=self.chat, last_action=last_action,
                                last_action_error=error, elapsed=time.perf_counter() - self._t0)

    async def step(self, action: str) -> tuple[dict, float, bool, bool, dict]:
        if self.obs is None or self.task is None:
            raise RuntimeError("call reset(task) before step()")
        try:
            actions = parse_bgym_action(action, self.obs)
        except ActionError as exc:  # BrowserGym reports a bad action string as last_action_error, no crash
            actions, error = [Action("wait", ms=0)], f"invalid action: {exc}"
        else:
            error = ""
        terminated = truncated = False
        results = []
        for a in actions:
            out = await self.env.step(a)
            self.obs = out.observation
            res = out.info["result"]
            results.append(res)
            if not res.get("ok", True):
                error = error or f"{res.get('rejected')}: {res.get('error', '')}"
            if a.kind == "done" and not out.info.get("sealed"):
                self.chat.append({"role": "assistant", "message": a.answer or ""})
            if a.kind == "request_approval" and not out.info.get("sealed"):  # asked and answered in the chat
                said = "approved" if self.obs.approval == "granted" else "denied"
                self.chat += [{"role": "assistant", "message": a.reason or ""},
                              {"role": "user", "message": f"{said}: {a.value or 'the next irreversible control'}"}]
            terminated, truncated = out.terminated, out.truncated
            if terminated or truncated or error:
                break
        reward, info = 0.0, dict[str, Any](results=results)
        if (terminated or truncated) and "verdict" in out.info:  # the env's sealed verdict (again after the end)
            v = out.info["verdict"]
            reward = out.reward
            info.update(task_result={"success": v["success"], "errors": v["errors"]},
                        forbidden_violations=v["forbidden_violations"], verdict=v, sealed=bool(out.info.get("sealed")))
        return self._dict(action, error), reward, terminated, truncated, info
