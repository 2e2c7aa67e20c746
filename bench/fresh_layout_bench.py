"""What reading a full page's element table from a layout built afresh costs (the headless shell's
full-page captures do it; ``webgauge.browser.capture``'s ``fresh_layout``). For each shared page,
loaded and settled once, reads the table ``--reps`` times each way, alternating, and prints the
median time per page with and without it and their ratio. Usage:

    python bench/fresh_layout_bench.py [--pages 41] [--reps 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from webgauge.browser import Browser, RenderProfile
from webgauge.browser.capture import _element_table
from webgauge.pages import StaticServer, load_pages, require_real_pages


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=41)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    root = require_real_pages()
    pages = [r.path for r in load_pages([root], limit=args.pages)]
    times: dict[bool, list[float]] = {False: [], True: []}
    with StaticServer(root=root) as srv:
        async with Browser.launch() as browser:
            print(f"{browser.executable}, {len(pages)} pages, {args.reps} reads each way per page")
            page = await browser.new_page(RenderProfile())
            try:
                for path in pages:
                    await page.goto(srv.url(path.name))
                    await page.settle()
                    per: dict[bool, list[float]] = {False: [], True: []}
                    for _ in range(args.reps):
                        for fresh in (False, True):
                            t0 = time.perf_counter()
                            await _element_table(page._page, 20000, "", False, fresh_layout=fresh)
                            per[fresh].append((time.perf_counter() - t0) * 1000)
                    for fresh in per:
                        times[fresh].append(statistics.median(per[fresh]))
            finally:
                await page.close()
    plain, fresh = statistics.median(times[False]), statistics.median(times[True])
    diffs = [b - a for a, b in zip(times[False], times[True], strict=True)]
    extra = statistics.median(diffs)
    print(f"element table, median over pages: {plain:.1f} ms as laid out, {fresh:.1f} ms from a fresh layout "
          f"({fresh / plain:.2f}x); the fresh layout adds {extra:.1f} ms a page (median), "
          f"{max(diffs):.1f} ms at most")


if __name__ == "__main__":
    asyncio.run(main())
