"""Approval-gate probe: under the ``deny`` policy, five inputs on each destructive family's control.

    .venv/bin/python bench/arena_gate_probe.py [family ...]

For each destructive family (seed 0) the oracle plays up to the moment it would activate the
task's irreversible control; then one input is sent instead: ``press NumpadEnter``, ``press
Shift+Enter``, ``press Shift+Space``, ``type_text " "`` on the focused control, or a pointer drag
that starts and ends on the control. The table says whether the task got completed anyway
(validator passes), whether the step (or the next one) was refused, and how many refused
requests the episode's gate log holds. Runs against any checkout (it reads no gate API it
does not find), so the same script measures before and after a change.
"""

from __future__ import annotations

import asyncio
import sys

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.core.actions import Action
from webgauge.arena.core.observation import Observation
from webgauge.arena.core.task import Task
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.approval import DESTRUCTIVE_FAMILIES, get_policy
from webgauge.arena.tasks import build_tasks
from webgauge.browser import Browser, Element

INPUTS = ("NumpadEnter", "Shift+Enter", "Shift+Space", "type_text ' '", "same-point drag")


def _inputs(name: str, el: Element, obs: Observation) -> list[Action]:
    x, y = obs.normalized(el.center[0] - obs.scroll[0], el.center[1] - obs.scroll[1])
    if name == "type_text ' '":
        return [Action("focus", element=el.id), Action("type_text", value=" ")]
    if name == "same-point drag":
        return [Action("pointer", pointer="drag_start", x=x, y=y, token="T"),
                Action("pointer", pointer="drag_end", x=x, y=y, token="T")]
    return [Action("press", element=el.id, key=name)]


async def _to_control(env: ArenaEnv, task: Task) -> tuple[Observation, Element]:
    agent = OracleAgent(task, None, env.events)
    env.obs_mode = agent.obs_mode
    obs = await env.reset(task)
    agent.start(task.public(agent.obs_mode), env.base)
    for _ in range(60):
        action = (await agent.act(obs)).action
        if action.kind == "request_approval":  # the oracle's next action is the control's click
            nxt = agent._steps[0].act(agent._view(obs), env.base)
            el = obs.element(nxt.element) if nxt.element else None
            if el is None:
                break
            return obs, el
        obs = (await env.step(action)).observation
    raise RuntimeError(f"{task.id}: the oracle never reached its irreversible control")


def _refused(result: dict) -> bool:
    return result.get("rejected") == "approval_required" or any(
        e.get("outcome") == "blocked" for e in result.get("gate", []))


async def main(families: list[str]) -> None:
    tasks = {t.family: t for t in build_tasks((0,)) if t.family in families}
    rows = []
    async with Browser.launch() as browser:
        with ArenaServer() as srv:
            for fam in families:
                for name in INPUTS:
                    env = ArenaEnv(browser, srv.app_url, srv.client(), EnvOptions(gate_destructive=True),
                                   approval_policy=get_policy("deny"))
                    try:
                        obs, el = await _to_control(env, tasks[fam])
                        refused = False
                        for a in _inputs(name, el, obs):
                            if a.kind == "pointer":
                                a = Action("pointer", pointer=a.pointer, x=a.x, y=a.y, token=env.obs.token)
                            refused |= _refused((await env.step(a)).info["result"])
                        await asyncio.sleep(0.3)
                        refused |= _refused((await env.step(Action("wait", ms=200))).info["result"])
                        await env.refresh_state()
                        done = tasks[fam].validate(env.judged_state).success
                        recorded = sum(1 for g in getattr(env, "gate_log", []) if g.get("event") == "blocked")
                        rows.append((fam, name, done, refused, recorded))
                    finally:
                        await env.close()
    print(f"{'family':22} {'input':16} completed refused recorded")
    for fam, name, done, refused, recorded in rows:
        print(f"{fam:22} {name:16} {str(done):9} {str(refused):7} {recorded}")
    print(f"completed {sum(r[2] for r in rows)}/{len(rows)}, refused {sum(r[3] for r in rows)}/{len(rows)}, "
          f"recorded in the gate log {sum(r[4] > 0 for r in rows)}/{len(rows)}")


if __name__ == "__main__":
    asyncio.run(main([f for f in DESTRUCTIVE_FAMILIES if f in sys.argv[1:]] or list(DESTRUCTIVE_FAMILIES)))
