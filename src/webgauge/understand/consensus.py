"""Consensus ground truth across the evaluated models (WebRSSBench §4.4).

For questions without a known target the paper takes the models' own answers as reference:

- call-to-action (color task): the answer most models gave (:func:`majority_answer`, compared
  after normalization);
- free text (text robustness, form filling, layout purpose): the answer closest to the
  semantic centroid of **all** answers, counted with multiplicity (:func:`centroid_answer`;
  six votes for A, one for B and one for C return A).

Who votes (:func:`voters`): the models under evaluation, leaving out the no-signal
baselines (:data:`NO_SIGNAL`: ``random-guess`` answers at random, ``dom-heuristic`` reads the
DOM, ``label-oracle`` answers the label), and leave-one-out: a model's own answer never votes on the target it is scored
against (:func:`consensus_target`). An item with fewer than :data:`MIN_VOTERS` parsed votes,
or whose majority (or nearest-to-centroid answer) is tied, has no consensus target: it is
excluded from scoring and counted (``target_source`` says why), never scored against a
coin flip.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .parsers import normalize_label

__all__ = ["majority_answer", "centroid_answer", "consensus_target", "voters", "MIN_VOTERS", "NO_SIGNAL",
           "NoConsensus"]

MIN_VOTERS = 3
NO_SIGNAL = ("random-guess", "label-oracle", "dom-heuristic")
"""Baselines that carry no signal about what a page means; they never vote."""


class NoConsensus(str):
    """Why an item has no consensus target (a ``str``: ``"too few voters"`` or ``"tie"``)."""


def voters(models, *, include_baselines: bool = False) -> list[str]:
    """The models whose answers vote: every model of the run except the no-signal baselines."""
    return sorted(m for m in models if include_baselines or m not in NO_SIGNAL)


def _votes(answers) -> list[str]:
    return [a for a in answers if a]


def majority_answer(answers: list[str | None]) -> str | NoConsensus:
    """The most common normalized answer (in its first original spelling), or why there is none."""
    parsed = _votes(answers)
    if len(parsed) < MIN_VOTERS:
        return NoConsensus("too few voters")
    counts = Counter(normalize_label(a) for a in parsed).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return NoConsensus("tie")
    best = counts[0][0]
    return next(a for a in parsed if normalize_label(a) == best)


def centroid_answer(answers: list[str | None], embedder) -> str | NoConsensus:
    """The answer closest (cosine) to the mean embedding of all answers, with multiplicity."""
    parsed = _votes(answers)
    if len(parsed) < MIN_VOTERS:
        return NoConsensus("too few voters")
    vecs = embedder.encode(parsed)  # one row per vote: duplicates weigh in the centroid
    centroid = vecs.mean(axis=0)
    sims = vecs @ centroid
    best = float(np.max(sims))
    winners = sorted({parsed[i] for i in np.flatnonzero(sims >= best - 1e-6)})
    if len(winners) > 1:
        return NoConsensus("tie")
    return winners[0]


def consensus_target(answers: dict[str, str | None], scored: str, electorate, *, kind: str,
                     embedder=None) -> str | NoConsensus:
    """The consensus target that ``scored``'s answer is compared with.

    ``answers`` maps model to its (parsed) answer on the reference question; ``electorate``
    are the voting models (see :func:`voters`); ``scored`` does not vote on its own target.
    ``kind`` is ``"majority"`` or ``"centroid"``.
    """
    votes = [answers.get(m) for m in electorate if m != scored]
    if kind == "majority":
        return majority_answer(votes)
    if kind == "centroid":
        if embedder is None:
            raise ValueError("a centroid consensus needs the sentence embedder")
        return centroid_answer(votes, embedder)
    raise ValueError(f"unknown consensus kind {kind!r}; use 'majority' or 'centroid'")
