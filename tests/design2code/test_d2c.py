"""Design2Code's visual score, without a browser: colours, blocks from renders, matching, scores.

The browser half (two-colour rendering of real pages, agreement with Design2Code's own code) is
in test_d2c_reference.py and test_self_score_corpus.py.
"""

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from webgauge.design2code.d2c import (
    TextBlock,
    TextItem,
    blocks_from_renders,
    colour_pool,
    colour_similarity,
    d2c_block_scores,
    d2c_scores,
    match_blocks,
    merge_gain,
    merge_same_box,
    resolve_colour,
)
from webgauge.design2code.d2c.edits import EDIT_KINDS, edit_page, element_spans, reference_pairs
from webgauge.design2code.finegrained import fine_grained
from webgauge.design2code.neural import Missing
from webgauge.design2code.resources import Resource

channel = st.integers(0, 255)


def test_resolve_colour_reads_inline_styles_as_design2code_does():
    assert resolve_colour("color: #ABCDEF !important") == "#ABCDEF"          # a hex value as written
    assert resolve_colour("color: rgb(1, 2, 3)") == "#010203"
    assert resolve_colour("font-weight: bold; color: red") == "#ff0000"      # a colour name
    assert resolve_colour("border-color: blue") == "#0000ff"                 # any "color" but background-color
    assert resolve_colour("background-color: red") is None
    assert resolve_colour("color: rgba(1, 2, 3, 0.5)") is None               # the reference cannot read rgba
    assert resolve_colour("color: inherit") is None
    assert resolve_colour("color:") is None and resolve_colour("margin: 0") is None


@given(channel, channel, channel)
def test_resolve_colour_of_any_rgb(r, g, b):
    assert resolve_colour(f"margin: 0; color: rgb({r}, {g}, {b})") == f"#{r:02x}{g:02x}{b:02x}"


def test_colour_pool_is_unique_and_shifted():
    p0, p50 = colour_pool(0), colour_pool(50)
    assert len(p0) == len(set(p0)) == 16 ** 3 and p0[0] == "#FAFAFA"        # handed out from the end
    for a, b in zip(p0, p50, strict=True):
        assert all((int(a[i:i + 2], 16) + 50) % 256 == int(b[i:i + 2], 16) for i in (1, 3, 5))


@st.composite
def painted(draw):
    """A white page with 1-4 disjoint text rectangles, each in a pool colour (in p0) and that colour
    shifted by 50 (in p1), over an original rendering with arbitrary pixels there."""
    h, w = draw(st.integers(20, 60)), draw(st.integers(20, 60))
    n = draw(st.integers(1, 4))
    pool0, pool1 = colour_pool(0), colour_pool(50)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    original = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    p0 = np.full((h, w, 3), 255, dtype=np.uint8)
    p1 = p0.copy()
    rects = []
    band = h // n
    for k in range(n):
        y0 = k * band + draw(st.integers(0, max(0, band - 2)))
        y1 = draw(st.integers(y0, k * band + band - 1))
        x0 = draw(st.integers(0, w - 1))
        x1 = draw(st.integers(x0, w - 1))
        idx = draw(st.integers(0, 4095))
        if any(idx == i for i, _ in rects):
            continue
        c0 = [int(pool0[idx][i:i + 2], 16) for i in (1, 3, 5)]
        c1 = [int(pool1[idx][i:i + 2], 16) for i in (1, 3, 5)]
        p0[y0:y1 + 1, x0:x1 + 1] = c0
        p1[y0:y1 + 1, x0:x1 + 1] = c1
        rects.append((idx, (x0, y0, x1, y1)))
    return original, p0, p1, rects


@given(painted())
def test_blocks_are_the_boxes_of_the_shifted_pixels(case):
    original, p0, p1, rects = case
    h, w = p0.shape[:2]
    pool0 = colour_pool(0)
    items = [TextItem(f"Text {k}", pool0[idx]) for k, (idx, _) in enumerate(rects)]
    blocks = blocks_from_renders(original, p0, p1, items)
    assert len(blocks) == len(rects)
    for blk, (_, (x0, y0, x1, y1)) in zip(blocks, rects, strict=True):
        assert blk.text == blk.text.lower()
        assert blk.bbox == pytest.approx((x0 / w, y0 / h, (x1 - x0 + 1) / w, (y1 - y0 + 1) / h))
        region = original[y0:y1 + 1, x0:x1 + 1].reshape(-1, 3).astype(float).mean(axis=0)
        assert blk.color == tuple(float(int(v)) for v in region)             # the mean colour, truncated


def test_unshifted_pixels_and_unreadable_colours_make_no_block():
    p0 = np.full((10, 10, 3), 255, dtype=np.uint8)
    p0[2:5, 2:5] = (250, 250, 250)
    items = [TextItem("a", "#FAFAFA"), TextItem("b", None), TextItem("c", "#000000")]
    assert blocks_from_renders(p0, p0, p0.copy(), items) == []               # nothing moved: no text pixel
    assert blocks_from_renders(p0, p0, p0[:5], items) == []                  # renders of different sizes


def test_same_box_blocks_merge_in_order():
    box = (0.1, 0.1, 0.2, 0.2)
    merged = merge_same_box([TextBlock("a", box, (0, 0, 0)), TextBlock("b", (0.5, 0.5, 0.1, 0.1), (1, 1, 1)),
                             TextBlock("c", box, (100, 50, 10))])
    assert [b.text for b in merged] == ["a c", "b"] and merged[0].color == (50, 25, 5)


texts = st.lists(st.text(alphabet="abcdefgh ", min_size=1, max_size=12), min_size=1, max_size=7, unique=True)


@st.composite
def pages(draw):
    ts = draw(texts)
    blocks = []
    for k, t in enumerate(ts):
        colour = (draw(channel), draw(channel), draw(channel))
        blocks.append(TextBlock(t, (draw(st.floats(0, 0.9)), k / len(ts), 0.05, 0.5 / len(ts)), colour))
    return blocks


@given(pages())
def test_a_page_against_itself_scores_one(blocks):
    s = d2c_block_scores(blocks, blocks)
    assert (s.block, s.text, s.position, s.color) == (1.0, 1.0, 1.0, 1.0) and s.n_matched == len(blocks)


@given(pages(), pages())
def test_scores_lie_in_the_unit_interval(a, b):
    s = d2c_block_scores(a, b)
    assert all(0.0 <= v <= 1.0 for v in (s.block, s.text, s.position, s.color))
    assert (s.n_matched == 0) == (s.block == 0.0)


def test_split_text_is_merged_before_matching():
    ref = [TextBlock("hello world", (0.1, 0.1, 0.4, 0.05), (0, 0, 0))]
    cand = [TextBlock("hello", (0.1, 0.1, 0.2, 0.05), (0, 0, 0)), TextBlock("world", (0.3, 0.1, 0.2, 0.05), (0, 0, 0))]
    a, b, pairs = match_blocks(cand, ref)
    assert [x.text for x in a] == ["hello world"] and pairs == [(0, 0, 1.0)]
    assert a[0].bbox == pytest.approx((0.1, 0.1, 0.4, 0.05))
    # the gain is the better mean of the costs the two matchings do not share
    assert merge_gain([-0.625], [-1.0]) == pytest.approx(0.375) and merge_gain([-1.0], [-0.625]) < 0


def test_pairs_less_similar_than_half_are_dropped():
    s = d2c_block_scores([TextBlock("abcdef", (0, 0, 0.1, 0.1), (0, 0, 0))],
                         [TextBlock("uvwxyz", (0, 0, 0.1, 0.1), (0, 0, 0))])
    assert (s.block, s.text, s.position, s.color, s.n_matched) == (0.0, 0.0, 0.0, 0.0, 0)


@given(channel, channel, channel, channel, channel, channel)
def test_colour_similarity_and_mrweb_colour_difference_are_clamped(r, g, b, r2, g2, b2):
    sim = colour_similarity((r, g, b), (r2, g2, b2))
    assert 0.0 <= sim <= 1.0 and colour_similarity((r, g, b), (r, g, b)) == 1.0
    ref = Resource(type="link", box=[[0, 0], [10, 10]], url="a.html", color=f"rgb({r}, {g}, {b})")
    gen = Resource(type="link", box=[[0, 0], [10, 10]], url="a.html", color=f"rgb({r2}, {g2}, {b2})")
    fg = fine_grained([ref], [gen], 100, 100)
    assert fg.color_difference == pytest.approx(min(1.0, fg.color_difference_raw / 100))
    assert fg.color_difference <= 1.0


def test_blue_against_yellow_is_the_largest_colour_difference():
    ref = Resource(type="link", box=[[0, 0], [10, 10]], url="a.html", color="rgb(0, 0, 255)")
    gen = Resource(type="link", box=[[0, 0], [10, 10]], url="a.html", color="rgb(255, 255, 0)")
    fg = fine_grained([ref], [gen], 100, 100)
    assert fg.color_difference == 1.0 and fg.color_difference_raw == pytest.approx(103.4, abs=0.1)


def _png(arr):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


def test_overall_is_missing_without_clip_and_weighted_with_it(require_module):
    require_module("cv2", "d2c")
    blocks = [TextBlock("hello", (0.1, 0.1, 0.3, 0.2), (0, 0, 0))]
    png = _png(np.full((40, 60, 3), 200, dtype=np.uint8))
    missing = Missing("CLIP: no weights (--clip-weights)")
    s = d2c_scores(png, blocks, png, blocks, missing)
    assert s["d2c_clip"] == s["d2c_final"] == missing.to_json() and s["d2c_final_noclip"] == 1.0

    class HalfClip:  # a scorer is anything with score(image, image)
        def score(self, a, b):
            assert a.shape[0] == a.shape[1] == 40                               # squeezed to the shorter side
            return 0.5

    s = d2c_scores(png, blocks, png, blocks, HalfClip(), weights=(0.1, 0.1, 0.1, 0.1, 0.6))
    assert s["d2c_clip"] == 0.5 and s["d2c_final"] == pytest.approx(0.4 + 0.3)


def test_edits_are_seeded_and_change_the_page(real_pages):
    html = (real_pages / "1034.html").read_text(encoding="utf-8")
    for kind in EDIT_KINDS:
        assert edit_page(html, kind, 3) == edit_page(html, kind, 3)
        assert (edit_page(html, kind, 3) == html) == (kind == "identical")
    with pytest.raises(ValueError, match="unknown edit"):
        edit_page(html, "shuffle", 0)
    elements, text_spans = element_spans(html)
    assert all(html[e.start] == "<" and html[e.end - 1] == ">" for e in elements) and text_spans
    ids = [p.stem for p in real_pages.glob("*.html")]
    recipe = reference_pairs(ids, 30, 0)
    assert recipe == reference_pairs(list(reversed(ids)), 30, 0) and len({p for p, _, _ in recipe}) == 30
