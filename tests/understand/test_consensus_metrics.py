"""The paper's consensus targets, robustness score and self-contrast (no browser)."""

import pytest

from webgauge.understand import (
    NO_SIGNAL,
    SAME_MEANING,
    ScoreRecord,
    centroid_answer,
    consensus_target,
    majority_answer,
    robustness_score,
    voters,
)
from webgauge.understand.embed import get_embedder
from webgauge.understand.scoring import _self_contrast
from webgauge.understand.semantic import calibrate


@pytest.fixture(scope="module")
def embedder():
    return get_embedder()


def test_centroid_counts_every_answer_with_multiplicity(embedder):
    a, b, c = "adds the item to the shopping cart", "opens the checkout page", "starts the payment"
    answers = [a] * 6 + [b, c, None]
    assert centroid_answer(answers, embedder) == a
    # deduplicating first (the old rule) would return the middle one of the three distinct answers
    assert centroid_answer([a, b, c], embedder) == b


def test_too_few_voters_and_ties_have_no_target(embedder):
    assert majority_answer(["Buy", "Buy"]) == "too few voters"
    assert majority_answer(["Buy", "Sell", "Buy", "Sell"]) == "tie"
    assert majority_answer(["Buy now", "buy now", "Sell"]) == "Buy now"
    assert centroid_answer(["a shop", None, None], embedder) == "too few voters"


def test_baselines_do_not_vote_and_a_model_does_not_vote_on_its_own_target():
    answers = {"m1": "Buy", "m2": "Buy", "m3": "Sell", "m4": "Sell", "random-guess": "Sell", "dom-heuristic": "Sell",
               "label-oracle": "Sell"}
    electorate = voters(answers)
    assert electorate == ["m1", "m2", "m3", "m4"] and set(NO_SIGNAL) <= set(answers)
    # a baseline is scored against the four models (2:2 is a tie); with the baselines voting Sell would win
    assert consensus_target(answers, "random-guess", electorate, kind="majority") == "tie"
    assert consensus_target(answers, "random-guess", voters(answers, include_baselines=True),
                            kind="majority") == "Sell"
    # leave-one-out: m1's own "Buy" does not vote on m1's target, m3's "Sell" not on m3's
    assert consensus_target(answers, "m1", electorate, kind="majority") == "Sell"
    assert consensus_target(answers, "m3", electorate, kind="majority") == "Buy"
    assert consensus_target({"m1": "Buy", "m2": "Buy", "m3": "Buy"}, "m1", ["m1", "m2", "m3"],
                            kind="majority") == "too few voters"


def test_robustness_score_is_the_papers_with_absolute_gap():
    assert robustness_score(3.0) == robustness_score(-3.0) == 85.0
    assert robustness_score(0.0) == 100.0 and robustness_score(20.0) == 0.0
    assert robustness_score(-35.0) == 0.0


def _rec(i, variant, parsed, score):
    return ScoreRecord(model="m", question=f"q{i}-{variant}", task="color", page=f"p{i % 2}", source="real",
                       difficulty="all", variant=variant, pair=f"color-p{i}", seed=0, target="Buy",
                       target_source="generator", raw=parsed, parsed=parsed, parsed_ok=True, score=score)


def test_self_contrast_counts_flips_that_the_mean_hides(embedder):
    # before: pairs 0 and 1 correct; after: pairs 1 and 2 correct -> same accuracy, half of it flipped
    before = [_rec(0, "clean", "Buy", 1.0), _rec(1, "clean", "Buy", 1.0), _rec(2, "clean", "Sell", 0.0),
              _rec(3, "clean", "Sell", 0.0)]
    after = [_rec(0, "color", "Sell", 0.0), _rec(1, "color", "Buy", 1.0), _rec(2, "color", "Buy", 1.0),
             _rec(3, "color", "Sell", 0.0)]
    res = _self_contrast(list(zip(before, after, strict=True)), embedder)
    assert res["unchanged"]["mean"] == pytest.approx(50.0)
    assert res["jaccard"] == pytest.approx(100 / 3)
    assert res["correct→wrong"]["mean"] == pytest.approx(50.0)
    assert res["wrong→correct"]["mean"] == pytest.approx(50.0)
    assert (res["correct before"], res["correct after"]) == (2, 2)


def test_same_meaning_threshold_is_the_calibrated_one(embedder):
    assert calibrate(embedder) == SAME_MEANING
