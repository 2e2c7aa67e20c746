"""Render a page Design2Code's way in Chromium and find its text blocks.

Design2Code renders every page in a 1280x720 window (Playwright's default), full page.
:func:`d2c_capture` takes a live page opened with :data:`D2C_PROFILE`, screenshots it, applies the
two-colour rendering to the live DOM (``recolor.js``: transparent backgrounds, one colour per
text-tag element, then the same colours shifted by 50) and screenshots it twice more;
:func:`~webgauge.design2code.d2c.blocks.blocks_from_renders` turns the three PNGs into blocks.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from importlib import resources as _res

import numpy as np
from PIL import Image

from webgauge.browser import LivePage, RenderProfile
from webgauge.design2code.d2c.blocks import (
    SHIFT,
    TEXT_TAGS,
    TextBlock,
    TextItem,
    blocks_from_renders,
    colour_pool,
    merge_same_box,
    resolve_colour,
)
from webgauge.design2code.screens import page_screenshot

__all__ = ["D2C_PROFILE", "D2CCapture", "d2c_capture", "RECOLOR_JS"]

#: Design2Code's window: Playwright's default viewport, full-page screenshots
D2C_PROFILE = RenderProfile(width=1280, height=720)
RECOLOR_JS = _res.files("webgauge.design2code.d2c").joinpath("recolor.js").read_text(encoding="utf-8")
BLACK = "#000000"


@dataclass(frozen=True)
class D2CCapture:
    """A page as Design2Code sees it: its screenshot and its text blocks (same boxes merged)."""

    png: bytes
    blocks: list[TextBlock]


def _rgb(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _items(raw: list[dict]) -> list[TextItem]:
    out = []
    for r in raw:
        text = r["text"].strip()
        if not text:
            continue
        colour = next((c for c in (resolve_colour(s) for s in r["chain"]) if c is not None), BLACK)
        out.append(TextItem(text, colour))
    return out


async def d2c_capture(page: LivePage) -> D2CCapture:
    """Screenshot ``page`` and find its text blocks (module docstring). Leaves the page recoloured.
    Raises ``ValueError`` when the page has more text elements than the pool has colours."""
    png = await page_screenshot(page)
    first = await page.evaluate(RECOLOR_JS, {"tags": list(TEXT_TAGS), "pool": colour_pool(0), "first": True})
    if "error" in first:
        raise ValueError(f"two-colour rendering impossible: {first['error']}")
    p0 = await page_screenshot(page)
    await page.evaluate(RECOLOR_JS, {"tags": list(TEXT_TAGS), "pool": colour_pool(SHIFT), "first": False})
    p1 = await page_screenshot(page)
    blocks = blocks_from_renders(_rgb(png), _rgb(p0), _rgb(p1), _items(first["items"]))
    return D2CCapture(png, merge_same_box(blocks))
