"""The arena's part of ``make demo``: oracle and heuristic agents on every task, offline.

Runs in a run directory under ``out`` (resumable), writes the HTML report with a trace
viewer page per episode, renders the report to PNG, and returns the report's path.
"""

from __future__ import annotations

import asyncio
import pathlib

from .outputs.report import write_arena_report
from .runner import run_arena
from .tasks import build_tasks

__all__ = ["run_demo", "QUICK_FAMILIES"]

QUICK_FAMILIES = ("shop.cancel_order", "desks.book", "board.drag")


def run_demo(out: pathlib.Path, quick: bool = False) -> pathlib.Path:
    """Oracle and heuristic on every task (seeds 0 and 1; ``quick``: 3 families, seed 0)."""
    out = pathlib.Path(out)
    run_dir = out / ("arena-quick" if quick else "arena")
    tasks = build_tasks((0,), families=QUICK_FAMILIES) if quick else build_tasks((0, 1))
    run_arena(run_dir, tasks, [{"kind": "oracle"}, {"kind": "heuristic"}], workers=2, time_limit_s=120.0)
    report = write_arena_report(run_dir, title="Arena demo: oracle and heuristic baselines")
    from webgauge.report import render_html_to_png

    asyncio.run(render_html_to_png(report, report.with_suffix(".png"), root=run_dir))
    return report
