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


def complexity_rows(records: list[dict], instances: dict[str, Any]) -> list[dict]:
    """One row per scored page: image pixels, resource count and tokens, MAE and RER."""
    rows = []
    for rec in records:
        inst = instances.get(rec["instance"])
        if inst is None:
            continue
        for page in rec["pages"]:
            if "error" in page:
                continue
            prl = next(p for p in inst.pages if p.name == page["page"])
            rows.append({"model": rec["model"], "strategy": rec["strategy"], "instance": rec["instance"],
                         "page": page["page"], "pixels": prl.width * prl.height,
                         "n_resources": len(prl.resources.resources), "tokens": resource_tokens(prl.resources),
                         "mae": page.get("mae"), "rer": page.get("rer")})
    return rows


def complexity_plots(rows: list[dict], out_dir: Path) -> list[Path]:
    """Four scatter plots (MAE/RER x image size/resource-list length) as PNGs in ``out_dir``."""
    from webgauge.report import scatter

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for metric in ("mae", "rer"):
        for xkey, xlabel in (("pixels", "input image size (pixels)"), ("n_resources", "resource-list length")):
            pts = [(r[xkey], r[metric]) for r in rows if isinstance(r.get(metric), (int, float))]
            if not pts:
                continue
            xs, ys = zip(*pts)
            paths.append(scatter(out_dir / f"{metric}_vs_{xkey}.png", list(xs), list(ys), xlabel=xlabel,
                                 ylabel=metric.upper(), title=f"{metric.upper()} vs {xlabel}", width=5, height=3.6))
    return paths
