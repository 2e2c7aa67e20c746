"""Optimal one-to-one matching of reference resources to generated resources.

Two resources can match only if they share a :func:`~webgauge.design2code.resources.resource_key`
(links by destination, images by source, routes by method and path). Among the allowed
pairs the assignment minimises the summed cost ``position offset + text difference``
with the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``), so a repeated link
("Home" in header and footer) is paired with its nearest, most similar counterpart instead
of first-come.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

import numpy as np

from webgauge.design2code.resources import Resource, box_center, resource_key

__all__ = ["MatchedPair", "match_resources", "position_offset", "text_difference"]

_FORBIDDEN = 1e9


@dataclass(frozen=True)
class MatchedPair:
    ref_index: int
    gen_index: int
    reference: Resource
    generated: Resource


def position_offset(ref: Resource, gen: Resource, width: float, height: float) -> float:
    """``max(|Δx|/W, |Δy|/H)`` between box centres, W and H the reference page size."""
    (rx, ry), (gx, gy) = box_center(ref.box), box_center(gen.box)
    return max(abs(rx - gx) / max(width, 1.0), abs(ry - gy) / max(height, 1.0))


_WS = re.compile(r"\s+")


def text_difference(a: str | None, b: str | None) -> float:
    """``1 - SequenceMatcher ratio`` of whitespace-normalised texts: 0 equal, 1 disjoint."""
    a, b = _WS.sub(" ", a or "").strip(), _WS.sub(" ", b or "").strip()
    if a == b:
        return 0.0
    return 1.0 - difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def match_resources(reference: list[Resource], generated: list[Resource],
                    width: float, height: float, url_match: str = "webgauge") -> list[MatchedPair]:
    """Return the optimal matching (see module docstring), ordered by reference index;
    ``url_match`` is how URLs compare (:func:`webgauge.design2code.urls.url_key`)."""
    if not reference or not generated:
        return []
    from scipy.optimize import linear_sum_assignment

    ref_keys = [resource_key(r, url_match) for r in reference]
    gen_keys = [resource_key(g, url_match) for g in generated]
    cost = np.full((len(reference), len(generated)), _FORBIDDEN)
    for i, (r, rk) in enumerate(zip(reference, ref_keys, strict=True)):
        for j, (g, gk) in enumerate(zip(generated, gen_keys, strict=True)):
            if rk == gk:
                cost[i, j] = position_offset(r, g, width, height) + text_difference(r.text, g.text)
    rows, cols = linear_sum_assignment(cost)
    pairs = [MatchedPair(int(i), int(j), reference[i], generated[j])
             for i, j in zip(rows, cols, strict=True) if cost[i, j] < _FORBIDDEN]
    return sorted(pairs, key=lambda p: p.ref_index)
