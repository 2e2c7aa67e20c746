"""Do builds draw the same pixels under load? Builds the same benchmark (same seed) of N shared
pages four times: alone, two at the same time, and one beside a CPU-burning process, then
compares every image each build shows (question images and rejected no-op samples) pixel by
pixel with the lone build's (``webgauge.understand.pixels``). Prints per build: wall time, the
images compared, how many differ (and where), and whether the manifest sha256 matches.

``--no-build-flags`` launches the browsers without the build's render flags
(``webgauge.understand.build.BUILD_FLAGS``), to see what they change. Usage:

    python bench/understand_pixels.py [--pages 30] [--seed 3] [--no-build-flags]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from webgauge.pages import load_pages, require_real_pages
from webgauge.understand import build as build_mod
from webgauge.understand.pixels import image_slots, pixel_differences


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=30)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--no-build-flags", action="store_true")
    args = ap.parse_args()
    if args.no_build_flags:
        build_mod.BUILD_FLAGS = ()
    pages = [r.path for r in load_pages([require_real_pages()], limit=args.pages)]
    kw = {"seed": args.seed, "synthetic": 0, "pages": pages, "all_layout_levels": True, "progress": False}
    tmp = Path(tempfile.mkdtemp(prefix="understand-pixels-"))
    times = {}

    async def timed(name):
        t0 = time.perf_counter()
        m = await build_mod.build_benchmark_async(tmp / name, **kw)
        times[name] = time.perf_counter() - t0
        return m

    manifests = {"alone": await timed("alone")}
    side = await asyncio.gather(timed("side-by-side 1"), timed("side-by-side 2"))
    manifests.update(zip(("side-by-side 1", "side-by-side 2"), side, strict=True))
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        manifests["beside a CPU hog"] = await timed("beside a CPU hog")
    finally:
        hog.kill()
        hog.wait()
    n = len(image_slots(tmp / "alone"))
    print(f"{len(pages)} pages, seed {args.seed}, build flags {build_mod.BUILD_FLAGS or 'none'}; "
          f"{n} images per build; folders in {tmp}")
    print(f"{'build':18s} {'wall s':>7s} {'images differ':>14s}  manifest")
    for name, m in manifests.items():
        diffs = [] if name == "alone" else pixel_differences(tmp / "alone", tmp / name)
        same = "same" if m["sha256"] == manifests["alone"]["sha256"] else "DIFFERS"
        print(f"{name:18s} {times[name]:7.1f} {len(diffs):>8d} / {n:<4d}  {same}")
        for d in diffs[:10]:
            print(f"    {d}")


if __name__ == "__main__":
    asyncio.run(main())
