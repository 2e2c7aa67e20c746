"""Deterministic PNG images for synthetic pages, drawn with Pillow from a seed.

No remote image service: every image is a pure function of (seed, kind, size), so the same
seed produces byte-identical assets.
"""

from __future__ import annotations

import io
import random

from PIL import Image, ImageDraw

__all__ = ["make_png"]


def _color(rng: random.Random, lo: int = 40, hi: int = 230) -> tuple[int, int, int]:
    return (rng.randint(lo, hi), rng.randint(lo, hi), rng.randint(lo, hi))


def make_png(seed: int, kind: str, width: int, height: int) -> bytes:
    """Draw a ``kind`` image ("logo", "hero" or "thumb") of the given size and return PNG bytes."""
    if kind not in ("logo", "hero", "thumb"):
        raise ValueError(f"unknown image kind {kind!r}; use 'logo', 'hero' or 'thumb'")
    rng = random.Random(f"{seed}:{kind}:{width}x{height}")
    top, bottom = _color(rng), _color(rng)
    img = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(img)
    for y in range(height):  # vertical gradient background
        t = y / max(1, height - 1)
        draw.line([(0, y), (width, y)], fill=tuple(int(a + (b - a) * t) for a, b in zip(top, bottom, strict=True)))
    if kind == "logo":
        m = width // 8
        draw.ellipse([m, m, width - m, height - m], fill=_color(rng, 20, 200))
        draw.rectangle([width // 3, height // 3, 2 * width // 3, 2 * height // 3], fill=_color(rng, 150, 255))
    else:
        for _ in range(rng.randint(3, 7)):
            x0, y0 = rng.randint(0, width - 10), rng.randint(0, height - 10)
            x1, y1 = x0 + rng.randint(10, width // 2), y0 + rng.randint(10, height // 2)
            shape = rng.choice(["ellipse", "rectangle", "polygon"])
            fill = _color(rng)
            if shape == "ellipse":
                draw.ellipse([x0, y0, x1, y1], fill=fill)
            elif shape == "rectangle":
                draw.rectangle([x0, y0, x1, y1], fill=fill)
            else:
                draw.polygon([(x0, y1), ((x0 + x1) // 2, y0), (x1, y1)], fill=fill)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()
