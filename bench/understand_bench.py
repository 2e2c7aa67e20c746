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

Each build runs in its own process with its own ``PYTHONPATH``. It prints the median wall
seconds, the median CPU seconds of the build's process tree (the Python process and its reaped
descendants, Playwright's driver and Chromium: ``RUSAGE_SELF`` + ``RUSAGE_CHILDREN`` measured in
the build's process around the build), pages/s, the ratios to the
first configuration, the load average before, during and after, and two hashes of every build:

- ``bytes``: every file but the manifest, with the snapshots' ``navigation_id`` (it counts the
  build's own reloads) and ``blocked_requests`` (a race in the browser, see
  ``docs/understand.md``) left out; the same for every build of one configuration;
- ``pixels``: the same, with every image replaced by a hash of its decoded pixels (RGBA) and
  every reference to an image or screenshot (``images/<sha256>.png``, ``png_sha256``) by that
  pixel hash (a screenshot no file holds is named ``unstored``): the same for every
  configuration, since they draw the same pixels in different PNG bytes.

Usage:

    .venv/bin/python bench/understand_bench.py [--pages 8] [--synthetic 2] [--repeats 3]
                                               [--baseline-src /tmp/base/src] [--profile]
                                               [--configs base,new]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
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
import collections, hashlib, io, json, os, re, resource, sys, time
from pathlib import Path
from webgauge.pages import load_pages, real_pages_dir
from webgauge.understand.build import build_benchmark
out, n, syn, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
paths = [r.path for r in load_pages(real_pages_dir(), limit=n)]
stats = collections.Counter()
kw = {} if mode == "base" else {"stats": stats, "reload_every_edit": mode == "reload"}
def cpu():  # this process and its reaped descendants: Playwright's driver, which reaps Chromium
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))
c0, t0 = cpu(), time.perf_counter()
m = build_benchmark(out, seed=0, synthetic=syn, pages=paths, progress=False, force=True, **kw)
secs, cpu_secs = time.perf_counter() - t0, cpu() - c0
load = os.getloadavg()[0]
# after the timing: the two hashes (see the module docstring)
from PIL import Image
root = Path(out)
files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
         if p.is_file() and p.name != "manifest.json"}
pix = {}
for name, data in files.items():
    if name.startswith("images/"):
        arr = Image.open(io.BytesIO(data)).convert("RGBA")
        pix[name[len("images/"):-len(".png")]] = hashlib.sha256(repr(arr.size).encode() + arr.tobytes()).hexdigest()
hb, hp = hashlib.sha256(), hashlib.sha256()
for name, data in files.items():
    if name.startswith("snapshots/"):
        d = json.loads(data)
        d.pop("navigation_id", None)
        d.pop("blocked_requests", None)
        data = json.dumps(d, sort_keys=True).encode()
    hb.update(name.encode() + b"\0" + data + b"\0")
    if name.startswith("images/"):
        continue  # by their pixels, below (their byte names sort differently)
    text = re.sub(r"[0-9a-f]{64}", lambda mt: pix.get(mt.group(0), "unstored"), data.decode())
    hp.update(re.sub(r"[0-9a-f]{64}", "", name).encode() + b"\0" + text.encode() + b"\0")
for h in sorted(pix.values()):
    hp.update(b"image\0" + h.encode() + b"\0")
print(json.dumps({"secs": secs, "questions": sum(m["questions"].values()), "failures": len(m["failures"]),
                  "failed": [f["page"] + ": " + f["reason"] for f in m["failures"]],
                  "bytes": hb.hexdigest()[:16], "pixels": hp.hexdigest()[:16], "stats": dict(stats),
                  "load": load, "cpu": cpu_secs}))
"""


def _run(src: Path, mode: str, pages: int, synthetic: int) -> dict:
    """One build in its own process: wall and CPU seconds of the build (``cpu``: the process and
    its reaped descendants, Playwright's driver and Chromium), hashes, load average."""
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
    loads = []
    for r in range(args.repeats):
        order = configs[r % len(configs):] + configs[:r % len(configs)]  # take turns going first
        for name, src in order:
            runs[name].append(_run(src, name, args.pages, args.synthetic))
            x = runs[name][-1]
            loads.append(x["load"])
            print(f"  repeat {r + 1} {name}: {x['secs']:.1f} s wall, {x['cpu']:.1f} s CPU, load {x['load']:.1f}, "
                  f"bytes {x['bytes']}, pixels {x['pixels']}", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    n = args.pages + args.synthetic
    first = runs[configs[0][0]]
    first_wall = statistics.median(x["secs"] for x in first)
    first_cpu = statistics.median(x["cpu"] for x in first)
    print(f"understand build: {args.pages} shared + {args.synthetic} synthetic pages, seed 0, all tasks, 2 at once, "
          f"{args.repeats} repeats; load average (1 min) {load0[0]:.1f} before, {min(loads):.1f}-{max(loads):.1f} "
          f"at the end of the builds, {load1[0]:.1f} after ({os.cpu_count()} cores); {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"{'config':7s} {'wall s':>7s} {'pages/s':>8s} {'x wall':>7s} {'CPU s':>7s} {'x CPU':>6s} {'questions':>9s} "
          f"{'bytes':>16s} {'pixels':>16s}  runs wall s / CPU s")
    for name, _ in configs:
        xs = runs[name]
        wall = statistics.median(x["secs"] for x in xs)
        cpu = statistics.median(x["cpu"] for x in xs)
        print(f"{name:7s} {wall:7.2f} {n / wall:8.3f} {first_wall / wall:6.2f}x {cpu:7.1f} {first_cpu / cpu:5.2f}x "
              f"{xs[0]['questions']:9d} {','.join(sorted({x['bytes'] for x in xs})):>16s} "
              f"{','.join(sorted({x['pixels'] for x in xs})):>16s}  "
              f"{' '.join(format(x['secs'], '.1f') for x in xs)} / {' '.join(format(x['cpu'], '.0f') for x in xs)}")
    for name, _ in configs:
        if runs[name][0]["stats"]:
            print(f"{name}: {runs[name][0]['stats']}")
        failed = sorted({f for x in runs[name] for f in x["failed"]})
        if failed:
            print(f"{name}: failed pages {failed}")
    for name, _ in configs:
        if len({x["bytes"] for x in runs[name]}) != 1:
            print(f"WARNING: the builds of {name} differ in bytes: not byte-identical run to run")
    if len({x["pixels"] for xs in runs.values() for x in xs}) != 1:
        print("WARNING: the builds differ in pixels or content; the speed-up is not exact")


if __name__ == "__main__":
    main()
