"""webgauge against BrowserGym, side by side: the same pages, the same actions, the same Chromium.

    python bench/arena_vs_browsergym.py --setup        # once: BrowserGym into bench/.browsergym-venv/
    python bench/arena_vs_browsergym.py [--reps 3] [--clicks 2] [--json out.json]

Measures (medians, ms), each on both sides:
  * click + full observation (screenshot, elements, aria) on shared real page 87, served on
    loopback: webgauge.browser ``LivePage.click`` + ``capture()`` against BrowserGym ``step('click(bid)')``;
  * open page + load + first observation on page 87: a new webgauge context and page, ``goto``
    and ``capture()`` against BrowserGym ``reset()`` (which launches its browsers anew);
  * arena env reset on the shop task's start page: ``ArenaEnv.reset`` (database + context + page
    + first capture, in-process control client as in local runs) against BrowserGym ``reset()``
    on the same app page;
  * arena env step: ``ArenaEnv.step`` clicking the first product's "View" link (aria off and on)
    against BrowserGym clicking the same element;
  * the floor under that step, webgauge side only: the same click as bare Playwright mouse events,
    the new page's load event and one CDP screenshot, with no settle, element table or state read.
    Nothing that returns a screenshot of the page the click opened can be faster; the report sets
    it beside a tenth of BrowserGym's step (what a 10x faster step would have to take).
BrowserGym runs twice: its fastest settings (``slow_mo=0``, ``pre_observation_delay=0``) and its
defaults (the task's ``slow_mo=1000`` ms and a 0.5 s pre-observation delay). Both sides use the
same viewport (1280x800) and the system Chromium; BrowserGym runs in a subprocess with the
bench venv's python (``bench/browsergym_side/driver.py``). The ratio is BrowserGym / webgauge.

Without the venv the BrowserGym half is skipped with a message naming ``--setup``; the
webgauge half still runs. Nothing is installed unless ``--setup`` is given.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from webgauge.arena import Action, ArenaEnv, ArenaServer, EnvOptions, build_tasks
from webgauge.browser import Browser, RenderProfile, chromium_version, find_chromium
from webgauge.pages import load_pages, require_real_pages, serve_pages

HERE = Path(__file__).resolve().parent
VENV = HERE / ".browsergym-venv"
VENV_PY = VENV / "bin" / "python"
DRIVER = HERE / "browsergym_side" / "driver.py"
BROWSERS = VENV / "ms-playwright"  # PLAYWRIGHT_BROWSERS_PATH of the BrowserGym side
BROWSERGYM = "browsergym-core==0.14.3"
PAGE_ID = "87"
ARENA_TASK = "shop.buy_variant.s0"
VIEWPORT = {"width": 1280, "height": 800}
CONFIGS = {"fastest": {"slow_mo": 0, "pre_observation_delay": 0.0}, "defaults": {}}


def system_chromium() -> str:
    """The system Chromium, as webgauge finds it (``shutil.which("chromium")`` first)."""
    return shutil.which("chromium") or find_chromium()


def setup() -> None:
    """Create bench/.browsergym-venv, install browsergym-core (it pins its own Playwright) and
    link its bundled-Chromium path to the system Chromium."""
    if not VENV_PY.exists():
        print(f"creating {VENV} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    print(f"installing {BROWSERGYM} into {VENV} ...", flush=True)
    subprocess.run([str(VENV_PY), "-m", "pip", "install", "-q", BROWSERGYM], check=True)
    out = subprocess.run([str(VENV_PY), str(DRIVER), "--link", system_chromium()], check=True,
                         env=_driver_env(), capture_output=True, text=True).stdout.strip()
    print(f"linked {out} -> system Chromium ({system_chromium()})", flush=True)


def _driver_env() -> dict:
    return dict(os.environ, PLAYWRIGHT_BROWSERS_PATH=str(BROWSERS), PYTHONPATH="")


def med(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


# ---- webgauge side --------------------------------------------------------------------------
async def webgauge_static(browser: Browser, url: str, reps: int, clicks: int) -> tuple[dict, str]:
    """Open + first capture, then click + capture, on page 87. Returns timings and the target's xpath."""
    profile = RenderProfile(width=VIEWPORT["width"], height=VIEWPORT["height"])
    opens, clicks_ms, target = [], [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        page = await browser.new_page(profile)
        await page.goto(url)
        snap = await page.capture()
        opens.append((time.perf_counter() - t0) * 1000)
        try:
            if target is None:  # the first visible link without href: a click that stays on the page
                el = next(e for e in snap.elements if e.tag == "a" and e.visible and e.in_viewport
                          and "href" not in e.attrs)
                target = el.path
            el_id = next(e.id for e in snap.elements if e.path == target)
            for _ in range(clicks):
                t0 = time.perf_counter()
                await page.click(el_id)
                snap = await page.capture()
                clicks_ms.append((time.perf_counter() - t0) * 1000)
                if not (snap.png and snap.elements and snap.aria):
                    raise RuntimeError("webgauge returned an incomplete observation")
        finally:
            await page.close()
    return {"reset_ms": opens, "click_ms": clicks_ms}, target


async def webgauge_arena(browser: Browser, srv: ArenaServer, reps: int, with_aria: bool,
                         double_buffer: bool = True) -> tuple[dict, str]:
    """ArenaEnv reset on the shop start page, then one step clicking the first "View" link."""
    task = next(t for t in build_tasks((0,)) if t.id == ARENA_TASK)
    # in-process control, as in local runs; the step follows its reset at once (no agent think time),
    # so with the double-buffered reset it shares the machine with the last page's background clear
    env = ArenaEnv(browser, srv.app_url, srv.client(), EnvOptions(with_aria=with_aria, double_buffer=double_buffer))
    resets, steps, target = [], [], None
    try:
        for _ in range(reps):
            t0 = time.perf_counter()
            obs = await env.reset(task)
            resets.append((time.perf_counter() - t0) * 1000)
            el = next(e for e in obs.elements if e.role == "link" and e.name == "View" and e.visible)
            target = el.path
            t0 = time.perf_counter()
            out = await env.step(Action("click", element=el.id))
            steps.append((time.perf_counter() - t0) * 1000)
            if not out.info["result"]["ok"] or "/shop/p/" not in out.observation.url:
                raise RuntimeError(f"arena click failed: {out.info['result']} at {out.observation.url}")
    finally:
        await env.close()
    return {"reset_ms": resets, "click_ms": steps}, target


async def bare_floor(browser: Browser, srv: ArenaServer, reps: int) -> dict:
    """The least a navigating step with a screenshot takes here: on the shop start page, mouse
    down/up on the first "View" link (Playwright's mouse, no actionability checks), wait for the
    product page's load event, one CDP screenshot (no settle, no element table, no state read)."""
    from webgauge.browser.cdp import viewport_png

    task = next(t for t in build_tasks((0,)) if t.id == ARENA_TASK)
    ep = srv.client().create(seed=0)
    page = await browser.new_page(RenderProfile(width=VIEWPORT["width"], height=VIEWPORT["height"],
                                                allowed_origins=(srv.app_url,)))
    raw, times = page._page, []
    try:
        cdp = await page.cdp()
        for _ in range(reps * 3):
            await raw.goto(f"{srv.app_url}/e/{ep['id']}{task.start_url}", wait_until="load")
            box = await raw.get_by_role("link", name="View").first.bounding_box()
            await viewport_png(cdp, VIEWPORT["width"], VIEWPORT["height"])  # the start page has painted
            t0 = time.perf_counter()
            async with raw.expect_navigation(wait_until="load"):
                await raw.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            png = await viewport_png(cdp, VIEWPORT["width"], VIEWPORT["height"])
            times.append((time.perf_counter() - t0) * 1000)
            if "/shop/p/" not in raw.url or not png:
                raise RuntimeError(f"the bare click did not open a product page: {raw.url}")
    finally:
        await page.close()
        srv.client().delete(ep["id"])
    return {"click_ms": times}


# ---- BrowserGym side ------------------------------------------------------------------------
def browsergym(targets: list[dict], reps: int, clicks: int) -> dict | None:
    if not VENV_PY.exists():
        print(f"\nBrowserGym half skipped: its venv {VENV.relative_to(HERE.parent)} does not exist. "
              f"Create it once with `python bench/arena_vs_browsergym.py --setup` "
              f"(installs {BROWSERGYM} there; nothing else is touched).", flush=True)
        return None
    plan = {"system_chromium": system_chromium(), "configs": CONFIGS, "targets": targets, "reps": reps,
            "clicks": clicks, "viewport": VIEWPORT}
    proc = subprocess.run([str(VENV_PY), str(DRIVER)], input=json.dumps(plan), env=_driver_env(),
                          capture_output=True, text=True)
    for line in proc.stderr.splitlines():
        if line.startswith("  BrowserGym") or proc.returncode:
            print(line, flush=True)
    if proc.returncode:
        raise SystemExit(f"the BrowserGym driver failed (exit {proc.returncode}); its output is above. "
                         "Re-run `python bench/arena_vs_browsergym.py --setup` if the venv is broken.")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- report ---------------------------------------------------------------------------------
ROWS = (  # label, webgauge key, BrowserGym target, field
    ("click + full observation, static page 87", "static", "static", "click_ms"),
    ("open + load + first observation, page 87", "static", "static", "reset_ms"),
    ("arena env reset (shop start page)", "arena_aria_off", "arena", "reset_ms"),
    ("arena env step: click 'View', aria off", "arena_aria_off", "arena", "click_ms"),
    ("arena env step: click 'View', aria on", "arena_aria_on", "arena", "click_ms"),
    ("floor: bare click 'View' + load + screenshot", "floor", "arena", "click_ms"),
)


def report(wg: dict, bg: dict | None) -> None:
    head = f"{'measure (median ms)':44s}{'webgauge':>10s}"
    for cfg in CONFIGS:
        head += f"{'BrowserGym ' + cfg:>25s}{'ratio':>8s}"
    print("\n" + head)
    for label, wkey, bkey, field in ROWS:
        w = med(wg[wkey][field])
        line = f"{label:44s}{w:10.0f}"
        for cfg in CONFIGS:
            r = bg["results"][f"{cfg}/{bkey}"] if bg else None
            if r is None:
                line += f"{'-':>25s}{'-':>8s}"
                continue
            xs, note = r[field], ""
            if field == "click_ms" and not all(r["click_ok"]):  # time only the clicks that happened
                xs = [x for x, ok in zip(r[field], r["click_ok"], strict=True) if ok]
                note = f" ({r['click_ok'].count(False)}/{len(r['click_ok'])} failed)"
            b = med(xs)
            line += (f"{format(b, '.0f') + note:>25s}{b / w:7.1f}x" if b is not None
                     else f"{'all failed' + note:>25s}{'-':>8s}")
        print(line)
    floor = med(wg["floor"]["click_ms"])
    fastest = bg["results"].get(f"{next(iter(CONFIGS))}/arena") if bg else None
    if fastest and med(fastest["click_ms"]):
        tenth = med(fastest["click_ms"]) / 10
        print(f"a step 10x faster than BrowserGym {next(iter(CONFIGS))} would take {tenth:.0f} ms; the floor above, "
              f"Chromium's own click, load and screenshot with nothing of webgauge's, takes {floor:.0f} ms "
              f"({floor / tenth:.1f}x that)")
    if bg and any(v["errors"] for v in bg["results"].values()):
        first = next(v["errors"][0] for v in bg["results"].values() if v["errors"])
        print("(n/m failed): BrowserGym clicks that raised inside its action: its click timeout is a fixed 500 ms, "
              "which a loaded machine can exceed. The median is over the clicks that happened. "
              f"First error: {first.splitlines()[0]}")


def machine() -> dict:
    la = os.getloadavg()
    return {"cores": os.cpu_count(), "load_avg": [round(x, 1) for x in la], "chromium": chromium_version(),
            "python": platform.python_version(), "platform": platform.platform()}


async def main(args) -> None:
    start = machine()
    print(f"machine: {start['cores']} cores, load average {start['load_avg']} (1/5/15 min), "
          f"{start['chromium']}; reps {args.reps}, clicks per page {args.clicks}, reset {args.reset}", flush=True)
    ref = next((r for r in load_pages(require_real_pages()) if r.id == PAGE_ID), None)
    if ref is None:
        raise SystemExit(f"shared page {PAGE_ID} is missing from {require_real_pages()}")
    wg: dict = {}
    with serve_pages([ref]) as urls, ArenaServer() as srv:
        async with Browser.launch() as browser:
            wg["static"], static_xpath = await webgauge_static(browser, urls[ref.id], args.reps, args.clicks)
            print(f"  webgauge   static  open {med(wg['static']['reset_ms']):7.0f} ms  "
                  f"click {med(wg['static']['click_ms']):7.0f} ms", flush=True)
            for aria in (False, True):
                key = f"arena_aria_{'on' if aria else 'off'}"
                wg[key], arena_xpath = await webgauge_arena(browser, srv, args.reps, aria, args.reset == "double")
                print(f"  webgauge   arena (aria {'on' if aria else 'off'})  reset {med(wg[key]['reset_ms']):7.0f} ms  "
                      f"step {med(wg[key]['click_ms']):7.0f} ms", flush=True)
            wg["floor"] = await bare_floor(browser, srv, args.reps)
            print(f"  floor      bare click + load + screenshot {med(wg['floor']['click_ms']):7.0f} ms", flush=True)
        ep = srv.client().create(seed=0)  # BrowserGym's own episode of the same shop
        task = next(t for t in build_tasks((0,)) if t.id == ARENA_TASK)
        targets = [{"name": "static", "url": urls[ref.id], "xpath": static_xpath},
                   {"name": "arena", "url": f"{srv.app_url}/e/{ep['id']}{task.start_url}", "xpath": arena_xpath,
                    "navigates": True}]
        bg = browsergym(targets, args.reps, args.clicks)
    end = machine()
    report(wg, bg)
    print(f"\nmachine: {end['cores']} cores, {end['chromium']}, {end['platform']}; load average "
          f"{start['load_avg']} at start, {end['load_avg']} at end"
          + (f"; BrowserGym {bg['browsergym_core']} on Playwright {bg['playwright']}" if bg else ""))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": {"start": start, "end": end}, "webgauge": wg,
                                               "browsergym": bg}, indent=1))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setup", action="store_true",
                    help=f"create {VENV.name} under bench/ and install {BROWSERGYM} there, then run")
    ap.add_argument("--reps", type=int, default=3, help="page opens / env resets per measure [3]")
    ap.add_argument("--clicks", type=int, default=2, help="clicks per opened static page [2]")
    ap.add_argument("--reset", choices=["double", "inline"], default="inline",
                    help="webgauge's arena reset: the page cleared inline (the default) or double-buffered")
    ap.add_argument("--json", help="also write all timings to this file")
    a = ap.parse_args()
    if a.setup:
        setup()
    asyncio.run(main(a))
