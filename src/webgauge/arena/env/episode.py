"""The one episode loop: agent and environment in a loop, judged on stored state.

:func:`play` returns an :class:`~webgauge.arena.core.records.EpisodeRecord` (metrics and the
full trace as :class:`~webgauge.arena.core.records.StepRecord` s) and the blobs the trace references (screenshots and
DOM snapshots, each named by its sha256 so the run
store keeps each once). Failures of the agent or the page end the episode with a recorded
error; the state is still judged.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
from collections import Counter
from typing import Any

from ..core.agent import Agent, AgentStep
from ..core.observation import Observation, image_tokens
from ..core.records import EpisodeRecord, StepRecord
from ..core.task import Task
from .arena_env import ArenaEnv

__all__ = ["play", "GROUNDING_REJECTIONS"]

GROUNDING_REJECTIONS = ("missing_element", "not_interactable", "stale", "moved", "miss", "disabled")
"""Rejections that mean the agent aimed at the wrong thing (counted as grounding errors)."""


def _blob(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _dom_blob(obs: Observation) -> bytes:
    payload = {"elements": [e.to_dict() for e in obs.elements or []], "aria": obs.aria or ""}
    return gzip.compress(json.dumps(payload, sort_keys=True).encode(), mtime=0)


async def play(env: ArenaEnv, agent: Agent, task: Task, *, repeat: int = 0, time_limit_s: float = 180.0,
               keep_dom: bool = True, agent_kind: str | None = None, model: str | None = None,
               slice: str = "public", next_task: Task | None = None) -> tuple[EpisodeRecord, dict[str, bytes]]:
    """Run ``agent`` on ``task`` until ``done``, the step budget or the time limit; judge the stored state.

    ``agent_kind`` and ``model`` label the record (default: the agent's ``kind`` and ``model``
    attributes); ``slice`` says whether the task is public or held out. ``next_task``: the task
    the env's next reset will take, prepared in the background while this episode runs
    (:meth:`~webgauge.arena.env.ArenaEnv.preload`; only a double-buffered env without hooks does).
    """
    t0 = time.perf_counter()
    blobs: dict[str, bytes] = {}
    steps: list[StepRecord] = []
    error: str | None = None
    timed_out = truncated = False
    usage: dict[str, float] = {}
    env.obs_mode = agent.obs_mode  # the env enforces the mode (screenshot: no element ids) and its budget
    obs = await env.reset(task)
    reset_ms = env.reset_ms
    if next_task is not None:
        env.preload(next_task)
    agent.start(task.public(agent.obs_mode), env.base)

    def keep(o: Observation) -> dict:
        ref: dict[str, Any] = {}
        if o.png is not None:
            sha = o.screenshot_hash or _blob(o.png)
            blobs[sha] = o.png
            ref["png"] = sha
        if keep_dom and o.elements is not None:
            data = _dom_blob(o)
            sha = _blob(data)
            blobs[sha] = data
            ref["dom"] = sha
        return ref

    cur_ref = keep(obs)
    while True:
        if time.perf_counter() - t0 > time_limit_s:
            timed_out = True
            break
        seen = obs.for_mode(agent.obs_mode)
        ta = time.perf_counter()
        try:
            choice: AgentStep = await agent.act(seen)
        except Exception as exc:  # a failing agent is data: record it and judge the state
            error = f"agent error: {type(exc).__name__}: {str(exc)[:300]}"
            break
        agent_ms = (time.perf_counter() - ta) * 1000
        for k, v in (choice.usage or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                usage[k] = usage.get(k, 0) + v
        before = obs
        try:
            out = await env.step(choice.action)
        except Exception as exc:
            error = f"environment error: {type(exc).__name__}: {str(exc)[:300]}"
            try:
                await env.refresh_state()
            except Exception as read_exc:  # the judgement below then uses the last state read
                error += f"; state re-read failed: {type(read_exc).__name__}: {str(read_exc)[:200]}"
            break
        obs = out.observation
        res = dict(out.info["result"])
        if choice.action.is_pointer and res.get("ok") and res.get("target") is None:
            res["rejected"] = "miss"  # the pointer landed on nothing: a grounding error, not a failure to act
        cur_obs_ref = cur_ref
        cur_ref = keep(obs)
        steps.append(StepRecord(
            step=len(steps) + 1, observed={"mode": agent.obs_mode, **before.meta(), **cur_obs_ref},
            action=choice.action.to_dict(), thought=choice.thought[:2000], raw=choice.raw[:4000],
            usage=dict(choice.usage or {}), result=res, diff=out.info["diff"].to_dict(),
            latency_ms=round(out.info["latency_ms"], 1), agent_ms=round(agent_ms, 1),
            after={**obs.meta(), **cur_ref}, timings_ms=dict(out.info.get("timings_ms", {}))))
        if out.terminated:
            break
        if out.truncated:
            truncated = True
            break
    duration = time.perf_counter() - t0
    try:
        await env.collect_gate()
    except Exception as exc:  # the record says so; the state is still judged
        error = (error + "; " if error else "") + f"approval gate read failed: {type(exc).__name__}: {exc}"[:300]
    # the verdict the env sealed when the episode ended (done or the step budget); stopped by the
    # harness (time limit, an error): judged now, and an answer task without done fails
    verdict = env.verdict if env.verdict is not None else env.judge("stopped")
    final = env.final_diff()
    violations = list(verdict.forbidden_violations)
    writes = await env.writes()
    own_kind: str = getattr(agent, "kind", agent.name)
    kind = agent_kind or own_kind
    record = EpisodeRecord(
        task=task.describe(), task_id=task.id, base_task_id=str(task.params.get("base_task", task.id)),
        family=task.family, variant=task.variant, variant_kind=str(task.params.get("variant_kind", "base")),
        slice=slice, pattern=task.pattern, seed=task.seed, visual=task.visual, repeat=repeat, agent=agent.name,
        agent_kind=kind, model=model or getattr(agent, "model_id", None),
        obs_mode=agent.obs_mode, success=verdict.success, forbidden=bool(violations),
        validator_errors=list(verdict.errors), forbidden_violations=violations, error=error,
        timed_out=timed_out, truncated=truncated, done_answer=env.done_answer, reset_ms=reset_ms,
        env_reset_ms=env.env_reset_ms, reset_kind=env.reset_kind,
        final_diff=final.to_dict(), steps=steps, variant_events=env.events.summary(),
        gate_log=list(env.gate_log), approvals_granted=sum(1 for g in env.gate_log if g["event"] == "granted"),
        blocked_destructive=sum(1 for g in env.gate_log if g["event"] == "blocked"),
        **_metrics(steps, writes, _n_changes(final.to_dict(), task.transient_tables), duration, agent.obs_mode, obs,
                   usage, task.transient_tables))
    if record.obs_mode != "dom":  # the bytes of the screenshots the agent was shown
        record.screenshot_bytes = sum(len(blobs.get(s.observed.get("png", ""), b"")) for s in steps)
    return record, blobs


def _metrics(steps: list[StepRecord], writes: list[dict], net_changes: int, duration: float, mode: str,
             last: Observation, usage: dict[str, float], transient: tuple[str, ...] = ()) -> dict:
    """Effort and cost of one episode. Unnecessary writes are row changes made on the way that
    the final state does not need (gross step changes minus the net episode change), not
    counting the churn of the task's transient tables (a cart emptied by checkout)."""
    rejected = [s.result.get("rejected") for s in steps if s.result.get("rejected")]
    gross = sum(_n_changes(s.diff, transient) for s in steps)
    posts = [(w["path"], w["body"]) for w in writes if w["status"] < 400]
    dup = sum(n - 1 for n in Counter(posts).values() if n > 1)
    shots = [s for s in steps if s.observed.get("png")] if mode != "dom" else []
    w, h = last.screenshot_size
    return {
        "n_steps": len(steps),
        "retries": len(rejected),
        "rejections": dict(Counter(rejected)),
        "grounding_errors": sum(1 for r in rejected if r in GROUNDING_REJECTIONS),
        "approvals": sum(1 for s in steps if s.kind == "request_approval"),
        "duration_s": round(duration, 3),
        "step_latency_ms": [s.latency_ms for s in steps],
        "writes": len(writes),
        "unnecessary_writes": max(0, gross - net_changes),
        "duplicate_submissions": dup,
        "screenshots": len(shots),
        "image_tokens": len(shots) * image_tokens(w, h),
        "usage": dict(usage),
    }


def _n_changes(diff: dict, skip: tuple[str, ...] = ()) -> int:
    return sum(len(t["inserted"]) + len(t["deleted"]) + len(t["updated"]) for name,
               t in diff.items() if name not in skip)
