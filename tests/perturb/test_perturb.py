"""Perturbations on live synthetic pages in real Chromium, with their invariance checks."""

import random

import pytest

from webgauge.pages import StaticServer
from webgauge.pages.synthetic import generate_page
from webgauge.perturb import (TEXT_KINDS, apply_color, apply_layout, apply_low_contrast, apply_text,
                              check_box_fixed, check_colors_only, check_text_only, perturb_label, verify)


def _cta(snap, page):
    return next(e for e in snap.elements if e.attrs.get("id") == page.truth["cta"]["id"])


@pytest.mark.parametrize("kind", TEXT_KINDS)
def test_label_perturbations_change_the_text_and_are_seeded(kind):
    for label in ("Add to cart", "Delete account", "Start free trial"):
        a = perturb_label(label, kind, random.Random(1))
        assert a != label and a == perturb_label(label, kind, random.Random(1))
    with pytest.raises(ValueError, match="choose one of"):
        perturb_label("Go", "leet", random.Random(0))


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
            # the check does notice a moved call-to-action
            await live.reload()
            await live.evaluate("() => { const b = document.querySelector('main'); b.style.paddingTop = '80px'; }")
            moved = await live.capture(full_page=True)
            assert not check_box_fixed(clean, moved, cta.path).ok


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
