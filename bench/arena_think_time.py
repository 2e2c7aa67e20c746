"""Does the time an agent takes to think cost it steps? The pointer-only oracle (screenshot mode)
plays every family, waiting ``--think`` seconds before each step as a model would, and the bench
counts the steps the env rejected (a page that changed on its own after its screenshot makes the
next pointer action ``stale``). With no page changing by a timer, the count is 0 at every think
time; a rejected step is a step lost in screenshot mode only.

    .venv/bin/python bench/arena_think_time.py [--think 0 3] [--seeds 0] [--workers 4]

Prints, per think time, the families solved, the steps played and the rejected steps, and every
rejected step (family, step, reason). The workers mostly wait, so four share two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import time


class Thinking:
    """``inner`` (an agent), waiting ``secs`` before each step."""

    def __init__(self, inner, secs: float) -> None:
        self.inner, self.secs = inner, secs
        self.name, self.kind, self.obs_mode = inner.name, inner.kind, inner.obs_mode

    def start(self, public_task: dict, base_url: str) -> None:
        self.inner.start(public_task, base_url)

    async def act(self, obs):
        await asyncio.sleep(self.secs)
        return await self.inner.act(obs)


async def play_all(seeds: list[int], think: float, workers: int) -> tuple[int, int, int, list]:
    from webgauge.arena.agents.pointer_oracle import PointerOracle
    from webgauge.arena.apps.server import ArenaServer
    from webgauge.arena.env import ArenaEnv
    from webgauge.arena.env.episode import play
    from webgauge.arena.env.page_pool import PagePool
    from webgauge.arena.tasks import build_tasks
    from webgauge.browser import Browser

    tasks = build_tasks(tuple(seeds))
    queue = list(tasks)
    solved, steps, rejected = 0, 0, []
    async with Browser.launch(headless_shell=True) as browser:
        with ArenaServer() as srv:
            pool = PagePool()

            async def worker() -> None:
                nonlocal solved, steps
                env = ArenaEnv(browser, srv.app_url, srv.client(), pool=pool)
                try:
                    while queue:
                        t = queue.pop(0)
                        rec, _ = await play(env, Thinking(PointerOracle(t, env), think), t, keep_dom=False)
                        solved += rec.success
                        steps += len(rec.steps)
                        rejected.extend((t.family, s.step, s.result["rejected"], (s.result.get("error") or "")[:120])
                                        for s in rec.steps if s.result.get("rejected"))
                finally:
                    await env.close()

            await asyncio.gather(*(worker() for _ in range(workers)))
            await pool.close()
    return len(tasks), solved, steps, rejected


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--think", type=float, nargs="+", default=[0.0, 3.0], help="seconds before each step")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args()
    rows = []
    for think in args.think:
        t0 = time.perf_counter()
        n, solved, steps, rejected = asyncio.run(play_all(args.seeds, think, args.workers))
        rows.append((think, n, solved, steps, rejected, time.perf_counter() - t0))
    print(f"{'think (s)':>9} {'tasks':>6} {'solved':>7} {'steps':>6} {'rejected':>9} {'wall (s)':>9}")
    for think, n, solved, steps, rejected, wall in rows:
        print(f"{think:9.1f} {n:6d} {solved:7d} {steps:6d} {len(rejected):9d} {wall:9.0f}")
    for think, *_, rejected, _ in rows:
        for family, step, reason, error in rejected:
            print(f"  think {think:.1f} s: {family} step {step}: {reason}: {error}")
        by = collections.Counter(r[2] for r in rejected)
        if by:
            print(f"  think {think:.1f} s, rejected by reason: {dict(by)}")


if __name__ == "__main__":
    main()
