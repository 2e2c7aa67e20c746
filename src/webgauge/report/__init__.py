"""webgauge.report: statistics, tables, charts and static HTML reports.

Reports read a run directory through :class:`webgauge.run.RunStore` only (typed records,
:meth:`~webgauge.run.RunStore.typed`), summarise them with the one scoring kit
(:func:`summarize`, :func:`compare`: cluster bootstrap, one resample count and seed), built on
the bootstrap primitives (:func:`bootstrap_ci`, :func:`bootstrap_ci_grouped`,
:func:`paired_bootstrap`), and write a self-contained HTML page (:func:`write_html`,
:func:`table`, :func:`details`, :func:`fmt_ci`) with PNG charts (:func:`bar_chart`,
:func:`scatter`); :func:`render_html_to_png` turns the page into a picture, and
:func:`write_run_report` writes a suite-independent overview (outcomes, failures, spec).
"""

from .html import (
                   CSS,
                   Column,
                   Markup,
                   Section,
                   code_block,
                   details,
                   fmt_ci,
                   fmt_num,
                   html_page,
                   image,
                   link,
                   markdown_table,
                   relpath,
                   table,
                   write_html,
)
from .plots import bar_chart, scatter
from .render import render_html_to_png
from .run_report import run_overview, write_run_report
from .stats import CI, PairedComparison, bootstrap_ci, bootstrap_ci_grouped, paired_bootstrap
from .summary import ALPHA, RESAMPLES, SEED, Comparison, Summary, compare, summarize

__all__ = [
    "bootstrap_ci", "bootstrap_ci_grouped", "paired_bootstrap", "CI", "PairedComparison",
    "html_page", "write_html", "table", "markdown_table", "Column", "Section", "Markup", "fmt_ci", "fmt_num",
    "link", "details", "image", "code_block", "relpath", "CSS",
    "summarize", "compare", "Summary", "Comparison", "RESAMPLES", "SEED", "ALPHA",
    "bar_chart", "scatter", "render_html_to_png", "run_overview", "write_run_report",
]
