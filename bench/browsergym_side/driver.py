"""The BrowserGym half of bench/arena_vs_browsergym.py, run with the bench's own venv python.

    bench/.browsergym-venv/bin/python bench/browsergym_side/driver.py --link
    bench/.browsergym-venv/bin/python bench/browsergym_side/driver.py < plan.json > timings.json

``--link`` points the Chromium path BrowserGym's Playwright expects (under
``$PLAYWRIGHT_BROWSERS_PATH``, inside the bench's venv folder) at the flag launcher, which
runs the system Chromium with webgauge's flags. Without ``--link`` it reads a plan (JSON on
stdin: targets, configs, reps, clicks) and writes the timings as one JSON object on stdout.

BrowserEnv launches two browsers per reset: the page browser (``pw_chromium_kwargs`` carries
``executable_path``; its ``args`` are fixed by BrowserEnv, so the flags come from the
launcher) and the chat window's browser, which Playwright starts from its bundled path (the
link). Both therefore run the same system binary with the same flags.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

LAUNCHER = Path(sys.prefix) / "chromium-webgauge-flags"
#: the flags webgauge.browser passes (see webgauge.browser.chromium.LAUNCH_FLAGS, first six)
FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run")


def bundled_chromium_path() -> Path:
    """Where this venv's Playwright looks for its bundled Chromium (under PLAYWRIGHT_BROWSERS_PATH)."""
    import playwright
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if not root:
        raise SystemExit("PLAYWRIGHT_BROWSERS_PATH is not set: run this through bench/arena_vs_browsergym.py")
    browsers = json.loads((Path(playwright.__file__).parent / "driver/package/browsers.json").read_text())
    rev = next(b["revision"] for b in browsers["browsers"] if b["name"] == "chromium")
    return Path(root) / f"chromium-{rev}" / "chrome-linux" / "chrome"


def link(system_chromium: str) -> Path:
    """Write the flag launcher and link the bundled Chromium path to it (idempotent)."""
    LAUNCHER.write_text("#!/bin/sh\n# system Chromium with webgauge's launch flags (written by the bench)\n"
                        f"exec {system_chromium} {' '.join(FLAGS)} \"$@\"\n")
    LAUNCHER.chmod(0o755)
    target = bundled_chromium_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.exists():
        target.unlink()
    target.symlink_to(LAUNCHER)
    return target


def run(plan: dict) -> dict:
    from importlib.metadata import version

    from browsergym.core import _get_global_playwright
    from browsergym.core.env import BrowserEnv
    from browsergym.core.task import OpenEndedTask

    link(plan["system_chromium"])
    _get_global_playwright()  # start Playwright's driver before timing (webgauge's side is started too)
    out = {"browsergym_core": version("browsergym-core"), "playwright": version("playwright"), "results": {}}
    for cfg_name, cfg in plan["configs"].items():
        for tgt in plan["targets"]:
            env = BrowserEnv(task_entrypoint=OpenEndedTask, task_kwargs={"start_url": tgt["url"]},
                             viewport=plan["viewport"], headless=True,
                             pw_chromium_kwargs={"executable_path": str(LAUNCHER)}, **cfg)
            resets, clicks, click_ok, errors = [], [], [], []
            try:
                for rep in range(plan["reps"]):
                    t0 = time.perf_counter()
                    obs, _ = env.reset(seed=rep)
                    resets.append((time.perf_counter() - t0) * 1000)
                    _check_obs(obs, tgt["url"])
                    bid = env.page.locator("xpath=" + tgt["xpath"]).get_attribute("bid", timeout=5000)
                    for _ in range(plan["clicks"]):
                        t0 = time.perf_counter()
                        obs, *_ = env.step(f'click("{bid}")')
                        clicks.append((time.perf_counter() - t0) * 1000)
                        click_ok.append(not obs["last_action_error"])
                        if obs["last_action_error"]:
                            errors.append(obs["last_action_error"][:300])
                        _check_obs(obs, None)
                        if tgt.get("navigates"):
                            break  # the click left the page: reset before the next one
            finally:
                env.close()
            out["results"][f"{cfg_name}/{tgt['name']}"] = {"reset_ms": resets, "click_ms": clicks, "click_ok": click_ok,
                                                       "errors": errors}
            print(f"  BrowserGym {cfg_name:8s} {tgt['name']:7s} reset {statistics.median(resets):7.0f} ms  "
                  f"click {statistics.median(clicks):7.0f} ms", file=sys.stderr, flush=True)
    return out


def _check_obs(obs: dict, url: str | None) -> None:
    """The observation is full (screenshot, DOM, accessibility tree) and on the expected page."""
    if obs["screenshot"] is None or obs["screenshot"].size == 0 or not obs["axtree_object"] or not obs["dom_object"]:
        raise RuntimeError("BrowserGym returned an incomplete observation")
    if url is not None and not obs["url"].startswith(url.split("#")[0]):
        raise RuntimeError(f"BrowserGym opened {obs['url']}, expected {url}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--link"]:
        print(link(sys.argv[2]))
    else:
        print(json.dumps(run(json.load(sys.stdin))))
