"""Arena bench: median reset latency, step latency (action to next observation) and episodes
per minute on this machine.

    .venv/bin/python bench/arena_bench.py [--seeds 0 1] [--resets 200] [--concurrency 2]

Prints medians; the database reset is timed inside the server (after a write to one table,
as after an episode: only that table is restored; and after no write), through the control
API over HTTP and through the in-process client; the environment reset adds
the browser context (reused and cleared, or fresh), the start page load and the first capture.
``--speedups on off`` (the default) runs the episodes twice, with and without context reuse,
CDP screenshots and change-watch stale checks, and prints the ratio; it also prints the
machine's load average before and after (the machine may be shared). The step is broken down
into its phases (guard, action, settle, observe, state read) to show where the time goes.
Targets: step <= 150 ms (oracle, aria off), env reset <= 250 ms. The floor row
(as in ``bench/arena_vs_browsergym.py``: a bare Playwright click on the shop's first "View" link,
the product page's load event and one CDP screenshot, nothing of webgauge's) is measured for
each configuration, half before and half after its episodes (``--floors between``: once after each
episode; see ``Floors``), and each env reset median is printed as a ratio to that configuration's
floor (target: reset <= 1.5x the floor). The start-page floor row opens the episodes' own start
pages the same bare way (goto from the app's origin, one screenshot): the least a reset of those
pages costs, since most are heavier than the floor's product page.

    --control http       runs episodes through the HTTP control client (the old path)
    --reset preload inline  (default) what ``webgauge arena run`` does for base episodes (look-ahead:
                         each worker's next episode prepared while the one before it runs,
                         ArenaEnv.preload; the reset is a page swap, and the work moves into the episode
                         before, whose first step and episodes per minute show what it cost), beside the
                         inline reset (no look-ahead: variant episodes, the gymnasium adapter)
    --reset double       double-buffered: the last episode's page cleared in the background, the next
                         opened on another page when reset is called (a reset nothing prepared)
    --pool N             cleared pages each env keeps per render profile (default 2)
    --warm on off        pages opened ahead for the tasks' render profiles (ArenaEnv.prepare; default on)
                         beside resets that open a new context for a profile not seen yet
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.episode import play
from webgauge.arena.env.page_pool import PagePool
from webgauge.arena.tasks import build_tasks
from webgauge.browser import Browser, RenderProfile


def med(xs: list[float]) -> str:
    return f"{statistics.median(xs):8.2f}" if xs else "     n/a"


def iqr(xs: list[float]) -> str:
    """The middle half of ``xs`` (first to third quartile): how widely the measures behind a median spread."""
    if len(xs) < 4:
        return "middle half n/a"
    q1, _, q3 = statistics.quantiles(xs, n=4)
    return f"middle half {q1:.0f}-{q3:.0f}"


def at_once_option(on: bool) -> dict:
    """The env option of captures taken at once (absent in older commits A/B-ed against)."""
    return {"capture_at_once": on} if "capture_at_once" in EnvOptions.__dataclass_fields__ else {}


async def episodes(browser, srv, tasks, concurrency: int, with_aria: bool, control: str = "local",
                   speedups: bool = True, double_buffer: bool = True, at_once: bool = True, pool: int = 2,
                   warm: bool = True, floors_between: bool = False, preload: bool = False):
    queue = list(tasks)
    step_ms: list[float] = []
    env_reset_ms: list[float] = []
    phases: dict[str, list[float]] = {}
    kinds: dict[str, list[float]] = {}  # step latency by action kind (and whether the URL changed)
    solved = 0
    by_context: dict[str, list[float]] = {"reused": [], "new": []}  # env reset ms by the context it ran in
    counts = {"contexts reused": 0, "stale checks by watch": 0, "stale checks by screenshot": 0,
              "moved checks by watch": 0, "moved checks by capture": 0, "observations with capture warnings": 0}

    def make_env() -> ArenaEnv:
        client = srv.client() if control == "local" else ControlClient(srv.control_url)
        return ArenaEnv(browser, srv.app_url, client,
                        EnvOptions(with_aria=with_aria, reuse_context=speedups, fast_screenshots=speedups,
                                   watch_changes=speedups, double_buffer=double_buffer,
                                   **at_once_option(at_once)), pool=PagePool(pool))

    envs = [make_env() for _ in range(concurrency)]
    floors = [Floors(browser, srv) for _ in envs]  # one per worker: its own pages
    if warm and hasattr(ArenaEnv, "prepare"):  # (absent in older commits A/B-ed against)
        for env in envs:  # untimed, as a run warms its pool before its first episode
            counts["pages opened ahead"] = counts.get("pages opened ahead", 0) + await env.prepare(tasks)

    async def worker(env, fl):
        nonlocal solved, floor_s
        try:
            nxt = queue.pop(0) if queue else None
            while nxt is not None:
                t, nxt = nxt, (queue.pop(0) if queue else None)  # the next task is this worker's
                reused = env.contexts_reused
                rec, _ = await play(env, OracleAgent(t), t, keep_dom=False, next_task=nxt if preload else None)
                if floors_between:  # untimed: the floors of this moment, beside this episode
                    t_floor = time.perf_counter()
                    await fl.measure(t)
                    floor_s += time.perf_counter() - t_floor
                env_reset_ms.append(rec.env_reset_ms)
                by_context["reused" if env.contexts_reused > reused else "new"].append(rec.env_reset_ms)
                for k, v in env.reset_timings_ms.items():
                    phases.setdefault("reset " + k, []).append(v)
                step_ms.extend(s.latency_ms for s in rec.steps)
                if rec.steps:  # the step that runs beside a preload of the next episode, if any
                    phases.setdefault("first step of each episode", []).append(rec.steps[0].latency_ms)
                for s in rec.steps:
                    for k, v in s.timings_ms.items():
                        phases.setdefault(k, []).append(v)
                    nav = " (navigates)" if s.after.get("url") != s.observed.get("url") else ""
                    kinds.setdefault(s.kind + nav, []).append(s.latency_ms)
                # observations whose capture was not one settled state (the first one, then each step's)
                shots = rec.steps[:1] and [rec.steps[0].observed] + [s.after for s in rec.steps]
                counts["observations with capture warnings"] += sum(bool(o.get("capture_warnings")) for o in shots)
                solved += rec.success
        finally:
            counts["contexts reused"] += env.contexts_reused
            for k, v in getattr(env, "captures", {}).items():
                counts[f"observations captured {k}"] = counts.get(f"observations captured {k}", 0) + v
            for k, v in (env.preloads.items() if preload else ()):
                counts[f"preloads {k}"] = counts.get(f"preloads {k}", 0) + v
            for k, v in env.stale_checks.items():
                counts[f"stale checks by {k}"] += v
            for k, v in getattr(env, "moved_checks", {}).items():  # (absent in older commits A/B-ed against)
                counts[f"moved checks by {k}"] += v
            await env.close()
            await fl.close()

    floor_s = 0.0  # time spent measuring floors, left out of the episodes' wall time
    t0 = time.perf_counter()
    await asyncio.gather(*(worker(env, fl) for env, fl in zip(envs, floors, strict=True)))
    for k, xs in by_context.items():
        if xs:
            phases[f"reset total, {k} context ({len(xs)} resets)"] = xs
    fl_step = [x for fl in floors for x in fl.step_ms]
    fl_start = [x for fl in floors for x in fl.start_ms]
    wall = time.perf_counter() - t0 - floor_s / max(1, len(envs))
    return wall, step_ms, env_reset_ms, solved, phases, counts, kinds, fl_step, fl_start


class Floors:
    """The two floors, on pages of their own: taken before and after a configuration's episodes
    (``--floors around``, the default: :meth:`around`), or between them, one of each after every
    episode (``--floors between``: :meth:`measure`), so that both see the same minute of a shared
    machine (its floor moved by 10-40 ms from one minute to the next). Between the episodes, the
    floor's pages work while the env's cleared pages wait, and a page that waited while another
    worked loads more slowly (docs/performance.md): the reset pays for that there.

    - step floor: on the shop start page (1280x800), mouse down/up on the first "View" link
      (Playwright's mouse, no actionability checks), the product page's load event, one CDP
      screenshot (no settle, element table or state read);
    - start-page floor: the episode's own start page opened bare: ``goto`` (Playwright, to the load
      event) from the app's origin on a warm page of its viewport (the start page opened once
      before), and one CDP screenshot, with no clearing, settle, element table or state read: what a
      reset of that very page costs at the least (the step floor's product page is lighter than
      most start pages)."""

    def __init__(self, browser, srv) -> None:
        self.browser, self.srv = browser, srv
        self.step_ms: list[float] = []
        self.start_ms: list[float] = []
        self._shop = None  # (page, episode id, start URL) of the step floor
        self._pages: dict = {}  # viewport -> warm page of the start-page floor

    async def measure(self, task) -> None:
        """One step-floor measure and one start-page-floor measure of ``task``'s start page."""
        self.step_ms.append(await self._step())
        self.start_ms.append(await self._start_page(task))

    async def around(self, tasks, reps: int) -> None:
        """``reps`` step-floor measures, and one start-page-floor measure of each of ``tasks``."""
        for _ in range(reps):
            self.step_ms.append(await self._step())
        for t in tasks:
            self.start_ms.append(await self._start_page(t))

    async def _step(self) -> float:
        from webgauge.browser.cdp import viewport_png

        if self._shop is None:
            task = next(t for t in build_tasks((0,)) if t.family == "shop.buy_variant")
            ep = self.srv.client().create(seed=0)
            page = await self.browser.new_page(RenderProfile(width=1280, height=800,
                                                             allowed_origins=(self.srv.app_url,)))
            self._shop = (page, ep["id"], f"{self.srv.app_url}/e/{ep['id']}{task.start_url}")
        page, _, url = self._shop
        raw, cdp = page._page, await page.cdp()
        await raw.goto(url, wait_until="load")
        box = await raw.get_by_role("link", name="View").first.bounding_box()
        await viewport_png(cdp, 1280, 800)  # the start page has painted
        t0 = time.perf_counter()
        async with raw.expect_navigation(wait_until="load"):
            await raw.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        png = await viewport_png(cdp, 1280, 800)
        ms = (time.perf_counter() - t0) * 1000
        if "/shop/p/" not in raw.url or not png:
            raise RuntimeError(f"the bare click did not open a product page: {raw.url}")
        return ms

    async def _start_page(self, task) -> float:
        from webgauge.browser.cdp import viewport_png

        vp = task.viewport
        key = (vp.width, vp.height, vp.device_scale_factor)
        if key not in self._pages:
            self._pages[key] = await self.browser.new_page(RenderProfile(
                width=vp.width, height=vp.height, device_scale_factor=vp.device_scale_factor,
                allowed_origins=(self.srv.app_url,)))
        page = self._pages[key]
        raw, cdp = page._page, await page.cdp()
        ep = self.srv.client().create(seed=task.seed)
        try:
            for _ in range(2):  # the first open warms the cache, as earlier episodes did; the second is kept
                await raw.goto(f"{self.srv.app_url}/e/{ep['id']}/", wait_until="load")  # at the origin
                t0 = time.perf_counter()
                await raw.goto(f"{self.srv.app_url}/e/{ep['id']}{task.start_url}", wait_until="load")
                png = await viewport_png(cdp, vp.width, vp.height)  # (page.cdp() carries the page's device scale)
                ms = (time.perf_counter() - t0) * 1000
                if not png:
                    raise RuntimeError(f"no screenshot of {task.id}'s start page")
        finally:
            self.srv.client().delete(ep["id"])
        return ms

    async def close(self) -> None:
        if self._shop is not None:
            page, eid, _ = self._shop
            await page.close()
            self.srv.client().delete(eid)
        for page in self._pages.values():
            await page.close()


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"
    except OSError:
        return "load average n/a"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--resets", type=int, default=200)
    ap.add_argument("--families", nargs="+", default=None,
                    help="Only these task families (default: all); a shorter run for A/B comparisons.")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--aria", choices=["off", "on"], nargs="+", default=["off", "on"],
                    help="Capture the aria snapshot on every step (off: element table and screenshot only).")
    ap.add_argument("--control", choices=["local", "http"], default="local",
                    help="In-process control client (default) or the HTTP one.")
    ap.add_argument("--speedups", choices=["on", "off"], nargs="+", default=["on", "off"],
                    help="on: context reuse, CDP screenshots, change-watch stale checks; off: a fresh context "
                         "per episode, Playwright screenshots, a screenshot per stale check (side by side).")
    ap.add_argument("--reset", choices=["double", "inline", "preload"], nargs="+", default=["preload", "inline"],
                    help="preload: double, and the next episode prepared while this one runs (ArenaEnv.preload, "
                         "as webgauge arena run does); inline: the last episode's page is cleared before reset "
                         "returns; double: cleared in the background while the next runs on another. Several: "
                         "side by side (default: preload inline).")
    ap.add_argument("--at-once", choices=["on", "off"], nargs="+", default=["on"],
                    help="on: a still page's observation is captured without waiting for a frame, kept when "
                         "nothing changed up to the end of the quiet period (the default); off: settled first. "
                         "Both: side by side.")
    ap.add_argument("--floors", choices=["around", "between"], default="around",
                    help="around: the floors are measured before and after each configuration's episodes (the "
                         "default); between: one of each after every episode (the same minute of a shared "
                         "machine, but the floor's pages work while the env's cleared pages wait).")
    ap.add_argument("--floor-reps", type=int, default=30,
                    help="Step-floor measures with --floors around (half before, half after the episodes).")
    ap.add_argument("--browser", choices=["shell", "full"], default="shell",
                    help="shell: Chromium's headless shell, as the arena runs (default); full: the full browser.")
    ap.add_argument("--pool", type=int, default=2,
                    help="Cleared pages each env keeps per render profile (the env's default: 2).")
    ap.add_argument("--warm", choices=["on", "off"], nargs="+", default=["on"],
                    help="on: each env opens its pool's pages for the tasks' render profiles before the timed "
                         "episodes (ArenaEnv.prepare, as a run does); off: a reset of a profile not seen yet "
                         "opens a new browser context. Both: side by side.")
    ap.add_argument("--by-kind", action="store_true",
                    help="Also print the step median per action kind (navigating steps apart).")
    args = ap.parse_args()
    tasks = build_tasks(tuple(args.seeds), families=args.families)
    print(load(), flush=True)
    with ArenaServer() as srv:
        ctl = ControlClient(srv.control_url)
        ep = ctl.create(seed=0)
        server_ms, http_ms, local_ms = [], [], []
        local = srv.client()
        db = srv.episode(ep["id"]).db
        state_ms = []
        for i in range(args.resets):
            def write(c, i=i):
                return c.execute("UPDATE meta_clock SET now=?", (f"2030-01-01T00:00:{i % 60:02d}Z",))

            db.run(write)  # one table written, as an episode writes a few
            t0 = time.perf_counter()
            r = ctl.reset(ep["id"])
            http_ms.append((time.perf_counter() - t0) * 1000)
            server_ms.append(r["ms"])
            t0 = time.perf_counter()
            local.reset(ep["id"])  # nothing written since: nothing to restore
            local_ms.append((time.perf_counter() - t0) * 1000)
            db.run(write)
            t0 = time.perf_counter()
            local.state(ep["id"])
            state_ms.append((time.perf_counter() - t0) * 1000)
            local.reset(ep["id"])
        ctl.delete(ep["id"])
        print(f"{'metric':52s}  median", flush=True)
        if hasattr(srv.templates, "seed"):  # (a checkout before change tracking has no per-table seed)
            tables = srv.templates.seed(0).tables
            print(f"seed 0 holds {sum(len(t.rows) for t in tables.values())} rows in {len(tables)} tables", flush=True)
        print(f"{'database reset, one table written, in the server (ms)':52s}{med(server_ms)}", flush=True)
        print(f"{'state read after a write, in-process client (ms)':52s}{med(state_ms)}", flush=True)
        print(f"{'database reset via control API, HTTP round trip (ms)':52s}{med(http_ms)}", flush=True)
        print(f"{'database reset, nothing written, in-process (ms)':52s}{med(local_ms)}", flush=True)
        medians: dict = {}
        by_reset: dict = {}
        by_at_once: dict = {}
        floors: dict = {}  # the floors measured around (or between) each configuration's own episodes
        async with Browser.launch(headless_shell=args.browser == "shell") as browser:
            print(f"browser: {browser.executable}", flush=True)
            for aria, c, sp, rs, ao, wm in ((a == "on", c, s == "on", r, o, w) for a in args.aria
                                            for c in args.concurrency for s in args.speedups for r in args.reset
                                            for o in args.at_once for w in args.warm):
                    around = Floors(browser, srv) if args.floors == "around" else None
                    if around is not None:  # half the step floor's measures before the episodes
                        await around.around([], args.floor_reps - args.floor_reps // 2)
                    wall, steps, resets, solved, phases, counts, kinds, fl_step, fl_start = await episodes(
                        browser, srv, tasks, c, aria, args.control, sp, rs in ("double", "preload"), ao == "on",
                        args.pool, wm == "on", floors_between=around is None, preload=rs == "preload")
                    if around is not None:  # the other half, and each start page, after them
                        await around.around(tasks, args.floor_reps // 2)
                        fl_step, fl_start = around.step_ms, around.start_ms
                        await around.close()
                    when = "one after each episode" if around is None else "before and after the episodes"
                    tag = (f"concurrency {c}, aria {'on' if aria else 'off'}, {args.control}, "
                           f"speedups {'on' if sp else 'off'}, reset {rs}")
                    if len(args.warm) > 1:
                        tag += f", warm {wm}"
                        rs = f"{rs}, warm {wm}"
                    if len(args.at_once) > 1:
                        tag += f", at once {ao}"
                        by_at_once.setdefault((aria, c, sp, rs), {})[ao] = (statistics.median(resets),
                                                                            statistics.median(steps))
                        rs = f"{rs}, at once {ao}"
                    medians.setdefault((aria, c, rs), {})[sp] = (statistics.median(resets), statistics.median(steps))
                    floors.setdefault((aria, c, rs), {})[sp] = (statistics.median(fl_step), statistics.median(fl_start))
                    by_reset.setdefault((aria, c, sp), {})[rs] = medians[(aria, c, rs)][sp]
                    print(f"{'env reset: db + context + page + capture (ms), ' + tag:52s}{med(resets)}   "
                          f"({iqr(resets)})", flush=True)
                    print(f"{'step: action to next observation (ms), ' + tag:52s}{med(steps)}", flush=True)
                    for name, xs in phases.items():
                        label = (f"  {name} (ms)" if name.startswith(("reset ", "first step"))
                                 else f"  step phase {name} (ms)")
                        print(f"{label:52s}{med(xs)}", flush=True)
                    print(f"{'episodes per minute (oracle), ' + tag:52s}{len(tasks) / wall * 60:8.2f}"
                          f"   ({solved}/{len(tasks)} solved, {len(steps)} steps, {wall:.0f} s)", flush=True)
                    print("  " + ", ".join(f"{k}: {v}" for k, v in counts.items()), flush=True)
                    print(f"{'floor: bare click + load + one screenshot (ms), ' + tag:52s}{med(fl_step)}   "
                          f"({len(fl_step)} measures, {when}; {iqr(fl_step)})", flush=True)
                    print(f"{'start-page floor: bare goto + one screenshot (ms), ' + tag:52s}{med(fl_start)}   "
                          f"({len(fl_start)} start pages, {when}; {iqr(fl_start)})", flush=True)
                    if args.by_kind:
                        for k, xs in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
                            print(f"{'  step ' + k + f' ({len(xs)} steps) (ms)':52s}{med(xs)}", flush=True)
        print(load(), flush=True)
        for (aria, c, rs), m in medians.items():
            for sp, (r, st) in m.items():
                fl, sfl = floors[(aria, c, rs)][sp]
                print(f"env reset / floor (aria {'on' if aria else 'off'}, concurrency {c}, speedups "
                      f"{'on' if sp else 'off'}, reset {rs}): {r:.0f} / {fl:.0f} ms = {r / fl:.2f}x; "
                      f"step / floor {st / fl:.2f}x; env reset / start-page floor {r / sfl:.2f}x", flush=True)
        for (aria, c, _sp), m in by_reset.items():
            if "double" in m and "inline" in m:
                (r_d, s_d), (r_i, s_i) = m["double"], m["inline"]
                print(f"reset double-buffered vs inline (aria {'on' if aria else 'off'}, concurrency {c}): env reset "
                      f"{r_i:.0f} -> {r_d:.0f} ms ({r_i / r_d:.2f}x), step {s_i:.0f} -> {s_d:.0f} ms", flush=True)
        for (aria, c, _sp), m in by_reset.items():
            if "double" in m and "preload" in m:
                (r_d, s_d), (r_p, s_p) = m["double"], m["preload"]
                print(f"reset preloaded vs double-buffered (aria {'on' if aria else 'off'}, concurrency {c}): env "
                      f"reset {r_d:.0f} -> {r_p:.0f} ms, step {s_d:.0f} -> {s_p:.0f} ms", flush=True)
        for (aria, c, sp, rs), m in by_at_once.items():
            if "on" in m and "off" in m:
                (r_on, s_on), (r_off, s_off) = m["on"], m["off"]
                print(f"capture at once on vs off (aria {'on' if aria else 'off'}, concurrency {c}, speedups "
                      f"{'on' if sp else 'off'}, reset {rs}): env reset {r_off:.0f} -> {r_on:.0f} ms "
                      f"({r_off / r_on:.2f}x), step {s_off:.0f} -> {s_on:.0f} ms ({s_off / s_on:.2f}x)", flush=True)
        for (aria, c, rs), m in medians.items():
            if True in m and False in m:
                (r_on, s_on), (r_off, s_off) = m[True], m[False]
                print(f"speedups on vs off (aria {'on' if aria else 'off'}, concurrency {c}, reset {rs}): env reset "
                      f"{r_off:.0f} -> {r_on:.0f} ms ({r_off / r_on:.2f}x), step {s_off:.0f} -> {s_on:.0f} ms "
                      f"({s_off / s_on:.2f}x)", flush=True)


if __name__ == "__main__":
    asyncio.run(main())  # prints as it goes (flush) so a long bench can be watched
