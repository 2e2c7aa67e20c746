"""Bootstrap statistics for benchmark scores: confidence intervals and paired comparisons.

Percentile bootstrap with an explicit seed, so the same scores always give the same
interval. :func:`bootstrap_ci_grouped` resamples whole clusters (e.g. all questions of a
site, or all seeds of a task) when items inside a cluster are correlated;
:func:`paired_bootstrap` compares two systems on the same items by resampling items, which
removes the shared item difficulty from the comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["bootstrap_ci", "bootstrap_ci_grouped", "paired_bootstrap", "CI", "PairedComparison"]

_CHUNK_CELLS = 4_000_000  # resample in chunks of at most this many draws to bound memory


class CI(NamedTuple):
    """A point estimate with a ``1 - alpha`` interval: unpacks as ``mean, lo, hi``."""

    mean: float
    lo: float
    hi: float


class PairedComparison(NamedTuple):
    """``mean_diff`` (a - b) with its interval and ``p``: twice the bootstrap share on the other side of 0."""

    mean_diff: float
    lo: float
    hi: float
    p: float


def _as_array(values: Sequence[float], name: str = "values") -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a flat sequence of numbers, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: there is nothing to bootstrap (did every item fail?)")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; drop failed items (count them apart) before bootstrapping")
    return arr


def _check(n: int, alpha: float) -> None:
    if n < 1:
        raise ValueError(f"n (bootstrap resamples) must be >= 1, got {n}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")


def _resampled_means(sums: np.ndarray, counts: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n`` resamples that draw ``len(sums)`` units with replacement (ratio of sums)."""
    k = len(sums)
    out = np.empty(n)
    step = max(1, _CHUNK_CELLS // k)
    for start in range(0, n, step):
        stop = min(n, start + step)
        idx = rng.integers(0, k, size=(stop - start, k))
        out[start:stop] = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    return out


def _interval(point: float, boots: np.ndarray, alpha: float) -> CI:
    lo, hi = np.quantile(boots, [alpha / 2, 1 - alpha / 2])
    return CI(float(point), float(lo), float(hi))


def bootstrap_ci(values: Sequence[float], n: int = 2000, alpha: float = 0.05, seed: int = 0) -> CI:
    """Mean of ``values`` with a percentile bootstrap ``1 - alpha`` interval."""
    _check(n, alpha)
    arr = _as_array(values)
    rng = np.random.default_rng(seed)
    boots = _resampled_means(arr, np.ones_like(arr), n, rng)
    return _interval(arr.mean(), boots, alpha)


def _group_sums(arr: np.ndarray, groups: Sequence) -> tuple[np.ndarray, np.ndarray]:
    if len(groups) != len(arr):
        raise ValueError(f"groups has {len(groups)} labels for {len(arr)} values; give one label per value")
    index: dict = {}
    try:
        inverse = np.fromiter((index.setdefault(g, len(index)) for g in groups), dtype=np.intp, count=len(arr))
    except TypeError:
        raise TypeError("group labels must be hashable (str, int or tuples of them)") from None
    sums = np.bincount(inverse, weights=arr)
    counts = np.bincount(inverse).astype(float)
    return sums, counts


def bootstrap_ci_grouped(values: Sequence[float], groups: Sequence, n: int = 2000, alpha: float = 0.05,
                         seed: int = 0) -> CI:
    """Mean over all values, with an interval from resampling whole groups (cluster bootstrap).

    ``groups[i]`` labels the cluster of ``values[i]`` (a site, a task, a ``(task, seed)``
    pair). Each resample draws as many clusters as there are, with replacement, and takes
    the mean over all their values, so correlated items widen the interval as they should.
    """
    _check(n, alpha)
    arr = _as_array(values)
    sums, counts = _group_sums(arr, groups)
    rng = np.random.default_rng(seed)
    boots = _resampled_means(sums, counts, n, rng)
    return _interval(arr.mean(), boots, alpha)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], n: int = 2000, alpha: float = 0.05, seed: int = 0,
                     groups: Sequence | None = None) -> PairedComparison:
    """Compare systems A and B scored on the same items (``a[i]`` and ``b[i]`` are one item).

    Returns the mean difference ``a - b``, its percentile interval and ``p``, twice the
    share of resampled differences on the far side of zero (capped at 1): a bootstrap
    two-sided p-value, small when A and B reliably differ. ``groups`` resamples clusters
    of items instead of single items.
    """
    _check(n, alpha)
    xa, xb = _as_array(a, "a"), _as_array(b, "b")
    if len(xa) != len(xb):
        raise ValueError(f"paired comparison needs the same items for both systems: len(a)={len(xa)}, len(b)={len(xb)}")
    diff = xa - xb
    if groups is None:
        sums, counts = diff, np.ones_like(diff)
    else:
        sums, counts = _group_sums(diff, groups)
    rng = np.random.default_rng(seed)
    boots = _resampled_means(sums, counts, n, rng)
    ci = _interval(diff.mean(), boots, alpha)
    tail: float
    if ci.mean > 0:
        tail = float(np.mean(boots <= 0))
    elif ci.mean < 0:
        tail = float(np.mean(boots >= 0))
    else:
        tail = 0.5
    return PairedComparison(ci.mean, ci.lo, ci.hi, float(min(1.0, 2 * tail)))
