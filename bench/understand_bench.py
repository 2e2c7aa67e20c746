"""Build throughput of the understand suite on the shared real pages (pages per second).

Prints medians over repeats for: capture only (one full-page capture per page, the floor),
the build without the perturbation tasks, the full build (all eight tasks, perturbations
and checks) one page at a time and two at a time, and the full build on synthetic pages,
with each configuration's seconds per page as a ratio to the capture floor. Usage:

    .venv/bin/python bench/understand_bench.py [--pages N] [--repeats R] [--synthetic S]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from webgauge.browser import Browser
from webgauge.pages import load_pages, real_pages_dir, serve_pages
from webgauge.understand import build_benchmark
from webgauge.understand.build import BUILD_PROFILE


async def _capture_only(refs) -> float:
    t0 = time.perf_counter()
    with serve_pages(refs) as urls:
        async with Browser.launch() as browser:
            for ref in refs:
                async with browser.open(urls[ref.id], BUILD_PROFILE) as live:
                    await live.capture(full_page=True, with_aria=False)
    return time.perf_counter() - t0


ALL = ["position", "ui_group", "form_fill", "hint_text", "color", "text", "layout", "safety"]


def _build(paths, tasks, synthetic=0, concurrency=2) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        m = build_benchmark(Path(tmp) / "b", seed=0, synthetic=synthetic, pages=paths, tasks=tasks, progress=False,
                            concurrency=concurrency)
        return time.perf_counter() - t0, sum(m["questions"].values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=8, help="real pages to use (default 8)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats per configuration (default 3)")
    ap.add_argument("--synthetic", type=int, default=4, help="synthetic pages for the synthetic build row")
    args = ap.parse_args()
    root = real_pages_dir()
    if root is None:
        raise SystemExit("the shared real pages were not found; set WEBGAUGE_SHARED to the shared/ folder")
    refs = load_pages(root, limit=args.pages)
    paths = [r.path for r in refs]
    n = len(refs)
    rows = []
    cap = [asyncio.run(_capture_only(refs)) for _ in range(args.repeats)]
    rows.append(("capture only (floor)", statistics.median(cap), n, 0))
    static = ["position", "ui_group", "form_fill", "safety"]
    runs = [_build(paths, static) for _ in range(args.repeats)]
    rows.append(("build: static tasks", statistics.median(t for t, _ in runs), n, runs[0][1]))
    for conc in (1, 2):
        runs = [_build(paths, ALL, concurrency=conc) for _ in range(args.repeats)]
        rows.append((f"build: all 8 tasks, {conc} at once", statistics.median(t for t, _ in runs), n, runs[0][1]))
    if args.synthetic:
        runs = [_build([], ALL, args.synthetic) for _ in range(args.repeats)]
        rows.append(("build: all 8 tasks, synthetic", statistics.median(t for t, _ in runs), args.synthetic,
                     runs[0][1]))
    floor = rows[0][1] / rows[0][2]
    print(f"{'configuration':34s} {'pages':>5s} {'median s':>9s} {'pages/s':>8s} {'questions':>9s} {'s/page vs capture':>18s}")
    for name, secs, pages, qs in rows:
        print(f"{name:34s} {pages:5d} {secs:9.2f} {pages / secs:8.3f} {qs:9d} {secs / pages / floor:17.1f}x")


if __name__ == "__main__":
    main()
