"""PNG charts for reports (matplotlib, Agg canvas, no pyplot global state).

Charts are drawn on a private ``Figure`` with the Agg canvas, so they work headless, in
threads and in worker processes, and the same data always gives the same PNG bytes (no
timestamps or software tags in the file).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

__all__ = ["bar_chart", "scatter"]

_PALETTE = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]


def _figure(width: float, height: float):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            f"plots need matplotlib ({exc}); install it with `pip install webgauge[design2code]` or `pip install "
            f"matplotlib`"
        ) from None
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: str | os.PathLike) -> Path:
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise ValueError(f"plots are written as PNG; give a path ending in .png, got {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp.png")
    fig.savefig(tmp, format="png", metadata={"Software": None})
    os.replace(tmp, path)
    return path


def bar_chart(path: str | os.PathLike, labels: Sequence[str], means: Sequence[float],
              lo: Sequence[float] | None = None, hi: Sequence[float] | None = None, *, title: str = "",
              ylabel: str = "", ylim: tuple[float, float] | None = None, horizontal: bool | None = None,
              width: float = 7.0, height: float | None = None) -> Path:
    """Bars with optional interval whiskers (``lo``/``hi`` are interval ends, not offsets).

    Long label lists turn horizontal automatically. Returns the PNG path.
    """
    n = len(labels)
    if len(means) != n or (lo is not None and len(lo) != n) or (hi is not None and len(hi) != n):
        raise ValueError(f"labels, means, lo and hi must have the same length ({n} labels, {len(means)} means)")
    if (lo is None) != (hi is None):
        raise ValueError("give both lo and hi for error bars, or neither")
    horizontal = n > 8 if horizontal is None else horizontal
    height = height or (max(3.0, 0.35 * n + 1.2) if horizontal else 4.0)
    fig = _figure(width, height)
    ax = fig.add_subplot()
    colors = [_PALETTE[i % len(_PALETTE)] for i in range(n)]
    err = None
    if lo is not None and hi is not None:
        err = [[max(0.0, m - low) for m, low in zip(means, lo, strict=True)],
               [max(0.0, h - m) for m, h in zip(means, hi, strict=True)]]
    pos = list(range(n))
    if horizontal:
        ax.barh(pos, means, xerr=err, color=colors, capsize=3, ecolor="#333333")
        ax.set_yticks(pos, labels)
        ax.invert_yaxis()
        ax.set_xlabel(ylabel)
        if ylim:
            ax.set_xlim(*ylim)
        ax.grid(axis="x", alpha=0.3)
    else:
        ax.bar(pos, means, yerr=err, color=colors, capsize=4, ecolor="#333333")
        ax.set_xticks(pos, labels, rotation=30 if max((len(s) for s in labels), default=0) > 10 else 0,
                      ha="right" if max((len(s) for s in labels), default=0) > 10 else "center")
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return _save(fig, path)


def scatter(path: str | os.PathLike, x: Sequence[float], y: Sequence[float], *, labels: Sequence[str] | None = None,
            xlabel: str = "", ylabel: str = "", title: str = "", diagonal: bool = False,
            width: float = 6.0, height: float = 5.0) -> Path:
    """A scatter plot, optionally with point labels and a ``y = x`` reference line."""
    if len(x) != len(y) or (labels is not None and len(labels) != len(x)):
        raise ValueError(f"x, y and labels must have the same length ({len(x)}, {len(y)})")
    fig = _figure(width, height)
    ax = fig.add_subplot()
    ax.scatter(x, y, s=28, color=_PALETTE[0], edgecolors="white", linewidths=0.5)
    if labels is not None:
        for xi, yi, text in zip(x, y, labels, strict=True):
            ax.annotate(str(text), (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=8)
    if diagonal and len(x):
        lo_, hi_ = min(min(x), min(y)), max(max(x), max(y))
        ax.plot([lo_, hi_], [lo_, hi_], ls="--", color="#888888", lw=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return _save(fig, path)
