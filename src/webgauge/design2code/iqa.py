"""Image-quality-assessment (IQA) analysis: how well each metric tracks human ratings.

Input: human ratings of screenshot pairs (``rater, pair, rating``) and each metric's value
per pair. The analysis follows the MRWeb study (and VQEG practice):

1. **z-scores per rater**: ``z = (rating - mean_rater) / sd_rater`` removes each rater's
   offset and scale (a rater with zero spread carries no information and is dropped).
2. **outliers**: for pairs with at least 4 ratings, a z-score further than 2 standard
   deviations from the mean of the *other* z-scores of that pair is removed (leave-one-out,
   so one wild rating cannot hide by inflating the spread; the spread is floored at 0.5 so
   near-unanimous pairs do not flag small disagreements).
3. **MOS**: mean remaining z per pair, rescaled to 0..100 by ``100 (z + 3) / 6``; per pair
   the standard deviation of its (rescaled) ratings ``sd`` and standard error ``sd / sqrt(n)``.
4. per metric (MRWeb Table 2; every correlation an absolute value, as the paper reports):
   **|SROCC|** (Spearman; the signed value is kept as ``srocc_signed``);
   **variance-weighted linear regression** (weights ``1 / se²``) and **nonlinear logistic
   regression** (4-parameter logistic) of MOS on the metric, each reported as |CC| (Pearson of
   prediction and MOS), variance-weighted MAE and RMSE (the same ``1 / se²`` weights as the
   fit) and outlier ratio (share of pairs whose prediction error exceeds **2 standard
   deviations of that pair's ratings**, the paper's definition);
5. **tiers** (MRWeb Table 7): CC-V (variance-weighted linear), CC-N (logistic) and SROCC,
   all absolute, within low / medium / high similarity (MOS tertiles);
6. **inter-rater SROCC**: mean Spearman over rater pairs (on shared pairs) and each rater
   against the mean of the others (leave-one-out).

:func:`iqa_table` gives rows shaped like Table 2 of the MRWeb paper.
"""

from __future__ import annotations

import csv
import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Rating", "MosResult", "compute_mos", "analyze_metric", "inter_rater", "iqa_table",
           "read_ratings_csv", "read_scores_csv", "TABLE_COLUMNS", "TIER_COLUMNS", "ID_COLUMNS"]

TABLE_COLUMNS = ("metric", "n", "srocc", "lin_cc", "lin_mae", "lin_rms", "lin_or",
                 "log_cc", "log_mae", "log_rms", "log_or")
TIER_COLUMNS = ("metric", "ccv_low", "ccn_low", "srocc_low", "ccv_mid", "ccn_mid", "srocc_mid",
                "ccv_high", "ccn_high", "srocc_high")
ID_COLUMNS = ("pair", "model", "strategy", "instance", "page")
"""Columns of a per-pair scores CSV that identify the pair; every other column is a metric."""


@dataclass(frozen=True)
class Rating:
    rater: str
    pair: str
    rating: float


@dataclass
class MosResult:
    mos: dict[str, float]
    se: dict[str, float]
    n: dict[str, int]
    removed_outliers: int
    dropped_raters: list[str] = field(default_factory=list)
    z: dict[tuple[str, str], float] = field(default_factory=dict)
    sd: dict[str, float] = field(default_factory=dict)


def compute_mos(ratings: Iterable[Rating], outlier_sd: float = 2.0) -> MosResult:
    """Steps 1-3 of the module docstring."""
    ratings = list(ratings)
    if not ratings:
        raise ValueError("no ratings given")
    by_rater: dict[str, list[Rating]] = {}
    for r in ratings:
        by_rater.setdefault(r.rater, []).append(r)
    z: dict[tuple[str, str], float] = {}
    dropped = []
    for rater, rs in sorted(by_rater.items()):
        vals = np.array([r.rating for r in rs], dtype=float)
        sd = vals.std(ddof=1) if len(vals) > 1 else 0.0
        if not sd > 0:
            dropped.append(rater)
            continue
        for r in rs:
            z[(rater, r.pair)] = (r.rating - vals.mean()) / sd
    by_pair: dict[str, list[float]] = {}
    for (_rater, pair), v in z.items():
        by_pair.setdefault(pair, []).append(v)
    mos, se, sd, n, removed = {}, {}, {}, {}, 0
    for pair, pair_vals in sorted(by_pair.items()):
        arr = np.array(pair_vals)
        if len(arr) >= 4:
            keep = np.ones(len(arr), bool)
            for i in range(len(arr)):
                others = np.delete(arr, i)
                spread = max(float(others.std(ddof=1)), 0.5)
                keep[i] = abs(arr[i] - others.mean()) <= outlier_sd * spread
            removed += int((~keep).sum())
            arr = arr[keep]
        scaled = 100.0 * (arr + 3.0) / 6.0
        mos[pair] = float(scaled.mean())
        n[pair] = len(scaled)
        sd[pair] = float(scaled.std(ddof=1)) if len(scaled) > 1 else float("nan")
        se[pair] = sd[pair] / math.sqrt(len(scaled)) if len(scaled) > 1 else float("nan")
    return MosResult(mos, se, n, removed, dropped, z, sd)


def _spearman(x, y) -> float | None:
    from scipy.stats import spearmanr

    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(spearmanr(x, y).statistic)


def _fit_stats(pred: np.ndarray, y: np.ndarray, w: np.ndarray, sd: np.ndarray) -> dict[str, float]:
    """|CC|, variance-weighted MAE and RMSE (weights ``w``), and the outlier ratio: errors
    beyond 2 standard deviations of the pair's ratings."""
    err = y - pred
    cc = abs(float(np.corrcoef(pred, y)[0, 1])) if np.ptp(pred) > 0 else float("nan")
    wn = w / w.sum()
    return {"cc": cc, "mae": float((wn * np.abs(err)).sum()), "rms": float(np.sqrt((wn * err ** 2).sum())),
            "or": float((np.abs(err) > 2 * sd).mean())}


def _positive(a: np.ndarray) -> np.ndarray:
    """Non-finite or zero spreads (pairs with one rating) take the median of the others."""
    ok = np.isfinite(a) & (a > 0)
    return np.where(ok, a, np.median(a[ok]) if ok.any() else 1.0)


def _logistic(x, b1, b2, b3, b4):
    return (b1 - b2) / (1.0 + np.exp(np.clip(-(x - b3) / (np.abs(b4) + 1e-12), -60, 60))) + b2


def analyze_metric(x: np.ndarray, y: np.ndarray, se: np.ndarray, sd: np.ndarray | None = None) -> dict[str, Any]:
    """|SROCC|, weighted linear and logistic fits of MOS ``y`` on metric ``x`` (``se``: standard
    error of each MOS, the fit weights; ``sd``: standard deviation of each pair's ratings, the
    outlier threshold; without it ``se`` is used)."""
    from scipy.optimize import OptimizeWarning, curve_fit

    x, y, se = (np.asarray(a, dtype=float) for a in (x, y, se))
    se = _positive(se)
    sd = _positive(np.asarray(sd, dtype=float)) if sd is not None else se
    signed = _spearman(x, y)
    out: dict[str, Any] = {"n": int(len(x)), "srocc": abs(signed) if signed is not None else None,
                           "srocc_signed": signed}
    w = 1.0 / se ** 2
    a = np.vstack([np.ones_like(x), x]).T
    coef, *_ = np.linalg.lstsq(a * np.sqrt(w)[:, None], y * np.sqrt(w), rcond=None)
    out.update({f"lin_{k}": v for k, v in _fit_stats(a @ coef, y, w, sd).items()})
    sx = x.std() or 1.0
    increasing = (signed or 0) >= 0
    p0 = [y.max(), y.min(), float(np.median(x)), sx] if increasing else [y.min(), y.max(), float(np.median(x)), sx]
    try:
        with warnings.catch_warnings():  # an exact fit has no covariance estimate; that is fine
            warnings.simplefilter("ignore", OptimizeWarning)
            params, _ = curve_fit(_logistic, x, y, p0=p0, maxfev=20000)
        out.update({f"log_{k}": v for k, v in _fit_stats(_logistic(x, *params), y, w, sd).items()})
        out["log_params"] = [float(p) for p in params]
    except (RuntimeError, ValueError) as exc:
        out.update({f"log_{k}": None for k in ("cc", "mae", "rms", "or")})
        out["log_error"] = str(exc)
    return out


def inter_rater(ratings: Iterable[Rating]) -> dict[str, float | None]:
    """Mean pairwise and leave-one-out Spearman between raters (raw ratings, shared pairs)."""
    table: dict[str, dict[str, float]] = {}
    for r in ratings:
        table.setdefault(r.rater, {})[r.pair] = r.rating
    pairwise = []
    for a, b in combinations(sorted(table), 2):
        shared = sorted(set(table[a]) & set(table[b]))
        if len(shared) >= 3:
            s = _spearman([table[a][p] for p in shared], [table[b][p] for p in shared])
            if s is not None:
                pairwise.append(s)
    loo = []
    for a in sorted(table):
        others = [o for o in table if o != a]
        shared = [p for p in table[a] if any(p in table[o] for o in others)]
        if len(shared) >= 3:
            rest = [float(np.mean([table[o][p] for o in others if p in table[o]])) for p in shared]
            s = _spearman([table[a][p] for p in shared], rest)
            if s is not None:
                loo.append(s)
    return {"pairwise_srocc": float(np.mean(pairwise)) if pairwise else None,
            "leave_one_out_srocc": float(np.mean(loo)) if loo else None,
            "rater_pairs": len(pairwise), "raters": len(table)}


def iqa_table(ratings: list[Rating], scores: dict[str, dict[str, float]]) -> dict[str, Any]:
    """The full analysis. ``scores`` maps metric name to ``{pair: value}``."""
    mos = compute_mos(ratings)
    pairs_sorted = sorted(mos.mos, key=lambda p: mos.mos[p])
    k = len(pairs_sorted)
    tiers = {"low": pairs_sorted[: k // 3], "mid": pairs_sorted[k // 3: 2 * k // 3], "high": pairs_sorted[2 * k // 3:]}
    rows = []
    for metric, values in scores.items():
        pairs = [p for p in pairs_sorted if p in values and values[p] is not None and math.isfinite(values[p])]
        if len(pairs) < 4:
            rows.append({"metric": metric, "n": len(pairs), "note": "fewer than 4 rated pairs with a value"})
            continue
        row = {"metric": metric, **_analyze_pairs(pairs, values, mos)}
        for tier, tier_pairs in tiers.items():
            tp = [p for p in tier_pairs if p in values and values[p] is not None and math.isfinite(values[p])]
            if len(tp) < 4:
                row.update({f"ccv_{tier}": None, f"ccn_{tier}": None, f"srocc_{tier}": None})
                continue
            t = _analyze_pairs(tp, values, mos)
            row.update({f"ccv_{tier}": t["lin_cc"], f"ccn_{tier}": t["log_cc"], f"srocc_{tier}": t["srocc"]})
        rows.append(row)
    return {"rows": rows, "inter_rater": inter_rater(ratings), "n_pairs": k,
            "removed_outliers": mos.removed_outliers, "dropped_raters": mos.dropped_raters,
            "tiers": {t: len(v) for t, v in tiers.items()}, "mos": mos.mos}


def _analyze_pairs(pairs: list[str], values: dict[str, float], mos: MosResult) -> dict[str, Any]:
    return analyze_metric(np.array([values[p] for p in pairs]), np.array([mos.mos[p] for p in pairs]),
                          np.array([mos.se[p] for p in pairs]), np.array([mos.sd[p] for p in pairs]))


def read_ratings_csv(path: str | Path) -> tuple[list[Rating], dict[str, dict[str, float]]]:
    """Read ``rater,pair,rating[,metric...]``; extra numeric columns are per-pair metric values."""
    path = Path(path)
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        need = {"rater", "pair", "rating"}
        if not reader.fieldnames or not need <= set(reader.fieldnames):
            raise ValueError(f"{path}: needs columns rater,pair,rating (found {reader.fieldnames}); "
                             "metric values may follow as extra columns or come from --scores")
        extra = [c for c in reader.fieldnames if c not in need]
        ratings: list[Rating] = []
        scores: dict[str, dict[str, float]] = {m: {} for m in extra}
        for i, row in enumerate(reader, start=2):
            try:
                ratings.append(Rating(row["rater"], row["pair"], float(row["rating"])))
            except ValueError:
                raise ValueError(f"{path}:{i}: rating {row['rating']!r} is not a number") from None
            for m in extra:
                if row[m] not in ("", None):
                    scores[m][row["pair"]] = float(row[m])
    return ratings, {m: v for m, v in scores.items() if v}


def read_scores_csv(path: str | Path) -> dict[str, dict[str, float]]:
    """Read ``pair,<metric>,<metric>...`` (one row per pair), as ``design2code score`` writes
    it (``scores.csv``; the identifying columns of :data:`ID_COLUMNS` are not metrics)."""
    path = Path(path)
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or "pair" not in reader.fieldnames:
            raise ValueError(f"{path}: needs a 'pair' column and one column per metric")
        scores: dict[str, dict[str, float]] = {c: {} for c in reader.fieldnames if c not in ID_COLUMNS}
        for i, row in enumerate(reader, start=2):
            for m in scores:
                if row[m] in ("", None, "n/a"):
                    continue
                try:
                    scores[m][row["pair"]] = float(row[m])
                except ValueError:
                    raise ValueError(f"{path}:{i}: {m} value {row[m]!r} is not a number") from None
    return scores
