"""The random-action baseline: the floor of every arena report.

Each step it draws one action uniformly from its observation mode's action space, aimed at
what the current observation offers and nothing else:

- ``dom``: a kind drawn uniformly from the semantic, navigation and ending kinds, aimed at an
  element drawn uniformly from the page's visible elements (a drag drops onto a second one);
  values and answers are words drawn from the public instruction and the page's own texts;
- ``screenshot``: a kind drawn uniformly from the pointer, keyboard, scroll, navigation and
  ending kinds; pointer actions land on a pixel drawn uniformly over the screenshot.

It reads only the task's public view and the observation (never a validator, an oracle or a
list of allowed answers), so it runs on every family, own or real. Its choices come from one
``random.Random`` seeded by the agent's seed and the task id: the same seed replays the same
episode on the same pages.
"""

from __future__ import annotations

import random
import re
from typing import Any

from ..core.actions import POINTER_KINDS, Action
from ..core.agent import AgentStep
from ..core.observation import Observation

__all__ = ["RandomAgent", "DOM_KINDS", "SCREENSHOT_KINDS", "KEYS"]

DOM_KINDS = ("click", "fill", "select", "hover", "focus", "press", "scroll", "drag", "type_text", "upload",
             "back", "forward", "wait", "done")
"""The kinds a ``dom`` random agent draws from (each as likely)."""
SCREENSHOT_KINDS = ("pointer", "press", "scroll", "type_text", "upload", "back", "forward", "wait", "done")
"""The kinds a ``screenshot`` random agent draws from (each as likely)."""
KEYS = ("Enter", "Escape", "Tab", "ArrowDown", "ArrowUp", "Space", "Backspace")
MODES = ("dom", "screenshot")
_WORD = re.compile(r"[\w@.'#-]+")


class RandomAgent:
    """Uniform random actions in ``obs_mode`` (``dom`` or ``screenshot``), seeded by ``seed``."""

    kind = "random"

    def __init__(self, seed: int = 0, obs_mode: str = "dom") -> None:
        if obs_mode not in MODES:
            raise ValueError(f"random agent: obs_mode {obs_mode!r}; use one of {', '.join(MODES)}")
        self.seed = int(seed)
        self.obs_mode = obs_mode
        self.name = "random" if obs_mode == "dom" else f"random|{obs_mode}"
        self.rng = random.Random(0)
        self.words: list[str] = []
        self.files: list[str] = []

    def start(self, public_task: dict[str, Any], base_url: str) -> None:
        self.rng = random.Random(f"webgauge-random-agent:{self.seed}:{public_task['id']}")
        self.words = _WORD.findall(public_task.get("instruction", "")) or ["ok"]
        self.files = list(public_task.get("files", []))

    def _word(self, obs: Observation) -> str:
        """A word from the instruction or the page's texts (what a blind typist could copy)."""
        page = [w for e in (obs.elements or [])[:200] for w in _WORD.findall(e.name or e.text or "")]
        return self.rng.choice(self.words + page)

    async def act(self, obs: Observation) -> AgentStep:
        action = self._dom(obs) if self.obs_mode == "dom" else self._screen(obs)
        return AgentStep(action, thought="random")

    def _dom(self, obs: Observation) -> Action:
        kind = self.rng.choice(DOM_KINDS)
        els = [e for e in obs.elements or [] if e.visible]
        common = self._common(kind, obs)
        if common is not None:
            return common
        if not els:  # nothing on the page to aim at: this draw waits
            return Action("wait", ms=100)
        el = self.rng.choice(els)
        if kind == "fill":
            return Action("fill", element=el.id, value=self._word(obs))
        if kind == "select":
            return Action("select", element=el.id, value=self._word(obs))
        if kind == "press":
            return Action("press", element=el.id, key=self.rng.choice(KEYS))
        if kind == "drag":
            return Action("drag", element=el.id, target=self.rng.choice(els).id)
        if kind == "upload":
            return Action("upload", element=el.id, value=self.rng.choice(self.files)) if self.files \
                else Action("wait", ms=100)
        return Action(kind, element=el.id)  # click, hover, focus

    def _screen(self, obs: Observation) -> Action:
        kind = self.rng.choice(SCREENSHOT_KINDS)
        common = self._common(kind, obs)
        if common is not None:
            return common
        if kind == "press":
            return Action("press", key=self.rng.choice(KEYS))
        if kind == "upload":  # answers an open file chooser with one of the task's files
            return Action("upload", value=self.rng.choice(self.files)) if self.files and obs.file_chooser is not None \
                else Action("wait", ms=100)
        return Action("pointer", pointer=self.rng.choice(POINTER_KINDS), x=self.rng.random(), y=self.rng.random(),
                      token=obs.token, screenshot_hash=None if obs.token else obs.screenshot_hash)

    def _common(self, kind: str, obs: Observation) -> Action | None:
        """The kinds both modes share and aim at nothing on the page."""
        if kind == "scroll":
            w, h = obs.viewport
            return Action("scroll", dx=self.rng.uniform(-1, 1) * w, dy=self.rng.uniform(-1, 1) * h)
        if kind == "type_text":
            return Action("type_text", value=self.words[self.rng.randrange(len(self.words))])
        if kind in ("back", "forward"):
            return Action(kind)
        if kind == "wait":
            return Action("wait", ms=100)
        if kind == "done":
            return Action("done", answer=self._word(obs))
        return None
