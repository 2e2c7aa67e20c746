"""The one scoring kit: grouped means with cluster-bootstrap intervals, and paired comparisons.

Every suite's report goes through :func:`summarize` and :func:`compare`. Items of a
benchmark are rarely independent (one page yields many questions, one task instance many
repeats), so intervals always resample **clusters**, which each suite names: understand
clusters by page, design2code by instance, arena by task instance. One default number
of resamples (:data:`RESAMPLES`) and one seed (:data:`SEED`) make every interval in every
report reproducible.

``records`` are typed records (or any objects or dicts); ``metric``, ``by`` and
``cluster`` are field names or functions of a record. A metric that returns ``None``
does not apply to that record: it is left out and counted in ``n_missing``.

>>> rows = summarize(scores, "correct", by=("model", "task"), cluster="page")
>>> rows[0].group, rows[0].mean, rows[0].lo, rows[0].hi, rows[0].n, rows[0].clusters
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .stats import bootstrap_ci_grouped, paired_bootstrap

__all__ = ["Summary", "Comparison", "summarize", "compare", "RESAMPLES", "SEED", "ALPHA"]

RESAMPLES = 2000
"""Bootstrap resamples for every interval webgauge reports."""
SEED = 0
"""Seed of every bootstrap webgauge reports."""
ALPHA = 0.05
"""Intervals are 95%."""

Key = str | Callable[[Any], Any]


@dataclass(frozen=True)
class Summary:
    """One group's mean with its cluster-bootstrap interval.

    ``group`` maps each ``by`` key to its value; ``n`` counts the records scored,
    ``clusters`` the distinct clusters among them, ``n_missing`` the records in the group
    whose metric did not apply (``None``). With a single cluster the interval is the
    point itself (nothing to resample) and ``lo == hi == mean``.
    """

    group: dict
    mean: float
    lo: float
    hi: float
    n: int
    clusters: int
    n_missing: int = 0

    def to_dict(self) -> dict:
        return {**self.group, "mean": self.mean, "lo": self.lo, "hi": self.hi, "n": self.n,
                "clusters": self.clusters, "n_missing": self.n_missing}


@dataclass(frozen=True)
class Comparison:
    """``a - b`` on the records both systems share, paired and clustered."""

    a: Any
    b: Any
    group: dict
    mean_diff: float
    lo: float
    hi: float
    p: float
    n: int
    clusters: int


def _getter(key: Key, what: str) -> Callable[[Any], Any]:
    if callable(key):
        return key
    if not isinstance(key, str):
        raise TypeError(f"{what} must be a field name or a function of a record, got {key!r}")

    def get(rec: Any) -> Any:
        if isinstance(rec, dict):
            if key not in rec:
                raise KeyError(f"record has no field {key!r} (needed as {what}); fields: {sorted(rec)}")
            return rec[key]
        try:
            return getattr(rec, key)
        except AttributeError:
            raise KeyError(f"{type(rec).__name__} record has no field {key!r} (needed as {what})") from None

    return get


def _by_getters(by: Key | Sequence[Key] | None) -> list[tuple[str, Callable[[Any], Any]]]:
    if by is None:
        return []
    keys = [by] if isinstance(by, str) or callable(by) else list(by)
    return [(k if isinstance(k, str) else getattr(k, "__name__", f"by{i}"), _getter(k, "by"))
            for i, k in enumerate(keys)]


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    v = float(value)
    if math.isnan(v):
        return None
    if math.isinf(v):
        raise ValueError("a metric value is infinite; record the failure apart instead of scoring it")
    return v


def _sort_key(group: tuple) -> tuple:
    return tuple((0, v) if isinstance(v, (int, float)) else (1, str(v)) for v in group)


def summarize(records: Iterable[Any], metric: Key, *, by: Key | Sequence[Key] | None = None,
              cluster: Key, n: int = RESAMPLES, seed: int = SEED, alpha: float = ALPHA) -> list[Summary]:
    """Mean of ``metric`` per group of ``by``, each with a cluster-bootstrap ``1 - alpha`` interval.

    Groups come back sorted by their key values. A group whose records all lack the
    metric is still returned, with ``n == 0`` and NaN mean and interval, so a table shows
    that it exists but was not scored.
    """
    get_metric = _getter(metric, "metric")
    get_cluster = _getter(cluster, "cluster")
    getters = _by_getters(by)
    values: dict[tuple, list[float]] = {}
    clusters: dict[tuple, list] = {}
    missing: dict[tuple, int] = {}
    for rec in records:
        key = tuple(g(rec) for _, g in getters)
        values.setdefault(key, [])
        clusters.setdefault(key, [])
        v = _number(get_metric(rec))
        if v is None:
            missing[key] = missing.get(key, 0) + 1
            continue
        values[key].append(v)
        clusters[key].append(get_cluster(rec))
    out = []
    for key in sorted(values, key=_sort_key):
        vals, cls = values[key], clusters[key]
        group = {name: val for (name, _), val in zip(getters, key, strict=True)}
        if not vals:
            out.append(Summary(group, math.nan, math.nan, math.nan, 0, 0, missing.get(key, 0)))
            continue
        k = len(set(cls))
        if k < 2:
            m = sum(vals) / len(vals)
            out.append(Summary(group, m, m, m, len(vals), k, missing.get(key, 0)))
            continue
        # order-independent: the same records in any order give the same interval
        order = sorted(range(len(vals)), key=lambda i: (str(cls[i]), vals[i]))
        ci = bootstrap_ci_grouped([vals[i] for i in order], [cls[i] for i in order], n=n, alpha=alpha, seed=seed)
        out.append(Summary(group, ci.mean, ci.lo, ci.hi, len(vals), k, missing.get(key, 0)))
    return out


def compare(records: Iterable[Any], metric: Key, *, system: Key, a: Any, b: Any, item: Key, cluster: Key,
            by: Key | Sequence[Key] | None = None, n: int = RESAMPLES, seed: int = SEED,
            alpha: float = ALPHA) -> list[Comparison]:
    """Paired comparison of system ``a`` against ``b`` on the items both were scored on.

    ``system`` names which system produced a record (a model, an agent); ``item`` pairs
    records across systems (a question, an episode's task instance and repeat);
    ``cluster`` groups items for the bootstrap. Items only one system scored are left out.
    """
    get_metric, get_sys = _getter(metric, "metric"), _getter(system, "system")
    get_item, get_cluster = _getter(item, "item"), _getter(cluster, "cluster")
    getters = _by_getters(by)
    table: dict[tuple, dict[Any, dict[Any, tuple[float, Any]]]] = {}
    for rec in records:
        s = get_sys(rec)
        if s != a and s != b:
            continue
        v = _number(get_metric(rec))
        if v is None:
            continue
        key = tuple(g(rec) for _, g in getters)
        table.setdefault(key, {}).setdefault(get_item(rec), {})[s] = (v, get_cluster(rec))
    out = []
    for key in sorted(table, key=_sort_key):
        pairs = [(d[a], d[b]) for _, d in sorted(table[key].items(), key=lambda kv: str(kv[0])) if a in d and b in d]
        if not pairs:
            continue
        xa = [p[0][0] for p in pairs]
        xb = [p[1][0] for p in pairs]
        groups = [p[0][1] for p in pairs]
        group = {name: val for (name, _), val in zip(getters, key, strict=True)}
        k = len(set(groups))
        if k < 2:
            d = sum(x - y for x, y in zip(xa, xb, strict=True)) / len(xa)
            out.append(Comparison(a, b, group, d, d, d, 1.0, len(xa), k))
            continue
        pc = paired_bootstrap(xa, xb, n=n, alpha=alpha, seed=seed, groups=groups)
        out.append(Comparison(a, b, group, pc.mean_diff, pc.lo, pc.hi, pc.p, len(xa), k))
    return out
