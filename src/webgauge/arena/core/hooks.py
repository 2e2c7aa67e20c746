"""The public extension points of :class:`~webgauge.arena.env.ArenaEnv`.

Variants, pop-ups, perturbations and safety traps change the world around an agent
without touching the env's internals: each is an :class:`EnvHooks` (subclass it and
override what you need) passed as ``ArenaEnv(..., hooks=[...])``. The env calls, in order:

- ``on_reset(env)`` at the start of every episode (before the page opens);
- ``on_new_page(env, page)`` on each fresh page, before its first navigation (init
  scripts, request delays, extra allowed origins);
- ``before_action(env, action)`` before each action runs (after the step counter moved);
- ``before_observe(env)`` before each capture (e.g. perturb a new document once);
- ``after_observe(env, obs)`` after each capture (e.g. shift the page under the agent).

What the hooks did in an episode goes into ``env.events`` (a :class:`WorldEvents`), which
the episode record keeps as ``variant_events`` and the oracle reads (perturbed labels).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from .actions import Action
    from .observation import Observation
    from .task import Task

__all__ = ["EnvHooks", "HookedEnv", "WorldEvents"]


class HookedEnv(Protocol):
    """What a hook may read (and, for ``events``, write) of the env it is attached to.

    :class:`~webgauge.arena.env.ArenaEnv` is one; the protocol keeps the hooks below the
    env, so a world change never reaches into the env's internals."""

    app_url: str
    episode_id: str | None
    task: Task | None
    page: Any  # the live page (``webgauge.browser.LivePage``) or None before the first reset
    steps: int
    events: WorldEvents


class EnvHooks:
    """No-op hooks; override the ones a world change needs (all are awaited except ``on_reset``)."""

    def on_reset(self, env: HookedEnv) -> None:
        pass

    async def on_new_page(self, env: HookedEnv, page: Any) -> None:
        pass

    async def before_action(self, env: HookedEnv, action: Action) -> None:
        pass

    async def before_observe(self, env: HookedEnv) -> None:
        pass

    async def after_observe(self, env: HookedEnv, obs: Observation) -> None:
        pass


@dataclass
class WorldEvents:
    """What the hooks did during one episode (harness side; agents never see it)."""

    text_map: dict[str, tuple[str, str]] = field(default_factory=dict)  # xpath -> (perturbed, original)
    events: list[dict[str, Any]] = field(default_factory=list)
    perturbed_docs: int = 0
    shifts: int = 0

    def clear(self) -> None:
        self.text_map.clear()
        self.events.clear()
        self.perturbed_docs = self.shifts = 0

    def summary(self) -> dict[str, Any]:
        kinds: dict[str, int] = {}
        for e in self.events:
            kinds[e["event"]] = kinds.get(e["event"], 0) + 1
        return {"events": kinds, "perturbed_docs": self.perturbed_docs, "shifts": self.shifts,
                "text_changes": len(self.text_map)}
