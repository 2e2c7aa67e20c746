"""Arena variants bench: what each kind of variant costs the scripted oracle, side by side
with the base tasks, plus package and verify times.

    .venv/bin/python bench/arena_variants_bench.py [--families shop.cancel_order account.rename board.drag]

For each variant (one per kind by default) the oracle solves every task; the bench prints
the median step latency (action to next observation), the median episode time, the median
number of steps, each as a ratio to the base tasks, and the oracle's success. It then
packages a small sweep run and times ``verify``. Medians are over tasks; numbers depend on
the machine's load (printed first).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.env.episode import play
from webgauge.arena.tasks import build_tasks
from webgauge.arena.variants import VariantEnv, get_variant
from webgauge.browser import Browser

DEFAULT_VARIANTS = ("base", "cohort.mobile@2x", "cohort.desktop@3x", "perturb.color", "perturb.text",
                    "perturb.layout", "popup.cookie", "popup.newsletter", "popup.overlay", "slow.load",
                    "late.content", "stale.shift", "trap.ad", "trap.frame")


async def _episode(env: VariantEnv, task) -> tuple[bool, list[float], float, int]:
    t0 = time.perf_counter()
    rec, _ = await play(env, OracleAgent(task, env.variant, env.events), task, keep_dom=False)
    return rec.success, [s.latency_ms for s in rec.steps], time.perf_counter() - t0, rec.n_steps


async def sweep(families: list[str], variants: list[str]) -> dict[str, dict]:
    base_tasks = build_tasks((0,), families=families)
    out: dict[str, dict] = {}
    with ArenaServer() as srv:
        async with Browser.launch(headless_shell=True) as browser:
            for name in variants:
                v = get_variant(name)
                tasks = [t if name == "base" else v.apply(t) for t in base_tasks if name == "base" or v.applies_to(t)]
                env = VariantEnv(browser, srv.app_url, ControlClient(srv.control_url), v)
                res = {"ok": 0, "n": 0, "step_ms": [], "episode_s": [], "steps": []}
                try:
                    for t in tasks:
                        try:
                            ok, lat, dur, steps = await _episode(env, t)
                        except Exception as exc:  # a failed episode is counted, and the bench goes on
                            print(f"  {name} {t.id}: {type(exc).__name__}: {str(exc)[:120]}", flush=True)
                            res["n"] += 1
                            res.setdefault("errors", 0)
                            res["errors"] += 1
                            continue
                        res["ok"] += ok
                        res["n"] += 1
                        res["step_ms"].append(statistics.median(lat))
                        res["episode_s"].append(dur)
                        res["steps"].append(steps)
                finally:
                    await env.close()
                out[name] = res
                print(f"  {name}: {res['ok']}/{res['n']} solved", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", nargs="+", default=["shop.cancel_order", "account.rename", "board.drag"])
    ap.add_argument("--variants", nargs="+", default=list(DEFAULT_VARIANTS))
    ap.add_argument("--no-package", action="store_true", help="Skip the package/verify timing.")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; families: {', '.join(args.families)}")
    res = asyncio.run(sweep(args.families, args.variants))
    b = res["base"]
    bs, be, bn = (statistics.median(b[k]) for k in ("step_ms", "episode_s", "steps"))
    print(f"\n{'variant':20s} {'solved':>7s} {'step ms':>9s} {'x base':>7s} {'episode s':>10s} {'x base':>7s} "
          f"{'steps':>6s} {'x base':>7s}")
    for name, r in res.items():
        if not r["steps"]:
            print(f"{name:20s} {r['ok']:>3d}/{r['n']:<3d} (no episode finished)")
            continue
        s, e, n = (statistics.median(r[k]) for k in ("step_ms", "episode_s", "steps"))
        print(f"{name:20s} {r['ok']:>3d}/{r['n']:<3d} {s:9.0f} {s / bs:7.2f} {e:10.2f} {e / be:7.2f} "
              f"{n:6.0f} {n / bn:7.2f}")
    if args.no_package:
        return
    from webgauge.arena.outputs.package import build_package, verify_package
    from webgauge.arena.runner import run_arena

    with tempfile.TemporaryDirectory(prefix="wg-arena-bench-") as tmp:
        run_dir = Path(tmp) / "run"
        tasks = build_tasks((0,), families=args.families)
        t0 = time.perf_counter()
        run_arena(run_dir, tasks, [{"kind": "oracle"}], variants=["base", "trap.ad"], workers=2, progress=False,
                  gate_destructive=True, approval_policy="scope")
        t1 = time.perf_counter()
        build_package(run_dir, Path(tmp) / "pkg")
        t2 = time.perf_counter()
        v = verify_package(Path(tmp) / "pkg")
        t3 = time.perf_counter()
    print(f"\nsweep of {2 * len(tasks)} oracle episodes through webgauge.run: {t1 - t0:.1f} s "
          f"({2 * len(tasks) / (t1 - t0) * 60:.1f} episodes/min)")
    print(f"package: {t2 - t1:.2f} s; verify ({v['rescored']} re-scored, {v['files']} files, ok={v['ok']}): "
          f"{t3 - t2:.2f} s")


if __name__ == "__main__":
    main()
