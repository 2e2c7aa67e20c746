"""Comparing the pixels of two builds of one benchmark (same seed and sources).

Images are stored by the sha256 of their bytes, so two builds that drew one pixel differently
store that image under two names. :func:`pixel_differences` pairs the images of two build
folders by what shows them (each question's images, in order; each rejected no-op sample's two
screenshots) and returns every pair whose decoded pixels differ, with how many pixels, the
first one and the largest channel difference. ``bench/understand_pixels.py`` and the pixel test
use it to check that builds alone, side by side and beside a CPU hog draw the same pixels.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from .export import read_questions

__all__ = ["PixelDifference", "image_slots", "pixel_differences"]


@dataclass
class PixelDifference:
    """One image shown at ``slot`` whose pixels differ between two builds."""

    slot: str
    a: str
    b: str
    pixels: int          # pixels with any channel different (-1: the sizes differ)
    first: tuple[int, int] | None = None   # (x, y) of the first differing pixel
    max_delta: int = 0   # the largest channel difference, 0-255

    def __str__(self) -> str:
        if self.pixels < 0:
            return f"{self.slot}: image sizes differ ({self.a} vs {self.b})"
        return f"{self.slot}: {self.pixels} pixel(s) differ, first at {self.first}, up to {self.max_delta} level(s)"


def image_slots(bench: str | Path) -> dict[str, str]:
    """``{slot: image path}``: every image a build shows, named by what shows it."""
    bench = Path(bench)
    out = {f"{q.id}#{i}": p for q in read_questions(bench) for i, p in enumerate(q.images)}
    rejected = bench / "rejected.jsonl"
    if rejected.exists():
        for n, line in enumerate(rejected.read_text().splitlines()):
            r = json.loads(line)
            for k in ("clean", "perturbed"):
                out[f"rejected:{r['page']}:{r['kind']}:{n}:{k}"] = r[k]
    return out


def _pixels(path: Path) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(path.read_bytes())).convert("RGBA"), dtype=np.int16)


def pixel_differences(a: str | Path, b: str | Path) -> list[PixelDifference]:
    """Every image slot whose pixels differ between builds ``a`` and ``b`` (see module docstring).
    A slot present in only one build is a difference too (``pixels`` -1, the other side empty)."""
    a, b = Path(a), Path(b)
    sa, sb = image_slots(a), image_slots(b)
    out = []
    for slot in sorted(set(sa) | set(sb)):
        pa, pb = sa.get(slot, ""), sb.get(slot, "")
        if not pa or not pb:
            out.append(PixelDifference(slot, pa, pb, -1))
            continue
        if pa == pb:  # the same bytes (the name is their sha256)
            continue
        x, y = _pixels(a / pa), _pixels(b / pb)
        if x.shape != y.shape:
            out.append(PixelDifference(slot, pa, pb, -1))
            continue
        diff = np.abs(x - y).max(axis=2)
        rows, cols = np.nonzero(diff)
        if len(rows):
            out.append(PixelDifference(slot, pa, pb, int(len(rows)), (int(cols[0]), int(rows[0])),
                                       int(diff.max())))
    return out
