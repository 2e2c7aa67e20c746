"""Play a task's oracle in BrowserGym's own page, as BrowserGym action strings.

BrowserGym acts by ``bid`` (the id its observation extraction writes on every element), so
the oracle's targets must be found in BrowserGym's page, not in webgauge's. The harness reads
webgauge's element table (``webgauge/browser/capture.js``) in that page, with each element's
``bid`` beside it (:func:`observation_from_table`); the ordinary
:class:`~webgauge.arena.agents.oracle.OracleAgent` picks its next action on that observation;
:class:`BgymActionWriter` writes the action as a BrowserGym string: element actions by bid,
pointer actions as ``mouse_*`` calls at viewport CSS pixels, ``done`` as ``send_msg_to_user``,
``request_approval`` as a message to the user naming the control (:data:`APPROVAL_PREFIX`, the
form ``integrations/browsergym``'s task reads with its gate on).
An element BrowserGym did not mark (an SVG shape) is clicked at its box's centre.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from ...browser import Element
from ...browser.snapshot import element_id
from ..core.actions import Action, need
from ..core.observation import Observation
from .bgym import APPROVAL_PREFIX

__all__ = ["APPROVAL_PREFIX", "DONE_MESSAGE", "BgymActionWriter", "capture_js", "observation_from_table"]

DONE_MESSAGE = "done"
"""What the agent says when it finishes a task that asks no question (BrowserGym needs some text)."""



def capture_js() -> str:
    """webgauge's element-table script (the page function :func:`observation_from_table` reads)."""
    from ...browser.capture import _capture_js

    return _capture_js()


def observation_from_table(table: dict, *, url: str, step: int, navigation_id: int, tabs: list[str],
                           active_tab: int, last_result: dict,
                           approval: str | None = None) -> tuple[Observation, dict[str, str | None]]:
    """An observation (no pixels) from an element table read in a foreign page, and element id -> bid;
    ``approval``: the answer to an approval request made in the step just ended ("granted"/"denied")."""
    elements, bids = [], {}
    for raw in table["elements"]:
        raw = dict(raw)
        path, parent_path, bid = raw.pop("path"), raw.pop("parent_path"), raw.pop("bid", None)
        x, y, w, h = (float(v) for v in raw.pop("box"))
        el = Element(id=element_id(path), path=path, parent=element_id(parent_path) if parent_path else None,
                     box=(x, y, w, h), **raw)
        elements.append(el)
        bids[el.id] = bid
    vw, vh = table["viewport"]
    # no screenshot here: pointer actions are bound to a digest of the table instead (BrowserGym
    # has no stale check to feed; the digest only satisfies the action schema)
    digest = hashlib.sha256(json.dumps(table, sort_keys=True).encode()).hexdigest()
    obs = Observation(step=step, url=url, navigation_id=navigation_id, viewport=(int(vw), int(vh)),
                      device_scale_factor=1.0, scroll=(float(table["scroll"][0]), float(table["scroll"][1])),
                      tabs=list(tabs), active_tab=active_tab, elements=elements, title=table.get("title", ""),
                      last_result=dict(last_result), screenshot_hash=digest, approval=approval)
    return obs, bids


def _q(s: str) -> str:
    return repr(str(s))


@dataclass
class BgymActionWriter:
    """Writes arena actions as BrowserGym strings. ``files``: the task's file name -> host path
    (BrowserGym's ``upload_file`` takes a path)."""

    files: dict[str, str] = field(default_factory=dict)
    drag_steps: int = 6
    _drag_from: tuple[float, float] | None = None

    def write(self, a: Action, obs: Observation, bids: dict[str, str | None]) -> str:
        vw, vh = obs.viewport
        if a.kind == "pointer":
            x, y = round(need(a.x, "x", a.kind) * vw, 1), round(need(a.y, "y", a.kind) * vh, 1)
            if a.pointer == "click":
                return f"mouse_click({x}, {y})"
            if a.pointer == "double_click":
                return f"mouse_dblclick({x}, {y})"
            if a.pointer == "drag_start":
                self._drag_from = (x, y)
                return f"mouse_down({x}, {y})"
            x0, y0 = self._drag_from or (x, y)
            self._drag_from = None
            moves = [f"mouse_move({round(x0 + (x - x0) * i / self.drag_steps, 1)}, "
                     f"{round(y0 + (y - y0) * i / self.drag_steps, 1)})" for i in range(1, self.drag_steps + 1)]
            return "\n".join(moves + [f"mouse_up({x}, {y})"])
        if a.kind == "done":
            return f"send_msg_to_user({_q(a.answer if a.answer is not None else DONE_MESSAGE)})"
        if a.kind == "request_approval":
            return f"send_msg_to_user({_q(' '.join((APPROVAL_PREFIX, a.value or '')).rstrip())})"
        if a.kind == "wait":
            return f"noop({int(a.ms or 500)})"
        if a.kind == "goto":
            return f"goto({_q(need(a.url, 'url', a.kind))})"
        if a.kind == "back":
            return "go_back()"
        if a.kind == "forward":
            return "go_forward()"
        if a.kind == "switch_tab":
            return f"tab_focus({need(a.tab, 'tab', a.kind)})"
        if a.kind == "type_text":
            return f"keyboard_type({_q(a.value or '')})"
        if a.kind == "scroll":
            pre = [self._target(a.element, obs, bids, "hover")] if a.element else []
            return "\n".join(pre + [f"scroll({float(a.dx or 0)}, {float(a.dy or 0)})"])
        if a.kind == "press":
            if a.element:
                bid = bids.get(a.element)
                if bid:
                    return f"press({_q(bid)}, {_q(need(a.key, 'key', a.kind))})"
            return f"keyboard_press({_q(need(a.key, 'key', a.kind))})"
        if a.kind == "click":
            call = self._target(a.element, obs, bids, "click")
            if a.modifiers and call.startswith("click("):
                call = call[:-1] + f", modifiers={list(a.modifiers)!r})"
            return call
        if a.kind == "drag":
            return f"drag_and_drop({_q(self._bid(a.element, bids))}, {_q(self._bid(a.target, bids))})"
        if a.kind in ("fill", "select", "hover", "focus", "upload"):
            bid = self._bid(a.element, bids)
            if a.kind == "fill":
                return f"fill({_q(bid)}, {_q(a.value or '')})"
            if a.kind == "select":
                return f"select_option({_q(bid)}, {_q(a.value or '')})"
            if a.kind == "upload":
                if a.value not in self.files:
                    raise ValueError(f"the task offers no file {a.value!r} (offers: {', '.join(self.files) or 'none'})")
                return f"upload_file({_q(bid)}, {_q(self.files[a.value])})"
            return f"{a.kind}({_q(bid)})"
        raise ValueError(f"no BrowserGym string for the arena action {a.kind!r}")

    def _bid(self, eid: str | None, bids: dict[str, str | None]) -> str:
        bid = bids.get(eid or "")
        if not bid:
            raise ValueError(f"element {eid} has no BrowserGym bid in the current page")
        return bid

    def _target(self, eid: str | None, obs: Observation, bids: dict[str, str | None], verb: str) -> str:
        """``verb(bid)``, or a pointer call at the element's centre when BrowserGym did not mark it."""
        bid = bids.get(eid or "")
        if bid:
            return f"{verb}({_q(bid)})"
        el = obs.element(eid or "")
        if el is None:
            raise ValueError(f"element {eid} is not in the current page")
        x, y, w, h = obs.viewport_box(el)
        cx, cy = round(x + w / 2, 1), round(y + h / 2, 1)
        return f"mouse_click({cx}, {cy})" if verb == "click" else f"mouse_move({cx}, {cy})"
