"""Text edits are judged visible against the text's own glyph area, not the button's box
(issue 64: "Load More" spaced out in an 860x40 button changed 1.0-1.45% of the box and was
rejected as a no-op)."""

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from webgauge.pages import StaticServer
from webgauge.perturb import MIN_CHANGED_BOX, apply_text, changed_fraction, check_visible_change, glyph_box

WIDE = """<!doctype html><html><head><meta charset="utf-8"><style>
body { font-family: sans-serif; margin: 40px; }
button { width: 860px; height: 40px; font-size: 14px; background: #f2f2f2; border: 1px solid #ccc; }
</style></head><body><h1>News</h1><p>Stories of the week.</p><button id="more">Load More</button></body></html>"""


def _png(rgb: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(rgb.astype(np.uint8), "RGB").save(out, format="PNG")
    return out.getvalue()


@given(bg=st.tuples(*[st.integers(0, 255)] * 3), ink=st.tuples(*[st.integers(0, 255)] * 3),
       x=st.integers(1, 50), y=st.integers(1, 20), w=st.integers(1, 30), h=st.integers(1, 10))
def test_the_glyph_box_is_the_inks_bounding_box(bg, ink, x, y, w, h):
    img = np.zeros((40, 100, 3), dtype=np.uint8)
    img[:, :] = bg
    distinct = max(abs(a - b) for a, b in zip(bg, ink, strict=True)) > 8
    img[y:y + h, x:x + w] = ink
    img[0, :] = img[-1, :] = ink  # a border across the box is not text
    img[:, 0] = ink
    got = glyph_box(_png(img), (0, 0, 100, 40))
    if not distinct:  # ink the colour of the background is no ink
        assert got is None
    else:  # (w <= 30 of 100, h <= 10 of 40: the background is the most common colour, no full-span line)
        assert got == (x, y, w, h)


@given(st.integers(0, 2**32 - 1))
def test_an_unchanged_box_is_never_a_visible_text_edit(seed):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, size=(30, 60, 3), dtype=np.uint8)
    png = _png(img)
    assert changed_fraction(png, png, (0, 0, 60, 30)) == 0.0


@pytest.mark.browser
@pytest.mark.parametrize("kind", ["spaces", "reverse"])
async def test_a_short_label_in_a_wide_button_is_a_visible_edit(browser, kind):
    with StaticServer(files={"index.html": WIDE.encode()}) as srv:
        async with browser.open(srv.url("index.html")) as live:
            clean = await live.capture(full_page=True)
            button = next(e for e in clean.elements if e.attrs.get("id") == "more")
            record = await apply_text(live, button, kind, seed=1)
            after = await live.capture(full_page=True)
    box_share = changed_fraction(clean.png, after.png, button.box)
    # judged by the box, the edit looks like a no-op: this is what rejected it
    assert box_share < MIN_CHANGED_BOX
    result = check_visible_change(record, clean, after)
    assert result.ok, result.problems
    x, y, w, h = record.params["glyph_box"]
    bx, by, bw, bh = button.box
    assert bx <= x and x + w <= bx + bw + 1 and w < bw / 3  # the letters, not the button
    assert record.params["changed_pixels"] >= MIN_CHANGED_BOX > box_share
