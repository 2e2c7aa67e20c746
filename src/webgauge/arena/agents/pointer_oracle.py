"""The pointer-only oracle: the scripted oracle played with screenshot-mode actions only.

It checks that every task can be done by an agent that sees only pixels, within the step
budget of screenshot mode (``Task.budget("screenshot")``). It wraps :class:`OracleAgent`
(the same script, retries, pop-up handling and approvals) and turns each action that names an
element into what a screenshot-only agent can do: a pointer click at a point of the element's
box in the current observation (a point where the element, not something over it, would be
hit; a scroll first when it is outside the viewport), ``press`` and ``type_text`` for typing,
a click on the ``<select>`` and one on the option row the environment draws, a click on the
file input and an ``upload`` of the name its file chooser offers. The boxes come from the
harness's element table (perfect grounding), so the step counts are a floor for a real agent.
The environment runs it in screenshot mode, so it cannot use an element id even by mistake.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from ...browser import VIEW_OFFSET_JS, Element
from ..core.actions import Action, need
from ..core.agent import AgentStep
from ..core.observation import Observation
from ..core.task import Task
from ..env.pickers import FileDialog, SelectPopup
from .oracle import RETRYABLE, OracleAgent

__all__ = ["PointerOracle", "candidate_points", "hit_point"]

# one sub-step: from the current (full) observation, the action to take and whether the sub-step is finished
# one sub-step: the next action and whether the element step is finished (some look at the live page first)
AsyncSub = Callable[[Observation], Awaitable[tuple[Action, bool]]]
Sub = Callable[[Observation], "tuple[Action, bool] | Awaitable[tuple[Action, bool]]"]


def _ancestors(obs: Observation, el: Element) -> set[str]:
    parents = {e.id: e.parent for e in obs.elements or []}
    out, p = set(), el.parent
    while p is not None and p not in out:
        out.add(p)
        p = parents.get(p)
    return out


#: The first of the viewport points where a click would hit the element at an XPath (the element or
#: a descendant is what the browser finds there: nothing covers it), or -1. Read-only. The points are in
#: the view the screenshot shows (:data:`~webgauge.browser.VIEW_OFFSET_JS`).
_HIT_JS = """([path, points]) => {
  const el = document.evaluate(path, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (!el) return -1;
  """ + VIEW_OFFSET_JS + """
  for (let i = 0; i < points.length; i++) {
    const hit = document.elementFromPoint(points[i][0] + ox, points[i][1] + oy);
    if (hit && (hit === el || el.contains(hit))) return i;
  }
  return -1;
}"""


def candidate_points(obs: Observation, el: Element) -> list[tuple[float, float]]:
    """Points of ``el``'s box that are inside the viewport (viewport CSS px), its center first."""
    x, y, w, h = obs.viewport_box(el)
    vw, vh = obs.viewport
    x0, y0, x1, y1 = max(x, 0.0), max(y, 0.0), min(x + w, vw - 1.0), min(y + h, vh - 1.0)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return []
    fr = (0.5, 0.3, 0.7, 0.15, 0.85)
    return [(x0 + (x1 - x0) * fx, y0 + (y1 - y0) * fy) for fy in fr for fx in fr]


async def hit_point(page, obs: Observation, el: Element) -> tuple[float, float] | None:
    """A viewport point (CSS px) inside ``el``'s visible box where a click hits ``el`` (the browser's
    own hit test on the page the observation shows), or None when no such point is in the viewport."""
    points = candidate_points(obs, el)
    if not points:
        return None
    i = await page.evaluate(_HIT_JS, [el.path, [list(p) for p in points]])
    return points[i] if i >= 0 else None


def _scroll_to(obs: Observation, el: Element) -> Action:
    vx, vy, w, h = obs.viewport_box(el)
    vw, vh = obs.viewport
    # sideways too when it is past the view's edge (a phone's view of a page wider than its screen)
    dx = 0 if vx >= 0 and vx + min(w, vw * 0.5) <= vw else round(vx + min(w, vw * 0.5) / 2 - vw * 0.4)
    dy = round(vy + min(h, vh * 0.5) / 2 - vh * 0.4)
    if not dx and not dy:
        dy = 40 if vy > 0 else -40
    return Action("scroll", dx=dx, dy=dy)


def _pointer(obs: Observation, px: float, py: float, kind: str = "click") -> Action:
    x, y = obs.normalized(px, py)
    return Action("pointer", pointer=kind, x=x, y=y, token=obs.token)


class _Lost(Exception):
    """The element a sub-step acts on is not in the observation."""


class PointerOracle:
    """The oracle in screenshot mode (see the module docstring). ``env`` is the harness's
    :class:`~webgauge.arena.env.ArenaEnv`: its full observation gives the element boxes."""

    name = "oracle-pointer"
    kind = "oracle"
    obs_mode = "screenshot"

    def __init__(self, task: Task, env, variant=None, **oracle_kwargs) -> None:
        self.inner = OracleAgent(task, variant, getattr(env, "events", None), **oracle_kwargs)
        self.task = task
        self.env = env
        self._plan: list[Sub] = []
        self._lost = 0

    def start(self, public_task: dict, base_url: str) -> None:
        self.inner.start(public_task, base_url)
        self._plan = []

    async def act(self, seen: Observation) -> AgentStep:
        obs = self.env.obs  # the same observation, with the harness's element table
        if self._plan and obs.last_result.get("rejected") in RETRYABLE:
            self._plan = []  # a rejected sub-step: the inner oracle looks again and repeats its step
        while True:
            if self._plan:
                try:
                    res = self._plan[0](obs)
                    action, finished = (await res) if inspect.isawaitable(res) else res
                except _Lost as exc:
                    self._lost += 1
                    if self._lost > 4:
                        self._plan = []
                        return AgentStep(Action("done", answer=None), thought=f"lost the target: {exc}")
                    return AgentStep(Action("wait", ms=300), thought=f"target not there yet: {exc}")
                self._lost = 0
                if finished:
                    self._plan.pop(0)
                return AgentStep(action, thought="pointer-only")
            step = await self.inner.act(obs)
            self._plan = self._translate(step.action, obs)
            if not self._plan:
                return step

    # ---- one element action -> screenshot-mode sub-steps ----------------------------------
    def _translate(self, a: Action, obs: Observation) -> list[Sub]:
        if not (a.element or a.target):
            return []
        eid = a.element or ""  # a drag names both; every other kind here names its element
        if a.kind == "click":
            return [self._click(eid)]
        if a.kind in ("focus", "hover"):
            return [self._click(eid)]
        if a.kind == "press":
            return [self._click(eid), lambda o: (Action("press", key=a.key), True)]
        if a.kind == "fill":
            return self._fill(eid, a.value or "", obs)
        if a.kind == "select":
            return [self._click(eid), self._pick_option(eid, a.value or "", obs)]
        if a.kind == "upload":
            return [self._click(eid), self._choose_file(a.value or "")]
        if a.kind == "scroll":
            return [self._click(eid), lambda o: (Action("scroll", dx=a.dx, dy=a.dy), True)]
        if a.kind == "drag":
            return [self._point(eid, "drag_start"), self._point(need(a.target, "target", a.kind), "drag_end")]
        raise ValueError(f"pointer-only oracle: no screenshot-mode equivalent of {a.kind}")

    def _element(self, obs: Observation, eid: str) -> Element:
        el = obs.element(eid)
        if el is None or not el.visible:
            raise _Lost(f"{eid} is not in the observation at {obs.url}")
        return el

    def _point(self, eid: str, kind: str) -> AsyncSub:
        scrolls = [0]

        async def sub(obs: Observation) -> tuple[Action, bool]:
            el = self._element(obs, eid)
            pt = await hit_point(self.env.page, obs, el)
            if pt is None:
                points = candidate_points(obs, el)
                if not points or scrolls[0] < 2:  # outside the viewport, or covered where it is: scroll
                    scrolls[0] += 1
                    if scrolls[0] <= 8:
                        return _scroll_to(obs, el), False
                pt = points[0] if points else obs.viewport_box(el)[:2]
            return _pointer(obs, *pt, kind), True
        return sub

    def _click(self, eid: str) -> AsyncSub:
        return self._point(eid, "click")

    def _fill(self, eid: str, value: str, obs: Observation) -> list[Sub]:
        el = self._element(obs, eid)
        typ = (el.attrs.get("type") or "").lower()
        subs: list[Sub] = []
        if el.tag.lower() == "input" and typ == "date" and len(value) == 10:
            # a date field takes the digits of its segments (month, day, year) from its first segment
            y, m, d = value.split("-")

            def first_segment(o: Observation) -> tuple[Action, bool]:
                e = self._element(o, eid)
                bx, by, bw, bh = o.viewport_box(e)
                if by < 0 or by + bh > o.viewport[1]:
                    return _scroll_to(o, e), False
                return _pointer(o, bx + min(10.0, bw / 4), by + bh / 2), True
            return [first_segment, lambda o: (Action("type_text", value=m + d + y), True)]
        subs.append(self._click(eid))
        if el.attrs.get("value"):  # replace what the field holds
            subs.append(lambda o: (Action("press", key="Control+a"), True))
        if value:
            subs.append(lambda o: (Action("type_text", value=value), True))
        elif el.attrs.get("value"):
            subs.append(lambda o: (Action("press", key="Delete"), True))
        return subs

    def _pick_option(self, eid: str, value: str, obs: Observation) -> AsyncSub:
        el = self._element(obs, eid)
        opts = [e for e in obs.elements or [] if e.tag.lower() == "option" and el.id in _ancestors(obs, e)]
        index = next((i for i, o in enumerate(opts) if o.attrs.get("value", (o.text or "").strip()) == value), None)
        if index is None:
            index = next((i for i, o in enumerate(opts) if (o.text or "").strip() == value), None)
        if index is None:
            raise ValueError(f"pointer-only oracle: no option {value!r} in {eid}")

        reopen = self._click(eid)
        tries = [0]

        async def sub(o: Observation) -> tuple[Action, bool]:
            p = self.env.picker
            if not isinstance(p, SelectPopup):
                tries[0] += 1
                if tries[0] > 3:
                    raise _Lost(f"the popup of {eid} does not open")
                action, _ = await reopen(o)  # the click did not open it (it was rejected or missed): again
                return action, False
            if not p.first <= index < p.first + p.rows:
                return Action("scroll", dy=(index - p.first - p.rows // 2) * p.row_height), False
            return _pointer(o, *p.row_center(index)), True
        return sub

    def _choose_file(self, name: str) -> Sub:
        def sub(o: Observation) -> tuple[Action, bool]:
            if not isinstance(self.env.picker, FileDialog) or o.file_chooser is None:
                raise _Lost("no file chooser is open")
            return Action("upload", value=name), True
        return sub
