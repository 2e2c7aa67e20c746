"""Three builds of the same seed draw the same pixels: one alone, two at the same time, one beside
a CPU-burning process. Every image a build shows (question images and the rejected no-op
samples) is compared pixel by pixel with the lone build's (:func:`webgauge.understand.pixels`).

Cheap but meaningful: two shared pages that exercise what differed under load before (a
rejected near-no-op layout pair on 10955, 1223 which once differed between builds), every
layout level and the color edits (the renders that change the page most); one page at a time
per build. Four builds of a busy machine take minutes: the test has its own time limit."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from webgauge.understand.build import build_benchmark_async
from webgauge.understand.pixels import image_slots, pixel_differences

pytestmark = pytest.mark.browser

PAGES = ("10955", "1223")


@pytest.mark.timeout(1200)
async def test_builds_alone_side_by_side_and_beside_a_cpu_hog_draw_the_same_pixels(tmp_path, real_pages_dir):
    kw = {"seed": 3, "synthetic": 0, "pages": [real_pages_dir / f"{n}.html" for n in PAGES],
          "tasks": ["color", "layout"], "all_layout_levels": True, "concurrency": 1, "progress": False}
    alone = await build_benchmark_async(tmp_path / "alone", **kw)
    both = await asyncio.gather(*(build_benchmark_async(tmp_path / n, **kw) for n in ("side1", "side2")))
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])  # a core kept busy beside the last build
    try:
        hogged = await build_benchmark_async(tmp_path / "hog", **kw)
        assert hog.poll() is None, "the CPU hog stopped before the build finished"
    finally:
        hog.kill()
        hog.wait()
    for m in (alone, *both, hogged):
        assert m["failures"] == [], m["failures"]
    slots = image_slots(tmp_path / "alone")
    assert len(slots) >= 12 and any(s.startswith("rejected:") for s in slots)  # the no-op samples count too
    for name in ("side1", "side2", "hog"):
        diffs = pixel_differences(tmp_path / "alone", tmp_path / name)
        assert diffs == [], f"{name}: " + "; ".join(map(str, diffs[:5]))
    assert {m["sha256"] for m in (alone, *both, hogged)} == {alone["sha256"]}
