"""Design2Code's visual score of a candidate page against its reference (Si et al., 2024, §3.2).

From the matched text blocks (:func:`~webgauge.design2code.d2c.matching.match_blocks`), with every
box a fraction of its own screenshot's width and height:

* **Block-Match** (``d2c_block``): the matched blocks' area (candidate's + reference's box) over
  the area of every block of both pages, matched or not;
* **Text** (``d2c_text``): mean text similarity of the matched pairs;
* **Position** (``d2c_position``): mean of ``1 - max(|Δx|, |Δy|)`` between box centres;
* **Color** (``d2c_color``): mean of ``max(0, 1 - ΔE00 / 100)`` between the mean colours of the
  pairs' text pixels (CIEDE2000 on CIELAB, D65);
* **CLIP** (``d2c_clip``): cosine of the CLIP image embeddings of both screenshots with their text
  blocks inpainted (OpenCV's Telea, radius 3) and squeezed to a square of the shorter side
  (Lanczos); local weights only, otherwise a missing value;
* **overall** (``d2c_final``): ``Σ wₖ · scoreₖ`` over the five, weights 0.2 each unless given;
  missing when CLIP is; ``d2c_final_noclip`` is the mean of the four others (webgauge's, named
  apart: Design2Code has no overall without CLIP).

No matched pair (or no block on either page) scores 0 on the four block scores.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np
from PIL import Image

from webgauge.design2code.ciede2000 import ciede2000, rgb_to_lab
from webgauge.design2code.d2c.blocks import TextBlock
from webgauge.design2code.d2c.matching import match_blocks

__all__ = ["D2CScores", "D2C_METRICS", "D2C_WEIGHTS", "d2c_block_scores", "d2c_scores", "clip_input",
           "colour_similarity"]

D2C_METRICS = ("d2c_block", "d2c_text", "d2c_position", "d2c_color", "d2c_clip", "d2c_final", "d2c_final_noclip")
D2C_WEIGHTS = (0.2, 0.2, 0.2, 0.2, 0.2)


class D2CScores(TypedDict):
    d2c_block: float
    d2c_text: float
    d2c_position: float
    d2c_color: float
    d2c_clip: float | dict[str, str]
    d2c_final: float | dict[str, str]
    d2c_final_noclip: float
    d2c_detail: dict[str, int]


def colour_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """``max(0, 1 - ΔE00 / 100)`` of two RGB colours (0..255)."""
    de = float(ciede2000(rgb_to_lab(np.asarray(a, dtype=float)), rgb_to_lab(np.asarray(b, dtype=float))))
    return max(0.0, 1.0 - de / 100.0)


@dataclass(frozen=True)
class _Block4:
    block: float
    text: float
    position: float
    color: float
    n_candidate: int
    n_reference: int
    n_matched: int


def d2c_block_scores(candidate: Sequence[TextBlock], reference: Sequence[TextBlock]) -> _Block4:
    """Block-Match, Text, Position and Color (module docstring)."""
    if not candidate or not reference:
        return _Block4(0.0, 0.0, 0.0, 0.0, len(candidate), len(reference), 0)
    a, b, pairs = match_blocks(candidate, reference)
    if not pairs:
        return _Block4(0.0, 0.0, 0.0, 0.0, len(a), len(b), 0)
    used_a, used_b = {i for i, _, _ in pairs}, {j for _, j, _ in pairs}
    unmatched = sum(x.area for i, x in enumerate(a) if i not in used_a) + \
        sum(y.area for j, y in enumerate(b) if j not in used_b)
    matched = [a[i].area + b[j].area for i, j, _ in pairs]
    pos = []
    for i, j, _ in pairs:
        (ax, ay), (bx, by) = a[i].centre, b[j].centre
        pos.append(1 - max(abs(bx - ax), abs(by - ay)))
    covered = float(np.sum(matched))
    total = covered + unmatched  # nothing unmatched is exactly 1 (the published code sums [0, *matched]
    return _Block4(covered / total if total > 0 else 0.0,  # apart and can give 0.9999999999999998)
                   float(np.mean([s for _, _, s in pairs])), float(np.mean(pos)),
                   float(np.mean([colour_similarity(a[i].color, b[j].color) for i, j, _ in pairs])),
                   len(a), len(b), len(pairs))


def clip_input(png: bytes, blocks: Sequence[TextBlock]) -> Image.Image:
    """The screenshot as Design2Code shows it to CLIP: text blocks inpainted, squeezed to a square."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    if blocks:
        try:
            import cv2
        except ImportError as exc:
            raise RuntimeError("Design2Code's CLIP score inpaints text with OpenCV: "
                               "pip install 'webgauge[d2c]' (opencv-python-headless)") from exc
        bgr = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)
        mask = np.zeros(bgr.shape[:2], dtype=np.uint8)
        h, w = bgr.shape[:2]
        for blk in blocks:
            x, y, bw, bh = blk.bbox
            x0, y0 = int(x * w), int(y * h)
            mask[y0:y0 + int(bh * h), x0:x0 + int(bw * w)] = 255
        img = Image.fromarray(cv2.cvtColor(cv2.inpaint(bgr, mask, 3, cv2.INPAINT_TELEA), cv2.COLOR_BGR2RGB))
    side = min(img.size)
    return img.resize((side, side), Image.Resampling.LANCZOS)


def d2c_scores(candidate_png: bytes, candidate: Sequence[TextBlock], reference_png: bytes,
               reference: Sequence[TextBlock], clip: Any = None,
               weights: Sequence[float] = D2C_WEIGHTS) -> D2CScores:
    """Every Design2Code score of a candidate against its reference. ``clip`` is a
    :class:`~webgauge.design2code.neural.ClipScorer` or a ``Missing`` (then CLIP and the overall
    are that missing value)."""
    s = d2c_block_scores(candidate, reference)
    four = (s.block, s.text, s.position, s.color)
    clip_value: float | dict[str, str]
    final: float | dict[str, str]
    if clip is None or not hasattr(clip, "score"):
        reason = clip.to_json() if clip is not None and hasattr(clip, "to_json") else {"missing": "no CLIP scorer"}
        clip_value = final = reason
    else:
        clip_value = float(clip.score(np.asarray(clip_input(candidate_png, candidate)),
                                      np.asarray(clip_input(reference_png, reference))))
        final = float(sum(w * v for w, v in zip(weights, (*four, clip_value), strict=True)))
    return D2CScores(d2c_block=s.block, d2c_text=s.text, d2c_position=s.position, d2c_color=s.color,
                     d2c_clip=clip_value, d2c_final=final, d2c_final_noclip=float(np.mean(four)),
                     d2c_detail={"candidate_blocks": s.n_candidate, "reference_blocks": s.n_reference,
                                 "matched": s.n_matched})
