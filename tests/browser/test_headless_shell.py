"""Chromium's headless shell, webgauge's browser, where it differs from the full browser: a
full-page capture leaves nothing behind that changes the next capture of the same document, and a
page's own pop-ups are blocked as Chromium's pop-up blocker blocks them.

In the shell, a full-page screenshot (``Page.captureScreenshot`` with ``captureBeyondViewport``)
sends the tab's preferences again. Two things then changed under the page: the generic monospace
font (a new document starts from fontconfig's DejaVu Sans Mono, the preferences name Courier New,
Liberation Mono here: 10955's first ``code`` 70.45 px wide, then 70.22), and, from the text laid out
again, an inline box that Blink then gave a box of its own and kept (1223's "Powered by GoDaddy"
span: 20 px tall, then 17). A page built after another then differed from the same page built alone.
"""

import asyncio
import os

import pytest

from webgauge.browser.chromium import is_headless_shell
from webgauge.pages import StaticServer

SPAN = "[data-aid=FOOTER_POWERED_BY_RENDERED] span"
BOX_JS = "(s) => { const r = document.querySelector(s).getBoundingClientRect(); return [r.x, r.y, r.width, r.height] }"
RAW_FULL_PAGE = {"format": "png", "captureBeyondViewport": True,
                 "clip": {"x": 0, "y": 0, "width": 100, "height": 100, "scale": 1}}


def _needs_shell(browser):
    chosen = os.environ.get("WEBGAUGE_CHROMIUM")
    assert is_headless_shell(browser.executable), (
        f"the tests' browser is {browser.executable}, not Chromium's headless shell: "
        + ("WEBGAUGE_CHROMIUM chose it; unset it to test the shell" if chosen else
           "install it with `make bootstrap` (or `sudo apt-get install -y chromium-headless-shell`)"))


@pytest.mark.browser
async def test_a_full_page_screenshot_changes_no_font_under_the_page(browser, real_pages_dir):
    """The monospace text is laid out in the same font before and after a full-page screenshot,
    on the tab's first document and on the next ones."""
    _needs_shell(browser)
    with StaticServer(root=real_pages_dir) as srv:
        page = await browser.new_page()
        try:
            for _ in range(2):  # the first document of the tab, then another one
                await page.goto(srv.url("10955.html"))
                await page.settle()
                before = await page.evaluate(BOX_JS, "main p code")
                cdp = await page.cdp()
                await cdp.send("Page.captureScreenshot", RAW_FULL_PAGE)
                assert await page.evaluate(BOX_JS, "main p code") == before
        finally:
            await page.close()


@pytest.mark.browser
async def test_every_full_page_capture_of_a_document_reads_its_first_layout(browser, real_pages_dir):
    """The span whose box the shell's relayout changes (20 px tall at the load, 17 after a full-page
    screenshot) reads as laid out at the load in each capture: the first, the next, and one after a
    full-page screenshot taken outside any capture."""
    _needs_shell(browser)
    with StaticServer(root=real_pages_dir) as srv:
        page = await browser.new_page()
        try:
            await page.goto(srv.url("1223.html"))
            await page.settle()
            at_load = await page.evaluate(BOX_JS, SPAN)
            assert at_load[3] == 20, f"page 1223's span is {at_load[3]} px tall at the load (20 expected)"
            cdp = await page.cdp()
            await cdp.send("Page.captureScreenshot", RAW_FULL_PAGE)
            relaid = await page.evaluate(BOX_JS, SPAN)
            boxes = []
            for _ in range(2):
                snap = await page.capture(full_page=True, with_aria=False)
                spans = [e.box for e in snap.elements if e.tag == "span" and e.text == "Powered by GoDaddy"]
                assert len(spans) == 1
                boxes.append(list(spans[0]))
            await page.goto(srv.url("1223.html"))
            snap = await page.capture(full_page=True, with_aria=False)
            boxes += [list(e.box) for e in snap.elements if e.tag == "span" and e.text == "Powered by GoDaddy"]
        finally:
            await page.close()
    assert boxes == [at_load] * 3, (boxes, at_load, "live box after a raw full-page screenshot:", relaid)


@pytest.mark.browser
async def test_a_full_page_capture_of_a_scrolled_page_reads_what_is_in_view(browser):
    """The table of a full page is read from a layout built afresh (the root's display switched and
    back): the elements in view are still the ones the user sees, and the page keeps its scroll and
    focus (a rebuild through ``display: none`` lost the scroll)."""
    _needs_shell(browser)
    html = ("<!doctype html><body style='margin:0;height:3000px'><div id=top style='height:100px'>top</div>"
            "<input id=q style='margin-top:800px'></body>")
    with StaticServer(files={"/index.html": html}) as srv:
        page = await browser.new_page()
        try:
            await page.goto(srv.url("index.html"))
            await page.evaluate("() => { document.getElementById('q').focus(); window.scrollTo(0, 700); }")
            snap = await page.capture(full_page=True, with_aria=False)
            state = await page.evaluate("() => [document.activeElement.id, window.scrollY]")
        finally:
            await page.close()
    seen = {e.attrs.get("id"): e.in_viewport for e in snap.elements if e.attrs.get("id") in ("top", "q")}
    assert snap.settled and seen == {"top": False, "q": True}, (seen, snap.warnings)
    assert state == ["q", 700], state


@pytest.mark.browser
async def test_a_script_opens_no_window_and_a_click_opens_one(browser):
    """The shell has no pop-up blocker: a page opening 50 windows at its load made 50 tabs (closed
    beyond the tab limit), and took 1.5 s to load instead of 0.05. As in the full browser, windows a
    script opens without a user gesture are not opened; a click opens one (its gesture used up by
    the first ``window.open``, so the second is blocked too)."""
    _needs_shell(browser)
    html = ("<html><body><script>for (let i = 0; i < 50; i++) window.open('about:blank#' + i);"
            "setTimeout(() => { window.late = window.open('/late.html') }, 100);</script>"
            "<button id=b onclick=\"window.open('/one.html'); window.open('/two.html')\">open</button></body></html>")
    files = {"/index.html": html, "/one.html": "one", "/two.html": "two", "/late.html": "late"}
    with StaticServer(files=files) as srv:
        page = await browser.new_page()
        try:
            await page.goto(srv.url("index.html"))
            await asyncio.sleep(0.3)  # not a page script: Playwright runs those with a user gesture
            at_load = (list(page.popups), await page.evaluate("() => window.late"), list(page.warnings))
            await page.click("css=#b")
            await asyncio.sleep(0.3)
            opened = [p["url"].rsplit("/", 1)[-1] for p in page.popups]
        finally:
            await page.close()
    assert at_load == ([], None, []), at_load
    assert opened == ["one.html"], opened
