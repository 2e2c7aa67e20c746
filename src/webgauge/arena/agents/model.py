"""Model-backed baselines: DOM/role-only, screenshot-only and screenshot plus semantic tree.

All three share one system prompt and one JSON action schema; only the observation mode
differs, so the model, tasks, step budget and validators stay fixed across modes. What each
mode can target is part of the system being measured: without the element table a model
can only point (normalized coordinates on the screenshot), press keys, scroll and navigate.
"""

from __future__ import annotations

import json

from ..core.actions import ACTION_SCHEMA, Action
from ..core.agent import AgentStep
from ..core.observation import Observation
from .parse import parse_model_answer

__all__ = ["ModelAgent", "SYSTEM_PROMPT", "render_observation", "MODE_AGENTS"]

SYSTEM_PROMPT = """You operate a web browser to complete a user's task in a web app.
Each turn you get the task, the current page (a screenshot, an element table, or both) and
the result of your last action. Answer with exactly one action as a JSON object that fits
this schema, and nothing else:
""" + json.dumps(ACTION_SCHEMA, indent=None) + """
Semantic actions (click, fill, select, hover, focus, press, scroll, drag) name an element id
from the element table; {"kind": "type_text", "value": "..."} types into the focused element;
{"kind": "upload", "element": "<file input id>", "value": "<file name>"} attaches one of the task's files;
without "element" it answers the file chooser a click on a file input opened. Without an element
table (screenshot only) element ids do not exist: point, type and press instead.
Pointer actions ({"kind": "pointer", "pointer": "click|double_click|drag_start|drag_end",
"x": 0..1, "y": 0..1, "token": "..."}) aim at the screenshot whose token you give; x and y are
fractions of its width and height. A pointer aimed at an older screenshot is rejected as stale.
Irreversible controls (delete, pay, revoke, ...) are refused by the app until you ask first:
{"kind": "request_approval", "element": "<id>", "reason": "..."} (or "value": "<the control's label>"
instead of "element"); a granted approval unlocks that one control for your next action only.
{"kind": "done", "answer": "..."} when the task is complete.
Do exactly what the task asks, once; never submit a form twice."""

MODE_AGENTS = {"dom": "model-dom", "screenshot": "model-screenshot", "screenshot+tree": "model-screenshot+tree"}

MAX_ELEMENTS = 150


def _element_lines(obs: Observation) -> list[str]:
    lines = []
    for e in obs.elements or []:
        if not e.visible or not (e.clickable or e.role in ("heading", "img", "dialog", "alert", "status")):
            continue
        x, y, w, h = obs.viewport_box(e)
        label = (e.name or e.text or "").replace("\n", " ")[:80]
        extra = []
        for k in ("value", "disabled", "aria-checked", "aria-pressed", "aria-expanded", "checked", "href"):
            if k in e.attrs:
                extra.append(f"{k}={e.attrs[k][:40]!r}")
        lines.append(
            f"[{e.id}] {e.role or e.tag} {label!r} box=({x:.0f},{y:.0f},{w:.0f},{h:.0f}) {' '.join(extra)}".rstrip())
        if len(lines) >= MAX_ELEMENTS:
            lines.append("... (more elements omitted)")
            break
    return lines


def render_observation(task: dict, obs: Observation, history: list[str]) -> str:
    """The user turn's text for one observation (the image, if any, is attached separately)."""
    parts = [f"Task: {task['instruction']}", f"Step {obs.step + 1} of at most {task['max_steps']}.",
             f"URL: {obs.url}  (tab {obs.active_tab + 1} of {len(obs.tabs)})",
             f"Viewport: {obs.viewport[0]}x{obs.viewport[1]} CSS px, scroll {obs.scroll[0]:.0f},{obs.scroll[1]:.0f}"]
    if task.get("files"):
        parts.append("Files you can upload: " + ", ".join(task["files"]))
    if obs.token or obs.screenshot_hash:
        parts.append(f"Screenshot token: {obs.token or obs.screenshot_hash}")
    if obs.last_result:
        r = obs.last_result
        parts.append("Last action: " + (f"rejected ({r.get('rejected')}): {r.get('error', '')}" if not r.get("ok", True)
                                        else f"{r.get('kind')} ok"))
    if obs.approval:
        parts.append(f"Approval: {obs.approval}")
    if obs.file_chooser is not None:
        parts.append("A file chooser is open offering: " + (", ".join(obs.file_chooser) or "no files")
                     + ' (pick one with {"kind": "upload", "value": NAME}; Escape cancels)')
    if history:
        parts.append("Your previous actions:\n" + "\n".join(history[-8:]))
    if obs.elements is not None:
        parts.append("Elements (id, role, name, box in viewport px):\n" + "\n".join(_element_lines(obs)))
    return "\n".join(parts)


class ModelAgent:
    """A model choosing one action per turn through :mod:`webgauge.models`."""

    kind = "model"

    def __init__(self, model, obs_mode: str = "screenshot+tree", max_tokens: int = 300, name: str | None = None,
                 temperature: float = 0.0, seed: int | None = None) -> None:
        if obs_mode not in MODE_AGENTS:
            raise ValueError(f"obs_mode {obs_mode!r}: use one of {', '.join(MODE_AGENTS)}")
        if not (isinstance(temperature, (int, float)) and 0.0 <= temperature <= 2.0):
            raise ValueError(f"temperature {temperature!r}: use a number in [0, 2]")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"seed {seed!r}: use an integer sampling seed or None")
        self.temperature = float(temperature)
        self.seed = seed  # the sampling seed; repeats with different seeds measure generation variance
        self.model = model
        self.model_id = getattr(model, "name", None) or str(model)
        self.obs_mode = obs_mode
        self.name = name or MODE_AGENTS[obs_mode]
        self.max_tokens = max_tokens

    def start(self, public_task: dict, base_url: str) -> None:
        self.task = public_task
        self.history: list[str] = []

    async def act(self, obs: Observation) -> AgentStep:
        from webgauge.models import GenerateConfig, Image, system, user

        text = render_observation(self.task, obs, self.history)
        parts = [text] + ([Image(obs.png)] if obs.png is not None else [])
        cfg = GenerateConfig(temperature=self.temperature, seed=self.seed, max_tokens=self.max_tokens,
                             item_id=f"{self.task['id']}#{obs.step}")
        resp = await self.model.generate([system(SYSTEM_PROMPT), user(*parts)], cfg)
        usage = {k: v for k, v in resp.usage.to_dict().items() if isinstance(v, (int, float)) and v is not None}
        parsed = parse_model_answer(resp.text)
        if parsed.valid and parsed.action is not None:
            action, invalid = parsed.action, ""
            self.history.append(json.dumps(action.to_dict()))
        else:
            # An unusable answer costs a step (the budget is part of the task), never a crash:
            # the step is a zero-length wait, recorded as invalid with the reason.
            action, invalid = Action("wait", ms=0), parsed.error
            usage["invalid_actions"] = usage.get("invalid_actions", 0) + 1
            self.history.append(f"(invalid answer: {invalid[:120]})")
        return AgentStep(action, thought=f"invalid action from model: {invalid}" if invalid else "", usage=usage,
                         raw=resp.text, invalid=invalid)
