"""A reused tab is blanked before its stored data is cleared: what the old document's unload
handlers write (pagehide, unload, beforeunload, visibilitychange) is gone in the next document,
as in a fresh context, whether the tab was frozen first (the double-buffered reset) or not."""

from __future__ import annotations

import pytest

from webgauge.browser import RenderProfile
from webgauge.pages import StaticServer

pytestmark = pytest.mark.browser

WRITER = """<!doctype html><body><h1>Writer</h1><script>
const put = (why) => { localStorage.setItem(why, '1'); sessionStorage.setItem(why, '1');
  document.cookie = why + '=1; path=/'; };
for (const ev of ['pagehide', 'unload', 'beforeunload']) addEventListener(ev, () => put(ev));
document.addEventListener('visibilitychange', () => put('visibilitychange'));
</script></body>"""

READ_JS = ("() => [Object.keys(localStorage).sort(), Object.keys(sessionStorage).sort(), document.cookie, "
           "history.length]")


@pytest.mark.parametrize("frozen", [False, True])
async def test_what_unload_handlers_write_does_not_outlive_reuse(browser, frozen):
    profile = RenderProfile(width=640, height=400)
    with StaticServer(files={"/writer.html": WRITER, "/next.html": "<h1>Next</h1>"}) as srv:
        page = await browser.new_page(profile)
        try:
            await page.goto(srv.url("writer.html"))
            if frozen:
                await page.freeze()
            await page.reuse(profile)
            assert page.tabs == ["about:blank"] and page.navigation_id == 0
            await page.goto(srv.url("next.html"))
            now = await page.evaluate(READ_JS)
            async with browser.open(srv.url("next.html"), profile) as fresh_page:
                fresh = await fresh_page.evaluate(READ_JS)
            assert now == fresh == [[], [], "", fresh[3]]
            # the handlers do write when the document unloads without a reuse (the test can fail)
            await page.goto(srv.url("writer.html"))
            await page.goto(srv.url("next.html"))
            assert "pagehide" in (await page.evaluate(READ_JS))[0]
        finally:
            await page.close()


async def test_a_cookie_that_lands_after_the_clear_is_cleared_again_and_counted(browser):
    """A cookie write of the old document can reach the store after the clear (it travels on the
    document's own pipe): here the context's first clear is followed at once by such a write. The
    reuse finds it, clears again and counts it; the next document does not see it."""
    profile = RenderProfile(width=640, height=400)
    with StaticServer(files={"/writer.html": WRITER, "/next.html": "<h1>Next</h1>"}) as srv:
        page = await browser.new_page(profile)
        ctx, calls = page._ctx, []
        clear = ctx.clear_cookies

        async def clear_then_a_late_write(*args, **kwargs):
            await clear(*args, **kwargs)
            calls.append(1)
            if len(calls) == 1:
                await ctx.add_cookies([{"name": "late", "value": "1", "url": srv.url("writer.html")}])
        ctx.clear_cookies = clear_then_a_late_write
        try:
            await page.goto(srv.url("writer.html"))
            await page.reuse(profile)
            assert page.late_cookies_cleared == 1 and len(calls) == 2 and await ctx.cookies() == []
            await page.goto(srv.url("next.html"))
            assert await page.evaluate("() => document.cookie") == ""
            await page.reuse(profile)  # nothing late this time: one clear, nothing counted
            assert page.late_cookies_cleared == 1 and len(calls) == 3
        finally:
            ctx.clear_cookies = clear
            await page.close()
