"""The agent protocol: one action per observation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .actions import Action
from .observation import Observation

__all__ = ["Agent", "AgentStep"]


@dataclass
class AgentStep:
    """An agent's choice with what it cost: model usage and the raw model text, if any."""

    action: Action
    thought: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    raw: str = ""
    invalid: str = ""  # why the model's answer was not a valid action ('' when it was)


@runtime_checkable
class Agent(Protocol):
    """``name``, ``kind`` and ``obs_mode`` identify the system; ``start`` gets only the task's public view.

    ``kind`` is ``oracle``, ``heuristic``, ``model`` or ``refuser``; a model agent also has ``model_id``.
    """

    name: str
    kind: str
    obs_mode: str

    def start(self, public_task: dict[str, Any], base_url: str) -> None: ...

    async def act(self, obs: Observation) -> AgentStep: ...
