"""The understand suite's headline for the demo landing page (:mod:`webgauge.headlines`).

:func:`headline_rows` scores a run (the same :func:`~.scoring.score_run` as the report, so
consensus exclusions apply) and gives, per task, each model's mean score in [0, 1] with its
cluster-bootstrap 95% interval by page (:func:`webgauge.report.summary.summarize`).
Robustness tasks count their clean and perturbed answers alike here; the report's Table 2
and Table 3 give Δ, R and the self-contrast.
"""

from __future__ import annotations

from pathlib import Path

from ..report.summary import summarize
from .questions import TASKS
from .scoring import score_run

__all__ = ["headline_rows"]


def headline_rows(run_dir: str | Path) -> tuple[list[str], list[dict], list[tuple]]:
    """``(models, rows, triples)``: ``rows`` are ``{"task": t, model: (mean, lo, hi)}`` per task
    that has scored answers; ``triples`` are ``(task, model, (mean, lo, hi))`` in the same order."""
    scores = score_run(run_dir)
    found = summarize(scores.items, "score", by=("task", "model"), cluster="page")
    cell = {(s.group["task"], s.group["model"]): (s.mean, s.lo, s.hi) for s in found if s.n}
    rows, triples = [], []
    for task in TASKS:
        got = {m: cell[(task, m)] for m in scores.models if (task, m) in cell}
        if got:
            rows.append({"task": task, **got})
            triples += [(task, m, t) for m, t in got.items()]
    return scores.models, rows, triples
