"""design2code reference screenshots built twice at the same time, beside a CPU-burning
process, are byte-identical and match the page sizes their instances record."""

import asyncio
import shutil
from pathlib import Path

import pytest

from webgauge.design2code.dataset import build_instances

pytestmark = pytest.mark.browser

PAGES = ("11791", "1223")


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.asyncio(loop_scope="function")
async def test_two_concurrent_reference_builds_beside_a_cpu_hog_are_byte_identical(tmp_path, real_pages_dir,
                                                                                    cpu_hog):
    real = tmp_path / "real"
    real.mkdir()
    for name in [f"{n}.html" for n in PAGES] + ["rick.jpg"]:  # the pages and the image they show
        shutil.copy(real_pages_dir / name, real / name)
    a, b = tmp_path / "a", tmp_path / "b"
    (ia, fa), (ib, fb) = await asyncio.gather(*(build_instances(out, synthetic=1, seed=3, pages_per_site=2,
                                                                real=real, progress=False) for out in (a, b)))
    assert cpu_hog.poll() is None, "the CPU hog stopped before the builds finished"
    assert fa == [] and fb == [] and len(ia) == len(ib) == 3
    ta, tb = _tree(a), _tree(b)
    assert sorted(ta) == sorted(tb)
    differ = [name for name in ta if ta[name] != tb[name]]
    assert differ == [], f"files differ between the two builds: {differ}"
    for inst in ia:
        for rec in inst.pages:
            assert (rec.width, rec.height) == tuple(rec.resources.page_size), (inst.id, rec.name)
