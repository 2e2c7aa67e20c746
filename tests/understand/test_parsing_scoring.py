"""Answer parsers, scorers, consensus and human labels (no browser)."""

import json

import pytest

from webgauge.understand import Question, answer_text, prompt_id
from webgauge.understand.consensus import centroid_answer, majority_answer
from webgauge.understand.human import apply_human_labels, read_human_labels
from webgauge.understand.parsers import parse_button_list, parse_free_text, parse_position, parse_ui_group
from webgauge.understand.prompts import TASK_FILES, load_prompt
from webgauge.understand.scorers import (
    label_match,
    robustness_score,
    score_position,
    score_safety,
    tfidf_cosine,
    unchanged,
)

KEYS = ["1-2", "1-3", "1-4", "2-3", "2-4", "3-4"]


def test_position_parser_tolerates_chatter_markdown_and_synonyms():
    text = ("Sure! Here you go:\n**1-2: Top left**\n1-3: to the right\n(1, 4) -> below\n"
            "2-3: contains\n- 2 - 4: overlapping\n3-4: upper right")
    assert parse_position(text, KEYS) == {"1-2": "top-left", "1-3": "right", "1-4": "bottom",
                                          "2-3": "contain", "2-4": "overlap", "3-4": "top-right"}
    assert parse_position('```json\n{"1-2": "left", "3-4": "Bottom"}\n```', KEYS) == {"1-2": "left", "3-4": "bottom"}
    assert parse_position("It is above.", ["1-2"]) == {"1-2": "top"}
    assert parse_position("I cannot tell.", KEYS) is None
    assert score_position({"1-2": "left", "1-3": "top"}, {"1-2": "left", "1-3": "right"}) == 0.5
    assert score_position(None, {"1-2": "left"}) == 0.0


@pytest.mark.parametrize("text,group", [
    ("Top bar", "top bar"), ("The element is in the **header**.", "top bar"), ("footer", "bottom bar"),
    ("It sits in the left sidebar.", "left sidebar"), ("RIGHT SIDEBAR", "right sidebar"),
    ("main content", "main content"), ("This is an advertisement", "else"), ("else", "else"), ("", None),
    ("no idea", None)])
def test_ui_group_parser(text, group):
    assert parse_ui_group(text) == group


def test_button_list_and_free_text_parsers():
    assert parse_button_list("1. Delete account\n2. Submit payment") == ["Delete account", "Submit payment"]
    assert parse_button_list("**NONE**") == []
    assert parse_button_list("") is None
    assert parse_free_text('Answer: "you@example.com"') == "you@example.com"
    assert parse_free_text("   ") is None


def test_label_match_and_safety_scores():
    assert label_match("The 'Аdd tо cart' button", "Add to cart")      # look-alikes folded
    assert label_match("add to cart", "Add to cart!")
    assert not label_match("Compare products", "Add to cart")
    s = score_safety(["Delete account", "Save changes"], ["Delete account", "Submit payment"])
    assert (s["recall"], s["precision"]) == (0.5, 0.5)
    assert score_safety([], [])["false_alarm"] == 0.0
    assert score_safety(["Archive"], [])["false_alarm"] == 1.0
    assert score_safety(None, ["Delete account"])["recall"] == 0.0


def test_robustness_score_tfidf_and_unchanged():
    assert robustness_score(0) == 100 and robustness_score(20) == 0 and robustness_score(35) == 0
    assert robustness_score(-5) == 75 and robustness_score(10) == 50
    sims = tfidf_cosine(["an online store selling clothes", None], ["an online clothing store selling clothes", "x"])
    assert 0.3 < sims[0] < 1 and sims[1] == 0
    assert unchanged("Add to cart", "add to cart!") and not unchanged("Buy", None)


def test_consensus_majority_and_centroid():
    assert majority_answer(["Buy now", "buy now!", "Add to cart", None]) == "Buy now"
    assert majority_answer(["Buy now", None]) == "too few voters"

    class Emb:  # deterministic 2-d embedding for the centroid rule
        def encode(self, texts):
            import numpy as np
            return np.array([[1.0, 0.0] if "shop" in t else [0.0, 1.0] for t in texts])

    assert centroid_answer(["a shop", "a shop", "news"], Emb()) == "a shop"
    assert centroid_answer(["a shop", "shop online", "news"], Emb()) == "tie"  # two answers equally central


def test_prompts_are_versioned_files_and_answers_render():
    for task in TASK_FILES:
        assert prompt_id(task) == f"{task}@1" and load_prompt(task)
    q = Question(id="q", task="safety", page="p", source="synthetic", prompt_id="safety@1", question="?",
                 images=[], target=[], target_source="generator")
    assert answer_text(q) == "NONE"


def test_human_labels_override_and_bad_lines_are_clear(tmp_path):
    qs = [Question(id="ui_group-p-0", task="ui_group", page="p", source="real", prompt_id="ui_group@1",
                   question="?", images=[], target="main content", target_source="heuristic",
                   elements=["/html[1]/body[1]/div[1]"])]
    f = tmp_path / "labels.jsonl"
    f.write_text(json.dumps({"page": "p", "task": "ui_group", "element": "/html[1]/body[1]/div[1]",
                             "answer": "left sidebar", "annotator": "ann1"}) + "\n"
                 + json.dumps({"question_id": "nope", "answer": "x"}) + "\n")
    got = apply_human_labels(qs, read_human_labels(f))
    assert (got["applied"], got["unmatched"]) == (1, 1)
    # the automatic label the person's replaced disagreed with it: precision 0 of 1
    assert got["precision"] == {"ui_group": {"checked": 1, "agree": 0, "precision": 0.0}}
    assert (qs[0].target, qs[0].target_source) == ("left sidebar", "human")
    assert qs[0].meta["replaced_label"]["source"] == "heuristic"
    f.write_text('{"answer": "x"}\n')
    with pytest.raises(ValueError, match="question_id"):
        read_human_labels(f)
