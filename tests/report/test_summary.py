"""The scoring kit: grouped means with cluster intervals, missing metrics, paired comparisons."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from webgauge.report import compare, summarize


@dataclass
class Score:
    model: str
    page: str
    question: str
    correct: float | None


def _scores(seed: int = 1) -> list[Score]:
    """Two models on 30 pages x 8 questions; the page drives difficulty (a strong cluster effect)."""
    rng = np.random.default_rng(seed)
    out = []
    for p in range(30):
        easy = rng.random() < 0.5
        for q in range(8):
            out.append(Score("a", f"p{p}", f"p{p}q{q}", float(easy or rng.random() < 0.2)))
            out.append(Score("b", f"p{p}", f"p{p}q{q}", float(easy and rng.random() < 0.7)))
    return out


def test_groups_and_means_are_exact():
    recs = [Score("a", "p1", "q1", 1.0), Score("a", "p2", "q2", 0.0), Score("a", "p2", "q3", 1.0),
            Score("b", "p1", "q1", 0.0), Score("b", "p2", "q2", None)]
    rows = summarize(recs, "correct", by="model", cluster="page")
    assert [r.group for r in rows] == [{"model": "a"}, {"model": "b"}]
    a, b = rows
    assert a.mean == pytest.approx(2 / 3) and a.n == 3 and a.clusters == 2 and a.n_missing == 0
    assert a.lo <= a.mean <= a.hi and a.lo < a.hi
    # one scored record in one cluster: the interval is the point; the None is counted, not scored
    assert (b.mean, b.lo, b.hi, b.n, b.clusters, b.n_missing) == (0.0, 0.0, 0.0, 1, 1, 1)


def test_all_missing_group_is_reported_unscored():
    rows = summarize([Score("a", "p1", "q", None)], "correct", by="model", cluster="page")
    assert rows[0].n == 0 and rows[0].n_missing == 1 and math.isnan(rows[0].mean)


def test_cluster_interval_is_wider_than_an_item_interval():
    recs = [r for r in _scores() if r.model == "a"]
    clustered = summarize(recs, "correct", cluster="page")[0]
    naive = summarize(recs, "correct", cluster="question")[0]
    assert clustered.mean == naive.mean
    assert (clustered.hi - clustered.lo) > 1.5 * (naive.hi - naive.lo)


def test_same_input_same_interval_and_seed_changes_it():
    recs = _scores()
    one = summarize(recs, "correct", by="model", cluster="page")
    two = summarize(list(reversed(recs)), "correct", by="model", cluster="page")
    assert [(r.lo, r.hi) for r in one] == [(r.lo, r.hi) for r in two]
    other = summarize(recs, "correct", by="model", cluster="page", seed=5)
    assert [(r.lo, r.hi) for r in other] != [(r.lo, r.hi) for r in one]


def test_callable_keys_and_dict_records():
    recs = [{"m": "x", "page": "p1", "v": 2}, {"m": "x", "page": "p2", "v": 4}]
    rows = summarize(recs, lambda r: r["v"] / 2, by=lambda r: r["m"].upper(), cluster="page")
    assert rows[0].mean == pytest.approx(1.5)
    with pytest.raises(KeyError, match="no field 'missing'"):
        summarize(recs, "missing", cluster="page")


def test_compare_pairs_items_and_finds_the_better_system():
    recs = _scores()
    recs.append(Score("a", "p99", "only-a", 1.0))  # unpaired: left out
    (c,) = compare(recs, "correct", system="model", a="a", b="b", item="question", cluster="page")
    assert c.n == 240 and c.clusters == 30
    a = np.mean([r.correct for r in recs if r.model == "a" and r.question != "only-a"])
    b = np.mean([r.correct for r in recs if r.model == "b"])
    assert c.mean_diff == pytest.approx(a - b)
    assert c.lo > 0 and c.p < 0.05
    (same,) = compare(recs, "correct", system="model", a="a", b="a", item="question", cluster="page")
    assert same.mean_diff == 0
