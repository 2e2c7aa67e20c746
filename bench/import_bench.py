"""Import bench: what a fresh Python process pays to import webgauge, with its modules compiled
ahead and without.

    .venv/bin/python bench/import_bench.py [--reps 7]

A test run starts about a hundred Python processes (the pytest-xdist workers, the processes that
builds and runs spawn, the CLI, Ray's workers), and each imports webgauge. With
``PYTHONDONTWRITEBYTECODE`` set, as on this project's CI machines, Python never writes the
compiled files of an editable install, so every process would compile webgauge's sources again;
``scripts/bootstrap.sh`` (run by every ``make`` target) compiles them ahead with ``compileall``.

The bench copies ``src/`` into a temporary folder, then alternately starts a fresh interpreter
that imports the CLI and the three suites from the copy without compiled files and with them
(``compileall`` of the copy), under ``PYTHONDONTWRITEBYTECODE=1``, and prints the median wall
and CPU time of each and their ratio.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODULES = "webgauge.cli.main, webgauge.arena.env, webgauge.understand.build, webgauge.design2code"


def _run(src: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh interpreter importing :data:`MODULES` from ``src``."""
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONDONTWRITEBYTECODE="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {MODULES}"], env=env, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    root = Path(__file__).resolve().parent.parent / "src"
    with tempfile.TemporaryDirectory() as tmp:
        plain, compiled = Path(tmp) / "plain", Path(tmp) / "compiled"
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(root, plain, ignore=ignore)
        shutil.copytree(root, compiled, ignore=ignore)
        if not compileall.compile_dir(compiled, quiet=1):
            raise SystemExit("compileall failed on the copy of src/")
        if any(plain.rglob("*.pyc")):
            raise SystemExit("the uncompiled copy holds compiled files: the bench would compare nothing")
        times: dict[str, list[tuple[float, float]]] = {"not compiled": [], "compiled ahead": []}
        _run(plain), _run(compiled)  # the interpreter's own files into the page cache
        for _ in range(args.reps):
            times["not compiled"].append(_run(plain))
            times["compiled ahead"].append(_run(compiled))
        if any(plain.rglob("*.pyc")):
            raise SystemExit("the uncompiled copy was compiled during the runs (PYTHONDONTWRITEBYTECODE ignored?)")
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}
    print(f"import {MODULES} in a fresh process, {args.reps} runs each (median s):")
    for k, (w, c) in med.items():
        print(f"  {k:15s} wall {w:5.2f}  cpu {c:5.2f}")
    (w0, c0), (w1, c1) = med["not compiled"], med["compiled ahead"]
    print(f"compiled ahead / not compiled: wall {w1 / w0:.2f}x, cpu {c1 / c0:.2f}x "
          f"({c0 - c1:.2f} s of CPU saved per process)")


if __name__ == "__main__":
    main()
