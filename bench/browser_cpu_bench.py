"""Where a navigation's CPU goes: a bare click with one screenshot against an arena env step,
process by process.

    python bench/browser_cpu_bench.py [--rounds 3] [--reps 30]

Each round launches Chromium's headless shell (as the arena does) and plays, on the arena shop,
``reps`` rounds of two navigations each (the catalogue, then a product page through its first
"View" link), three ways in turn:

- **bare Playwright**: ``goto`` and a mouse click to the load event, one CDP screenshot after each,
  in a plain Playwright context (no request routing, no init scripts);
- **bare webgauge page**: the same on a webgauge page (offline: every request passes its router);
- **env step**: ``ArenaEnv.step`` (a goto, then a click on the link's element id), each with its
  whole observation (settle or capture at once, screenshot, element table, state read, stale checks).

CPU is read from /proc for this process and every process under it (``launch_flags_bench.tree_cpu``:
the Playwright driver, Chromium's browser, GPU and renderer processes; the arena server runs in
this process). Prints medians over rounds of wall time and CPU per navigation, by process, and
each row's ratio to bare Playwright.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from launch_flags_bench import tree_cpu

from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.core.actions import Action
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.tasks import build_tasks
from webgauge.browser import Browser, RenderProfile
from webgauge.browser.cdp import viewport_png

KINDS = ("python", "driver", "browser", "gpu", "renderer", "other")


async def _timed(reps: int, one_round) -> tuple[float, dict[str, float]]:
    """(wall ms, CPU ms by process kind) per navigation over ``reps`` rounds of two navigations."""
    await one_round()
    c0, t0 = tree_cpu(), time.perf_counter()
    for _ in range(reps):
        await one_round()
    wall = (time.perf_counter() - t0) * 1000 / (2 * reps)
    c1 = tree_cpu()
    return wall, {k: (c1.get(k, 0.0) - c0.get(k, 0.0)) * 1000 / (2 * reps) for k in KINDS}


async def _round(srv: ArenaServer, reps: int) -> dict[str, tuple[float, dict[str, float]]]:
    task = next(t for t in build_tasks((0,)) if t.family == "shop.buy_variant")
    out: dict[str, tuple[float, dict[str, float]]] = {}
    async with Browser.launch(headless_shell=True) as browser:
        ep = srv.client().create(seed=0)
        start = f"{srv.app_url}/e/{ep['id']}{task.start_url}"

        async def bare(raw, cdp) -> None:
            await raw.goto(start, wait_until="load")
            await viewport_png(cdp, 1280, 800)
            box = await raw.get_by_role("link", name="View").first.bounding_box()
            async with raw.expect_navigation(wait_until="load"):
                await raw.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            if "/shop/p/" not in raw.url:
                raise RuntimeError(f"the click did not open a product page: {raw.url}")
            await viewport_png(cdp, 1280, 800)

        # a plain Playwright context: nothing of webgauge's on the page (a bench may reach inside)
        ctx = await browser._browser.new_context(viewport={"width": 1280, "height": 800})
        raw = await ctx.new_page()
        cdp = await ctx.new_cdp_session(raw)
        out["bare Playwright"] = await _timed(reps, lambda: bare(raw, cdp))
        await ctx.close()

        page = await browser.new_page(RenderProfile(width=1280, height=800, allowed_origins=(srv.app_url,)))
        page_cdp = await page.cdp()
        out["bare webgauge page"] = await _timed(reps, lambda: bare(page._page, page_cdp))
        await page.close()
        srv.client().delete(ep["id"])

        env = ArenaEnv(browser, srv.app_url, srv.client(), EnvOptions(double_buffer=True))
        await env.reset(task)

        async def env_round() -> None:
            obs = (await env.step(Action("goto", url=task.start_url))).observation
            link = next(e for e in obs.elements if e.role == "link" and e.name.startswith("View") and e.visible)
            obs = (await env.step(Action("click", element=link.id))).observation
            if "/shop/p/" not in obs.url:
                raise RuntimeError(f"the click did not open a product page: {obs.url}")

        out["env step"] = await _timed(reps, env_round)
        await env.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="Browser launches, each timing every row.")
    ap.add_argument("--reps", type=int, default=30, help="Rounds of two navigations per row and launch.")
    args = ap.parse_args()

    async def run() -> list[dict[str, tuple[float, dict[str, float]]]]:
        with ArenaServer() as srv:
            return [await _round(srv, args.reps) for _ in range(args.rounds)]

    runs = asyncio.run(run())
    print(f"per navigation (a goto or a click, to the load event, with its screenshot or observation): medians "
          f"over {args.rounds} launches of {args.reps} x 2 (ms; load average {os.getloadavg()[0]:.1f})")
    print(f"{'':20s}{'wall':>8s}{'CPU':>8s}" + "".join(f"{k:>10s}" for k in KINDS)
          + f"{'wall/bare':>11s}{'CPU/bare':>10s}")
    base = None
    for name in runs[0]:
        wall = statistics.median(r[name][0] for r in runs)
        by = {k: statistics.median(r[name][1][k] for r in runs) for k in KINDS}
        cpu = statistics.median(sum(r[name][1].values()) for r in runs)
        base = base or (wall, cpu)
        print(f"{name:20s}{wall:8.1f}{cpu:8.1f}" + "".join(f"{by[k]:10.1f}" for k in KINDS)
              + f"{wall / base[0]:11.2f}{cpu / base[1]:10.2f}")


if __name__ == "__main__":
    main()
