"""Text robustness on real pages: the paper's kinds are tried in seeded order until one gives a
kept pair (the homoglyph is never the page's kind), and a label inside a child element of the
button is perturbable (its invariance check allows the button's descendants)."""

from __future__ import annotations

import random

import pytest

from webgauge.perturb import EXTRA_TEXT_KINDS, PAPER_TEXT_KINDS
from webgauge.understand import read_questions
from webgauge.understand.build import build_benchmark
from webgauge.understand.tasks.robustness import text_kind_order

# 12633: "SEARCH" sits in a <div> inside the button; 15601, 6440: the label is in a child element too;
# 13365: only an icon button (its label is an aria-label, no text to perturb)
PAGES = ("12633", "15601", "6440", "13365")


def test_kind_order_is_seeded_and_paper_only():
    orders = {tuple(text_kind_order(random.Random(s), s)) for s in range(40)}
    assert all(sorted(o) == sorted(PAPER_TEXT_KINDS) for o in orders)
    assert not any(k in o for o in orders for k in EXTRA_TEXT_KINDS)
    assert len(orders) > 10  # a seeded order, not one fixed list
    assert text_kind_order(random.Random(7), 7) == text_kind_order(random.Random(7), 7)


@pytest.mark.browser
def test_every_real_page_with_a_text_button_keeps_a_text_pair(tmp_path, real_pages_dir):
    m = build_benchmark(tmp_path / "b", seed=3, synthetic=0, tasks=["text"], progress=False,
                        pages=[real_pages_dir / f"{n}.html" for n in PAGES])
    assert m["failures"] == []
    qs = read_questions(tmp_path / "b")
    kept = {q.page for q in qs}
    assert kept == {f"real-{n}" for n in PAGES[:3]}, (kept, m["dropped"])
    assert m["dropped"] == {"text:no_button_text": 1}  # the icon-only page: the task does not apply
    assert not any(k.endswith("check_failed") for k in m["dropped"])
    assert m["task_pages"]["text"] == {"kept": 3, "lost": 0, "not_applicable": 1, "yield": 1.0}
    for q in qs:
        if q.variant == "clean":
            assert q.difficulty in PAPER_TEXT_KINDS  # the page's kind is one of the paper's
            pair = [p for p in qs if p.pair == q.pair and p.variant == f"text-{q.difficulty}"]
            assert len(pair) == 1 and pair[0].meta["perturbed_label"] != q.target
            # each kind rejected on the kept button came before the kept one (a button that no kind visibly
            # changed, e.g. 6440's "SHARE" whose first text is a visually hidden "SHARE ON FACEBOOK", went first)
            tried = [f["kind"] for f in q.meta["fallbacks"] if f["button"] == q.elements[0]]
            assert q.difficulty not in tried and len(tried) == len(set(tried))
