"""When two free-text answers say the same thing: the semantic-equivalence threshold.

The paper's self-contrast (Table 3) counts a free-text output as unchanged when it keeps
"basic semantic equivalence" before and after a perturbation, without a number. Ours: the
all-MiniLM-L6-v2 cosine of the two answers is at least :data:`SAME_MEANING`. The threshold
was calibrated on the pairs below, which we wrote for the two free-text robustness tasks
(what a button does, what a page is for): :data:`PARAPHRASES` say the same thing in other
words, :data:`DIFFERENT` are plausible answers that mean something else. :func:`calibrate`
returns the cut that classifies most of these pairs right (26 of 28 at 0.465: "logs you out"
vs "logs you into your account" scores 0.63, and two loose paraphrases score below it);
``tests/understand/test_consensus_metrics.py`` re-checks that the constant still separates them.
"""

from __future__ import annotations

__all__ = ["SAME_MEANING", "PARAPHRASES", "DIFFERENT", "calibrate", "same_meaning"]

PARAPHRASES = [
    ("adds the product to the shopping cart", "puts this item in your cart"),
    ("deletes the user's account permanently", "permanently removes your account"),
    ("submits the form", "sends the form data"),
    ("starts a free trial", "begins a free trial period"),
    ("signs the user in", "logs you into your account"),
    ("subscribes to the newsletter", "signs up for the email newsletter"),
    ("opens the search", "lets you search the site"),
    ("downloads the app", "gets the application download"),
    ("an online store selling shoes", "a shop where you can buy shoes online"),
    ("a portfolio of a freelance photographer", "a photographer's personal portfolio site"),
    ("a restaurant's homepage with its menu and reservations",
     "the website of a restaurant where you can book a table and see the menu"),
    ("a blog about travel", "a travel blog"),
    ("contact the company", "get in touch with the company"),
    ("cancels the order", "calls off your purchase order"),
]
DIFFERENT = [
    ("adds the product to the shopping cart", "deletes the user's account permanently"),
    ("submits the form", "opens the search"),
    ("starts a free trial", "cancels the order"),
    ("signs the user in", "downloads the app"),
    ("subscribes to the newsletter", "adds the product to the shopping cart"),
    ("an online store selling shoes", "a blog about travel"),
    ("a portfolio of a freelance photographer", "a restaurant's homepage with its menu and reservations"),
    ("a travel blog", "an online bank login page"),
    ("contact the company", "buy a ticket"),
    ("signs the user in", "creates a new account"),
    ("logs you out", "logs you into your account"),
    ("a university department page", "a shop where you can buy shoes online"),
    ("shows the next image", "deletes the photo"),
    ("opens the pricing page", "signs the user in"),
]

SAME_MEANING = 0.465
"""Cosine at or above which two answers count as the same meaning (see :func:`calibrate`)."""


def calibrate(embedder) -> float:
    """The cut between two consecutive observed cosines that classifies the most pairs right
    (ties go to the stricter, higher cut), rounded to 0.001."""
    pos = embedder.cosine([a for a, _ in PARAPHRASES], [b for _, b in PARAPHRASES])
    neg = embedder.cosine([a for a, _ in DIFFERENT], [b for _, b in DIFFERENT])
    vals = sorted(set(pos) | set(neg))
    cuts = [(x + y) / 2 for x, y in zip(vals, vals[1:], strict=False)]
    best = max(cuts, key=lambda t: (sum(p >= t for p in pos) + sum(n < t for n in neg), t))
    return round(best, 3)


def same_meaning(embedder, a: list[str], b: list[str], threshold: float = SAME_MEANING) -> list[bool]:
    """``a[i]`` and ``b[i]`` mean the same (cosine at or above ``threshold``)."""
    return [s >= threshold for s in embedder.cosine(a, b)]
