"""Fine-grained metrics over matched resource pairs: position, area, colour and text.

* position offset = ``max(|Δx|/W, |Δy|/H)`` between box centres (W, H: reference page size);
* area difference = ``|A_ref - A_gen| / A_ref`` (pairs whose reference area is 0 are skipped);
* colour difference = CIEDE2000 between the text colours on MRWeb's scale, ``min(1, ΔE00 / 100)``
  (its Table 5 reports 0.02-0.14; one minus the similarity ``max(0, 1 - ΔE00 / 100)`` that MRWeb
  takes from Design2Code, so never above 1: blue against yellow is 1, not 1.034); the raw,
  unclamped ``ΔE00`` is kept as ``color_difference_raw`` (pairs without a colour skipped);
* text difference = ``1 - SequenceMatcher ratio`` of the visible texts, averaged only over
  pairs whose reference resource has text (an image without alt text has nothing to compare).

Pairs come from :func:`~webgauge.design2code.matching.match_resources` (optimal assignment).
Means are ``None`` when no pair contributes, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webgauge.design2code.ciede2000 import color_difference
from webgauge.design2code.matching import match_resources, position_offset, text_difference
from webgauge.design2code.resources import Resource, box_area

__all__ = ["FineGrained", "fine_grained"]


@dataclass
class FineGrained:
    position_offset: float | None
    area_difference: float | None
    color_difference: float | None
    text_difference: float | None
    n_matched: int
    pairs: list[dict[str, Any]] = field(default_factory=list)
    color_difference_raw: float | None = None

    def summary(self) -> dict[str, Any]:
        return {"position_offset": self.position_offset, "area_difference": self.area_difference,
                "color_difference": self.color_difference, "color_difference_raw": self.color_difference_raw,
                "text_difference": self.text_difference, "n_matched": self.n_matched}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def fine_grained(reference: list[Resource], generated: list[Resource],
                 width: float, height: float, pairs: list | None = None) -> FineGrained:
    """Match ``generated`` to ``reference`` optimally (or take ``pairs``) and average the
    per-pair differences."""
    rows: list[dict[str, Any]] = []
    pairs = match_resources(reference, generated, width, height) if pairs is None else pairs
    for p in pairs:
        r, g = p.reference, p.generated
        a_ref = box_area(r.box)
        de = color_difference(r.color, g.color)
        rows.append({
            "ref_index": p.ref_index, "gen_index": p.gen_index, "type": r.type, "url": r.url,
            "position_offset": position_offset(r, g, width, height),
            "area_difference": abs(a_ref - box_area(g.box)) / a_ref if a_ref > 0 else None,
            "color_difference": min(1.0, de / 100.0) if de is not None else None,
            "color_difference_raw": de,
            "text_difference": text_difference(r.text, g.text) if (r.text or "").strip() else None,
        })

    def col(name: str) -> list[float]:
        return [row[name] for row in rows if row[name] is not None]

    return FineGrained(_mean(col("position_offset")), _mean(col("area_difference")),
                       _mean(col("color_difference")), _mean(col("text_difference")),
                       len(rows), rows, _mean(col("color_difference_raw")))
