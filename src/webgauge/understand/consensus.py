"""Consensus ground truth across the evaluated models, for questions without a known target.

- call-to-action (color task): the majority answer among the models' clean-page answers,
  compared after normalization (ties go to the alphabetically first answer);
- free text (form filling, layout purpose): the answer nearest the semantic centroid of the
  models' clean-page answers (all-MiniLM-L6-v2 embeddings; ties alphabetical).

Unparseable answers take no part. A consensus needs at least two parsed answers.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .parsers import normalize_label

__all__ = ["majority_answer", "centroid_answer", "MIN_VOTERS"]

MIN_VOTERS = 2


def majority_answer(answers: list[str | None]) -> str | None:
    """The most common normalized answer (returned in its first original spelling)."""
    parsed = [a for a in answers if a]
    if len(parsed) < MIN_VOTERS:
        return None
    counts = Counter(normalize_label(a) for a in parsed)
    best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return next(a for a in parsed if normalize_label(a) == best)


def centroid_answer(answers: list[str | None], embedder) -> str | None:
    """The answer closest (cosine) to the mean embedding of all answers."""
    parsed = sorted({a for a in answers if a})
    if len([a for a in answers if a]) < MIN_VOTERS:
        return None
    vecs = embedder.encode(parsed)
    centroid = vecs.mean(axis=0)
    sims = vecs @ centroid
    return parsed[int(np.argmax(sims))]
