"""Gymnasium ids for every task family: ``gymnasium.make("webgauge/arena-<family>-v0")``.

:func:`register_family_envs` registers one id per family in
:data:`webgauge.arena.tasks.FAMILIES` (idempotent). The environment is an
:class:`~webgauge.arena.core.gym_env.ArenaGymEnv` over that family's tasks at ``seeds``
(default ``(0, 1)``; pass ``seeds=...`` to ``gymnasium.make`` for others); ``reset(seed=...)``
then picks one of them with Gymnasium's seeded RNG.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["register_family_envs", "make_family_env", "env_id"]

NAMESPACE = "webgauge"


def env_id(family: str) -> str:
    return f"{NAMESPACE}/arena-{family}-v0"


def make_family_env(family: str, seeds: Iterable[int] = (0, 1), **kwargs: Any):
    """An :class:`ArenaGymEnv` over one family's tasks (the registered entry point)."""
    from ..tasks import build_tasks
    from .gym_env import ArenaGymEnv

    return ArenaGymEnv(build_tasks(tuple(seeds), families=[family]), **kwargs)


def register_family_envs() -> list[str]:
    """Register ``webgauge/arena-<family>-v0`` for every family; returns the ids."""
    import gymnasium as gym

    from ..tasks import build_tasks

    ids = []
    for task in build_tasks((0,)):  # one task per family, in FAMILIES order
        family = task.family
        gid = env_id(family)
        if gid not in gym.registry:
            gym.register(id=gid, entry_point="webgauge.arena.core.gym_ids:make_family_env",
                         kwargs={"family": family}, disable_env_checker=True)
        ids.append(gid)
    return ids
