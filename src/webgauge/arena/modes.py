"""Equal terms for every observation mode: each task solvable in each mode within that mode's budget.

:func:`check_modes` plays, per task, the oracle with element ids (``screenshot+tree``), the oracle
as an agent without pixels plays it (``dom``: element ids only, so a pointer click or drag on an
element becomes the element action that does the same, :func:`~webgauge.arena.core.script.by_element`)
and the pointer-only oracle (screenshot-mode actions only), and reports the steps each needed
against the budget of its mode. ``dom`` is played on tasks that are not ``visual`` only: a visual
task's success depends on pixels that mode does not show (a spot on a map or a floor plan), and its
script keeps pointer steps no agent in that mode can take. ``webgauge arena tasks
--check-modes`` prints it; the tests require every family to pass.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import asdict, dataclass

from .core.task import Task

__all__ = ["ModeCheck", "check_modes"]


@dataclass
class ModeCheck:
    """One task in one mode: did its oracle succeed, in how many steps, against which budget."""

    task_id: str
    family: str
    seed: int
    mode: str
    agent: str
    success: bool
    steps: int
    budget: int
    rejections: dict
    errors: list[str]

    @property
    def ok(self) -> bool:
        return self.success and self.steps <= self.budget

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


async def check_modes(browser, app_url: str, control_url: str, tasks: list[Task], *, workers: int = 2,
                      modes: tuple[str, ...] = ("screenshot+tree", "dom", "screenshot"),
                      measure: bool = False, on_result: Callable[[ModeCheck], None] | None = None,
                      time_limit_s: float = 1800.0) -> list[ModeCheck]:
    """Play each task's oracle in each of ``modes`` (``screenshot``: the pointer-only oracle; ``dom``:
    tasks that are not visual only) on
    ``workers`` envs of one arena server; one :class:`ModeCheck` per task and mode, in task order.
    ``measure``: play without the budget's cut (up to 200 steps) to see how many steps are needed;
    ``on_result`` is called with each check as it ends. ``time_limit_s`` caps one episode's wall time
    (generous: the check is about steps, and a busy machine must not fail a task by its clock)."""
    from .agents.oracle import OracleAgent
    from .agents.pointer_oracle import PointerOracle
    from .apps.control import ControlClient
    from .env import ArenaEnv
    from .env.episode import play

    jobs = [(i, t, m) for i, t in enumerate(tasks) for m in modes if not (m == "dom" and t.visual)]
    out: dict[tuple[int, str], ModeCheck] = {}

    async def worker() -> None:
        env = ArenaEnv(browser, app_url, ControlClient(control_url))
        try:
            while jobs:
                i, t, mode = jobs.pop(0)
                budget = t.budget(mode)
                if measure:
                    t = dataclasses.replace(t, max_steps=200, max_steps_by_mode=())
                agent = PointerOracle(t, env) if mode == "screenshot" else OracleAgent(t)
                if mode != "screenshot":
                    agent.obs_mode = mode
                try:
                    rec, _ = await play(env, agent, t, keep_dom=False, time_limit_s=time_limit_s)
                except Exception as exc:  # recorded per task; the check goes on
                    out[(i, mode)] = ModeCheck(t.id, t.family, t.seed, mode, agent.name, False, 0, budget, {},
                                               [f"{type(exc).__name__}: {str(exc)[:200]}"])
                    if on_result is not None:
                        on_result(out[(i, mode)])
                    continue
                errors = list(rec.validator_errors) + ([rec.error] if rec.error else [])
                out[(i, mode)] = ModeCheck(t.id, t.family, t.seed, mode, agent.name, bool(rec.success), rec.n_steps,
                                           budget, dict(rec.rejections), errors)
                if on_result is not None:
                    on_result(out[(i, mode)])
        finally:
            await env.close()

    await asyncio.gather(*(worker() for _ in range(max(1, workers))))
    return [out[k] for k in sorted(out, key=lambda k: (k[0], modes.index(k[1])))]
