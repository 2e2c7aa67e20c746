"""Bootstrap statistics against distributions with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from webgauge.report.stats import bootstrap_ci, bootstrap_ci_grouped, paired_bootstrap


def test_bootstrap_ci_matches_normal_theory_and_is_seeded():
    rng = np.random.default_rng(1)
    x = rng.normal(10.0, 2.0, size=400)
    mean, lo, hi = bootstrap_ci(x, n=4000, seed=3)
    assert mean == pytest.approx(x.mean())
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert lo < mean < hi
    assert hi - lo == pytest.approx(2 * 1.96 * se, rel=0.1)  # width of the normal-theory 95% interval
    assert bootstrap_ci(x, n=4000, seed=3) == (mean, lo, hi)
    assert bootstrap_ci(x, n=4000, seed=4) != (mean, lo, hi)
    assert bootstrap_ci([0.7]) == (0.7, 0.7, 0.7)


def test_bootstrap_ci_covers_the_true_mean_about_95_percent():
    rng = np.random.default_rng(0)
    covered = 0
    trials = 300
    for t in range(trials):
        x = rng.binomial(1, 0.6, size=80)  # accuracy-like scores with true mean 0.6
        _, lo, hi = bootstrap_ci(x, n=500, seed=t)
        covered += lo <= 0.6 <= hi
    assert 0.89 <= covered / trials <= 0.99


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="empty"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_ci([1.0, float("nan")])
    with pytest.raises(ValueError, match="alpha"):
        bootstrap_ci([1.0], alpha=1.5)
    with pytest.raises(ValueError, match="one label per value"):
        bootstrap_ci_grouped([1.0, 2.0], ["a"])
    with pytest.raises(ValueError, match="same items"):
        paired_bootstrap([1, 2], [1])


def test_grouped_bootstrap_widens_for_correlated_clusters():
    rng = np.random.default_rng(2)
    cluster_effects = rng.normal(0, 1.0, size=20)
    groups = np.repeat(np.arange(20), 30)
    x = cluster_effects[groups] + rng.normal(0, 0.2, size=groups.size)
    naive = bootstrap_ci(x, n=2000, seed=0)
    grouped = bootstrap_ci_grouped(x, groups.tolist(), n=2000, seed=0)
    assert grouped.mean == pytest.approx(x.mean())
    # The cluster mean's standard error is ~sd(effects)/sqrt(20); the naive one pretends there are 600 draws.
    se_clusters = np.std([x[groups == g].mean() for g in range(20)], ddof=1) / np.sqrt(20)
    assert grouped.hi - grouped.lo == pytest.approx(2 * 1.96 * se_clusters, rel=0.2)
    assert (grouped.hi - grouped.lo) > 3 * (naive.hi - naive.lo)
    # Tuple labels (task, seed) work; singleton groups equal the plain bootstrap.
    tuples = [("task", int(g) % 5, int(g)) for g in groups]
    assert bootstrap_ci_grouped(x, tuples, seed=0) == grouped
    assert bootstrap_ci_grouped(x[:50], list(range(50)), seed=0) == bootstrap_ci(x[:50], seed=0)


def test_paired_bootstrap_detects_a_real_difference_and_not_a_null_one():
    rng = np.random.default_rng(5)
    difficulty = rng.normal(0, 3.0, size=200)  # shared per-item difficulty dwarfs the effect
    a = difficulty + 0.5 + rng.normal(0, 0.5, size=200)
    b = difficulty + rng.normal(0, 0.5, size=200)
    d, lo, hi, p = paired_bootstrap(a, b, n=4000, seed=1)
    assert d == pytest.approx(np.mean(a - b)) and lo > 0 and p < 0.01
    assert lo < 0.5 < hi
    # An unpaired interval on the same data would straddle zero: pairing is what makes the difference visible.
    ma, la, ha = bootstrap_ci(a, seed=1)
    mb, lb, hb = bootstrap_ci(b, seed=1)
    assert la < hb
    c = difficulty + rng.normal(0, 0.5, size=200)
    d0, lo0, hi0, p0 = paired_bootstrap(c, b, n=4000, seed=1)
    assert lo0 < 0 < hi0 and p0 > 0.05
    assert paired_bootstrap(b, b).p == 1.0
    # Swapping the systems flips the sign and keeps p.
    swapped = paired_bootstrap(b, a, n=4000, seed=1)
    assert swapped.mean_diff == pytest.approx(-d) and swapped.p == pytest.approx(p, abs=0.01)
    grouped = paired_bootstrap(a, b, groups=[i // 10 for i in range(200)], seed=1)
    assert grouped.lo > 0
