"""Design2Code's block matching: merge neighbouring blocks while it helps, then match.

The similarity of two blocks is ``difflib.SequenceMatcher(None, a.text, b.text).ratio()`` and the
cost of a pair its negative. Matching is an optimal assignment (Hungarian) of candidate blocks to
reference blocks. Before the final match, each side in turn tries merging every pair of
consecutive blocks (texts joined by a space, the union box, colours averaged with ``//``); a merge
is kept when it improves the matched costs by more than 0.05 (:func:`merge_gain`, the difference
of the means of the costs the two matchings do not share). Gains are taken best first, a block
takes part in one merge per round, and rounds repeat until neither side changes. The final
assignment adds a context bonus: a pair more similar than 0.5 gains 0.1 times the sum of the two
best costs among its neighbours in a 3x3 window.

Pairs less similar than 0.5 are then dropped (:data:`MIN_SIMILARITY`).

The result equals the reference's: the cost matrices hold the same numbers (a merge changes one
row or column, the others are reused rather than recomputed), so the assignments are the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

import numpy as np
from scipy.optimize import linear_sum_assignment

from webgauge.design2code.d2c.blocks import TextBlock

__all__ = ["similarity", "merge_pair", "merge_gain", "context_costs", "match_blocks", "MIN_SIMILARITY",
           "MERGE_GAIN", "CONTEXT_BONUS", "CONTEXT_WINDOW"]

MIN_SIMILARITY = 0.5
MERGE_GAIN = 0.05
CONTEXT_BONUS = 0.1
CONTEXT_WINDOW = 1


def similarity(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b).ratio()


def merge_pair(a: TextBlock, b: TextBlock) -> TextBlock:
    """``a`` and ``b`` as one block: texts joined by a space, the union box, colours ``(x + y) // 2``."""
    ax, ay, aw, ah = a.bbox
    bx, by, bw, bh = b.bbox
    x0, y0 = min(ax, bx), min(ay, by)
    x1, y1 = max(ax + aw, bx + bw), max(ay + ah, by + bh)
    c = tuple((p + q) // 2 for p, q in zip(a.color, b.color, strict=True))
    return TextBlock(a.text + " " + b.text, (x0, y0, x1 - x0, y1 - y0), (c[0], c[1], c[2]))


def _costs(a: Sequence[TextBlock], b: Sequence[TextBlock]) -> np.ndarray:
    m = np.zeros((len(a), len(b)))
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            m[i, j] = -similarity(x.text, y.text)
    return m


def context_costs(costs: np.ndarray, bonus: float = CONTEXT_BONUS, window: int = CONTEXT_WINDOW) -> np.ndarray:
    """The costs with the context bonus: each cost below -0.5 adds ``bonus`` times the sum of the
    ``2 * window`` lowest other costs in its ``(2 * window + 1)``-square neighbourhood."""
    if window <= 0:
        return costs
    n, m = costs.shape
    out = costs.copy()
    for i in range(n):
        for j in range(m):
            if out[i, j] >= -0.5:
                continue
            near = np.sort(costs[max(0, i - window):min(n, i + window + 1),
                                 max(0, j - window):min(m, j + window + 1)].ravel())[::-1]
            near = np.delete(near, np.where(near == costs[i, j])[0][0])
            out[i, j] += bonus * np.sum(near[-window * 2:])
    return out


def _assign(costs: np.ndarray) -> tuple[list[tuple[int, int]], list[float]]:
    rows, cols = linear_sum_assignment(costs)
    return list(zip(rows.tolist(), cols.tolist(), strict=True)), costs[rows, cols].tolist()


def merge_gain(before: list[float], after: list[float]) -> float:
    """How much a merge improved the matched costs: the mean of the costs only ``before`` has minus
    the mean of those only ``after`` has; a gain counts only when ``after`` also reaches a lower
    cost than ``before`` among them (otherwise 0)."""
    c1, c2 = Counter(before), Counter(after)
    for e in set(before) & set(after):
        common = min(c1[e], c2[e])
        c1[e] -= common
        c2[e] -= common
    u1, u2 = list(c1.elements()), list(c2.elements())
    m1 = sum(u1) / len(u1) if u1 else 0
    m2 = sum(u2) / len(u2) if u2 else 0
    if m1 - m2 > 0:
        return m1 - m2 if u1 and u2 and min(u1) > min(u2) else 0.0
    return m1 - m2


def _merge_by_list(blocks: list[TextBlock], merges: list[tuple[int, int, float]]) -> list[TextBlock]:
    blocks = list(blocks)
    gone: list[int] = []
    todo = sorted(merges, key=lambda t: t[2], reverse=True)
    while todo:
        i, j, _ = todo.pop(0)
        blocks[i] = merge_pair(blocks[i], blocks[j])
        gone.append(j)
        todo = [t for t in todo if t[0] not in (i, j) and t[1] not in (i, j)]
    for k in sorted(gone, reverse=True):
        if k < len(blocks):
            blocks.pop(k)
    return blocks


def _merges(side: list[TextBlock], other: list[TextBlock], costs: np.ndarray, current: list[float],
            rows: bool) -> list[tuple[int, int, float]]:
    """Consecutive merges on ``side`` (rows of ``costs`` when ``rows``, else columns) that gain."""
    out = []
    for i in range(len(side) - 1):
        merged = merge_pair(side[i], side[i + 1])
        line = np.array([-similarity(merged.text, o.text) for o in other]) if rows else \
            np.array([-similarity(o.text, merged.text) for o in other])
        if rows:
            trial = np.vstack([costs[:i], line[None, :], costs[i + 2:]])
        else:
            trial = np.hstack([costs[:, :i], line[:, None], costs[:, i + 2:]])
        _, after = _assign(trial)
        gain = merge_gain(current, after)
        if gain > MERGE_GAIN:
            out.append((i, i + 1, gain))
    return out


def match_blocks(candidate: Sequence[TextBlock], reference: Sequence[TextBlock]
                 ) -> tuple[list[TextBlock], list[TextBlock], list[tuple[int, int, float]]]:
    """Merge and match (module docstring): the merged candidate and reference blocks and the kept
    pairs ``(candidate index, reference index, text similarity)``."""
    a, b = list(candidate), list(reference)
    while True:
        changed = False
        costs = _costs(a, b)
        _, current = _assign(costs)
        if len(a) >= 2:
            found = _merges(a, b, costs, current, rows=True)
            if found:
                changed = True
                a = _merge_by_list(a, found)
                costs = _costs(a, b)
                _, current = _assign(costs)
        if len(b) >= 2:
            found = _merges(b, a, costs, current, rows=False)
            if found:
                changed = True
                b = _merge_by_list(b, found)
        if not changed:
            break
    pairs, _ = _assign(context_costs(_costs(a, b)))
    kept = []
    for i, j in pairs:
        s = similarity(a[i].text, b[j].text)
        if s >= MIN_SIMILARITY:
            kept.append((i, j, s))
    return a, b, kept
