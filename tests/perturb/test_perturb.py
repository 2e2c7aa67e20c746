"""Perturbations on live synthetic pages in real Chromium, with their invariance checks."""

import random

import pytest

from webgauge.pages import StaticServer
from webgauge.pages.synthetic import generate_page
from webgauge.perturb import (
    MARKER,
    MIN_CHANGED_PAGE,
    TEXT_KINDS,
    apply_color,
    apply_layout,
    apply_low_contrast,
    apply_text,
    changed_fraction,
    check_box_fixed,
    check_colors_only,
    check_text_only,
    check_visible_change,
    perturb_label,
    verify,
)


def _cta(snap, page):
    return next(e for e in snap.elements if e.attrs.get("id") == page.truth["cta"]["id"])


@pytest.mark.parametrize("kind", TEXT_KINDS)
def test_label_perturbations_change_the_text_and_are_seeded(kind):
    for label in ("Add to cart", "Delete account", "Start free trial"):
        a = perturb_label(label, kind, random.Random(1))
        assert a != label and a == perturb_label(label, kind, random.Random(1))
    with pytest.raises(ValueError, match="choose one of"):
        perturb_label("Go", "leet", random.Random(0))


def test_the_papers_text_strategies_and_fallback_marker():
    r = random.Random(0)
    assert perturb_label("Sell old phone", "substitute", r) == "S311 01d ph0n3"
    assert perturb_label("Buy now", "reverse", r) == "won yuB"
    assert perturb_label("Join", "spaces", r) == "J o i n"
    assert perturb_label("Join", "punctuation", r)[-1] in "!·"
    shuffled = perturb_label("Subscribe", "shuffle", r)
    assert sorted(shuffled) == sorted("Subscribe") and shuffled != "Subscribe"
    # a strategy that changes nothing gets the paper's fallback marker
    assert perturb_label("Buy", "substitute", r) == "Buy" + MARKER
    assert perturb_label("Go", "shuffle", r) == "Go" + MARKER


@pytest.mark.browser
async def test_color_text_contrast_and_layout_on_a_live_page(browser):
    page = generate_page(5, with_safety=True, length="medium")
    with StaticServer(files=page.files()) as srv:
        async with browser.open(srv.url("index.html")) as live:
            clean = await live.capture(full_page=True)
            cta = _cta(clean, page)

            rec = await apply_color(live, seed=9)
            after = await live.capture(full_page=True)
            assert 1 <= rec.params["recolored"] <= rec.params["candidates"]
            assert all(v.ok for v in verify(rec, clean, after)), [v.problems for v in verify(rec, clean, after)]
            assert rec.to_dict()["changes"][0]["after"].startswith("rgb(")
            # a recolor that the record does not mention is caught
            assert not check_colors_only(clean, after, []).ok

            await live.reload()
            rec = await apply_text(live, cta, "homoglyph", seed=2)
            after = await live.capture(full_page=True)
            assert after.by_path()[cta.path].text != cta.text
            assert verify(rec, clean, after)[0].ok
            other = next(e for e in clean.elements if e.tag == "h1")
            assert not check_text_only(clean, after, [other.path]).ok

            await live.reload()
            rec = await apply_low_contrast(live, seed=1)
            after = await live.capture(full_page=True)
            assert rec.params["elements"] > 10 and verify(rec, clean, after)[0].ok
            assert after.png_sha256 != clean.png_sha256

            for level in ("easy", "medium", "hard"):
                await live.reload()
                rec = await apply_layout(live, seed=4, level=level, protect=[cta])
                after = await live.capture(full_page=True)
                assert rec.changes and set(rec.tracked) == {cta.path}
                checks = verify(rec, clean, after)
                assert all(c.ok for c in checks), checks
                assert after.by_path()[rec.tracked[cta.path]].text == cta.text
                # every level, easy included, changes what the model sees
                assert check_visible_change(rec, clean, after).ok, (level, rec.params)
                assert {c.what for c in rec.changes} & {"add", "delete", "move"}
            # the check does notice a moved call-to-action
            await live.reload()
            await live.evaluate("() => { const b = document.querySelector('main'); b.style.paddingTop = '80px'; }")
            moved = await live.capture(full_page=True)
            assert not check_box_fixed(clean, moved, cta.path).ok


@pytest.mark.browser
async def test_no_op_rejection_measures_pixels(browser):
    page = generate_page(5, length="short")
    with StaticServer(files=page.files()) as srv:
        async with browser.open(srv.url("index.html")) as live:
            clean = await live.capture(full_page=True)
            cta = _cta(clean, page)
            again = await live.capture(full_page=True)
            assert changed_fraction(clean.png, again.png) == 0.0
            # a perturbation record whose page did not change is rejected, page-wide and in the target box
            rec = await apply_layout(live, seed=1, level="easy", protect=[cta])
            assert not check_visible_change(rec, clean, again).ok and rec.params["changed_pixels"] == 0.0
            await live.reload()
            rec = await apply_text(live, cta, "spaces", seed=1)
            after = await live.capture(full_page=True)
            vis = check_visible_change(rec, clean, after)
            assert vis.ok and rec.params["changed_pixels"] > 0.05
            page_wide = changed_fraction(clean.png, after.png)
            assert MIN_CHANGED_PAGE < page_wide < rec.params["changed_pixels"]
            assert not check_visible_change(rec, clean, clean).ok


@pytest.mark.browser
async def test_perturbations_are_deterministic(browser):
    page = generate_page(8, length="short")
    with StaticServer(files=page.files()) as srv:
        async with browser.open(srv.url("index.html")) as live:
            recs = []
            for _ in range(2):
                await live.reload()
                a = await apply_color(live, seed=3, share=0.5)
                await live.reload()
                b = await apply_layout(live, seed=3, level="hard", protect=["css=#" + page.truth["cta"]["id"]])
                recs.append((a.to_dict(), b.to_dict()))
            assert recs[0] == recs[1]
            with pytest.raises(ValueError, match="choose one of"):
                await apply_layout(live, seed=1, level="extreme")


def test_text_check_allows_the_button_and_what_is_inside_it_only():
    from types import SimpleNamespace as NS

    def snap(label: str, other: str = "Home"):
        els = {"/html/body/button": NS(text=label, name=label), "/html/body/button/div": NS(text=label, name=""),
               "/html/body": NS(text=f"{label} {other}", name=""), "/html/body/a": NS(text=other, name=other)}
        return NS(by_path=lambda: els)

    before = snap("SEARCH")
    # the label lives in a <div> inside the button: the div changes with it
    assert check_text_only(before, snap("S E A R C H"), ["/html/body/button"]).ok
    # the same edit claimed for the div alone: the button (an ancestor) may change too
    assert check_text_only(before, snap("S E A R C H"), ["/html/body/button/div"]).ok
    # text outside the button never may
    bad = check_text_only(before, snap("S E A R C H", other="Start"), ["/html/body/button"])
    assert not bad.ok and any("/html/body/a" in p for p in bad.problems)
    # and an edit that did not show is caught
    assert not check_text_only(before, snap("SEARCH"), ["/html/body/button"]).ok
