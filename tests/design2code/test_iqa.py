"""IQA analysis on ratings generated from a known opinion score."""

import numpy as np
import pytest

from webgauge.design2code.iqa import (
    Rating,
    analyze_metric,
    compute_mos,
    inter_rater,
    iqa_table,
    read_ratings_csv,
    read_scores_csv,
)


def make_ratings(seed=0, n_pairs=30):
    rng = np.random.default_rng(seed)
    quality = np.linspace(1, 9, n_pairs)
    ratings = []
    # four raters with different offsets and scales but the same order, plus small noise
    for k, (off, scale) in enumerate([(0, 1), (2, 0.5), (-1, 2), (0.5, 1.5)]):
        for i, q in enumerate(quality):
            ratings.append(Rating(f"r{k}", f"p{i:02d}", off + scale * q + rng.normal(0, 0.05)))
    return ratings, quality


def test_zscores_remove_rater_offset_and_scale():
    ratings, quality = make_ratings()
    mos = compute_mos(ratings)
    got = np.array([mos.mos[f"p{i:02d}"] for i in range(len(quality))])
    assert np.all(np.diff(got) > 0)                       # MOS order = true order
    assert np.corrcoef(got, quality)[0, 1] > 0.999
    assert mos.removed_outliers == 0 and mos.dropped_raters == []


def test_outlier_rating_is_removed_and_flat_rater_dropped():
    ratings, _ = make_ratings()
    # a fifth rater agrees except on one pair, where they give the top score to the worst page
    ratings += [Rating("r4", f"p{i:02d}", float(i)) for i in range(30)]
    ratings[-30] = Rating("r4", "p00", 29.0)
    ratings += [Rating("flat", f"p{i:02d}", 5.0) for i in range(30)]
    mos = compute_mos(ratings)
    assert mos.removed_outliers >= 1 and mos.dropped_raters == ["flat"]
    assert mos.n["p00"] == 4


def test_metric_table_known_relations():
    ratings, quality = make_ratings()
    pairs = [f"p{i:02d}" for i in range(len(quality))]
    rng = np.random.default_rng(1)
    scores = {
        "mae": {p: 100 - 10 * q for p, q in zip(pairs, quality, strict=True)},          # decreasing, linear
        # MOS is linear in quality, so MOS is an exact logistic of logit(quality)
        "nemd": {p: float(np.log((q - 0.5) / (9.5 - q))) for p, q in zip(pairs, quality, strict=True)},
        "noise": {p: float(v) for p, v in zip(pairs, rng.random(len(pairs)), strict=True)},
    }
    out = iqa_table(ratings, scores)
    rows = {r["metric"]: r for r in out["rows"]}
    assert rows["mae"]["srocc"] == pytest.approx(1.0) and rows["mae"]["srocc_signed"] == pytest.approx(-1.0)
    assert abs(rows["mae"]["lin_cc"]) > 0.999 and rows["mae"]["lin_rms"] < 1.0
    assert rows["nemd"]["srocc"] == pytest.approx(1.0)
    assert rows["nemd"]["log_cc"] > 0.999 and rows["nemd"]["log_rms"] < rows["nemd"]["lin_rms"]
    assert abs(rows["noise"]["srocc"]) < 0.5
    assert out["tiers"] == {"low": 10, "mid": 10, "high": 10}
    assert rows["mae"]["srocc_low"] == pytest.approx(1.0)             # |SROCC| per tier
    assert rows["mae"]["ccv_low"] > 0.99 and rows["nemd"]["ccn_high"] > 0.99
    assert abs(rows["noise"]["ccv_mid"]) < 0.9
    ir = inter_rater(ratings)
    assert ir["pairwise_srocc"] > 0.99 and ir["raters"] == 4 and ir["rater_pairs"] == 6


def test_read_ratings_csv_with_metric_columns(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("rater,pair,rating,mae\na,x,3,10\nb,x,4,10\n")
    ratings, scores = read_ratings_csv(p)
    assert len(ratings) == 2 and scores == {"mae": {"x": 10.0}}
    (tmp_path / "bad.csv").write_text("who,what\n1,2\n")
    with pytest.raises(ValueError, match="rater,pair,rating"):
        read_ratings_csv(tmp_path / "bad.csv")


def test_outlier_ratio_uses_rating_sd_and_errors_are_variance_weighted():
    # residuals of the (weighted) linear fit are exactly e: e is orthogonal to [1, x] in both
    # the plain and the weighted inner product, so the fitted line is y = 2x
    x = np.arange(10.0)
    e = np.zeros(10)
    e[[1, 8]], e[[4, 5]] = 4.0, -4.0
    y = 2 * x + e
    se = np.where(e != 0, 0.5, 1.0)                         # weights 4 on the four errors, 1 elsewhere
    out = analyze_metric(x, y, se, sd=np.full(10, 3.0))
    assert out["lin_or"] == 0.0                             # |4| < 2 x 3 (the standard error would flag 4)
    assert out["lin_mae"] == pytest.approx(4 * 16 / 22)     # weighted, not the plain 1.6
    assert out["lin_rms"] == pytest.approx(np.sqrt(4 * 64 / 22))
    assert analyze_metric(x, y, se, sd=np.full(10, 1.5))["lin_or"] == pytest.approx(0.4)
    assert out["lin_cc"] > 0 and analyze_metric(-x, y, se)["lin_cc"] == pytest.approx(out["lin_cc"])


def test_scores_csv_ignores_identifying_columns(tmp_path):
    p = tmp_path / "scores.csv"
    p.write_text("pair,model,strategy,instance,page,mae,nemd\nzs/a/index.html,baseline,zs,a,index.html,12.5,0.9\n")
    assert read_scores_csv(p) == {"mae": {"zs/a/index.html": 12.5}, "nemd": {"zs/a/index.html": 0.9}}
    p.write_text("pair,mae\nx,abc\n")
    with pytest.raises(ValueError, match="not a number"):
        read_scores_csv(p)
