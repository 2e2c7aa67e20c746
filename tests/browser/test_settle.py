"""Settling before a capture and the snapshot consistency rule, on pages served by a real
loopback server that holds some responses back (a late image, a request that never ends)."""

import dataclasses
import http.server
import io
import threading
import time

import pytest
from PIL import Image

from webgauge.browser import PageError
from webgauge.browser.capture import consistency_problems, png_size
from webgauge.pages.server import LoopbackServer

pytestmark = pytest.mark.browser


def _png(w: int, h: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (20, 120, 40)).save(buf, format="PNG")
    return buf.getvalue()


# The page is 800 px tall when it loads; after the load event it appends an image without
# dimensions (served 1.2 s late) and a footer, which makes it about 2,000 px tall.
GROWING = """<!doctype html><html><body style="margin:0">
<h1 style="height:300px;margin:0">Top</h1>
<img src="https://b.example/remote.png"><img src="https://a.example/remote.png">
<script>addEventListener("load", () => {
  const im = document.createElement("img"); im.id = "late"; im.src = "/late.png";
  document.body.appendChild(im);
  const f = document.createElement("footer"); f.textContent = "Footer"; f.style.height = "100px";
  document.body.appendChild(f);
});</script></body></html>"""

# Never settles: a request to its own origin that never ends, or a box that grows every frame.
HANGING = """<!doctype html><body><p>waiting</p><script>fetch("/hang");</script></body>"""
MOVING = """<!doctype html><body><div id="bar" style="height:10px;background:red;width:1px"></div><script>
let w = 1; (function grow() { w += 1; document.getElementById("bar").style.width = w + "px";
requestAnimationFrame(grow); })();</script></body>"""


class _SlowServer(LoopbackServer):
    """Serves the test pages; ``/late.png`` after a delay, ``/hang`` only when released."""

    def __init__(self) -> None:
        files = {"/growing.html": GROWING.encode(), "/hanging.html": HANGING.encode(),
                 "/moving.html": MOVING.encode(), "/late.png": _png(40, 1600)}
        release = self.release = threading.Event()

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                if self.path == "/hang":
                    release.wait(30)
                    body = b"{}"
                else:
                    if self.path == "/late.png":
                        time.sleep(1.2)
                    body = files.get(self.path)
                    if body is None:
                        self.send_error(404)
                        return
                kind = "image/png" if self.path.endswith(".png") else "text/html"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the page that asked was closed while the answer was held (the test's own doing)

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        super().__init__()

    def stop(self) -> None:
        self.release.set()
        super().stop()


@pytest.fixture
def slow():
    with _SlowServer() as srv:
        yield srv


async def test_full_page_png_matches_the_page_size_of_a_page_that_grows_after_load(browser, slow):
    page = await browser.new_page()
    try:
        await page.goto(slow.url("growing.html"))
        snap = await page.capture(full_page=True, with_aria=False)
    finally:
        await page.close()
    assert snap.settled, snap.warnings
    late = next(e for e in snap.elements if e.attrs.get("id") == "late")
    assert late.attrs["complete"] == "true" and late.box[3] == 1600
    assert snap.page_size[1] >= 300 + 1600 + 100
    assert png_size(snap.png) == (1280, snap.page_size[1]) and consistency_problems(snap) == []
    # the rule catches a snapshot whose PNG was taken before the page grew
    short = dataclasses.replace(snap, page_size=(1280, 800))
    assert consistency_problems(short) and "PNG is 1280x" in consistency_problems(short)[0]
    # events are recorded in a stable order (the page requests b before a)
    assert [r["url"] for r in snap.blocked_requests] == ["https://a.example/remote.png",
                                                         "https://b.example/remote.png"]


async def test_a_page_that_never_settles_is_marked_and_rejected_on_demand(browser, slow):
    for name, why in (("hanging.html", "still pending"), ("moving.html", "layout still changing")):
        page = await browser.new_page(settle_timeout=0.8)
        try:
            await page.goto(slow.url(name))
            snap = await page.capture(full_page=True, with_aria=False)
        finally:
            await page.close()
        assert not snap.settled and snap.warnings[0].startswith("unsettled: ") and why in snap.warnings[0]
        assert snap.to_dict()["settled"] is False
        strict = await browser.new_page(settle_timeout=0.8, require_settled=True)
        try:
            await strict.goto(slow.url(name))
            with pytest.raises(PageError) as err:
                await strict.capture(full_page=True, with_aria=False)
        finally:
            await strict.close()
        assert err.value.kind == "unsettled" and why in err.value.message
