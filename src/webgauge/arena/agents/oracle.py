"""The scripted upper bound: replays a task's oracle solution through the normal action space.

The oracle is the only agent that sees more than the task's public view (it holds the
task's scripted steps); it still acts through element ids and pointer coordinates of the
current observation, so stale checks and destructive-action guards apply to it too.
"""

from __future__ import annotations

from ..core.actions import Action
from ..core.observation import Observation
from ..core.script import ScriptError, Step
from ..core.task import Task
from .base import AgentStep

__all__ = ["OracleAgent", "MAX_WAITS"]

MAX_WAITS = 6
"""Short waits the oracle may spend on one step whose target is not drawn yet (client-rendered apps)."""


class OracleAgent:
    name = "oracle"
    obs_mode = "screenshot+tree"

    def __init__(self, task: Task) -> None:
        if task.oracle is None:
            raise ValueError(f"task {task.id} has no scripted oracle solution")
        self.task = task
        self._steps: list[Step] = []
        self._base = ""

    def start(self, public_task: dict, base_url: str) -> None:
        if public_task["id"] != self.task.id:
            raise ValueError(f"oracle for {self.task.id} started on {public_task['id']}")
        self._steps = list(self.task.oracle())
        self._base = base_url
        self._waits = 0

    async def act(self, obs: Observation) -> AgentStep:
        if not self._steps:
            return AgentStep(Action("done", answer=self.task.answer), thought="script finished")
        step = self._steps[0]
        try:
            action = step.act(obs, self._base)
        except ScriptError as exc:
            if self._waits < MAX_WAITS:  # a client-rendered view may still be drawing: look again shortly
                self._waits += 1
                return AgentStep(Action("wait", ms=300), thought=f"waiting for the page: {exc}")
            # Record the failure as the agent's answer: the validator will judge the state.
            return AgentStep(Action("done", answer=None), thought=f"script step failed: {exc}")
        self._steps.pop(0)
        self._waits = 0
        return AgentStep(action, thought=repr(step))
