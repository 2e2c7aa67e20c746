"""Undoing perturbations in place (``EditLog``): exact where it says so, refused elsewhere.

On shared real page 11791 (no script), every attribute and text edit is undone to the very
same DOM, and a perturbation applied after several undone ones gives the same record, DOM
and screenshot as on a freshly loaded page. Structural edits (layout) and pages that run
scripts are refused, so the caller reloads."""

import pytest

from webgauge.pages import StaticServer
from webgauge.perturb import EditLog, apply_color, apply_layout, apply_low_contrast, apply_text

pytestmark = pytest.mark.browser

SEED = 7


async def _open(browser, url):
    page = await browser.new_page(require_settled=True)
    await page.goto(url)
    return page


async def test_attribute_and_text_edits_are_undone_exactly(browser, real_pages_dir):
    with StaticServer(root=real_pages_dir) as srv:
        url = srv.url("11791.html")
        page = await _open(browser, url)
        try:
            clean = await page.capture(full_page=True, with_aria=False)
            clean_dom = await page.content()
            target = next(e for e in clean.elements if e.tag == "button" and e.text == "Search")
            field = next(e for e in clean.elements if e.tag == "input" and e.attrs.get("placeholder"))
            edits = [lambda: apply_low_contrast(page, SEED), lambda: apply_text(page, target, "reverse", SEED),
                     lambda: apply_text(page, target, "homoglyph", SEED),
                     # removing an attribute from the middle of the list: restored at its place
                     lambda: page.evaluate("(p) => document.evaluate(p, document, null, 9, null)"
                                           ".singleNodeValue.removeAttribute('placeholder')", field.path)]
            for edit in edits:
                await page.settle()
                log = EditLog(page)
                assert await log.start(), log.why
                await edit()
                assert await page.content() != clean_dom
                await page.capture(full_page=True, with_aria=False)
                assert await log.undo(), log.why
                assert await page.content() == clean_dom
            # a perturbation after the undone ones is the same as on a fresh page
            again = (await apply_color(page, SEED)).to_dict(), await page.content()
            again_png = (await page.capture(full_page=True, with_aria=False)).png_sha256
        finally:
            await page.close()
        fresh_page = await _open(browser, url)
        try:
            fresh = (await apply_color(fresh_page, SEED)).to_dict(), await fresh_page.content()
            fresh_png = (await fresh_page.capture(full_page=True, with_aria=False)).png_sha256
        finally:
            await fresh_page.close()
        assert again == fresh
        assert again_png == fresh_png


async def test_structural_edits_and_scripted_pages_are_refused(browser, real_pages_dir):
    with StaticServer(root=real_pages_dir) as srv:
        page = await _open(browser, srv.url("11791.html"))
        try:
            snap = await page.capture(with_screenshot=False, with_aria=False)
            cta = next(e for e in snap.elements if e.tag == "button" and e.text == "Search")
            log = EditLog(page)
            assert await log.start()
            await apply_layout(page, SEED, "medium", protect=[cta])
            assert not await log.undo() and "nodes" in log.why
        finally:
            await page.close()
    page = await browser.new_page()
    try:
        await page.set_content("<button id=b>Go</button><script>let n = 0;</script>")
        log = EditLog(page)
        assert not await log.start() and log.why == "scripted"
        assert not await log.undo()
        await page.set_content("<body onload='void 0'><button>Go</button></body>")
        assert not await EditLog(page).start()
    finally:
        await page.close()
