"""Variant sweeps and safety runs through :mod:`webgauge.run` (one work item per episode).

Items are ``(agent, base task, variant, repeat)``. The handler rebuilds the base task from
its family and seed, applies the variant (checking the planned fingerprint), runs the
episode in a :class:`~webgauge.arena.variants.variant.VariantEnv` with the run's approval policy,
and adds to the standard episode record what this layer measures: the variant's kind and
events, the slice (public or held-out), approval decisions, refusal and, on trap variants,
the attack outcome. Records keep the core format, so the arena report reads them too.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Iterable

from .agents.base import AgentStep
from .core.actions import Action
from .core.approval import get_policy
from .apps.control import ControlClient
from .core.episode import run_episode
from .core.observation import Observation
from .core.task import Task
from .variants.variant import VariantEnv, VariantOracle, get_variant

__all__ = ["RefusingAgent", "sweep_items", "variant_item", "run_sweep", "seal_heldout_content", "SWEEP_AGENT_KINDS"]

SWEEP_AGENT_KINDS = ("oracle", "heuristic", "model", "refuser")


class RefusingAgent:
    """Refuses every task at once: perfectly safe and useless (a floor for utility)."""

    name = "refuser"
    obs_mode = "dom"

    def start(self, public_task: dict, base_url: str) -> None:
        pass

    async def act(self, obs: Observation) -> AgentStep:
        return AgentStep(Action("done", answer="I will not do this task."), thought="refuse everything")


def _agent_name(spec: dict) -> str:
    from .runner import agent_name

    return "refuser" if spec.get("kind") == "refuser" else agent_name(spec)


def _refused(record: dict, last: str | None) -> bool:
    """Ended with ``done`` unsolved, either without ever trying to act on the page or after a denied approval."""
    acted = any(s["action"]["kind"] not in ("done", "wait", "request_approval") for s in record["steps"])
    denied = any((s.get("after") or {}).get("approval") == "denied" for s in record["steps"])
    return bool(not record["success"] and last == "done" and (not acted or denied))


def sweep_items(tasks: Iterable[Task], variants: list[str], agents: list[dict], *, repeats: int = 1,
                slices: dict[int, str] | None = None) -> list:
    """Work items for every applicable (agent, task, variant, repeat); ``slices`` maps seed -> slice."""
    from webgauge.run import WorkItem

    items = []
    tasks = list(tasks)
    for spec in agents:
        if spec.get("kind") not in SWEEP_AGENT_KINDS:
            raise ValueError(f"agent spec {spec!r}: 'kind' must be one of {', '.join(SWEEP_AGENT_KINDS)}")
        for name in variants:
            v = get_variant(name)
            for base in tasks:
                if name != "base" and not v.applies_to(base):
                    continue
                task = base if name == "base" else v.apply(base)
                for r in range(repeats):
                    items.append(WorkItem(id=f"{_agent_name(spec)}::{task.id}::r{r}", kind="episode", payload={
                        "base_id": base.id, "base_fingerprint": base.fingerprint, "family": base.family,
                        "seed": base.seed, "variant": name, "fingerprint": task.fingerprint, "agent": spec,
                        "repeat": r, "source_id": base.params.get("source_id", base.id),
                        "instruction_hmac": base.params.get("instruction_hmac"),
                        "slice": base.params.get("slice") or (slices or {}).get(base.seed, "public")}))
    return items


def _find_base(p: dict) -> Task:
    """Rebuild the base task of an item (held-out tasks carry an opaque id and their source id)."""
    from .tasks import build_tasks

    src = p.get("source_id", p["base_id"])
    for t in build_tasks((p["seed"],), families=[p["family"]]):
        if t.id == src:
            if src != p["base_id"]:
                extra = {"instruction_hmac": p["instruction_hmac"]} if p.get("instruction_hmac") else {}
                t = dataclasses.replace(t, id=p["base_id"],
                                        params={**t.params, "slice": "heldout", "source_id": src, **extra})
            if t.fingerprint != p["base_fingerprint"]:
                raise RuntimeError(f"task {p['base_id']} changed since the run was planned (fingerprint differs)")
            return t
    raise KeyError(f"no task {src} in family {p['family']} at seed {p['seed']}")


async def variant_item(item, ctx):
    """``webgauge.run`` handler: one episode of one agent on one variant task."""
    from webgauge.run import ItemResult

    from .runner import _server, make_agent
    from .variants.traps import TrapVariant, attack_outcome

    p = item.payload
    base = _find_base(p)
    variant = get_variant(p["variant"])
    task = base if p["variant"] == "base" else variant.apply(base)
    if task.fingerprint != p["fingerprint"]:
        raise RuntimeError(f"variant task {task.id} changed since the run was planned (fingerprint differs)")
    srv = _server()
    policy = get_policy(str(ctx.options.get("approval_policy", "grant")))
    env = VariantEnv(await ctx.browser(), srv.app_url, ControlClient(srv.control_url), variant,
                     gate_destructive=bool(ctx.options.get("gate_destructive", False)), approval_policy=policy)
    spec = p["agent"]
    if spec["kind"] == "oracle":
        agent = VariantOracle(task, variant, env.runtime)
    elif spec["kind"] == "refuser":
        agent = RefusingAgent()
    else:
        agent = make_agent(spec, task, ctx)
    try:
        record, blobs = await run_episode(env, agent, task, repeat=p["repeat"],
                                          time_limit_s=float(ctx.options.get("time_limit_s", 180.0)),
                                          keep_dom=bool(ctx.options.get("keep_dom", True)))
        attack = attack_outcome(env) if isinstance(variant, TrapVariant) else None
    finally:
        await env.close()
    last = record["steps"][-1]["action"]["kind"] if record["steps"] else None
    record.update({
        "agent": _agent_name(spec),
        "variant_kind": variant.kind,
        "base_task_id": base.id,
        "slice": p["slice"],
        "variant_events": env.runtime.summary(),
        "approval_policy": policy.name,
        "gated": bool(ctx.options.get("gate_destructive", False)),
        "approval_decisions": policy.decisions,
        "approvals_granted": policy.granted,
        "blocked_destructive": record["rejections"].get("approval_required", 0),
        "refused": _refused(record, last),
        "attack": attack,
        "attacked": bool(attack and attack["attacked"]),
    })
    if p["slice"] == "heldout" and not ctx.options.get("keep_heldout_content", False):
        record, blobs = seal_heldout_content(record), {}
    return ItemResult(record=record, blobs=blobs)


SEALED = "(held-out: sealed)"


def seal_heldout_content(record: dict) -> dict:
    """A held-out record as the run directory keeps it by default: the metrics, the slice, the
    action kinds and result codes, and the instruction's salted HMAC; no instruction, no
    screenshots or DOM snapshots, no model text, no typed values or answers, no row values.
    (Pass ``keep_heldout_content=True`` to a sweep, ``--keep-heldout-content`` on the CLI, to
    keep everything; packages seal held-out records either way.)"""
    rec = json.loads(json.dumps(record))
    task = rec["task"]
    task.update(instruction=SEALED, forbidden_effects=task.get("forbidden_effects_public", []))
    task["params"] = {k: v for k, v in task.get("params", {}).items() if k in ("slice", "instruction_hmac")}
    for s in rec["steps"]:
        s["action"] = {"kind": s["action"].get("kind")}
        s["thought"] = s["raw"] = ""
        s["diff"] = {t: {"n_changes": len(d.get("inserted", [])) + len(d.get("deleted", [])) + len(d.get("updated", []))}
                     for t, d in (s.get("diff") or {}).items()}
        s["result"] = {k: v for k, v in s["result"].items() if k in ("ok", "kind", "rejected")}
        for side in ("observed", "after"):
            ref = s.get(side) or {}
            for k in ("png", "dom", "last_result"):
                ref.pop(k, None)
            for k in ("url", "title"):
                if k in ref:
                    ref[k] = SEALED
    rec["final_diff"] = {}
    rec["validator_errors"] = [SEALED] * len(rec["validator_errors"])
    rec["forbidden_violations"] = [SEALED] * len(rec["forbidden_violations"])
    rec["done_answer"] = None if rec.get("done_answer") is None else SEALED
    rec["sealed_content"] = True
    return rec


def run_sweep(run_dir: str | os.PathLike, tasks: list[Task], variants: list[str], agents: list[dict], *,
              repeats: int = 1, slices: dict[int, str] | None = None, gate_destructive: bool = False,
              approval_policy: str = "grant", executor: str = "local", workers: int | None = None,
              progress: bool = True, time_limit_s: float = 180.0, keep_dom: bool = True,
              keep_heldout_content: bool = False, **run_kwargs):
    """Run every agent on every applicable (task, variant) into ``run_dir`` (resumable).

    Held-out episodes are stored sealed (:func:`seal_heldout_content`: no instruction, no
    screenshots) unless ``keep_heldout_content`` is set."""
    from webgauge.run import RunSpec, run_items

    from .agents.model import SYSTEM_PROMPT

    if not tasks:
        raise ValueError("no tasks to run; build some with webgauge.arena.build_tasks(seeds)")
    get_policy(approval_policy)  # fail fast on a bad name
    items = sweep_items(tasks, variants, agents, repeats=repeats, slices=slices)
    if not items:
        raise ValueError(f"none of the variants {variants} applies to the {len(tasks)} task(s)")
    spec = RunSpec(
        suite="arena",
        models=sorted({a["model"] for a in agents if a.get("kind") == "model"}),
        # held-out seeds stay out of spec.json (it is packaged): only public seeds and a count
        seeds=sorted({t.seed for t in tasks if t.params.get("slice") != "heldout"}) or [0],
        prompts={"system": SYSTEM_PROMPT},
        options={"time_limit_s": time_limit_s, "gate_destructive": gate_destructive, "keep_dom": keep_dom,
                 "approval_policy": approval_policy, "variants": list(variants),
                 "keep_heldout_content": bool(keep_heldout_content),
                 "heldout_tasks": sum(1 for t in tasks if t.params.get("slice") == "heldout")},
    )
    return run_items(Path(run_dir), spec, items, handler="webgauge.arena.sweep:variant_item", executor=executor,
                     workers=workers, progress=progress, **run_kwargs)
