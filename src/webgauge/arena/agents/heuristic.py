"""A no-network heuristic agent: word overlap between the instruction and the page's controls.

It reads only the public task and the element table (``dom`` mode), never the task's
validator or oracle. Each step it either fills an empty text field with a value quoted or
spelled out in the instruction (an e-mail address, a quoted string), or clicks the
not-yet-clicked control whose accessible name best overlaps the instruction. It gives up
(``done``) when nothing scores. It is a floor for the model baselines and makes the demo
run offline; it is deliberately naive and will trip on similar names, dialogs and canvases.
"""

from __future__ import annotations

import re

from ..core.actions import Action
from ..core.agent import AgentStep
from ..core.observation import Observation

__all__ = ["HeuristicAgent"]

STOP = set("a an the to of in on for and or your you it its with from by as at be is are this that every "
           "other each only one any all not do don't must stay keep using use look".split())
FILLABLE = ("textbox", "searchbox", "spinbutton")


def _words(s: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9#@.\-]+", s.lower()) if w not in STOP and len(w) > 1}


class HeuristicAgent:
    name = "heuristic"
    kind = "heuristic"
    obs_mode = "dom"

    def __init__(self, max_actions: int = 8) -> None:
        self.max_actions = max_actions

    def start(self, public_task: dict, base_url: str) -> None:
        self.instruction = public_task["instruction"]
        self.words = _words(self.instruction)
        self.quoted = re.findall(r"'([^']+)'", self.instruction)
        self.emails = re.findall(r"[\w.+-]+@[\w-]+\.[\w.]+", self.instruction)
        self.clicked: set[str] = set()
        self.filled: set[str] = set()
        self.n = 0

    async def act(self, obs: Observation) -> AgentStep:
        self.n += 1
        if self.n > self.max_actions:
            return AgentStep(Action("done"), thought="action budget of the heuristic spent")
        els = [e for e in obs.elements or [] if e.visible and e.clickable]
        values = self.emails + self.quoted
        for e in els:
            named = bool(_words(e.name or "") & self.words)
            if e.role in FILLABLE and e.id not in self.filled and values and (named or not e.attrs.get("value")):
                value = values[min(len(self.filled), len(values) - 1)]
                self.filled.add(e.id)
                return AgentStep(Action("fill", element=e.id, value=value), thought=f"fill {e.name!r} with {value!r}")
        best, best_score = None, 0.0
        for e in els:
            if e.id in self.clicked or e.role not in ("button", "link", "menuitem", "tab", "radio", "checkbox"):
                continue
            name = (e.name or e.text or "").strip()
            if not name:
                continue
            score = len(_words(name) & self.words) / (1 + 0.1 * len(_words(name)))
            score += sum(2.0 for q in self.quoted if q.lower() == name.lower())
            if e.role == "button" and self.filled:
                score += 0.5  # after filling, submitting is likely next
            if score > best_score:
                best, best_score = e, score
        if best is None:
            return AgentStep(Action("done"), thought="no control matches the instruction")
        self.clicked.add(best.id)
        return AgentStep(Action("click", element=best.id), thought=f"click {best.name!r} (score {best_score:.2f})")
