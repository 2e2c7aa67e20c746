"""The same benchmark built twice at the same time, beside a CPU-burning process, is
byte-identical, and no snapshot's PNG contradicts its page size (issue 15: on a busy machine a
full-page PNG once lacked a page's footer while its snapshot claimed the full height)."""

import asyncio
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from webgauge.understand.build import build_benchmark_async

pytestmark = pytest.mark.browser

PAGES = ("11791", "1223", "13880")  # 11791 and 1223 differed between builds before settling


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


async def test_two_concurrent_builds_beside_a_cpu_hog_are_byte_identical(tmp_path, real_pages_dir, cpu_hog):
    pages = [real_pages_dir / f"{n}.html" for n in PAGES]
    a, b = tmp_path / "a", tmp_path / "b"
    # one page at a time in each build: the two builds and the hog are load enough for two cores
    ma, mb = await asyncio.gather(*(build_benchmark_async(out, seed=7, synthetic=2, pages=pages, concurrency=1,
                                                          progress=False) for out in (a, b)))
    assert cpu_hog.poll() is None, "the CPU hog stopped before the builds finished"
    assert ma["failures"] == [] and mb["failures"] == [], ma["failures"] + mb["failures"]
    ta, tb = _tree(a), _tree(b)
    assert sorted(ta) == sorted(tb)
    differ = [name for name in ta if ta[name] != tb[name]]
    assert differ == [], f"files differ between the two builds: {differ}"
    checked = 0
    for snap_file in sorted((a / "snapshots").glob("*.json")):
        snap = json.loads(snap_file.read_text())
        assert snap["settled"] and not any(w.startswith("unsettled") for w in snap["warnings"]), snap_file.name
        png = a / "images" / f"{snap['png_sha256']}.png"
        if png.exists():  # the screenshots questions show as they are
            w, h = Image.open(io.BytesIO(png.read_bytes())).size
            want = snap["page_size"] if snap["full_page"] else snap["viewport"]
            assert (w, h) == tuple(want), f"{snap_file.name}: PNG {w}x{h}, page {want}"
            checked += 1
    assert checked >= 6
