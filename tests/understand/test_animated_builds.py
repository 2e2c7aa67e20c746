"""Builds of pages that animate are byte-identical: five pages of our own (fade-ins with delays and
an IntersectionObserver, endless keyframe loops, transitions the page starts once it has loaded,
Web Animations API loops and fills, an endless spinner), built with the same seed alone, two at
the same time, and beside a CPU-burning process. Before animations were frozen (issue 64) a page
whose share icons faded in gave four different manifests in four builds."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from webgauge.understand import read_questions
from webgauge.understand.build import build_benchmark_async

pytestmark = pytest.mark.browser

ANIMATED = Path(__file__).resolve().parents[1] / "data" / "animated"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.timeout(900)
async def test_animated_pages_build_byte_identically_alone_side_by_side_and_beside_a_cpu_hog(tmp_path):
    pages = sorted(ANIMATED.glob("*.html"))
    assert len(pages) == 5, pages
    kw = {"seed": 11, "synthetic": 0, "pages": pages, "concurrency": 1, "progress": False}
    alone = await build_benchmark_async(tmp_path / "alone", **kw)
    pair = await asyncio.gather(*(build_benchmark_async(tmp_path / n, **kw) for n in ("side1", "side2")))
    burn = "import time\nend = time.time() + 600\nwhile time.time() < end: pass"
    hog = subprocess.Popen([sys.executable, "-c", burn])
    try:
        hogged = await build_benchmark_async(tmp_path / "hog", **kw)
        assert hog.poll() is None, "the CPU hog stopped before the build finished"
    finally:
        hog.kill()
        hog.wait()
    for m in (alone, *pair, hogged):
        assert m["failures"] == [], m["failures"]
    asked = {q.page for q in read_questions(tmp_path / "alone")}
    assert asked == {f"real-{p.stem}" for p in pages}, "every animated page must be asked about"
    ref = _tree(tmp_path / "alone")
    for name in ("side1", "side2", "hog"):
        other = _tree(tmp_path / name)
        assert sorted(other) == sorted(ref)
        assert [f for f in ref if ref[f] != other[f]] == [], f"files differ between the lone build and {name}"
    assert alone["sha256"] == pair[0]["sha256"] == pair[1]["sha256"] == hogged["sha256"]
