"""Suite time: how long the test suite takes, read against how fast this machine is right then.

    .venv/bin/python bench/suite_time.py                  # probe, `make test`, probe
    .venv/bin/python bench/suite_time.py --probe-only     # the probe alone (about 10 s)
    .venv/bin/python bench/suite_time.py --json runs.jsonl  # append each run's figures to a file

The same commit's suite has taken from 8 min 26 s to 11 min 32 s on one 2-core machine within an
hour, with every test folder slower or faster together (docs/performance.md, "Test suite"). A
suite time alone does not say whether a change or the machine moved it. So the suite is run
between two probes of the machine's speed, on the work the suite is made of:

- python: generating arena seed 0's world in memory (what ``build_seed`` keeps, about 5,000 rows in SQLite),
  pure Python; median of 15 builds, in ms;
- chromium: the arena bench's step floor (``bench/arena_bench.py``: a bare click on the shop's
  first "View" link, the product page's load, one CDP screenshot, in the arena's headless shell);
  median of 30, in ms.

It prints the suite's wall time, the pytest result line, the summed test time per top-level test
folder (from pytest's JUnit XML) and both probes before and after, and, with ``--json``, appends one
JSON object per run. Compare suite times at like probe figures: a run whose probes read 20% slower
ran on a machine 20% slower.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # arena_bench's floor


def python_probe(reps: int = 15) -> float:
    """Median ms of building arena seed 0's world in an in-memory database."""
    import sqlite3

    from webgauge.arena.apps import _generate  # the generation itself, not the process's kept copy

    times = []
    for _ in range(reps + 1):
        conn = sqlite3.connect(":memory:", isolation_level=None)
        t = time.perf_counter()
        _generate(conn, 0)
        times.append((time.perf_counter() - t) * 1000)
        conn.close()
    return statistics.median(times[1:])  # the first build imports and warms


async def chromium_probe(reps: int = 30) -> float:
    """Median ms of the arena bench's step floor."""
    from arena_bench import Floors

    from webgauge.arena.apps.server import ArenaServer
    from webgauge.browser import Browser

    with ArenaServer() as srv:
        async with Browser.launch(headless_shell=True) as browser:
            floors = Floors(browser, srv)
            try:
                await floors.around([], reps + 2)
            finally:
                await floors.close()
    return statistics.median(floors.step_ms[2:])  # the first two warm the page


def probe() -> dict:
    return {"python_ms": round(python_probe(), 1), "chromium_ms": round(asyncio.run(chromium_probe()), 1),
            "load": [round(x, 2) for x in os.getloadavg()]}


def folder_times(junit: Path) -> dict[str, float]:
    """Summed test time (setup, call and teardown) per top-level test folder."""
    by: dict[str, float] = collections.defaultdict(float)
    for tc in ET.parse(junit).getroot().iter("testcase"):
        parts = (tc.get("classname") or "").split(".")
        by["/".join(parts[:2]) if len(parts) > 2 else parts[0]] += float(tc.get("time") or 0)
    return dict(sorted(by.items(), key=lambda kv: -kv[1]))


def run_suite(workers: str | None) -> dict:
    """``make test`` itself (``TEST_WORKERS`` workers; None: the Makefile's), with a JUnit XML for the
    folders (``PYTEST_ADDOPTS``)."""
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        env = dict(os.environ, PYTEST_ADDOPTS=(os.environ.get("PYTEST_ADDOPTS", "") + f" --junitxml={junit}").strip())
        if workers is not None:
            env["TEST_WORKERS"] = workers
        t = time.perf_counter()
        proc = subprocess.run(["make", "test"], cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        tail = [ln for ln in proc.stdout.splitlines() if re.search(r"\d+ (passed|failed)", ln)]
        folders = folder_times(junit) if junit.exists() else {}
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout[-4000:] + proc.stderr[-2000:])
    return {"wall_s": round(wall, 1), "returncode": proc.returncode, "result": tail[-1] if tail else "",
            "summed_s": round(sum(folders.values()), 1), "folders": {k: round(v, 1) for k, v in folders.items()}}


def _mmss(s: float) -> str:
    return f"{int(s // 60)} min {int(round(s % 60))} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probe-only", action="store_true", help="only probe the machine's speed")
    ap.add_argument("--workers", default=os.environ.get("TEST_WORKERS"),
                    help="pytest-xdist workers (make test's TEST_WORKERS; 0: one process; default: the Makefile's)")
    ap.add_argument("--json", type=Path, help="append this run's figures to this file (JSON lines)")
    args = ap.parse_args()
    out: dict = {"date": time.strftime("%Y-%m-%d %H:%M"), "commit": subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()}
    out["probe_before"] = probe()
    print(f"probe before: python {out['probe_before']['python_ms']} ms, chromium step floor "
          f"{out['probe_before']['chromium_ms']} ms, load average {out['probe_before']['load']}", flush=True)
    if not args.probe_only:
        out["workers"] = args.workers or "the Makefile's"
        out["suite"] = suite = run_suite(args.workers)
        out["probe_after"] = after = probe()
        print(f"suite: {_mmss(suite['wall_s'])} wall ({suite['result'] or 'no result line'}), "
              f"summed test time {suite['summed_s']:.0f} s")
        for folder, s in suite["folders"].items():
            print(f"  {folder:32s} {s:7.1f} s")
        print(f"probe after: python {after['python_ms']} ms, chromium step floor {after['chromium_ms']} ms, "
              f"load average {after['load']}")
    if args.json:
        with args.json.open("a") as f:
            f.write(json.dumps(out) + "\n")
    if out.get("suite", {}).get("returncode", 0) != 0:
        raise SystemExit(f"the suite failed (pytest exit code {out['suite']['returncode']})")


if __name__ == "__main__":
    main()
