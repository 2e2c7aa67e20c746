"""What keeps the faster build exact: the caret of an autofocused field is hidden (it blinked
in and out of captures), and a snapshot file leaves out the blocked requests (a browser race)."""

import asyncio

from webgauge.pages import load_pages, serve_pages
from webgauge.understand.build import BUILD_PROFILE
from webgauge.understand.questions import hide_caret


async def test_the_caret_of_an_autofocused_field_is_hidden_and_captures_stop_blinking(browser, real_pages_dir):
    refs = [r for r in load_pages(real_pages_dir) if r.id == "2293"]  # autofocuses its e-mail field
    with serve_pages(refs) as urls:
        page = await browser.new_page(BUILD_PROFILE)
        try:
            await page.goto(urls["2293"])
            await page.settle()
            before = set()
            for _ in range(6):  # the caret blinks every 500 ms: both phases show within 1.5 s
                before.add(await page.full_page_png())
                await asyncio.sleep(0.27)
            assert len(before) == 2, "the caret no longer blinks here: pick another page for this test"
            assert await hide_caret(page)
            assert await page.evaluate("() => document.activeElement.id") == "email"  # still focused
            after = set()
            for _ in range(6):
                after.add(await page.full_page_png())
                await asyncio.sleep(0.27)
            assert len(after) == 1 and after <= before  # the caret's off phase, every time
        finally:
            await page.close()
