"""The fine-tuning comparison of WebRSSBench §5.2, measured on a run and quoted from the paper.

:func:`finetune_rows` gives, per model of a run, the three scores the paper reports before and
after its LoRA fine-tune of Qwen2.5-VL-7B: position (share of pairs right), UI group
(accuracy) and color robustness (recall of the call-to-action on color-perturbed pages;
the paper averages its easy/medium/hard settings). Intervals are 95% cluster bootstrap by page.
:data:`PAPER_FINETUNE` holds the paper's numbers, shown beside them for reference only: the
paper trained and tested on its own 729 sites, a run here on whatever benchmark it used.
"""

from __future__ import annotations

from ..report.summary import summarize

__all__ = ["PAPER_FINETUNE", "FINETUNE_COLUMNS", "finetune_rows"]

FINETUNE_COLUMNS = ["position pairs", "UI group", "color (perturbed)"]

PAPER_FINETUNE = [
    {"model": "Qwen2.5-VL-7B before (paper §5.2)", "position pairs": 16.3, "UI group": 67.6, "color (perturbed)": 73.1},
    {"model": "Qwen2.5-VL-7B + LoRA (paper §5.2)", "position pairs": 41.3, "UI group": 96.9, "color (perturbed)": 80.1},
]


def _cell(items) -> dict | None:
    """Mean ×100 with its interval; answers without a target (``score`` None) are left out, not zeroed."""
    if not items:
        return None
    (s,) = summarize(items, lambda it: None if it.score is None else 100 * it.score, cluster="page")
    return None if s.n == 0 else {"mean": s.mean, "lo": s.lo, "hi": s.hi, "n": s.n}


def finetune_rows(scores) -> list[dict]:
    """One row per model of ``scores`` (a :class:`~webgauge.understand.scoring.RunScores`)."""
    rows = []
    for m in scores.models:
        mine = [it for it in scores.items if it.model == m]
        rows.append({"model": m,
                     "position pairs": _cell([it for it in mine if it.task == "position"]),
                     "UI group": _cell([it for it in mine if it.task == "ui_group"]),
                     "color (perturbed)": _cell([it for it in mine if it.task == "color" and it.variant != "clean"])})
    return rows
