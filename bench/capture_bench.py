"""Capture latency on the shared real pages.

Prints the median time of each capture part (screenshot, element table, aria snapshot),
the cost of the settle before a capture (the old path: fonts + two animation frames, against
the new one: fonts, images decoded, own-origin requests, stable layout, PNG checked against the
page size), the cost of a new browser context against a new page in an existing context, and
full-page capture throughput (pages per second) over the 41 real pages.

    python bench/capture_bench.py [--pages DIR] [--repeat 5] [--only-settle]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from webgauge.browser import Browser, RenderProfile
from webgauge.browser.capture import _capture_js, screenshot_page
from webgauge.pages import capture_pages, load_pages, real_pages_dir, serve_pages

# The settle before issue 15, kept here as the baseline: web fonts, then two animation frames.
_OLD_SETTLE_JS = """() => new Promise((resolve) => {
  const done = () => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)));
  const t = setTimeout(done, 3000);
  (document.fonts ? document.fonts.ready : Promise.resolve()).then(() => { clearTimeout(t); done(); });
})"""


async def old_capture(page, profile) -> None:
    """The capture path before issue 15: old settle, full-page screenshot, element table."""
    raw = page._page
    await asyncio.wait_for(raw.evaluate(_OLD_SETTLE_JS), 5)
    await raw.evaluate(
        "() => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)")
    await screenshot_page(raw, profile, full_page=True)
    await raw.evaluate(_capture_js(), {"maxElements": 20000})


async def settle_cost(browser, refs, urls, profile, repeat: int) -> None:
    """Old vs new full-page capture (no aria), each on a freshly loaded page."""
    old, new, settle_only = [], [], []
    unsettled = 0
    for ref in refs:
        for _ in range(repeat):
            for path in ("old", "new"):
                page = await browser.new_page(profile)
                try:
                    await page.goto(urls[ref.id])
                    t = time.perf_counter()
                    if path == "old":
                        await old_capture(page, profile)
                        old.append(time.perf_counter() - t)
                    else:
                        snap = await page.capture(full_page=True, with_aria=False)
                        new.append(time.perf_counter() - t)
                        unsettled += not snap.settled
                        t = time.perf_counter()
                        await page.settle()
                        settle_only.append(time.perf_counter() - t)
                finally:
                    await page.close()
    print(f"\nfull-page capture right after load (ms, median over {len(old)} captures):")
    print(f"  old path (fonts + 2 frames)              {med(old):8.1f}")
    print(f"  new path (settle + consistency check)    {med(new):8.1f}")
    print(f"  ratio new/old                            {statistics.median(new) / statistics.median(old):8.2f}x")
    print(f"  settle of an already settled page        {med(settle_only):8.1f}")
    print(f"  unsettled new captures                   {unsettled:8d}")


def med(xs):
    return statistics.median(xs) * 1000


async def main(pages_dir, repeat: int, only_settle: bool) -> None:
    refs = load_pages(pages_dir)
    profile = RenderProfile()
    async with Browser.launch() as browser:
        print(f"{browser.version}; {len(refs)} pages; median of {repeat} per page")
        with serve_pages(refs) as urls:
            await settle_cost(browser, refs, urls, profile, repeat)
        if only_settle:
            return
        parts = {"screenshot (viewport)": [], "screenshot (full page)": [], "elements": [], "aria": [],
                 "capture() total (viewport)": []}
        with serve_pages(refs) as urls:
            for ref in refs:
                page = await browser.new_page(profile)
                await page.goto(urls[ref.id])
                raw = page._page
                for _ in range(repeat):
                    t = time.perf_counter()
                    await screenshot_page(raw, profile)
                    parts["screenshot (viewport)"].append(time.perf_counter() - t)
                    t = time.perf_counter()
                    await screenshot_page(raw, profile, full_page=True)
                    parts["screenshot (full page)"].append(time.perf_counter() - t)
                    t = time.perf_counter()
                    await raw.evaluate(_capture_js(), {"maxElements": 20000})
                    parts["elements"].append(time.perf_counter() - t)
                    t = time.perf_counter()
                    await raw.locator("body").aria_snapshot()
                    parts["aria"].append(time.perf_counter() - t)
                    t = time.perf_counter()
                    await page.capture()
                    parts["capture() total (viewport)"].append(time.perf_counter() - t)
                await page.close()
        print("\nmedian latency per capture part (ms):")
        for k, v in parts.items():
            print(f"  {k:30s} {med(v):8.1f}")

        ctx_t, page_t = [], []
        for _ in range(repeat * 4):
            t = time.perf_counter()
            p = await browser.new_page(profile)
            ctx_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            extra = await p._ctx.new_page()
            page_t.append(time.perf_counter() - t)
            await extra.close()
            await p.close()
        print(f"\nnew context + page: {med(ctx_t):.1f} ms   new page in a live context: {med(page_t):.1f} ms   "
              f"ratio {statistics.median(ctx_t) / statistics.median(page_t):.2f}x")

        for conc in (1, 2):
            t = time.perf_counter()
            res = await capture_pages(browser, refs, profile, full_page=True, concurrency=conc, progress=False)
            dt = time.perf_counter() - t
            print(f"full-page capture, concurrency {conc}: {len(refs) / dt:.2f} pages/s "
                  f"({sum(r.ok for r in res)}/{len(refs)} ok, {dt:.1f} s)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", default=None, help="folder of pages [default: the shared real pages]")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only-settle", action="store_true", help="print only the old vs new settle comparison")
    a = ap.parse_args()
    pages = a.pages or real_pages_dir()
    if pages is None:
        raise SystemExit("no pages: pass --pages DIR or set WEBGAUGE_SHARED")
    asyncio.run(main(pages, a.repeat, a.only_settle))
