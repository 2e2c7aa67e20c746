"""Scripted solutions: steps that turn the current observation into one action each.

Task families write their oracle solutions with these. A step finds its target in the
observation (by role, accessible name, text, tag, class or attribute), so the oracle acts
through the same action space and stale checks as every other agent. Canvas steps use
geometry that only the harness knows (plan coordinates from the seed), converted to
normalized screenshot coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...browser import Element
from .actions import Action
from .observation import Observation

__all__ = ["Match", "Step", "Go", "Click", "ClickInRow", "Fill", "Select", "Press", "Reveal", "PointAt", "DragStart",
           "DragEnd", "DragOnto",
           "SwitchTab", "Wait", "Done", "Upload", "ScriptError", "by_element"]


class ScriptError(RuntimeError):
    """A scripted step found no target in the observation."""


@dataclass(frozen=True)
class Match:
    """Criteria on an element; all given ones must hold. ``nth`` picks among matches in DOM order."""

    role: str | None = None
    name: str | None = None  # exact accessible name
    text: str | None = None  # substring of the element's text
    tag: str | None = None
    cls: str | None = None  # one CSS class
    attrs: tuple[tuple[str, str], ...] = ()
    nth: int = 0
    visible: bool = True
    name_contains: str | None = None
    within: Match | None = None  # the target must sit inside the element this matches

    def ok(self, el: Element) -> bool:
        if self.visible and not el.visible:
            return False
        if self.role and el.role != self.role:
            return False
        if self.name is not None and (el.name or "").strip() != self.name:
            return False
        if self.name_contains is not None and self.name_contains not in (el.name or ""):
            return False
        if self.text is not None and self.text not in (el.text or ""):
            return False
        if self.tag and el.tag.lower() != self.tag:
            return False
        if self.cls and self.cls not in (el.attrs.get("class") or "").split():
            return False
        return all(el.attrs.get(k) == v for k, v in self.attrs)

    def find(self, obs: Observation) -> Element:
        hits = [el for el in obs.elements or [] if self.ok(el)]
        if self.within is not None:
            box = self.within.find(obs).id
            parents = {el.id: el.parent for el in obs.elements or []}

            def inside(eid: str | None) -> bool:
                while eid is not None:
                    if eid == box:
                        return True
                    eid = parents.get(eid)
                return False

            hits = [el for el in hits if inside(el.parent)]
        if len(hits) <= self.nth:
            raise ScriptError(f"no element matches {self} at {obs.url} ({len(hits)} candidates)")
        return hits[self.nth]


class Step:
    #: actions the step takes in screenshot mode (the pointer-only oracle's translation): a fill is a
    #: click, a select-all and typing; a select a click on the control and one on its option; an upload
    #: a click on the file input and the name picked in its chooser; everything else one action
    pointer_actions: int = 1
    #: the step acts on an element (in screenshot mode it may first need a scroll to bring it into view)
    on_element: bool = False

    def act(self, obs: Observation, base: str) -> Action:
        raise NotImplementedError


@dataclass(frozen=True)
class Go(Step):
    path: str

    def act(self, obs: Observation, base: str) -> Action:
        return Action("goto", url=base + self.path)


@dataclass(frozen=True)
class Click(Step):
    pointer_actions = 1
    on_element = True
    target: Match

    def act(self, obs: Observation, base: str) -> Action:
        return Action("click", element=self.target.find(obs).id)


@dataclass(frozen=True)
class ClickInRow(Step):
    """Click the button named ``button`` in the first visible row with a cell whose text is exactly ``cell``."""

    pointer_actions = 1
    on_element = True
    cell: str
    button: str

    def act(self, obs: Observation, base: str) -> Action:
        els = obs.elements or []
        parents = {e.id: e.parent for e in els}
        cells = [e for e in els if e.tag == "td" and (e.text or "").strip() == self.cell and e.visible]
        if not cells:
            raise ScriptError(f"no row with a cell {self.cell!r} at {obs.url}")
        row = cells[0].parent
        for e in els:
            if e.role == "button" and e.name == self.button and e.visible:
                p = e.parent
                while p is not None and p != row:
                    p = parents.get(p)
                if p == row:
                    return Action("click", element=e.id)
        raise ScriptError(f"no {self.button!r} button in the row of {self.cell!r}")


@dataclass(frozen=True)
class Fill(Step):
    pointer_actions = 3
    on_element = True
    target: Match
    value: str

    def act(self, obs: Observation, base: str) -> Action:
        return Action("fill", element=self.target.find(obs).id, value=self.value)


@dataclass(frozen=True)
class Upload(Step):
    """Attach one of the task's files (by name) to the file input ``target``."""

    pointer_actions = 2
    on_element = True
    target: Match
    name: str

    def act(self, obs: Observation, base: str) -> Action:
        return Action("upload", element=self.target.find(obs).id, value=self.name)


@dataclass(frozen=True)
class Select(Step):
    pointer_actions = 2
    on_element = True
    target: Match
    value: str

    def act(self, obs: Observation, base: str) -> Action:
        return Action("select", element=self.target.find(obs).id, value=self.value)


@dataclass(frozen=True)
class Press(Step):
    key: str

    def act(self, obs: Observation, base: str) -> Action:
        return Action("press", key=self.key)


@dataclass(frozen=True)
class Reveal(Step):
    """Scroll so the target's center sits at ``at`` (fraction of the viewport height)."""

    target: Match
    at: float = 0.4

    def act(self, obs: Observation, base: str) -> Action:
        el = self.target.find(obs)
        _, vy, _, h = obs.viewport_box(el)
        return Action("scroll", dy=round(vy + h / 2 - obs.viewport[1] * self.at))


def _point(obs: Observation, el: Element, fx: float, fy: float) -> tuple[float, float]:
    x, y, w, h = obs.viewport_box(el)
    return obs.normalized(x + w * fx, y + h * fy)


@dataclass(frozen=True)
class PointAt(Step):
    """A pointer action at a point of an element: ``(fx, fy)`` as fractions of its box."""

    target: Match
    fx: float = 0.5
    fy: float = 0.5
    kind: str = "click"

    def act(self, obs: Observation, base: str) -> Action:
        x, y = _point(obs, self.target.find(obs), self.fx, self.fy)
        return Action("pointer", pointer=self.kind, x=x, y=y, screenshot_hash=obs.screenshot_hash)


@dataclass(frozen=True)
class DragStart(PointAt):
    kind: str = "drag_start"


@dataclass(frozen=True)
class DragEnd(PointAt):
    kind: str = "drag_end"


@dataclass(frozen=True)
class DragOnto(Step):
    """Drag ``source`` onto ``target`` by element id (the ``drag`` action: dropped on the target's middle)."""

    on_element = True
    source: Match
    target: Match

    def act(self, obs: Observation, base: str) -> Action:
        return Action("drag", element=self.source.find(obs).id, target=self.target.find(obs).id)


def by_element(steps: list[Step]) -> list[Step]:
    """A script as an agent without pixels plays it (``dom`` mode: element ids, no screenshot, so no
    pointer action, which must name the screenshot it was aimed at): a pointer click at an element's
    middle is a click on it, and a pointer drag from an element's middle is the ``drag`` action onto the
    element it ends on (dropped on that element's middle, wherever in it the script let go).
    A point that must be somewhere in particular inside an element (a spot on a map or a floor plan)
    has no such translation and stays a pointer step: the agent cannot take it, and the task is one
    whose success depends on pixels (``Task.visual``)."""
    out: list[Step] = []
    i = 0
    while i < len(steps):
        s, nxt = steps[i], steps[i + 1] if i + 1 < len(steps) else None
        if type(s) is PointAt and s.kind == "click" and (s.fx, s.fy) == (0.5, 0.5):
            out.append(Click(s.target))
        elif type(s) is DragStart and (s.fx, s.fy) == (0.5, 0.5) and type(nxt) is DragEnd:
            out.append(DragOnto(s.target, nxt.target))
            i += 1
        else:
            out.append(s)
        i += 1
    return out


def _point_in_view(obs: Observation, step: PointAt) -> bool:
    x, y, w, h = obs.viewport_box(step.target.find(obs))
    px, py = x + w * step.fx, y + h * step.fy
    return 0 <= px < obs.viewport[0] and 0 <= py < obs.viewport[1]


def by_element_out_of_view(steps: list[Step], obs: Observation) -> tuple[int, list[Step]] | None:
    """The first step (a pointer click, or a pointer drag with the step that ends it) as
    :func:`by_element` plays it, when its point, or the drag's end, is outside the view (a phone's
    view of a page wider than its screen; the element action brings its target into view itself):
    how many steps it replaces, and the steps in their place. None when it is in view or has no
    element translation. Raises :class:`ScriptError` as the step would."""
    if not steps or type(steps[0]) not in (PointAt, DragStart):
        return None
    first = steps[0]
    pair = steps[:2] if type(first) is DragStart and len(steps) > 1 and type(steps[1]) is DragEnd else steps[:1]
    if all(_point_in_view(obs, s) for s in pair if isinstance(s, PointAt)):
        return None
    out = by_element(pair)
    return (len(pair), out) if out != pair else None


@dataclass(frozen=True)
class SwitchTab(Step):
    tab: int

    def act(self, obs: Observation, base: str) -> Action:
        return Action("switch_tab", tab=self.tab)


@dataclass(frozen=True)
class Wait(Step):
    ms: int = 800

    def act(self, obs: Observation, base: str) -> Action:
        return Action("wait", ms=self.ms)


@dataclass(frozen=True)
class Done(Step):
    answer: str | None = None

    def act(self, obs: Observation, base: str) -> Action:
        return Action("done", answer=self.answer)
