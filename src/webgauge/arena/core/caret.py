"""Telling a blinking text caret apart from a real page change.

Screenshots keep the caret (hiding it would leave a mark in the page), so two screenshots of
an unchanged page with a focused text field can differ by the caret's blink phase. The stale
check uses :func:`caret_only_change` before rejecting: the screenshots count as the same
when every differing pixel lies inside the focused text field, in a strip at most
:data:`MAX_CARET_WIDTH` CSS px wide.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

__all__ = ["caret_only_change", "FOCUSED_TEXT_BOX_JS", "MAX_CARET_WIDTH"]

MAX_CARET_WIDTH = 3

FOCUSED_TEXT_BOX_JS = """() => { const e = document.activeElement;
  if (!e || !(/^(INPUT|TEXTAREA)$/.test(e.tagName) || e.isContentEditable)) return null;
  const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"""
"""The focused text field's box in viewport CSS px, or null (read-only; leaves no mark)."""


def caret_only_change(old_png: bytes, new_png: bytes, focus_box: Sequence[float] | None,
                      device_scale_factor: float) -> bool:
    """True when the two screenshots differ only by a caret-wide strip inside ``focus_box``."""
    import numpy as np
    from PIL import Image

    if focus_box is None:
        return False
    a = np.asarray(Image.open(io.BytesIO(old_png)).convert("RGB"))
    b = np.asarray(Image.open(io.BytesIO(new_png)).convert("RGB"))
    if a.shape != b.shape:
        return False
    ys, xs = np.nonzero(np.any(a != b, axis=2))
    if len(xs) == 0:
        return True
    s = device_scale_factor
    x, y, w, h = (v * s for v in focus_box)
    inside = xs.min() >= x - 1 and xs.max() <= x + w + 1 and ys.min() >= y - 1 and ys.max() <= y + h + 1
    return bool(inside and xs.max() - xs.min() + 1 <= MAX_CARET_WIDTH * s + 1)
