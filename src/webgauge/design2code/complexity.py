"""The complexity analysis: MAE and RER against input image size and resource-list length.

Token counts of resource lists use a documented, dependency-free tokenizer
(``\\w+|[^\\w\\s]`` over the compact prompt JSON): it is not any model's tokenizer, but it
is deterministic, monotone in list length and close in scale to BPE counts for JSON.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from webgauge.design2code.resources import ResourceList

__all__ = ["TOKEN_RE", "count_tokens", "complexity_rows", "complexity_plots"]

TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Number of ``\\w+|[^\\w\\s]`` tokens in ``text``."""
    return len(TOKEN_RE.findall(text))


def resource_tokens(rl: ResourceList) -> int:
    return count_tokens(rl.prompt_json())


def complexity_rows(records: list, instances: dict[str, Any]) -> list[dict]:
    """One row per scored page (``records``: :class:`~webgauge.design2code.records.SiteScore`):
    model, strategy, image pixels, resource count and tokens, MAE and RER."""
    rows = []
    for rec in records:
        inst = instances.get(rec.instance)
        if inst is None:
            continue
        for page in rec.pages:
            if page.error:
                continue
            prl = next(p for p in inst.pages if p.name == page.page)
            rows.append({"model": rec.model, "strategy": rec.strategy, "instance": rec.instance,
                         "page": page.page, "pixels": prl.width * prl.height,
                         "n_resources": len(prl.resources.resources), "tokens": resource_tokens(prl.resources),
                         "mae": page.value("mae"), "rer": page.value("rer")})
    return rows


_PALETTE = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def complexity_plots(rows: list[dict], out_dir: Path) -> list[Path]:
    """MAE and RER against image size and resource-list length, **split per model and per
    strategy** as in MRWeb Figs. 3, 6 and 7: one PNG per (metric, x), one colour per model and
    one marker per strategy, each (model, strategy) with its least-squares trend line."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out_dir.mkdir(parents=True, exist_ok=True)
    models = sorted({r["model"] for r in rows})
    strategies = sorted({r["strategy"] for r in rows})
    paths = []
    for metric in ("mae", "rer"):
        for xkey, xlabel in (("pixels", "input image size (pixels)"), ("n_resources", "resource-list length")):
            fig = Figure(figsize=(5.6, 3.8), dpi=100)
            FigureCanvasAgg(fig)
            ax = fig.add_subplot()
            drawn = False
            for mi, model in enumerate(models):
                for si, strategy in enumerate(strategies):
                    pts = [(r[xkey], r[metric]) for r in rows if r["model"] == model and r["strategy"] == strategy
                           and isinstance(r.get(metric), (int, float))]
                    if not pts:
                        continue
                    xs, ys = (np.array(v, dtype=float) for v in zip(*pts, strict=True))
                    color = _PALETTE[mi % len(_PALETTE)]
                    ax.scatter(xs, ys, s=22, color=color, marker=_MARKERS[si % len(_MARKERS)],
                               label=f"{model} / {strategy}", edgecolors="white", linewidths=0.4)
                    if len(set(xs)) >= 2:
                        k, b = np.polyfit(xs, ys, 1)
                        grid = np.linspace(xs.min(), xs.max(), 2)
                        ax.plot(grid, k * grid + b, color=color, lw=1, alpha=0.7)
                    drawn = True
            if not drawn:
                continue
            ax.set_xlabel(xlabel)
            ax.set_ylabel(metric.upper())
            ax.set_title(f"{metric.upper()} vs {xlabel}, per model / strategy", fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc="best")
            fig.tight_layout()
            path = out_dir / f"{metric}_vs_{xkey}.png"
            fig.savefig(path, format="png", metadata={"Software": None})
            paths.append(path)
    return paths
