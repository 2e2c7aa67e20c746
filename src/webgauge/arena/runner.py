"""Running agents on tasks through :mod:`webgauge.run`: one work item per episode.

Items are ``(agent, task, repeat)``; the handler rebuilds the task from its family and seed
in the worker (tasks are deterministic), starts one :class:`ArenaServer` per worker
process, and stores the episode record with its screenshots and DOM snapshots as blobs
(each once, by sha256). Re-running resumes; new repeats add items and keep the old ones.
"""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path
from typing import Iterable

from .agents.base import Agent
from .agents.heuristic import HeuristicAgent
from .agents.model import MODE_AGENTS, SYSTEM_PROMPT, ModelAgent
from .agents.oracle import OracleAgent
from .apps.control import ControlClient
from .core.env import ArenaEnv
from .core.episode import run_episode
from .tasks import build_tasks
from .apps.server import ArenaServer
from .core.task import Task

__all__ = ["run_arena", "episode_item", "make_agent", "agent_name", "episode_items", "AGENT_KINDS"]

AGENT_KINDS = ("oracle", "heuristic", "model")

_SERVER: ArenaServer | None = None
_LOCK = threading.Lock()


def _server() -> ArenaServer:
    """This process's arena server (started on first use, closed at exit)."""
    global _SERVER
    with _LOCK:
        if _SERVER is None:
            _SERVER = ArenaServer().start()
            atexit.register(_SERVER.close)
        return _SERVER


def agent_name(spec: dict) -> str:
    """A stable display name: ``oracle``, ``heuristic`` or ``<model>/<mode>``."""
    kind = spec.get("kind")
    if kind == "model":
        mode = spec.get("obs_mode", "screenshot+tree")
        return spec.get("name") or f"{spec['model']}|{MODE_AGENTS.get(mode, mode)}"
    return kind


def _check_spec(spec: dict) -> None:
    if spec.get("kind") not in AGENT_KINDS:
        raise ValueError(f"agent spec {spec!r}: 'kind' must be one of {', '.join(AGENT_KINDS)}")
    if spec["kind"] == "model" and not spec.get("model"):
        raise ValueError("a model agent needs 'model', e.g. {'kind': 'model', 'model': 'openai:gpt-4o-mini', "
                         "'obs_mode': 'screenshot+tree'}")


def make_agent(spec: dict, task: Task, ctx=None) -> Agent:
    """An agent from its JSON spec (model agents take their model from ``ctx.model``)."""
    _check_spec(spec)
    if spec["kind"] == "oracle":
        return OracleAgent(task)
    if spec["kind"] == "heuristic":
        return HeuristicAgent()
    if ctx is not None:
        model = ctx.model(spec["model"], **spec.get("model_options", {}))
    else:
        from webgauge.models import get_model

        model = get_model(spec["model"], **spec.get("model_options", {}))
    return ModelAgent(model, spec.get("obs_mode", "screenshot+tree"), name=agent_name(spec),
                      temperature=float(spec.get("temperature", 0.0)), seed=spec.get("seed"))


def episode_items(tasks: Iterable[Task], agents: list[dict], repeats: int = 1) -> list:
    from webgauge.run import WorkItem

    items = []
    for spec in agents:
        _check_spec(spec)
        for task in tasks:
            for r in range(repeats):
                items.append(WorkItem(id=f"{agent_name(spec)}::{task.id}::r{r}", kind="episode", payload={
                    "task_id": task.id, "family": task.family, "seed": task.seed, "fingerprint": task.fingerprint,
                    "agent": spec, "repeat": r}))
    return items


def _find_task(family: str, seed: int, task_id: str, fingerprint: str) -> Task:
    for t in build_tasks((seed,), families=[family]):
        if t.id == task_id:
            if t.fingerprint != fingerprint:
                raise RuntimeError(f"task {task_id} changed since the run was planned (fingerprint differs)")
            return t
    raise KeyError(f"no task {task_id} in family {family} at seed {seed}")


async def episode_item(item, ctx):
    """``webgauge.run`` handler: one episode of one agent on one task."""
    from webgauge.run import ItemResult

    p = item.payload
    task = _find_task(p["family"], p["seed"], p["task_id"], p["fingerprint"])
    srv = _server()
    browser = await ctx.browser()
    env = ArenaEnv(browser, srv.app_url, ControlClient(srv.control_url),
                   gate_destructive=bool(ctx.options.get("gate_destructive", False)))
    agent = make_agent(p["agent"], task, ctx)
    try:
        record, blobs = await run_episode(env, agent, task, repeat=p["repeat"],
                                          time_limit_s=float(ctx.options.get("time_limit_s", 180.0)),
                                          keep_dom=bool(ctx.options.get("keep_dom", True)))
    finally:
        await env.close()
    record["agent"] = agent_name(p["agent"])
    return ItemResult(record=record, blobs=blobs)


def run_arena(run_dir: str | os.PathLike, tasks: list[Task], agents: list[dict], *, repeats: int = 1,
              executor: str = "local", workers: int | None = None, progress: bool = True,
              time_limit_s: float = 180.0, gate_destructive: bool = False, keep_dom: bool = True, **run_kwargs):
    """Run every agent on every task ``repeats`` times into ``run_dir`` (resumable)."""
    from webgauge.run import RunSpec, run_items

    if not tasks:
        raise ValueError("no tasks to run; build some with webgauge.arena.build_tasks(seeds)")
    spec = RunSpec(
        suite="arena",
        models=sorted({a["model"] for a in agents if a.get("kind") == "model"}),
        seeds=sorted({t.seed for t in tasks}),
        prompts={"system": SYSTEM_PROMPT},
        options={"time_limit_s": time_limit_s, "gate_destructive": gate_destructive, "keep_dom": keep_dom},
    )
    return run_items(Path(run_dir), spec, episode_items(tasks, agents, repeats), handler="webgauge.arena.runner:episode_item",
                     executor=executor, workers=workers, progress=progress, **run_kwargs)
