"""The design2code part of ``make demo``: offline, baselines only.

Builds a small instance set (seeded synthetic multi-page sites with internal links, local
images and a contact form posting to ``/api/contact``, plus real pages from the real-page
corpus, found by ``webgauge.pages.require_real_pages``: a missing corpus is an error that
names ``WEBGAUGE_SHARED``, never a silent skip), generates sites with the no-network
baseline under the self-contained and zero-shot strategies, scores them and writes the
HTML report (and its PNG rendering).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

__all__ = ["run_demo"]


def run_demo(out: Path, quick: bool = False) -> Path:
    """Run the demo into ``out`` and return the path of the report (``report/index.html``)."""
    from webgauge.design2code.dataset import build_instances
    from webgauge.design2code.report import write_report
    from webgauge.design2code.runs import generate_run, score_run
    from webgauge.pages import require_real_pages
    from webgauge.report import render_html_to_png

    out = Path(out)
    inst_dir = out / "instances"
    if inst_dir.exists():
        shutil.rmtree(inst_dir)
    n_syn, pages, n_real = (1, 2, 0) if quick else (3, 3, 3)   # quick: one 2-page site only
    real = require_real_pages() if n_real else None
    _, failures = asyncio.run(build_instances(inst_dir, synthetic=n_syn, seed=0, pages_per_site=pages,
                                              real=real, real_limit=n_real or None))
    if failures:
        print(f"design2code demo: {len(failures)} instances failed to build: {failures}")
    gen_dir = out / "generate"
    generate_run(inst_dir, gen_dir, model="baseline", strategies=("sc", "zs"), workers=1, force=True)
    _, score_dir = score_run(gen_dir, out / "score", workers=1, force=True)
    report = write_report(score_dir, out / "report", instances_dir=inst_dir,
                          title="design2code demo: the no-network baseline")
    asyncio.run(render_html_to_png(report, report.with_suffix(".png")))
    return report
