"""Two arena browsers side by side, paired episode by episode: Chromium's RenderDocument on and off.

    python bench/arena_paired_bench.py                   # seeds 0 and 1: 116 oracle episodes each way
    python bench/arena_paired_bench.py --seeds 0 --families shop.cheapest wiki.lookup

A shared 2-core machine drifts by 10-40% from one minute to the next, so two bench runs one after the
other can disagree on which setting is faster. Here each task's oracle episode is played once in each
browser in turn (which one goes first alternates), each browser with its own double-buffered env and
warm page pool, and the gain is the median of the per-episode differences. CPU is read from /proc for
each browser's process tree (its driver, browser, GPU and renderer processes). Prints the reset and
step medians of each setting, the paired reset gain and the episodes' wall and CPU time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.episode import play
from webgauge.arena.env.page_pool import PagePool
from webgauge.arena.tasks import build_tasks
from webgauge.browser import Browser

TCK = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and all its descendants, those that ended included."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in f[11:15]) / TCK  # its own and its reaped children's
        todo += _children(p)
    return total


def driver_pids() -> set[int]:
    """The Playwright drivers this process runs (each browser has its own)."""
    return {p for p in _children(os.getpid()) if b"playwright" in Path(f"/proc/{p}/cmdline").read_bytes()}


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--families", nargs="+", default=None)
    args = ap.parse_args()
    tasks = build_tasks(tuple(args.seeds), families=args.families)
    settings = ("on", "off")
    res = {s: {"reset": [], "step": [], "wall": 0.0, "cpu": 0.0} for s in settings}
    with ArenaServer() as srv:
        envs, drivers = {}, {}
        for s in settings:
            before = driver_pids()
            browser = await Browser.launch(headless_shell=True, render_document=s == "on").start()
            [drivers[s]] = driver_pids() - before
            envs[s] = ArenaEnv(browser, srv.app_url, srv.client(), EnvOptions(double_buffer=True), pool=PagePool(2))
            await envs[s].prepare(tasks)
        print(f"{len(tasks)} tasks, each played with RenderDocument on and off in turn "
              f"({envs['on'].browser.executable})", flush=True)
        try:
            for i, task in enumerate(tasks):
                for s in settings if i % 2 == 0 else settings[::-1]:
                    c0, t0 = tree_cpu(drivers[s]), time.perf_counter()
                    rec, _ = await play(envs[s], OracleAgent(task), task, keep_dom=False)
                    res[s]["wall"] += time.perf_counter() - t0
                    res[s]["cpu"] += tree_cpu(drivers[s]) - c0
                    if not rec.success:
                        raise SystemExit(f"the oracle failed {task.id} with RenderDocument {s}: {rec.validator_errors}")
                    res[s]["reset"].append(rec.env_reset_ms)
                    res[s]["step"].extend(x.latency_ms for x in rec.steps)
        finally:
            for env in envs.values():
                await env.close()
                await env.browser.close()
    print(f"{'RenderDocument':16s}{'reset (ms)':>12s}{'step (ms)':>12s}{'episodes (s)':>14s}{'browser CPU (s)':>17s}")
    for s in settings:
        r = res[s]
        print(f"{s:16s}{statistics.median(r['reset']):12.1f}{statistics.median(r['step']):12.1f}"
              f"{r['wall']:14.1f}{r['cpu']:17.1f}")
    gain = statistics.median(a - b for a, b in zip(res["on"]["reset"], res["off"]["reset"], strict=True))
    on, off = res["on"], res["off"]
    print(f"paired reset gain of off: {gain:.1f} ms (median of {len(tasks)} pairs); on/off: episodes "
          f"{on['wall'] / off['wall']:.2f}x, browser CPU {on['cpu'] / off['cpu']:.2f}x; "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    asyncio.run(main())
