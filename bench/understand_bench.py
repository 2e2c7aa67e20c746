"""Build throughput of the understand suite on the shared real pages (pages per second), old
path against new, side by side.

Each repeat builds the same benchmark (``--pages`` shared real pages plus ``--synthetic``
synthetic pages, seed 0, all eight tasks, two pages at once) once per configuration, the
configurations taking turns so that the machine's load hits them alike:

- ``base``: the code at ``--baseline-src`` (a ``src`` folder, e.g. one exported from the
  commit before the speed-up with ``git archive <commit> src | tar -x -C /tmp/base``);
- ``reload``: this code with ``reload_every_edit=True`` (a reload after every edit, the old
  way back to the clean page);
- ``new``: this code as the CLI runs it (edits undone in place where exact, see
  :class:`webgauge.perturb.EditLog`).

``--profile`` instead builds once with this code under cProfile and prints the time per build
phase (clean capture, each task, waiting for question images; summed over the pages built at
once) and the functions with the most cumulative and own time: where to look next.

Each build runs in its own process with its own ``PYTHONPATH``. It prints the median seconds,
pages/s, the ratio to the first configuration, the load average before and after, and a
content hash of every build (every file but the manifest, with the snapshots'
``navigation_id`` left out: it counts the build's own reloads), which must be the same for all
configurations. Usage:

    .venv/bin/python bench/understand_bench.py [--pages 8] [--synthetic 2] [--repeats 3]
                                               [--baseline-src /tmp/base/src] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

_PROFILE = r"""
import collections, cProfile, io, pstats, sys, tempfile, time
from webgauge.pages import load_pages, real_pages_dir
from webgauge.understand.build import build_benchmark
n, syn = int(sys.argv[1]), int(sys.argv[2])
paths = [r.path for r in load_pages(real_pages_dir(), limit=n)]
stats, timers = collections.Counter(), collections.Counter()
prof = cProfile.Profile()
with tempfile.TemporaryDirectory() as tmp:
    t0 = time.perf_counter()
    prof.enable()
    build_benchmark(tmp + "/b", seed=0, synthetic=syn, pages=paths, progress=False, force=True, stats=stats,
                    timers=timers)
    prof.disable()
    secs = time.perf_counter() - t0
print(f"one build: {secs:.1f} s wall; {dict(stats)}")
print("phase (seconds summed over the pages built at once):")
for k, v in sorted(timers.items(), key=lambda kv: -kv[1]):
    print(f"  {k:28s} {v:7.1f}")
for key in ("cumulative", "tottime"):
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats(key).print_stats(18)
    print(f"top functions by {key} time:" + buf.getvalue().split("\n", 6)[-1])
"""

_CHILD = r"""
import collections, hashlib, json, os, sys, time
from pathlib import Path
from webgauge.pages import load_pages, real_pages_dir
from webgauge.understand.build import build_benchmark
out, n, syn, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
paths = [r.path for r in load_pages(real_pages_dir(), limit=n)]
stats = collections.Counter()
kw = {} if mode == "base" else {"stats": stats, "reload_every_edit": mode == "reload"}
t0 = time.perf_counter()
m = build_benchmark(out, seed=0, synthetic=syn, pages=paths, progress=False, force=True, **kw)
secs = time.perf_counter() - t0
h = hashlib.sha256()
for p in sorted(Path(out).rglob("*")):
    if not p.is_file() or p.name == "manifest.json":
        continue
    data = p.read_bytes()
    if p.parent.name == "snapshots":
        d = json.loads(data)
        d.pop("navigation_id", None)
        data = json.dumps(d, sort_keys=True).encode()
    h.update(str(p.relative_to(out)).encode() + b"\0" + data)
print(json.dumps({"secs": secs, "questions": sum(m["questions"].values()), "failures": len(m["failures"]),
                  "content": h.hexdigest()[:16], "stats": dict(stats)}))
"""


def _run(src: Path, mode: str, pages: int, synthetic: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run([sys.executable, "-c", _CHILD, str(Path(tmp) / "b"), str(pages), str(synthetic), mode],
                             env=env, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"{mode} build failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=8, help="shared real pages (default 8)")
    ap.add_argument("--synthetic", type=int, default=2, help="synthetic pages (default 2)")
    ap.add_argument("--repeats", type=int, default=3, help="builds per configuration (default 3)")
    ap.add_argument("--baseline-src", type=Path, default=None,
                    help="a src folder of the code to compare against (default: only this code, both paths)")
    ap.add_argument("--configs", default="",
                    help="comma-separated subset of base,reload,new to run (default: all that apply)")
    ap.add_argument("--profile", action="store_true",
                    help="one build of this code under cProfile, with per-phase timers (no comparison)")
    args = ap.parse_args()
    if args.profile:
        env = dict(os.environ, PYTHONPATH=str(SRC))
        subprocess.run([sys.executable, "-c", _PROFILE, str(args.pages), str(args.synthetic)], env=env, check=True)
        return
    if not os.environ.get("WEBGAUGE_SHARED") and not Path("shared").exists():
        print("note: set WEBGAUGE_SHARED to the shared/ folder if the real pages are not found", file=sys.stderr)
    configs = ([("base", args.baseline_src)] if args.baseline_src else []) + [("reload", SRC), ("new", SRC)]
    if args.configs:
        want = args.configs.split(",")
        configs = [c for c in configs if c[0] in want]
        if not configs:
            raise SystemExit(f"--configs {args.configs}: choose from base (with --baseline-src), reload, new")
    runs: dict[str, list[dict]] = {name: [] for name, _ in configs}
    load0 = os.getloadavg()
    for r in range(args.repeats):
        order = configs[r % len(configs):] + configs[:r % len(configs)]  # take turns going first
        for name, src in order:
            runs[name].append(_run(src, name, args.pages, args.synthetic))
            print(f"  repeat {r + 1} {name}: {runs[name][-1]['secs']:.1f} s, load {os.getloadavg()[0]:.1f}",
                  file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    n = args.pages + args.synthetic
    first = statistics.median(x["secs"] for x in runs[configs[0][0]])
    print(f"understand build: {args.pages} shared + {args.synthetic} synthetic pages, seed 0, all tasks, 2 at once, "
          f"{args.repeats} repeats; load average {load0[0]:.1f} before, {load1[0]:.1f} after "
          f"({os.cpu_count()} cores)")
    print(f"{'configuration':10s} {'median s':>9s} {'pages/s':>8s} {'x faster':>9s} {'questions':>9s} "
          f"{'content':>17s}  runs (s)")
    for name, _ in configs:
        xs = runs[name]
        med = statistics.median(x["secs"] for x in xs)
        contents = sorted({x["content"] for x in xs})
        print(f"{name:10s} {med:9.2f} {n / med:8.3f} {first / med:8.2f}x {xs[0]['questions']:9d} "
              f"{','.join(contents):>17s}  {' '.join('%.1f' % x['secs'] for x in xs)}")
    for name, _ in configs:
        if runs[name][0]["stats"]:
            print(f"{name}: {runs[name][0]['stats']}")
    if len({x["content"] for xs in runs.values() for x in xs}) != 1:
        print("WARNING: the builds differ in content; the speed-up is not exact")


if __name__ == "__main__":
    main()
