"""Deterministic product photos for the media library, drawn with PIL from an asset's row.

Every asset is a product silhouette (``shape``) in one colour (``color``) with a surface
``pattern``. Near-duplicates share a product name and a shape and differ only in colour or
pattern, so telling them apart needs the pixels. A *reference* photo (on a brief, a
moodboard or a support ticket) shows the same product as a different shot: another
backdrop, scale, offset and tilt, so matching is visual, never a byte comparison.
"""

from __future__ import annotations

import io
import math
import random

__all__ = ["SHAPES", "COLORS", "PATTERNS", "asset_png", "reference_png", "distinct"]

SHAPES = {"mug": "Mug", "bottle": "Bottle", "lamp": "Lamp", "vase": "Vase", "tote": "Tote", "stool": "Stool"}
"""Shape key -> the product noun used in names."""

COLORS = {"red": (206, 48, 48), "orange": (236, 128, 30), "yellow": (232, 196, 40), "green": (52, 150, 72),
          "teal": (30, 150, 150), "blue": (44, 92, 200), "purple": (128, 64, 176), "pink": (226, 110, 170),
          "grey": (128, 132, 140), "black": (36, 36, 40)}
PATTERNS = ("plain", "stripes", "dots", "band")

SIZE = 180


def _silhouette(shape: str, draw, fill, s: float = 1.0, ox: float = 0, oy: float = 0) -> list[tuple]:
    """Draw ``shape`` and return the boxes (x0, y0, x1, y1) its body covers (for the pattern)."""
    def b(x0, y0, x1, y1):
        return (ox + x0 * s, oy + y0 * s, ox + x1 * s, oy + y1 * s)

    outline = tuple(max(0, c - 70) for c in fill)
    if shape == "mug":
        draw.ellipse(b(112, 62, 152, 118), outline=outline, width=max(3, int(9 * s)))
        body = b(40, 50, 124, 140)
        draw.rounded_rectangle(body, radius=10 * s, fill=fill, outline=outline, width=2)
        return [body]
    if shape == "bottle":
        draw.rectangle(b(76, 18, 104, 30), fill=outline)
        draw.rectangle(b(80, 30, 100, 58), fill=fill, outline=outline, width=2)
        body = b(56, 56, 124, 158)
        draw.rounded_rectangle(body, radius=16 * s, fill=fill, outline=outline, width=2)
        return [body]
    if shape == "lamp":
        draw.rectangle(b(86, 84, 94, 146), fill=outline)
        draw.ellipse(b(52, 138, 128, 160), fill=outline)
        shade = [(ox + 60 * s, oy + 26 * s), (ox + 120 * s, oy + 26 * s), (ox + 146 * s, oy + 90 * s),
                 (ox + 34 * s, oy + 90 * s)]
        draw.polygon(shade, fill=fill, outline=outline)
        return [b(44, 28, 136, 88)]
    if shape == "vase":
        draw.rectangle(b(74, 22, 106, 60), fill=fill, outline=outline, width=2)
        body = b(40, 52, 140, 160)
        draw.ellipse(body, fill=fill, outline=outline, width=2)
        return [b(56, 66, 124, 148)]
    if shape == "tote":
        draw.arc(b(58, 22, 122, 90), 180, 360, fill=outline, width=max(3, int(7 * s)))
        body = b(38, 56, 142, 156)
        draw.rectangle(body, fill=fill, outline=outline, width=2)
        return [body]
    # stool
    for x0, x1 in ((52, 64), (84, 96), (116, 128)):
        draw.rectangle(b(x0, 80, x1, 160), fill=outline)
    seat = b(34, 50, 146, 92)
    draw.ellipse(seat, fill=fill, outline=outline, width=2)
    return [b(52, 58, 128, 84)]


def _pattern(draw, boxes: list[tuple], pattern: str, fill) -> None:
    ink = (255, 255, 255) if sum(fill) < 500 else (40, 40, 40)
    for x0, y0, x1, y1 in boxes:
        w, h = x1 - x0, y1 - y0
        if pattern == "stripes":
            step = max(6, h / 6)
            y = y0 + step / 2
            while y < y1 - 2:
                draw.line([(x0 + 4, y), (x1 - 4, y)], fill=ink, width=max(2, int(step / 3)))
                y += step
        elif pattern == "dots":
            r = max(2.5, w / 22)
            for i in range(1, 4):
                for j in range(1, 4):
                    cx, cy = x0 + w * i / 4, y0 + h * j / 4
                    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ink)
        elif pattern == "band":
            cy = y0 + h / 2
            draw.rectangle((x0 + 3, cy - h / 8, x1 - 3, cy + h / 8), fill=ink)


def _png(img) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def asset_png(shape: str, color: str, pattern: str) -> bytes:
    """The library's catalogue photo: centred product on a plain light backdrop."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (SIZE, SIZE), (246, 246, 243))
    d = ImageDraw.Draw(img)
    d.ellipse((40, 150, 140, 170), fill=(225, 225, 220))  # floor shadow
    fill = COLORS[color]
    _pattern(d, _silhouette(shape, d, fill), pattern, fill)
    return _png(img)


def reference_png(shape: str, color: str, pattern: str, shot: str) -> bytes:
    """Another shot of the same product: backdrop, scale, offset and tilt drawn from ``shot``."""
    from PIL import Image, ImageDraw

    rng = random.Random(f"shot:{shot}")
    size = 220
    top = (rng.randrange(200, 236), rng.randrange(200, 236), rng.randrange(196, 230))
    img = Image.new("RGB", (size, size), top)
    d = ImageDraw.Draw(img)
    for y in range(size // 2, size, 4):  # a table top fading towards the camera
        k = (y - size / 2) / (size / 2)
        d.rectangle((0, y, size, y + 4), fill=tuple(int(c * (1 - 0.25 * k)) for c in top))
    s = rng.uniform(0.9, 1.05)
    ox, oy = rng.uniform(8, 40), rng.uniform(10, 36)
    fill = COLORS[color]
    layer = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    _pattern(ld, _silhouette(shape, ld, fill + (255,), s, ox, oy), pattern, fill)
    layer = layer.rotate(rng.uniform(-9, 9), resample=Image.Resampling.BICUBIC, center=(size / 2, size / 2))
    img.paste(layer, (0, 0), layer)
    return _png(img)


def distinct(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Two (color, pattern) looks a person tells apart at a glance."""
    ca, cb = COLORS[a[0]], COLORS[b[0]]
    far = math.dist(ca, cb) > 90
    return far or a[1] != b[1]
