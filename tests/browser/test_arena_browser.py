"""The arena's browser runs with Chromium's RenderDocument off (a navigation costs less CPU), the page
suites' with it on. Off, Playwright's own screenshot of a page whose load event never fires waits out
its time limit, so the arena captures through CDP: such a page is still captured, and a page looping
forever does not hold up another context's page of the same site."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from webgauge.browser import RenderProfile
from webgauge.browser.chromium import LAUNCH_FLAGS, launch_flags

pytestmark = pytest.mark.browser

PAGES = {
    "/loop.html": "<h1>before</h1><script>setTimeout(() => { while (true) {} }, 30)</script>",
    "/ok.html": "<h1>fine</h1><p>a page of the same site</p>",
    # the image is never answered (the server holds it): no load event
    "/never.html": "<h1>waiting</h1><img src='/hang.png'>",
}


@pytest.fixture
def site():
    import http.server
    import threading

    stop = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            if self.path == "/hang.png":
                stop.wait(60)
                return
            body = PAGES.get(self.path)
            if body is None:
                self.send_error(404)
                return
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    stop.set()
    srv.shutdown()
    srv.server_close()


def test_render_document_is_off_in_the_arenas_flags_alone():
    [ours] = [f for f in LAUNCH_FLAGS if f.startswith("--disable-features=")]
    [arena] = [f for f in launch_flags(render_document=False) if f.startswith("--disable-features=")]
    assert "RenderDocument" not in ours.split("=", 1)[1].split(",")
    assert arena.split("=", 1)[1].split(",") == ours.split("=", 1)[1].split(",") + ["RenderDocument"]
    assert [f for f in launch_flags(render_document=False) if f != arena] == [f for f in LAUNCH_FLAGS if f != ours]


async def test_the_launched_browsers_carry_their_switch(browser, arena_browser, child_pids):
    await browser.new_page()
    await arena_browser.new_page()  # both run
    lists, todo = [], child_pids(os.getpid())
    while todo:
        pid = todo.pop()
        todo += child_pids(pid)
        try:
            args = (Path("/proc") / str(pid) / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "--remote-debugging-pipe" in args:
            lists.append([a.split("=", 1)[1].split(",") for a in args if a.startswith("--disable-features=")][-1])
    assert len(lists) >= 2, "expected the page suites' browser and the arena's among this process's children"
    assert any("RenderDocument" in last for last in lists) and any("RenderDocument" not in last for last in lists)


async def test_a_page_that_never_loads_is_captured_in_the_arenas_browser(arena_browser, site):
    # its image stays pending: the settle gives up on it after 1.5 s
    page = await arena_browser.new_page(RenderProfile(width=640, height=400), settle_timeout=1.5)
    page.fast_screenshots = True  # as the arena's env (Playwright's own screenshot waits here until it times out)
    try:
        t0 = time.perf_counter()
        await page.goto(f"{site}/never.html", timeout=3)
        snap = await asyncio.wait_for(page.capture(with_aria=False), 20)
        assert time.perf_counter() - t0 < 20
        assert snap.png and any("load event did not fire" in w for w in snap.warnings), snap.warnings
        assert any(e.text == "waiting" for e in snap.elements)
    finally:
        await page.close()


async def test_a_looping_page_does_not_hold_up_another_contexts_page_of_its_site(arena_browser, site):
    looping = await arena_browser.new_page(RenderProfile(width=640, height=400))
    other = await arena_browser.new_page(RenderProfile(width=640, height=400))
    other.fast_screenshots = True
    try:
        await looping.goto(f"{site}/loop.html", timeout=5)
        await asyncio.sleep(0.2)  # its script now loops
        await other.goto(f"{site}/ok.html", timeout=5)
        snap = await asyncio.wait_for(other.capture(with_aria=False), 10)
        assert any(e.text == "fine" for e in snap.elements)
    finally:
        await other.close()
        await looping.close()
