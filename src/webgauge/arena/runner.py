"""The one arena runner: agents on (task, variant) pairs through :mod:`webgauge.run`, one work item per episode.

Items are ``(agent, base task, variant, repeat)``; ``"base"`` is just another variant. The
handler rebuilds the base task from its family and seed in the worker (tasks are
deterministic), applies the variant (checking the planned fingerprint), runs the one
episode loop (:func:`~webgauge.arena.env.episode.play`) in an env with the variant's hooks
and the run's approval policy, and stores the typed
:class:`~webgauge.arena.core.records.EpisodeRecord` with its screenshots and DOM snapshots
as blobs (each once, by sha256). On trap variants the record holds the attack outcome.
Re-running resumes; new repeats add items and keep the old ones.

Look-ahead (the local executor's default here): each worker is told the item it runs next, and
its episodes whose variant does not act on the page (the base, viewport cohorts) share one
double-buffered env across items, which prepares the next such episode (its world, start page and
first observation) while the current one runs (:mod:`~webgauge.arena.env.preload`): that reset only
swaps pages. Variants that act on the page (scripts, delays, perturbations, shifts, traps: hooks at
reset) get an env of their own, reset inline, as without look-ahead.
"""

from __future__ import annotations

import atexit
import os
import threading
import warnings
from collections.abc import Iterable
from pathlib import Path

from .agents.heuristic import HeuristicAgent
from .agents.model import MODE_AGENTS, SYSTEM_PROMPT, ModelAgent
from .agents.oracle import OracleAgent
from .agents.random import RandomAgent
from .agents.refuser import RefusingAgent
from .apps.server import ArenaServer
from .core.agent import Agent
from .core.records import EpisodeRecord
from .core.task import Task
from .env import ArenaEnv, EnvOptions
from .env.approval import get_policy
from .env.episode import play
from .env.page_pool import pool_for
from .outputs.sealing import SEALED, SEALED_SEED, seal_error, seal_heldout_content
from .registry import app_of
from .replay import find_base
from .variants.catalogue import get_variant
from .variants.traps import TrapVariant, attack_outcome
from .variants.variant import Variant

__all__ = ["run_arena", "episode_items", "episode_item", "make_agent", "agent_name", "planned", "AGENT_KINDS",
           "seal_heldout_content", "SEALED", "SEALED_SEED"]

AGENT_KINDS = ("oracle", "heuristic", "model", "refuser", "random")

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
    """A stable display name: ``oracle``, ``heuristic``, ``refuser``, ``random`` (``random|screenshot``)
    or ``<model>|<mode agent>``.

    It is a label only: records carry ``agent_kind``, ``model`` and ``obs_mode`` as fields.
    """
    kind = str(spec.get("kind"))
    if kind == "random" and spec.get("obs_mode", "dom") != "dom":
        return f"random|{spec['obs_mode']}"
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


def make_agent(spec: dict, task: Task, ctx=None, *, variant=None, events=None, irreversible=None) -> Agent:
    """An agent from its JSON spec (model agents take their model from ``ctx.model``).

    The oracle on a variant task gets the variant and the env's event record (``env.events``), and
    asks approval before ``irreversible`` (the env's app's declared controls; default: the arena's own).
    The random agent takes ``seed`` and ``obs_mode`` (``dom`` or ``screenshot``) from the spec.
    """
    _check_spec(spec)
    if spec["kind"] == "oracle":
        return OracleAgent(task, variant, events, irreversible=irreversible)
    if spec["kind"] == "random":
        return RandomAgent(int(spec.get("seed") or 0), spec.get("obs_mode", "dom"))
    if spec["kind"] == "heuristic":
        return HeuristicAgent()
    if spec["kind"] == "refuser":
        return RefusingAgent()
    if ctx is not None:
        model = ctx.model(spec["model"], **spec.get("model_options", {}))
    else:
        from webgauge.models import get_model

        model = get_model(spec["model"], **spec.get("model_options", {}))
    agent = ModelAgent(model, spec.get("obs_mode", "screenshot+tree"), name=agent_name(spec),
                       temperature=float(spec.get("temperature", 0.0)), seed=spec.get("seed"))
    agent.model_id = spec["model"]
    return agent


def episode_items(tasks: Iterable[Task], agents: list[dict], *, variants: Iterable[str] = ("base",), repeats: int = 1,
                  slices: dict[int, str] | None = None) -> list:
    """Work items for every applicable (agent, task, variant, repeat); ``slices`` maps seed -> slice."""
    from webgauge.run import WorkItem

    items = []
    tasks = list(tasks)
    for spec in agents:
        _check_spec(spec)
        for name in variants:
            v = get_variant(name)
            for base in tasks:
                if name != "base" and not v.applies_to(base):
                    continue
                task = base if name == "base" else v.apply(base)
                for r in range(repeats):
                    items.append(WorkItem(id=f"{agent_name(spec)}::{task.id}::r{r}", kind="episode", payload={
                        "base_id": base.id, "base_fingerprint": base.fingerprint, "family": base.family,
                        "seed": base.seed, "variant": name, "fingerprint": task.fingerprint, "agent": spec,
                        "repeat": r, "source_id": base.params.get("source_id", base.id),
                        "instruction_hmac": base.params.get("instruction_hmac"),
                        "slice": base.params.get("slice") or (slices or {}).get(base.seed, "public")}))
    return items


def _refused(record: EpisodeRecord) -> bool:
    """Ended with ``done`` unsolved, either without ever trying to act on the page or after a denied approval."""
    last = record.steps[-1].kind if record.steps else None
    acted = any(s.kind not in ("done", "wait", "request_approval") for s in record.steps)
    denied = any(s.after.get("approval") == "denied" for s in record.steps)
    return bool(not record.success and last == "done" and (not acted or denied))


async def episode_item(item, ctx):
    """``webgauge.run`` handler: one episode of one agent on one (task, variant).

    A held-out episode that fails is recorded by the kind of its error only: the message of an
    exception raised inside a held-out world may quote its content."""
    if item.payload.get("slice") != "heldout" or ctx.options.get("keep_heldout_content", False):
        return await _episode_item(item, ctx)
    try:
        return await _episode_item(item, ctx)
    except Exception as exc:
        raise RuntimeError(seal_error(f"held-out episode failed with {type(exc).__name__}")) from None


async def _episode_item(item, ctx):
    from webgauge.run import ItemResult

    p = item.payload
    task, variant = _item_task(p)
    policy = get_policy(str(ctx.options.get("approval_policy", "grant")))
    browser = await ctx.browser()
    env, kept = await _env_for(ctx, browser, p, variant, policy)
    spec = p["agent"]
    agent = make_agent(spec, task, ctx, variant=variant, events=env.events, irreversible=env.irreversible)
    ended = False
    try:
        record, blobs = await play(env, agent, task, repeat=p["repeat"], slice=p["slice"], agent_kind=spec["kind"],
                                   model=spec.get("model"), time_limit_s=float(ctx.options.get("time_limit_s", 180.0)),
                                   keep_dom=bool(ctx.options.get("keep_dom", True)),
                                   next_task=_next_task(ctx) if kept else None)
        attack = attack_outcome(env) if isinstance(variant, TrapVariant) else None
        ended = True
    finally:
        if not kept or not ended:  # an env that failed mid-episode is not handed on
            await _drop_env(ctx) if kept else await env.close()
    record.agent = agent_name(spec)
    record.item_id = item.id
    record.approval_policy = policy.name
    record.gated = bool(ctx.options.get("gate_destructive", False))
    record.approval_decisions = policy.decisions
    record.approvals_granted = policy.granted
    record.refused = _refused(record)
    record.attack = attack
    record.attacked = bool(attack and attack["attacked"])
    out = record.to_json()
    if p["slice"] == "heldout" and not ctx.options.get("keep_heldout_content", False):
        out, blobs = seal_heldout_content(out), {}
    return ItemResult(record=out, blobs=blobs)


_WORKER_ENV = "arena.env"
_CLOSER = "arena.env closer"


async def _env_for(ctx, browser, p: dict, variant, policy) -> tuple[ArenaEnv, bool]:
    """The env of one episode, and whether it is the worker's kept env (look-ahead, a variant that
    does not act on the page): one double-buffered env across such episodes, each preparing the next.
    A real app's episode gets an env of its own on the app this process serves (one live world)."""
    gated = bool(ctx.options.get("gate_destructive", False))
    app = app_of(p["family"])
    if app is not None:
        import asyncio

        from .realapps.live import live_app

        rapp = await asyncio.to_thread(live_app, app)  # (starting its server blocks for a few seconds)
        return rapp.env(browser, options=EnvOptions(gate_destructive=gated),
                        hooks=[variant] if variant.acts_on_page else [], pool=pool_for(browser),
                        approval_policy=policy), False
    srv = _server()
    if variant.acts_on_page or (ctx.next_item is None and _WORKER_ENV not in ctx.state):
        await _drop_env(ctx)  # (a variant that acts on the page: its hooks act on a page of its own)
        return ArenaEnv(browser, srv.app_url, srv.client(), EnvOptions(gate_destructive=gated), hooks=[variant],
                        pool=pool_for(browser), approval_policy=policy), False  # cleared contexts pass on
    key = (id(browser), gated)
    kept = ctx.state.get(_WORKER_ENV)
    if kept is not None and kept[0] != key:  # a relaunched browser
        await _drop_env(ctx)
        kept = None
    if kept is None:
        env = ArenaEnv(browser, srv.app_url, srv.client(), EnvOptions(gate_destructive=gated, double_buffer=True),
                       pool=pool_for(browser), approval_policy=policy)
        ctx.state[_WORKER_ENV] = kept = (key, env)
        if not ctx.state.get(_CLOSER):  # once per worker (a kept env is made again after a variant episode)
            ctx.state[_CLOSER] = True
            ctx.on_close(lambda: _drop_env(ctx))
    env = kept[1]
    env.approval_policy = policy  # this item's own record of decisions
    return env, True


async def _drop_env(ctx) -> None:
    """Close the worker's kept env, if any (a failure to close is a warning: its browser may be gone)."""
    kept = ctx.state.pop(_WORKER_ENV, None)
    if kept is not None:
        try:
            await kept[1].close()
        except Exception as exc:  # noqa: BLE001 - the item's own outcome is what the run records
            warnings.warn(f"closing the worker's arena env failed: {type(exc).__name__}: {exc}", RuntimeWarning,
                          stacklevel=2)


def _item_task(p: dict) -> tuple[Task, Variant]:
    """The task and variant of an episode item's payload ``p``; raises if the task changed since the
    run was planned (its fingerprint differs)."""
    base = find_base(p["family"], p["seed"], p["base_id"], p["base_fingerprint"], p.get("source_id"),
                     p.get("instruction_hmac"))
    variant = get_variant(p["variant"])
    task = base if p["variant"] == "base" else variant.apply(base)
    if task.fingerprint != p["fingerprint"]:
        raise RuntimeError(f"variant task {task.id} changed since the run was planned (fingerprint differs)")
    return task, variant


def _next_task(ctx) -> Task | None:
    """The task of the worker's next item, when its variant does not act on the page (else None: no
    preload), built as the item's handler will build it."""
    nxt = ctx.next_item
    if nxt is None or nxt.kind != "episode" or app_of(nxt.payload["family"]) is not None:
        return None
    try:
        task, variant = _item_task(nxt.payload)
    except Exception:  # noqa: BLE001 - the item itself reports what is wrong with it when it runs
        return None
    return None if variant.acts_on_page else task


def run_arena(run_dir: str | os.PathLike, tasks: list[Task], agents: list[dict], *, variants: Iterable[str] = ("base",),
              repeats: int = 1, slices: dict[int, str] | None = None, gate_destructive: bool = False,
              approval_policy: str = "grant", executor: str = "local", workers: int | None = None,
              progress: bool = True, time_limit_s: float = 180.0, keep_dom: bool = True,
              keep_heldout_content: bool = False, **run_kwargs):
    """Run every agent on every applicable (task, variant) ``repeats`` times into ``run_dir`` (resumable).

    Held-out episodes are stored sealed (:func:`seal_heldout_content`: no instruction, no
    screenshots) unless ``keep_heldout_content`` is set. A run with real-app tasks runs in one
    worker: an installed app is one live world, so its episodes take turns on it."""
    from webgauge.browser.chromium import browser_label
    from webgauge.run import RunSpec, run_items

    if not tasks:
        raise ValueError("no tasks to run; build some with webgauge.arena.build_tasks(seeds)")
    if any(app_of(t.family) is not None for t in tasks):
        workers = 1
    variants = list(variants)
    get_policy(approval_policy)  # fail fast on a bad name
    items = episode_items(tasks, agents, variants=variants, repeats=repeats, slices=slices)
    if not items:
        raise ValueError(f"none of the variants {variants} applies to the {len(tasks)} task(s)")
    # the arena's browser: Chromium's headless shell when installed (webgauge.browser.chromium.HEADLESS_SHELL)
    browser_options = {"headless_shell": True, **(run_kwargs.pop("browser_options", None) or {})}
    spec = RunSpec(
        suite="arena",
        models=sorted({a["model"] for a in agents if a.get("kind") == "model"}),
        # held-out seeds stay out of spec.json (it is packaged): only public seeds and a count
        seeds=sorted({t.seed for t in tasks if t.params.get("slice") != "heldout"}) or [0],
        prompts={"system": SYSTEM_PROMPT},
        options={"time_limit_s": time_limit_s, "gate_destructive": gate_destructive, "keep_dom": keep_dom,
                 "approval_policy": approval_policy, "variants": variants,
                 "keep_heldout_content": bool(keep_heldout_content),
                 "heldout_tasks": sum(1 for t in tasks if t.params.get("slice") == "heldout"),
                 # which binary plays the episodes (browser_options may choose another than the environment's)
                 "browser": browser_label(browser_options.get("executable"),
                                          headless_shell=bool(browser_options["headless_shell"]))},
    )
    _write_plan(Path(run_dir), items)
    run_kwargs.setdefault("look_ahead", True)  # each worker prepares its next episode (module docstring)
    return run_items(Path(run_dir), spec, items, handler="webgauge.arena.runner:episode_item", executor=executor,
                     workers=workers, progress=progress, browser_options=browser_options, **run_kwargs)


PLAN_FILE = "arena-plan.json"
"""``item id -> labels`` (agent, kind, model, task, variant, slice, repeat) of every planned item, so an
item that failed to run is still counted against its agent without parsing its id."""


def _write_plan(run_dir: Path, items: list) -> None:
    import json

    path = run_dir / PLAN_FILE
    plan = json.loads(path.read_text()) if path.exists() else {}
    for it in items:
        p = it.payload
        plan[it.id] = {"agent": agent_name(p["agent"]), "agent_kind": p["agent"]["kind"],
                       "model": p["agent"].get("model"),
                       "task_id": p["base_id"], "variant": p["variant"], "slice": p["slice"], "repeat": p["repeat"]}
    run_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(plan, indent=1, sort_keys=True))
    tmp.replace(path)


def planned(run_dir: str | os.PathLike) -> dict[str, dict]:
    """The labels of every planned item of a run (``{}`` for runs written before plans were kept)."""
    import json

    path = Path(run_dir) / PLAN_FILE
    return json.loads(path.read_text()) if path.exists() else {}
