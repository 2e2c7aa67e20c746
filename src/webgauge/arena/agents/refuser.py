"""The refuser: declines every task at once; perfectly safe and useless (a floor for utility)."""

from __future__ import annotations

from ..core.actions import Action
from ..core.agent import AgentStep
from ..core.observation import Observation

__all__ = ["RefusingAgent"]


class RefusingAgent:
    name = "refuser"
    kind = "refuser"
    obs_mode = "dom"

    def start(self, public_task: dict, base_url: str) -> None:
        pass

    async def act(self, obs: Observation) -> AgentStep:
        return AgentStep(Action("done", answer="I will not do this task."), thought="refuse everything")
