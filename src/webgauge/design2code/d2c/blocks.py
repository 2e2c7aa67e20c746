"""Design2Code's text blocks, found by its two-colour rendering (values only, no browser).

Design2Code (Si et al., 2024) finds the text of a page without OCR: every element of a
text-bearing tag gets a colour of its own, the page is rendered twice, with each colour shifted
by 50 (mod 256) the second time, and the pixels that moved by exactly that shift (within 8 per
channel) are text pixels. A text node's block is the bounding box of the text pixels of its
colour (within 4 per channel), in the page's own screenshot, **normalised by that screenshot's
width and height**; its colour is the mean colour of the same pixels in the unmodified
rendering, truncated to integers. Text is the node's stripped text, lower-cased. Nodes that share
a colour share a box and are merged (texts joined by a space, colours averaged pairwise in order).

:func:`colour_pool` is the pool of colours, :func:`resolve_colour` reads an inline ``color``
declaration the way the reference does, and :func:`blocks_from_renders` computes the blocks from
the three renderings (:mod:`webgauge.design2code.d2c.capture` makes them in Chromium).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["TextBlock", "TextItem", "colour_pool", "resolve_colour", "blocks_from_renders",
           "merge_same_box", "TEXT_TAGS", "SHIFT", "SHIFT_TOLERANCE", "COLOUR_TOLERANCE"]

#: the tags whose elements get a colour of their own (Design2Code's list, in its order)
TEXT_TAGS: tuple[str, ...] = ("p", "h1", "h2", "h3", "h4", "h5", "h6", "div", "span", "a", "b", "li", "table",
                              "td", "th", "button", "footer", "header", "figcaption")
SHIFT = 50              # the second rendering's colour shift
SHIFT_TOLERANCE = 8     # a text pixel moved by SHIFT within this, per channel
COLOUR_TOLERANCE = 4    # a text pixel of a colour lies within this of it, per channel


@dataclass(frozen=True)
class TextItem:
    """One non-empty text node: its stripped text and the colour its nearest coloured element
    gave it (``#rrggbb`` as declared, or ``None`` when no declaration could be read)."""

    text: str
    colour: str | None


@dataclass(frozen=True)
class TextBlock:
    """A text block: lower-cased text, ``bbox`` ``(x, y, w, h)`` as fractions of the screenshot's
    width and height, and the mean RGB of its text pixels."""

    text: str
    bbox: tuple[float, float, float, float]
    color: tuple[float, float, float]

    @property
    def area(self) -> float:
        return self.bbox[2] * self.bbox[3]

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.bbox
        return (x + w / 2, y + h / 2)


def colour_pool(offset: int = 0) -> list[str]:
    """The colours handed out to text-tag elements, **last first** (the reference pops from the end
    of a list of 16 levels per channel, 10..250 step 16, shifted by ``offset`` mod 256)."""
    levels = range(10, 251, 16)
    pool = [f"#{(r + offset) % 256:02X}{(g + offset) % 256:02X}{(b + offset) % 256:02X}"
            for r in levels for g in levels for b in levels]
    return pool[::-1]


def _named_colour(value: str) -> tuple[int, ...] | None:
    from PIL import ImageColor

    try:
        return tuple(ImageColor.getrgb(value))
    except ValueError:
        return None


def resolve_colour(declaration: str) -> str | None:
    """The colour an inline ``style`` attribute gives its text, read as Design2Code reads it: the
    last declaration whose text contains ``color`` but not ``background-color`` (so
    ``border-color`` counts too); a ``#`` value as written, ``rgb(r, g, b)`` and colour names
    converted to ``#rrggbb``; anything else (``rgba``, ``inherit``, ``var()``) is no colour."""
    entries = [s for s in declaration.split(";") if "color" in s and "background-color" not in s]
    if not entries:
        return None
    parts = entries[-1].split(":")
    if len(parts) < 2:
        return None
    value = parts[1].strip().replace(" !important", "")
    if not value:
        return None
    if value[0] == "#":
        return value
    rgb: tuple[int, ...] | None
    if value.startswith("rgb"):
        try:
            rgb = tuple(int(v) for v in value[4:-1].split(","))
        except ValueError:
            rgb = None
    else:
        rgb = _named_colour(value)
    if rgb is None or len(rgb) < 3:
        return None
    return "#{:02x}{:02x}{:02x}".format(*rgb[:3])


def _hex_rgb(value: str) -> tuple[int, int, int] | None:
    h = value.lstrip("#")
    try:
        return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))
    except ValueError:
        return None


def text_pixels(p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """Boolean mask of the pixels whose colour moved by ``SHIFT`` (mod 256) between the renders."""
    shifted = (p0.astype(np.int16) + SHIFT) % 256
    return np.all(np.abs(shifted - p1.astype(np.int16)) <= SHIFT_TOLERANCE, axis=-1)


def blocks_from_renders(original: np.ndarray, p0: np.ndarray, p1: np.ndarray,
                        items: Sequence[TextItem]) -> list[TextBlock]:
    """Text blocks from the unmodified rendering ``original``, the recoloured one ``p0`` and the
    shifted one ``p1`` (RGB ``uint8`` arrays), for the text nodes ``items`` in document order.
    No blocks when the renders differ in size (the reference finds none either)."""
    if p0.shape != p1.shape or original.shape != p0.shape:
        return []
    moved = text_pixels(p0, p1)
    rows, cols = np.nonzero(moved)
    if rows.size == 0:
        return []
    colours = p0[rows, cols].astype(np.int16)
    height, width = p0.shape[:2]
    cache: dict[tuple[int, int, int], tuple[tuple[float, float, float, float], tuple[float, float, float]] | None] = {}
    blocks: list[TextBlock] = []
    for item in items:
        rgb = _hex_rgb(item.colour) if item.colour else None
        if rgb is None or not all(COLOUR_TOLERANCE <= v <= 255 - COLOUR_TOLERANCE for v in rgb):
            continue  # the reference's uint8 range wraps round there and selects nothing
        if rgb not in cache:
            sel = np.all(np.abs(colours - np.array(rgb, dtype=np.int16)) <= COLOUR_TOLERANCE, axis=-1)
            if not sel.any():
                cache[rgb] = None
            else:
                r, c = rows[sel], cols[sel]
                y0, y1, x0, x1 = int(r.min()), int(r.max()), int(c.min()), int(c.max())
                mean = original[r, c].astype(np.float64).mean(axis=0).astype(int)
                cache[rgb] = ((x0 / width, y0 / height, (x1 - x0 + 1) / width, (y1 - y0 + 1) / height),
                              (float(mean[0]), float(mean[1]), float(mean[2])))
        hit = cache[rgb]
        if hit is not None:
            blocks.append(TextBlock(item.text.lower(), hit[0], hit[1]))
    return blocks


def merge_same_box(blocks: Sequence[TextBlock]) -> list[TextBlock]:
    """Merge blocks with the same box, in order: texts joined by a space, each new colour averaged
    with the running one (``(a + b) / 2``, as the reference does)."""
    merged: dict[tuple[float, float, float, float], TextBlock] = {}
    for b in blocks:
        prev = merged.get(b.bbox)
        if prev is None:
            merged[b.bbox] = b
        else:
            colour = tuple((p + c) / 2 for p, c in zip(prev.color, b.color, strict=True))
            merged[b.bbox] = TextBlock(prev.text + " " + b.text, b.bbox, (colour[0], colour[1], colour[2]))
    return list(merged.values())
