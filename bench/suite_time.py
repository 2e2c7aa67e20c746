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
folder (from pytest's JUnit XML), where the CPU went (below) and both probes before and after, and,
with ``--json``, appends one JSON object per run. Compare suite times at like probe figures: a run
whose probes read 20% slower ran on a machine 20% slower.

Where the CPU went: every half second the run reads, from /proc, the CPU time of each process under
``make test`` and sorts it by kind (Chromium's browser, renderer, GPU and other processes, the
Playwright drivers, the pytest workers and the Python processes tests start, anything else), and
``/proc/stat`` gives what the whole machine kept busy. The difference, "not seen", is processes that
lived less than half a second or left the process tree (daemons), and anything else the machine ran.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))  # arena_bench's floor, launch_flags_bench's process tree

from launch_flags_bench import TCK, chromium_kind, command_line, process_tree  # noqa: E402


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


#: :func:`launch_flags_bench.chromium_kind`'s kinds, as the report names them
CHROMIUM_KINDS = {"renderer": "Chromium renderers", "gpu": "Chromium GPU processes",
                  "other": "Chromium utility and zygote processes", "browser": "Chromium browser processes"}


def process_kind(cmdline: str, name: str) -> str:
    """What a process under ``make test`` is, from its command line and its name."""
    chromium = chromium_kind(cmdline)
    if chromium is not None:
        return CHROMIUM_KINDS[chromium]
    if "node" in name:
        return "Playwright drivers (Node)"
    if "python" in name or "python" in cmdline.split(" ", 1)[0]:
        return "pytest workers and Python processes tests start"
    return "other processes"


def machine_busy() -> tuple[int, int]:
    """Busy and total clock ticks of all cores since boot (``/proc/stat``; idle and iowait are not busy)."""
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:8]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


class CpuByKind:
    """CPU seconds of every process under ``root`` by :func:`process_kind`, read from /proc each
    time :meth:`sample` is called (a process's last reading counts once it is gone)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[tuple[int, int], list] = {}  # (pid, start time) -> [kind, CPU ticks]

    def sample(self) -> None:
        for pid, (name, f) in process_tree(self.root).items():
            key = (pid, int(f[19]))
            if key not in self.seen:  # its command line is read once
                cmd = command_line(pid)
                if cmd is None:
                    continue
                self.seen[key] = [process_kind(cmd, name), 0]
            self.seen[key][1] = int(f[11]) + int(f[12])

    def by_kind(self) -> dict[str, float]:
        out: dict[str, float] = collections.defaultdict(float)
        for kind, ticks in self.seen.values():
            out[kind] += ticks / TCK
        return dict(sorted(((k, round(v, 1)) for k, v in out.items()), key=lambda kv: -kv[1]))


def run_suite(workers: str | None) -> dict:
    """``make test`` itself (``TEST_WORKERS`` workers; None: the Makefile's), with a JUnit XML for the
    folders (``PYTEST_ADDOPTS``) and its CPU by process kind (:class:`CpuByKind`)."""
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        env = dict(os.environ, PYTEST_ADDOPTS=(os.environ.get("PYTEST_ADDOPTS", "") + f" --junitxml={junit}").strip())
        if workers is not None:
            env["TEST_WORKERS"] = workers
        busy0, total0 = machine_busy()
        t = time.perf_counter()
        with open(Path(tmp) / "out.txt", "w+") as out, open(Path(tmp) / "err.txt", "w+") as err:
            proc = subprocess.Popen(["make", "test"], cwd=ROOT, env=env, stdout=out, stderr=err, text=True)
            cpu = CpuByKind(proc.pid)
            while proc.poll() is None:
                cpu.sample()
                time.sleep(0.5)
            wall = time.perf_counter() - t
            busy1, total1 = machine_busy()
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        tail = [ln for ln in stdout.splitlines() if re.search(r"\d+ (passed|failed)", ln)]
        folders = folder_times(junit) if junit.exists() else {}
    if proc.returncode != 0:
        sys.stdout.write(stdout[-4000:] + stderr[-2000:])
    kinds = cpu.by_kind()
    cores = os.cpu_count() or 1
    machine_s = (busy1 - busy0) / max(1, total1 - total0) * cores * wall
    return {"wall_s": round(wall, 1), "returncode": proc.returncode, "result": tail[-1] if tail else "",
            "summed_s": round(sum(folders.values()), 1), "folders": {k: round(v, 1) for k, v in folders.items()},
            "cpu_s": kinds, "machine_busy_s": round(machine_s, 1), "machine_s": round(wall * cores, 1),
            "not_seen_s": round(machine_s - sum(kinds.values()), 1)}


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
        busy, avail = suite["machine_busy_s"], suite["machine_s"]
        print(f"CPU: the machine's cores were busy {busy:.0f} of {avail:.0f} core-seconds ({busy / avail:.0%})")
        for kind, s in (*suite["cpu_s"].items(), ("not seen (short-lived, daemons, others)", suite["not_seen_s"])):
            print(f"  {kind:50s} {s:7.1f} s  {s / busy:4.0%}")
        print(f"probe after: python {after['python_ms']} ms, chromium step floor {after['chromium_ms']} ms, "
              f"load average {after['load']}")
    if args.json:
        with args.json.open("a") as f:
            f.write(json.dumps(out) + "\n")
    if out.get("suite", {}).get("returncode", 0) != 0:
        raise SystemExit(f"the suite failed (pytest exit code {out['suite']['returncode']})")


if __name__ == "__main__":
    main()
