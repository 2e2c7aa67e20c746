"""A watched capture of a page that is already still is taken at once, without the settle's frame,
and kept only when nothing changed from its watch's arm to the end of the quiet period: it shows
what a settled capture shows, and a page that changes during that time is settled and captured again.

Captures at once serve the arena alone: these tests run in the arena's browser (``arena_browser``)."""

import io

import numpy as np
import pytest
from PIL import Image

from webgauge.browser import RenderProfile
from webgauge.pages import StaticServer

pytestmark = pytest.mark.browser

STILL = """<!doctype html><html><head><title>Still</title></head>
<body style="margin:0;font:16px sans-serif">
<header style="height:60px;background:#234;color:#fff">Header <b>bold</b></header>
<main style="padding:10px"><input id="q" value="query"> <button id="go" style="background:rgb(0,120,0)">Go</button>
<p>Some text.</p><div style="width:120px;height:80px;background:#fa0"></div></main></body></html>"""

# the page changes itself when told (``window.change()``): the test tells it right after a capture taken
# at once, within the quiet period (a timer raced the capture on a loaded machine: when it fired before the
# capture began, the capture rightly kept a page that was still by then)
LATE = """<!doctype html><html><body style="margin:0;background:rgb(255,255,255)">
<p id="first">first</p>
<script>window.change = () => {
  document.body.style.background = 'rgb(255,0,0)';
  const d = document.createElement('div'); d.id = 'late'; d.style.height = '50px'; d.textContent = 'late';
  document.body.appendChild(d);
};</script></body></html>"""

# drawn once as it loads; ``window.redraw()`` paints it red (pixels only: no DOM mutation)
CANVAS = """<!doctype html><body style="margin:0"><canvas id="cv" width="200" height="100"></canvas>
<script>const g = document.getElementById('cv').getContext('2d'); g.fillStyle = '#08f'; g.fillRect(10, 10, 50, 30);
window.redraw = () => { g.fillStyle = '#f00'; g.fillRect(0, 0, 200, 100); };</script></body>"""

# a frame repaints out of the DOM's sight: always settled first
FRAME = """<!doctype html><body style="margin:0"><iframe srcdoc="<p>inner</p>" style="border:0"></iframe></body>"""

# a client-rendered page: its data comes from a request sent as it loads (the test holds that request)
FETCHING = """<!doctype html><body style="margin:0"><p id="state">loading</p>
<script>fetch('data.json').then((r) => r.json())
  .then((d) => { document.getElementById('state').textContent = d.text; });
</script></body>"""


# replaces itself with the still page as it loads: the document that committed first is not the one captured
REPLACED = """<!doctype html><body><p>first</p><script>location.replace('still.html')</script></body>"""


@pytest.fixture(scope="module")
def site():
    with StaticServer(files={"/still.html": STILL, "/late.html": LATE, "/canvas.html": CANVAS, "/frame.html": FRAME,
                             "/fetching.html": FETCHING, "/data.json": '{"text": "loaded data"}',
                             "/replaced.html": REPLACED}) as srv:
        yield srv


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.fixture
async def page(arena_browser):
    """A page that tracks its documents' changes from their creation and takes CDP viewport
    screenshots, as the arena's pages do."""
    live = await arena_browser.new_page(RenderProfile(width=640, height=400))
    live.fast_screenshots = True  # the arena's viewport screenshot: the only one taken at once
    await live.track_new_documents()
    yield live
    await live.close()


async def test_a_still_page_is_captured_at_once_as_a_settled_capture_shows_it(page, site):
    await page.goto(site.url("still.html"))
    quick = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
    assert page.captures_at_once == 1
    settled = await page.capture(with_aria=False, stable_frames=3)  # the page's own world, three frames
    assert page.captures_at_once == 1
    assert quick.settled and settled.settled
    assert np.array_equal(_pixels(quick.png), _pixels(settled.png))
    assert [(e.path, e.box) for e in quick.elements] == [(e.path, e.box) for e in settled.elements]
    assert any(e.tag == "button" for e in quick.elements)


async def test_the_watch_world_found_as_a_page_loads_is_the_one_its_capture_arms(page, site):
    """``enter_new_document`` at commit (the arena's reset) finds the watch's world while the page
    loads; a page that replaces itself meanwhile gets its world in the new document all the same."""
    watch = page._watches[page._page]
    assert watch._ctx_id is None  # no document entered yet
    await page.goto(site.url("still.html"), on_commit=page.enter_new_document)
    assert watch._ctx_id is not None  # found during the load, before any capture
    for name in ("still.html", "replaced.html"):
        before = page.captures_at_once
        await page.goto(site.url(name), on_commit=page.enter_new_document)
        await page._page.wait_for_url("**/still.html", wait_until="load")  # the replacing page, loaded
        assert await page.evaluate("() => document.title") == "Still"
        snap = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
        assert snap.settled and page.captures_at_once == before + 1, name
        assert await page.changes_since_watch() == [], name
        await page.evaluate("() => document.body.append('x')")
        assert "mutation" in await page.changes_since_watch(), name


def _run_before_the_check(page, js: str) -> list[int]:
    """Have ``js`` run in the page right after a capture taken at once, before its check; returns
    the quiet periods the check was called with (one per capture at once)."""
    verify, checks = page._changes_until_quiet, []

    async def run_then_verify(quiet_ms: int) -> list[str]:
        checks.append(quiet_ms)
        await page.evaluate(js)
        return await verify(quiet_ms)

    page._changes_until_quiet = run_then_verify
    return checks


async def test_a_page_that_changes_before_its_quiet_period_ends_is_settled_and_captured_again(page, site):
    await page.goto(site.url("late.html"))
    checks = _run_before_the_check(page, "() => window.change()")  # the page changes after the capture at once
    snap = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=300)
    assert checks == [300]  # a capture was taken at once, and checked
    assert page.captures_at_once == 0  # and not kept
    assert [e.text for e in snap.elements if e.tag == "div"] == ["late"]
    assert tuple(_pixels(snap.png)[390, 600]) == (255, 0, 0)  # the changed background


async def test_a_page_that_can_repaint_unseen_is_always_settled_first(page, site):
    await page.goto(site.url("frame.html"))
    snap = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
    assert page.captures_at_once == 0
    assert snap.settled and any(e.tag == "iframe" for e in snap.elements)


async def test_a_still_canvas_is_captured_at_once_its_pixels_checked(page, site):
    await page.goto(site.url("canvas.html"))
    snap = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
    assert page.captures_at_once == 1
    assert tuple(_pixels(snap.png)[20, 20]) == (0, 136, 255)  # the canvas drawn


async def test_a_canvas_repainted_after_a_capture_at_once_is_settled_and_captured_again(page, site):
    await page.goto(site.url("canvas.html"))
    checks = _run_before_the_check(page, "() => window.redraw()")  # the canvas repaints after the capture at once
    snap = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
    assert checks == [30]  # a capture was taken at once, and checked
    assert page.captures_at_once == 0  # the repaint, which no DOM mutation shows, was seen: not kept
    assert tuple(_pixels(snap.png)[20, 20]) == (255, 0, 0)  # the repainted canvas


async def test_a_request_in_flight_is_waited_for_then_the_page_is_captured_at_once(page, site):
    page.delay_requests("*/data.json", 400)  # the page's data comes late
    await page.goto(site.url("fetching.html"))
    for _ in range(100):  # Playwright reports the request a moment after the load event, at times
        if page.pending_requests():
            break
        await page.wait_for_timeout(5)
    assert page.pending_requests() == [site.url("data.json")]  # its request is in flight at the capture
    snap = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
    assert [e.text for e in snap.elements if e.tag == "p"] == ["loaded data"]  # the answer's page, not "loading"
    assert page.captures_at_once == 1


async def test_a_capture_at_once_that_does_not_finish_in_time_gives_way_to_a_settled_one(page, site):
    from webgauge.browser import capture as capture_mod

    await page.goto(site.url("still.html"))

    async def stuck(quiet_ms: int) -> list[str]:  # as if the check never came back
        await page.wait_for_timeout(60_000)
        return []

    snap = await capture_mod.capture_page(
        page._page, page.profile, with_aria=False, timeout=8.0, viewport_screenshot=page.viewport_png,
        before_screenshot=page.watch_changes, settle_in=page.run_in_watch, stable_frames=1, quiet_ms=30,
        verify=stuck, settle_armed_in=page.arm_and_run_in_watch)
    assert snap.settled and any(e.tag == "button" for e in snap.elements)
    assert snap.warnings == ["a capture taken at once did not finish within 2.0s"]

