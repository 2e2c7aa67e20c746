"""The real-page labeller's rules as properties over generated element tables (no browser): a UI
group is decided only by a landmark or a region name whose own box agrees; position alone never
labels; an advertisement marker is a whole token; buttons are inside the page; redaction markers
are no labels."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from webgauge.browser import Element, Snapshot
from webgauge.understand.labeller import (
    REGION_TOKENS,
    button_like,
    is_redacted,
    position_group,
    ui_group_label,
)

W, H = 1280.0, 3000.0
ROLES = ("banner", "contentinfo", "complementary", "main", "navigation", "generic", "region")
CLASSES = ("", "header", "site-footer", "sidebar", "main-content", "page-header", "box", "container", "ad",
           "cmsRegion-AD1D2116", "sponsored", "nav")


def _el(i, box, *, role="generic", cls="", parent=None, tag="div", text="x", clickable=False):
    return Element(id=f"e{i}", path=f"/p{i}", tag=tag, role=role, name=text, text=text, box=box, visible=True,
                   clickable=clickable, color="rgb(0, 0, 0)", background_color="rgba(0, 0, 0, 0)", font_size=14.0,
                   attrs={"class": cls} if cls else {}, parent=parent)


boxes = st.tuples(st.floats(0, W - 10), st.floats(0, H - 10), st.floats(10, W), st.floats(10, H)).map(
    lambda b: (b[0], b[1], min(b[2], W - b[0]), min(b[3], H - b[1])))


@st.composite
def tables(draw):
    n = draw(st.integers(1, 4))
    els = [_el(0, (0.0, 0.0, W, H), tag="body")]
    for i in range(1, n + 1):
        els.append(_el(i, draw(boxes), role=draw(st.sampled_from(ROLES)), cls=draw(st.sampled_from(CLASSES)),
                       parent=f"e{i - 1}"))
    leaf = _el(n + 1, draw(boxes), parent=f"e{n}", tag="a", text="Link")
    els.append(leaf)
    return Snapshot(url="", viewport=(1280, 800), device_scale_factor=1.0, scroll=(0.0, 0.0), png=b"",
                    png_sha256="", full_page=True, elements=els, aria="", title="", page_size=(int(W), int(H))), leaf


@given(tables())
def test_a_group_is_decided_only_by_a_named_region(table):
    snap, leaf = table
    got = ui_group_label(snap, leaf)
    chain = [e for e in snap.elements if e.id != leaf.id]
    named = [e for e in chain if e.role in ROLES[:5] or any(p.match(e.attrs.get("class", ""))
                                                               for p in REGION_TOKENS.values())]
    ads = [e for e in chain if e.attrs.get("class") in ("ad", "sponsored")]
    if got.group is not None:
        assert named or ads, got  # never position alone
        assert got.signal in ("landmark", "name", "ad-marker")
    if ads:
        assert got.group == "else"
    if not named and not ads:
        assert got.group is None and got.signal == "no-region"


@given(boxes)
def test_position_alone_labels_nothing_in_the_labeller(box):
    snap = Snapshot(url="", viewport=(1280, 800), device_scale_factor=1.0, scroll=(0.0, 0.0), png=b"",
                    png_sha256="", full_page=True, elements=[_el(0, (0.0, 0.0, W, H), tag="body"),
                                                            _el(1, box, parent="e0")],
                    aria="", title="", page_size=(int(W), int(H)))
    el = snap.elements[1]
    assert ui_group_label(snap, el).group is None  # the baseline's rule still answers
    assert position_group(snap, el) in ("top bar", "bottom bar", "left sidebar", "right sidebar", "main content")


@given(st.floats(-500, 1500), st.floats(-500, 3500))
def test_a_button_outside_the_page_is_no_button(x, y):
    el = _el(1, (x, y, 120.0, 40.0), tag="button", text="Go", clickable=True)
    snap = Snapshot(url="", viewport=(1280, 800), device_scale_factor=1.0, scroll=(0.0, 0.0), png=b"",
                    png_sha256="", full_page=True, elements=[el], aria="", title="", page_size=(1280, 3000))
    inside = x >= -1 and y >= -1 and x + 120 <= 1281 and y + 40 <= 3001
    assert button_like(el, None, snap) == inside


@given(st.sampled_from(["EMAIL", "PHONE", "ZIP", "TWITTER", "ADDRESS"]), st.text(max_size=20))
def test_redaction_markers_are_recognised(kind, around):
    assert is_redacted(f"{around}[{kind} REDACTED]{around}")
    assert not is_redacted(around.replace("REDACTED", "")) or "[" in around
