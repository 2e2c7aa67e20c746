"""The design2code part of ``make demo``: offline, baselines only.

Builds a small instance set (seeded synthetic multi-page sites with internal links, local
images and a contact form posting to ``/api/contact``, plus real pages from
``../shared/data/design2code/pages`` when present), generates sites with the no-network
baseline under the self-contained and zero-shot strategies, scores them and writes the
HTML report (and its PNG rendering).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

__all__ = ["run_demo", "REAL_PAGES"]

REAL_PAGES = Path(__file__).resolve().parents[4] / "shared" / "data" / "design2code" / "pages"


def _real_pages() -> Path | None:
    for cand in (REAL_PAGES, Path("/work/shared/data/design2code/pages")):
        if cand.is_dir():
            return cand
    return None


def run_demo(out: Path, quick: bool = False) -> Path:
    """Run the demo into ``out`` and return the path of the report (``report/index.html``)."""
    from webgauge.design2code.dataset import build_instances
    from webgauge.design2code.report import write_report
    from webgauge.design2code.runs import generate_run, score_run
    from webgauge.report import render_html_to_png

    out = Path(out)
    inst_dir = out / "instances"
    if inst_dir.exists():
        shutil.rmtree(inst_dir)
    real = _real_pages()
    n_syn, pages, n_real = (1, 2, 0) if quick else (3, 3, 3)   # quick: one 2-page site only
    _, failures = asyncio.run(build_instances(inst_dir, synthetic=n_syn, seed=0, pages_per_site=pages,
                                              real=real if n_real else None, real_limit=n_real or None))
    if failures:
        print(f"design2code demo: {len(failures)} instances failed to build: {failures}")
    gen_dir = out / "generate"
    generate_run(inst_dir, gen_dir, model="baseline", strategies=("sc", "zs"), workers=1, force=True)
    _, score_dir = score_run(gen_dir, out / "score", workers=1, force=True)
    report = write_report(score_dir, out / "report", instances_dir=inst_dir,
                          title="design2code demo: the no-network baseline")
    asyncio.run(render_html_to_png(report, report.with_suffix(".png")))
    return report
