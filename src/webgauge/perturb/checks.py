"""Invariance checks: compare the ``Snapshot`` before a perturbation with the one after it.

- :func:`check_text_only`: every element keeps its text and accessible name, except the
  intended targets, their ancestors (whose text contains the target's text) and their
  descendants (the elements inside a button that hold its label).
- :func:`check_colors_only`: every element keeps its text color and effective background,
  except the recolored elements and their descendants (which sit on the new background).
- :func:`check_box_fixed`: a tracked element (the call-to-action) keeps its box.
- :func:`check_boxes_unchanged`: no element moves or resizes (for global color edits).
- :func:`check_visible_change` (no-op rejection): the rendered screenshot really changed.
  A pixel counts as changed when any channel differs by more than :data:`PIXEL_TOLERANCE`
  (of 255); the share of changed pixels must be at least :data:`MIN_CHANGED_PAGE` of the
  whole page for layout and color edits (a page that changed height counts every pixel
  outside the shared area as changed), and at least :data:`MIN_CHANGED_BOX` of the text's
  glyph area (the ink's bounding box inside the target's box, before and after) for text edits.
  These thresholds are ours (the paper reviews its pairs by hand): one changed word on a 1280×3000 page is about
  0.05% of it, so 0.01% keeps every edit a person can see and rejects only pixel-identical
  or anti-aliasing-level differences; a text edit must change at least 2% of its button.

A pair whose check fails is dropped by the suite and counted; the problems say why.
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from .base import PerturbationRecord

__all__ = ["CheckResult", "check_text_only", "check_colors_only", "check_box_fixed",
           "check_boxes_unchanged", "check_visible_change", "changed_fraction", "glyph_box", "verify", "screenshot_rgb",
           "PIXEL_TOLERANCE", "MIN_CHANGED_PAGE", "MIN_CHANGED_BOX"]

PIXEL_TOLERANCE = 8
"""A pixel is changed when a channel differs by more than this (0-255)."""
MIN_CHANGED_PAGE = 1e-4
"""Layout and color pairs: at least this share of the page's pixels must change."""
MIN_CHANGED_BOX = 0.02
"""Text pairs: at least this share of the text's glyph area (its ink's bounding box) must change."""


@dataclass
class CheckResult:
    """Outcome of one invariance check; ``problems`` name the offending elements."""

    name: str
    ok: bool
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"name": self.name, "ok": self.ok, "problems": self.problems[:20]}


def _under(path: str, roots) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


def _ancestors(path: str) -> set[str]:
    parts = path.split("/")
    return {"/".join(parts[:i]) for i in range(2, len(parts) + 1)}


def check_text_only(before, after, targets: list[str]) -> CheckResult:
    """Texts change only at ``targets`` (XPaths), their ancestors and their descendants (a
    button's label often sits in a child element: ``<button><div>SEARCH</div></button>``)."""
    allowed = set().union(*(_ancestors(t) for t in targets)) if targets else set()
    b, a = before.by_path(), after.by_path()
    problems = []
    if set(b) != set(a):
        problems.append(f"DOM changed: {len(set(b) ^ set(a))} paths differ")
    changed = {p for p in set(b) & set(a) if (b[p].text, b[p].name) != (a[p].text, a[p].name)}
    problems += [f"text changed at {p}: {b[p].text[:40]!r} -> {a[p].text[:40]!r}" for p in sorted(changed - allowed)
                 if not _under(p, targets)]
    for t in targets:
        if t in b and t in a and b[t].text == a[t].text and b[t].name == a[t].name:
            problems.append(f"intended change did not show at {t}")
    return CheckResult("text_only", not problems, problems)


def check_colors_only(before, after, recolored: list[str]) -> CheckResult:
    """Colors change only on ``recolored`` elements and their descendants; texts never."""
    b, a = before.by_path(), after.by_path()
    problems = []
    for p in sorted(set(b) & set(a)):
        if (b[p].color, b[p].background_color) != (a[p].color, a[p].background_color) and not _under(p, recolored):
            problems.append(f"color changed at {p}: {b[p].background_color} -> {a[p].background_color}")
        if b[p].text != a[p].text:
            problems.append(f"text changed at {p}")
    for r in recolored:
        if r in b and r in a and b[r].background_color == a[r].background_color:
            problems.append(f"intended recolor did not show at {r}")
    return CheckResult("colors_only", not problems, problems)


def check_box_fixed(before, after, path_before: str, path_after: str | None = None, tol: float = 1.0) -> CheckResult:
    """The element at ``path_before`` (now at ``path_after``) keeps its box within ``tol`` px."""
    path_after = path_after or path_before
    b, a = before.by_path().get(path_before), after.by_path().get(path_after)
    if b is None or a is None:
        return CheckResult("box_fixed", False, [f"tracked element missing: {path_before} -> {path_after}"])
    moved = max(abs(x - y) for x, y in zip(b.box, a.box, strict=True))
    ok = moved <= tol and a.visible
    return CheckResult("box_fixed", ok, [] if ok else [f"{path_before} moved by {moved:.1f}px (visible={a.visible})"])


def check_boxes_unchanged(before, after, tol: float = 0.5) -> CheckResult:
    """No element moves, resizes or changes text (global color edits must not reflow)."""
    b, a = before.by_path(), after.by_path()
    problems = [f"{p} moved" for p in sorted(set(b) & set(a))
                if max(abs(x - y) for x, y in zip(b[p].box, a[p].box, strict=True)) > tol]
    problems += [f"text changed at {p}" for p in sorted(set(b) & set(a)) if b[p].text != a[p].text]
    if set(b) != set(a):
        problems.append("DOM changed")
    return CheckResult("boxes_unchanged", not problems, problems)


_DECODED: OrderedDict[str, np.ndarray] = OrderedDict()
_LOCK = threading.Lock()  # checks may run in worker threads
_KEEP = 8  # two pages at once: each one's clean capture and the perturbed ones still being drawn


def screenshot_rgb(png: bytes) -> np.ndarray:
    """The screenshot as a read-only ``uint8`` RGB array. The last few are kept: a suite
    compares one clean capture with every perturbed capture of its page, and draws its question
    images from the same captures (``webgauge.understand.images`` decodes through here)."""
    key = hashlib.sha256(png).hexdigest()
    with _LOCK:
        arr = _DECODED.get(key)
        if arr is not None:
            _DECODED.move_to_end(key)
    if arr is None:
        img: Image.Image = Image.open(io.BytesIO(png))
        if img.mode != "RGB":  # (Chromium's screenshots are RGB already: converting would only copy them)
            img = img.convert("RGB")
        arr = np.asarray(img, dtype=np.uint8)
        arr.flags.writeable = False
        with _LOCK:
            _DECODED[key] = arr
            while len(_DECODED) > _KEEP:
                _DECODED.popitem(last=False)
    return arr


def changed_fraction(before_png: bytes, after_png: bytes, box=None) -> float:
    """Share of pixels that changed between two screenshots (see module docstring).

    ``box`` (``x, y, w, h`` in CSS pixels of a scale-1 capture) limits the comparison to that
    rectangle. Pixels that exist in only one image (the page grew or shrank) count as changed.
    """
    a, b = screenshot_rgb(before_png), screenshot_rgb(after_png)
    if box is not None:
        x, y, w, h = (int(round(v)) for v in box)
        x0, y0 = max(0, x), max(0, y)
        a, b = a[y0:y + h, x0:x + w], b[y0:y + h, x0:x + w]
    h = max(a.shape[0], b.shape[0])
    w = max(a.shape[1], b.shape[1])
    if h == 0 or w == 0:
        return 0.0
    sh, sw = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    a, b = a[:sh, :sw], b[:sh, :sw]
    # only rows with any differing byte can hold a changed pixel; |a - b| in uint8 without
    # wrapping is max - min
    rows = np.flatnonzero((a != b).any(axis=(1, 2))) if sh and sw else np.zeros(0, dtype=np.intp)
    ra, rb = a[rows], b[rows]
    diff = ((np.maximum(ra, rb) - np.minimum(ra, rb)) > PIXEL_TOLERANCE).any(axis=2)
    changed = int(np.count_nonzero(diff)) + (h * w - sh * sw)
    return changed / float(h * w)


def _union(b1, b2):
    x0, y0 = min(b1[0], b2[0]), min(b1[1], b2[1])
    x1, y1 = max(b1[0] + b1[2], b2[0] + b2[2]), max(b1[1] + b1[3], b2[1] + b2[3])
    return (x0, y0, x1 - x0, y1 - y0)


def glyph_box(png: bytes, box) -> tuple[int, int, int, int] | None:
    """The bounding box (page px, ``x, y, w, h``) of the ink inside ``box``: the pixels that differ
    by more than :data:`PIXEL_TOLERANCE` from the box's most common colour (its background), leaving
    out rows and columns inked across 90% of the box or more (its border, a rule); None when the box
    holds no ink (its text is not drawn)."""
    rgb = screenshot_rgb(png)
    x, y, w, h = (int(round(v)) for v in box)
    x0, y0 = max(0, x), max(0, y)
    crop = rgb[y0:y + h, x0:x + w]
    if crop.size == 0:
        return None
    packed = (crop[..., 0].astype(np.uint32) << 16) | (crop[..., 1].astype(np.uint32) << 8) | crop[..., 2]
    values, counts = np.unique(packed, return_counts=True)
    bg = int(values[np.argmax(counts)])
    ref = np.array([(bg >> 16) & 255, (bg >> 8) & 255, bg & 255], dtype=np.int16)
    ink = (np.abs(crop.astype(np.int16) - ref) > PIXEL_TOLERANCE).any(axis=2)
    # a border, an underline or a rule across the whole box is the box's, not the text's
    ink[ink.mean(axis=1) >= 0.9, :] = False
    ink[:, ink.mean(axis=0) >= 0.9] = False
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size == 0:
        return None
    return (x0 + int(cols[0]), y0 + int(rows[0]), int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1))


def check_visible_change(record: PerturbationRecord, before, after) -> CheckResult:
    """No-op rejection: the perturbed screenshot differs visibly from the clean one.

    Layout and color edits are measured page-wide. A text edit is measured against the text's own
    glyph area: the pixels changed inside the target's box (the union of its box before and after)
    over the area of the ink's bounding box there (:func:`glyph_box`, the union of the clean and the
    edited one), so a short label in a wide button is judged by its letters, not by the button's
    empty padding (a "Load More" spaced out in an 860x40 button changed 1-1.45% of the box, about a
    third of its glyphs). A box with no ink anywhere falls back to the box itself. The measured
    share is returned in ``problems`` only when too small; read it from
    ``record.params["changed_pixels"]``, which this sets (and ``record.params["glyph_box"]`` for text).
    """
    if before.png is None or after.png is None:
        return CheckResult("visible_change", False, ["a capture has no screenshot; capture with the screenshot"])
    box, floor = None, MIN_CHANGED_PAGE
    if record.family == "text":
        floor = MIN_CHANGED_BOX
        b, a = before.by_path(), after.by_path()
        path = record.changed_paths[0] if record.changed_paths else None
        if path not in b or path not in a:
            return CheckResult("visible_change", False, [f"target {path} is missing from a capture"])
        box = _union(b[path].box, a[path].box)
    frac = changed_fraction(before.png, after.png, box)
    where = "of the target box" if box is not None else "of the page"
    if box is not None:
        inks = [g for g in (glyph_box(before.png, box), glyph_box(after.png, box)) if g is not None]
        if inks:
            glyphs = inks[0] if len(inks) == 1 else _union(*inks)
            area = float(max(1, round(box[2]) * round(box[3])))
            frac = min(1.0, frac * area / float(glyphs[2] * glyphs[3]))
            record.params["glyph_box"] = list(glyphs)
            where = "of the text's glyph area"
    record.params["changed_pixels"] = round(frac, 6)
    ok = frac >= floor
    return CheckResult("visible_change", ok,
                       [] if ok else [f"no visible change: {100 * frac:.4f}% {where} changed (< {100 * floor:g}%)"])


def verify(record: PerturbationRecord, before, after) -> list[CheckResult]:
    """Run the checks that apply to ``record``'s family; all must pass for the pair to be kept."""
    if record.family == "text":
        return [check_text_only(before, after, record.changed_paths)]
    if record.family == "color":
        return [check_colors_only(before, after, record.changed_paths)]
    if record.family == "low_contrast":
        return [check_boxes_unchanged(before, after)]
    if record.family == "layout":
        return [check_box_fixed(before, after, old, new) for old, new in record.tracked.items()]
    raise ValueError(f"no checks known for perturbation family {record.family!r}")
