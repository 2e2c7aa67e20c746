"""CDP helpers of live pages in real Chromium: the fast viewport screenshot shows the same
pixels as Playwright's, reuse clears every kind of stored data, the change watch sees
changes from a world the page cannot see.

The change watch, the fast actions and the settle in the watch's world serve the arena alone, so
their tests run in the arena's browser (Chromium's headless shell: ``arena_browser``); the
screenshots and the reuse serve every suite and run in the full browser."""

import asyncio
import io

import numpy as np
import pytest
from PIL import Image

from webgauge.browser import RenderProfile
from webgauge.pages import StaticServer

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><title>C</title></head>
<body style="margin:0;font:16px sans-serif">
<header style="height:60px;background:linear-gradient(90deg,#123456,#c0ffee);color:#fff">Header <b>bold</b></header>
<main style="height:3000px;padding:10px">
 <input id="q" value="query text"> <button id="go" style="background:rgb(200,0,0)">Go</button>
 <p>Some text with <i>italics</i> and <span style="opacity:.5">half opacity</span>.</p>
 <div style="width:120px;height:80px;border-radius:12px;box-shadow:0 4px 12px #0008;background:#fa0"></div>
</main></body></html>"""

CANVAS = """<!doctype html><body style="margin:0"><canvas id="cv" width="200" height="100"></canvas>
<script>const g = document.getElementById('cv').getContext('2d'); g.fillStyle = '#08f'; g.fillRect(10, 10, 50, 30);\
</script>
</body>"""

STORE_JS = """async () => {
  document.cookie = 'sid=episode1; path=/';
  localStorage.setItem('k', 'v1');
  sessionStorage.setItem('s', 'v1');
  await new Promise((res, rej) => {
    const r = indexedDB.open('wgdb', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('t');
    r.onsuccess = () => { const tx = r.result.transaction('t', 'readwrite'); tx.objectStore('t').put('v1', 'x');
                          tx.oncomplete = () => { r.result.close(); res(); }; tx.onerror = rej; };
    r.onerror = rej;
  });
  const c = await caches.open('wgcache');
  await c.put('/cached', new Response('v1'));
}"""

READ_JS = """async () => {
  const dbs = indexedDB.databases ? (await indexedDB.databases()).map(d => d.name) : ['unknown'];
  return {cookie: document.cookie, local: localStorage.getItem('k'), session: sessionStorage.getItem('s'),
          idb: dbs, caches: await caches.keys(), history: history.length};
}"""


CLICKS = """<!doctype html><body style="margin:0;height:3000px">
<button id="plain" style="position:absolute;left:21px;top:20px;width:101px;height:41px">Plain</button>
<button id="covered" style="position:absolute;left:20px;top:100px;width:100px;height:40px">Covered</button>
<div id="cover" style="position:absolute;left:0;top:90px;width:300px;height:60px;background:#0003"></div>
<button id="far" style="position:absolute;left:20px;top:2000px;width:100px;height:40px">Far</button>
<script>window.log = [];
for (const t of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'])
  document.addEventListener(t, (e) => log.push([t, e.target.id, e.isTrusted, e.clientX, e.clientY, e.detail]), true);
</script></body>"""


FIELDS = """<!doctype html><body style="margin:0">
<input id="name" value="old name"> <textarea id="bio">old
bio</textarea> <input id="when" type="date"> <input id="ro" readonly value="fixed">
<input id="gone" style="display:none"> <input id="num" type="number">
<select id="size"><option value="s">Small</option><option value="m">Medium  size</option>
<option value="l" disabled>Large</option></select>
<select id="tags" multiple><option value="a">Alpha</option><option value="b">Beta</option>
<option value="c">Gamma</option></select>
<script>window.log = [];
for (const t of ['focus', 'select', 'beforeinput', 'input', 'change', 'keydown', 'keyup'])
  document.addEventListener(t, (e) => log.push([t, e.target.id, e.isTrusted, e.inputType || '', e.data || '',
                                                 e.key || '', e.target.value === undefined ? '' : \
String(e.target.value)]), true);
</script></body>"""


EARLY = """<!doctype html><body><p id="a">first</p>
<script>document.getElementById('a').textContent = 'changed while parsing';
document.addEventListener('DOMContentLoaded', () => { document.getElementById('a').title = 'changed when parsed'; });\
</script>
<p>after</p></body>"""

FORMS = """<!doctype html><body style="margin:0">
<form action="other.html"><button id="go" style="width:200px;height:40px">Go</button></form>
<form action="other.html" onsubmit="event.preventDefault()"><button id="kept" style="width:200px;height:40px">\
Kept</button></form>
<form action="other.html" target="_blank"><button id="away" style="width:200px;height:40px">Away</button></form>
</body>"""


@pytest.fixture
def site():
    with StaticServer(files={"/index.html": PAGE, "/other.html": "<h1>Other</h1>", "/canvas.html": CANVAS,
                             "/clicks.html": CLICKS, "/fields.html": FIELDS, "/early.html": EARLY,
                             "/forms.html": FORMS}) as srv:
        yield srv


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


@pytest.mark.parametrize("scale", [1.0, 2.0])
async def test_cdp_viewport_png_has_playwrights_pixels(browser, site, scale):
    page = await browser.new_page(RenderProfile(width=640, height=400, device_scale_factor=scale))
    try:
        await page.goto(site.url("index.html"))
        await page.scroll_to(0, 37)
        playwright_png = await page.screenshot()
        fast_a = await page.viewport_png()
        fast_b = await page.viewport_png()
        assert _pixels(fast_a).shape == (400 * scale, 640 * scale, 4)
        assert np.array_equal(_pixels(fast_a), _pixels(playwright_png))
        assert fast_a == fast_b  # the same hash across captures
        page.fast_screenshots = True
        snap = await page.capture(with_aria=False)
        assert snap.png == fast_a and snap.scroll == (0, 37)
        # the captures left the page its device: a capture through a session without the page's
        # emulation put it at the window's (devicePixelRatio 1, an 800x600 screen) until the next document
        assert await page.evaluate("() => [devicePixelRatio, screen.width, screen.height]") == [scale, 640, 400]
    finally:
        await page.close()


@pytest.mark.parametrize("scale", [1.0, 2.0])
async def test_cdp_full_page_png_has_playwrights_pixels(browser, site, scale):
    # a page taller than the viewport (3,000 px), scrolled: the whole document, as Playwright's
    # full_page=True takes it; Playwright's own bytes without the fast encoder
    page = await browser.new_page(RenderProfile(width=640, height=400, device_scale_factor=scale))
    try:
        await page.goto(site.url("index.html"))
        await page.scroll_to(0, 37)
        playwright_png = await page.screenshot(full_page=True)
        fast_a = await page.full_page_png()
        fast_b = await page.full_page_png()
        width, height = (await page.evaluate("() => [document.documentElement.scrollWidth, "
                                             "document.documentElement.scrollHeight]"))
        assert height > 3000 and _pixels(fast_a).shape == (height * scale, width * scale, 4)
        assert np.array_equal(_pixels(fast_a), _pixels(playwright_png))
        assert fast_a == fast_b  # the same hash across captures
        report = await page.settle()
        from webgauge.browser.cdp import full_page_png

        exact = await full_page_png(await page.cdp(), report.size, (640, 400), optimize_for_speed=False)
        assert exact == playwright_png
        page.fast_full_page = True
        snap = await page.capture(full_page=True, with_aria=False)
        assert snap.png == fast_a and snap.scroll == (0, 37) and snap.settled
        assert await page.evaluate("() => [devicePixelRatio, screen.width, screen.height]") == [scale, 640, 400]
    finally:
        await page.close()


async def test_cdp_full_page_png_on_shared_pages(browser, real_pages_dir):
    # real pages (fonts, images, tall layouts): the same pixels as Playwright's full-page screenshot
    # (not 2293: its autofocused field's caret blinks, see webgauge.understand.build)
    from webgauge.pages import load_pages, serve_pages

    refs = [r for r in load_pages(real_pages_dir) if r.id in ("11465", "1034", "10685")]
    assert len(refs) == 3
    with serve_pages(refs) as urls:
        for ref in refs:
            page = await browser.new_page(RenderProfile(width=1280, height=800))
            try:
                await page.goto(urls[ref.id])
                await page.settle()
                slow = await page.screenshot(full_page=True)
                fast = await page.full_page_png()
                assert np.array_equal(_pixels(fast), _pixels(slow)), ref.id
            finally:
                await page.close()


async def test_reuse_clears_everything_the_last_use_stored(browser, site):
    profile = RenderProfile(width=640, height=400)
    page = await browser.new_page(profile)
    try:
        await page.goto(site.url("index.html"))
        await page.goto(site.url("other.html"))
        await page.evaluate(STORE_JS)
        seen = await page.evaluate(READ_JS)
        assert seen["cookie"] == "sid=episode1" and seen["local"] == seen["session"] == "v1"
        assert "wgdb" in seen["idb"] and seen["caches"] == ["wgcache"]
        await page.mouse_click(20, 20)  # the pointer rests on the heading: it is hovered
        assert await page.evaluate("() => document.querySelectorAll('h1:hover').length") == 1
        page.delay_requests("*never*", 10)
        assert page.can_reuse(profile.with_(allowed_origins=(site.url(""),)))
        # another viewport size is another page: an emulated size set before a navigation did not
        # always reach the next document (see LivePage.can_reuse)
        assert not page.can_reuse(profile.with_(width=800, height=500))
        await page.reuse(profile)
        assert page.navigation_id == 0 and not page._delays and page.tabs == ["about:blank"]
        await page.goto(site.url("other.html"))
        now = await page.evaluate(READ_JS)
        async with browser.open(site.url("other.html"), profile) as fresh_page:  # what a new context shows
            fresh = await fresh_page.evaluate(READ_JS)
        assert now == fresh == {"cookie": "", "local": None, "session": None, "idb": [], "caches": [],
                                "history": fresh["history"]}
        assert await page.evaluate("() => [innerWidth, innerHeight]") == [640, 400]
        assert await page.evaluate("() => document.querySelectorAll(':hover').length") == 0  # as a fresh page
        # a context-level setting (device scale) or an init script cannot be taken back: no reuse
        assert not page.can_reuse(profile.with_(device_scale_factor=2.0))
        await page.add_init_script("window.__mark = 1")
        assert not page.can_reuse(profile)
    finally:
        await page.close()


async def test_a_reused_tab_keeps_one_watch_whose_handlers_are_not_added_again(arena_browser, site):
    """Each episode on a reused tab arms its watch and opens a window: the tab's CDP session keeps
    one handler per event (a new watch per episode added its own beside the old ones, and all of
    them ran on every request of every later episode), and the window count starts again."""
    profile = RenderProfile(width=640, height=400)
    page = await arena_browser.new_page(profile)
    try:
        for episode in range(3):
            await page.goto(site.url("index.html"))
            await page.watch_changes()
            await page.evaluate("() => window.open('/other.html')")
            for _ in range(100):
                if page.windows_opened == 1 and len(page.popups) == 1:
                    break
                await asyncio.sleep(0.02)
            assert (page.windows_opened, len(page.popups)) == (1, 1), episode
            events = (await page.cdp())._impl_obj  # the session's event emitter (Playwright's own object)
            counts = {e: len(events.listeners(e)) for e in ("Network.requestWillBeSent", "Network.loadingFinished",
                                                            "Network.loadingFailed", "Page.windowOpen")}
            assert counts == dict.fromkeys(counts, 1), (episode, counts)
            await page.reuse(profile)
            assert page.windows_opened == 0 and await page.changes_since_watch() == ["unarmed"]
    finally:
        await page.close()


async def test_a_submitted_form_counts_as_a_started_navigation_before_chromium_starts_it(arena_browser, site):
    """Chromium submits a form in a task it posts after the 'submit' event (the Navigation API's
    'navigate' fires only then): a check right after the click must still see the navigation
    coming, or the step's settle does not wait for it and the capture runs into the new document.
    Checked only on 'navigate', the check missed about one submission in three (8, 7, 8, 10 of 12
    seen): ten in a row all pass only with the submit event counted. A cancelled submission, and
    one into another window, are no navigation of this tab."""
    page = await arena_browser.new_page(RenderProfile(width=640, height=400))
    try:
        for button in ["kept", "away"] + ["go"] * 10:
            await page.goto(site.url("forms.html"))
            before = page.navigation_id
            x, y, w, h = next(e.box for e in (await page.capture(with_aria=False, watch=True)).elements
                              if e.attrs.get("id") == button)
            await page.mouse_click(x + w / 2, y + h / 2)
            assert await page.navigation_started() is (button == "go"), button
            if button == "go":  # the submission goes on: its document replaces this one
                for _ in range(500):  # (at most 5 s; the next goto finds out otherwise)
                    if page.navigation_id != before:
                        break
                    await asyncio.sleep(0.01)
                await page.wait_for_load()
            else:
                assert page.navigation_id == before, button
    finally:
        await page.close()


async def test_change_watch_sees_changes_the_page_cannot_see(arena_browser, site):
    page = await arena_browser.new_page(RenderProfile(width=640, height=400))
    try:
        await page.goto(site.url("index.html"))
        assert await page.changes_since_watch() == ["unarmed"]
        await page.watch_changes()
        await page.viewport_png()
        assert await page.changes_since_watch() == []
        assert await page.evaluate("() => typeof window.__wgWatch") == "undefined"  # an isolated world
        await page.evaluate("() => document.querySelector('p').textContent = 'changed'")
        assert "mutation" in await page.changes_since_watch()
        await page.watch_changes()
        assert await page.changes_since_watch() == []
        await page.evaluate("() => window.scrollTo(0, 72)")
        assert {"scroll", "viewport"} <= set(await page.changes_since_watch())
        await page.watch_changes()
        await page.evaluate("() => document.getElementById('q').focus()")
        assert "focusin" in await page.changes_since_watch()
        await page.watch_changes()
        await page.set_viewport(600, 380)
        assert {"resize", "viewport"} <= set(await page.changes_since_watch())
        await page.watch_changes()
        await page.goto(site.url("canvas.html"))
        assert await page.changes_since_watch() == ["navigation"]
        # a canvas repaints without DOM mutations: its pixels are fingerprinted
        await page.watch_changes()
        assert await page.changes_since_watch() == []
        await page.evaluate("() => document.getElementById('cv').getContext('2d').fillRect(100, 50, 4, 4)")
        assert await page.changes_since_watch() == ["canvas"]
    finally:
        await page.close()


def _record_resolves(page) -> list[str]:
    """The targets ``page`` resolves to a Playwright locator from now on (its own click, fill and
    select paths do; the fast paths do not)."""
    resolved: list[str] = []
    resolve = page.resolve

    async def recording_resolve(target, timeout=5.0):
        resolved.append(target)
        return await resolve(target, timeout)

    page.resolve = recording_resolve
    return resolved


async def test_fast_click_sends_playwrights_events_and_leaves_the_rest_to_playwright(arena_browser, site):
    page = await arena_browser.new_page(RenderProfile(width=640, height=400))
    try:
        await page.goto(site.url("clicks.html"))
        ids = {e.attrs.get("id"): e.id for e in (await page.capture(with_aria=False)).elements}
        resolved = _record_resolves(page)
        await page.click(ids["plain"], click_count=2)
        playwright_events = await page.evaluate("() => log.splice(0)")
        page.fast_actions = True
        await page.click(ids["plain"], click_count=2)
        fast_events = await page.evaluate("() => log.splice(0)")
        assert resolved == [ids["plain"]], "the plain button should have taken the fast path"
        assert fast_events == playwright_events  # the same events at the same point
        clicks = [e for e in fast_events if e[0] == "click"]
        assert [e[1:3] + e[5:] for e in clicks] == [["plain", True, 1], ["plain", True, 2]]
        assert 21 < clicks[0][3] < 122 and 20 < clicks[0][4] < 61
        with pytest.raises(Exception, match="Timeout"):  # covered: Playwright's click, which waits and fails
            await page.click(ids["covered"], timeout=1.0)
        assert resolved[-1] == ids["covered"] and not await page.evaluate("() => log.splice(0)")
        # with a change watch armed the checks run in its isolated world: a page faking
        # elementFromPoint cannot make the covered button look clickable
        await page.watch_changes()
        await page.evaluate("() => { document.elementFromPoint = () => document.getElementById('covered'); }")
        n = len(resolved)
        with pytest.raises(Exception, match="Timeout"):
            await page.click(ids["covered"], timeout=1.0)
        assert resolved[n:] == [ids["covered"]] and not await page.evaluate("() => log.splice(0)")
        await page.click(ids["far"])  # outside the viewport: Playwright scrolls to it and clicks
        assert resolved[-1] == ids["far"]
        assert [e[:2] for e in await page.evaluate("() => log.splice(0)") if e[0] == "click"] == [["click", "far"]]
    finally:
        await page.close()


async def test_fast_fill_and_select_do_what_playwright_does_and_leave_the_rest_to_it(arena_browser, site):
    """Fast fills and selects send the page the same events, leave the same values, and hand
    every target their script does not vouch for to Playwright (whose errors stay as they were)."""
    page = await arena_browser.new_page(RenderProfile(width=640, height=400))
    resolved = _record_resolves(page)

    async def run(fast: bool) -> tuple[list, list, list]:
        await page.goto(site.url("fields.html"))
        ids = {e.attrs.get("id"): e.id for e in (await page.capture(with_aria=False)).elements}
        page.fast_actions = fast
        if fast:
            await page.watch_changes()  # the checks run in the watch's isolated world
        resolved.clear()
        await page.fill(ids["name"], "Ada Lovelace")
        await page.fill(ids["bio"], "line one\nline two")
        await page.fill(ids["name"], "")
        # a fast fill's "select" event (Chromium fires it with the next frame) has fired before it returns;
        # Playwright's own fill may return before it (it fires later), so only the fast path is checked here
        selected = await page.evaluate("() => log.filter((e) => e[0] === 'select').map((e) => e[1])")
        await page.fill(ids["when"], "2026-12-02")  # a date input: Playwright sets its value
        chosen = [await page.select(ids["size"], "Medium size"), await page.select(ids["tags"], ["c", "Alpha"])]
        values = await page.evaluate("() => [...document.querySelectorAll('input,textarea,select')].map("
                                     "(e) => [e.id, e.value, e.multiple ? [...e.selectedOptions].map((o) => o.value) "
                                     ": null,"
                                     " document.activeElement === e])")
        if fast:
            assert selected == ["name", "bio", "name"]
        return await page.evaluate("() => log.splice(0)"), values + chosen, list(resolved), ids

    try:
        slow_events, slow_values, slow_resolved, ids = await run(False)
        fast_events, fast_values, fast_resolved, _ = await run(True)
        assert slow_resolved == [ids["name"], ids["bio"], ids["name"], ids["when"], ids["size"], ids["tags"]]
        assert fast_resolved == [ids["when"]], "plain fields and selects should have taken the fast path"
        # the same events in the same order, with the same values; except that a textarea's
        # "select" event is queued as a task, so where it lands among the typing events depends on
        # timing (Playwright's own fill has it before or after them): its target is compared only
        assert [e for e in fast_events if e[0] != "select"] == [e for e in slow_events if e[0] != "select"]
        assert [e[1] for e in fast_events if e[0] == "select"] == [e[1] for e in slow_events if e[0] == "select"] == [
            "name", "bio", "name"]
        assert fast_values == slow_values
        assert ["input", "name", True, "insertText", "Ada Lovelace", "", "Ada Lovelace"] in fast_events
        assert [v[:3] for v in fast_values[:7]] == [
            ["name", "", None], ["bio", "line one\nline two", None], ["when", "2026-12-02", None],
            ["ro", "fixed", None], ["gone", "", None], ["num", "", None], ["size", "m", None]]
        assert fast_values[7][2] == ["a", "c"] and fast_values[-2:] == [["m"], ["a", "c"]]
        # what the scripts do not vouch for goes to Playwright, which waits and fails as before
        for target, act in ((ids["ro"], lambda t: page.fill(t, "x", timeout=0.5)),
                            (ids["gone"], lambda t: page.fill(t, "x", timeout=0.5)),
                            (ids["size"], lambda t: page.select(t, "Large", timeout=0.5)),
                            (ids["size"], lambda t: page.select(t, "XXL", timeout=0.5))):
            n = len(resolved)
            with pytest.raises(Exception, match="Timeout"):
                await act(target)
            assert resolved[n:] == [target]
        assert await page.evaluate("() => [document.getElementById('ro').value, "
                                   "document.getElementById('size').value]") == ["fixed", "m"]
        # a page faking its own DOM functions cannot fool the checks run in the isolated world
        await page.evaluate("() => { HTMLElement.prototype.checkVisibility = () => true; }")
        n = len(resolved)
        with pytest.raises(Exception, match="Timeout"):
            await page.fill(ids["gone"], "x", timeout=0.5)
        assert resolved[n:] == [ids["gone"]]
    finally:
        await page.close()


async def test_tracking_new_documents_starts_the_watch_before_the_pages_own_scripts(arena_browser, site):
    """With track_new_documents the browser makes the watch's world and tracker as each document is
    created: no round trip at commit, the tracker is there before the page's first script runs,
    sees the mutations made while parsing, and a quiet page settles in one frame."""
    from webgauge.browser.settle import settle

    page = await arena_browser.new_page(RenderProfile(width=640, height=400))
    try:
        await page.goto(site.url("other.html"))
        assert not page.tracks_new_documents
        await page.track_new_documents()
        assert page.tracks_new_documents
        tracked = []
        real_track = page._watches[page._page].track

        async def counting_track(*a, **k):
            tracked.append(1)
            return await real_track(*a, **k)

        page._watches[page._page].track = counting_track
        for _ in range(2):  # the registration holds for every later document of the tab
            await page.goto(site.url("early.html"), on_commit=page.track_changes)
            assert tracked == []  # nothing sent at commit
            # the tracker is there without anyone having installed it (run_in_watch does not), and saw
            # the page's DOMContentLoaded mutation (the page's own clock is frozen: times compared in the world)
            born, last = await page.run_in_watch(
                "() => window.__wgWatch ? [window.__wgWatch.born, window.__wgWatch.last] : null", {})
            assert born < last
            # armed as the document loaded (no capture armed it), and said so before the load was reported
            assert page._watches[page._page].armed_at_load
            assert await page.changes_since_watch() == []
            await page.wait_for_timeout(350)
            quiet = await settle(page._page, run_js=page.run_in_watch, stable_frames=1, quiet_ms=300,
                                 quiet_cap_ms=5000, timeout=8.0)
            assert quiet.settled and quiet.frames == 1
        # the page's own world does not see the watch
        assert await page.evaluate("() => typeof window.__wgWatch") == "undefined"
    finally:
        await page.close()


async def test_settle_in_the_watch_world_counts_quiet_from_the_last_mutation(arena_browser, site):
    """The arena's capture settles in the change watch's world: its quiet period counts from the
    watch's last DOM mutation (tracked since the document committed), not from the call."""
    from webgauge.browser.settle import _settle_js, settle

    page = await arena_browser.new_page(RenderProfile(width=640, height=400))
    quiet = {"stable_frames": 1, "quiet_ms": 300, "quiet_cap_ms": 5000, "timeout": 8.0}
    try:
        await page.goto(site.url("index.html"), on_commit=page.track_changes)
        assert await page.changes_since_watch() == ["unarmed"]  # tracking only: no stale check armed yet
        await page.wait_for_timeout(400)  # nothing mutates the page meanwhile
        tracked = await settle(page._page, run_js=page.run_in_watch, **quiet)
        assert tracked.settled and tracked.frames == 1  # quiet already: one frame with the layout it had at the call
        untracked = await settle(page._page, **quiet)  # the page's own world: 300 ms of quiet from the call
        assert untracked.settled and untracked.frames >= 3
        await page.evaluate("() => { document.querySelector('p').textContent = 'changed'; }")
        after = await settle(page._page, run_js=page.run_in_watch, **quiet)
        assert after.settled and after.frames >= 3  # quiet counts from that mutation
        await page.goto(site.url("other.html"))  # a new document: its world is new, quiet from its making
        fresh = await settle(page._page, run_js=page.run_in_watch, **quiet)
        assert fresh.settled and fresh.frames >= 3
        assert await page.evaluate("() => typeof window.__wgWatch") == "undefined"  # the page cannot see it
        assert await page.evaluate(_settle_js(), {"probe": True, "budgetMs": 0}) is not None
    finally:
        await page.close()


LATE = """<!doctype html><body style="margin:0"><p id="a" style="font-size:40px">first</p>
<script>window.addEventListener('load', () => setTimeout(() => {
  document.getElementById('a').textContent = 'after load'; }, 20));</script></body>"""

SLOW_IMAGE = """<!doctype html><body style="margin:0"><p>text</p><img src="dot.svg" width="40" height="40"></body>"""
DOT = """<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle cx="20" cy="20" r="18"/></svg>"""


async def _tracked_page(browser, width: int = 640, height: int = 400):
    page = await browser.new_page(RenderProfile(width=width, height=height))
    page.fast_screenshots = True
    await page.track_new_documents()
    return page


async def test_first_capture_of_a_loaded_document_needs_no_arm_and_shows_the_same_page(arena_browser, site):
    """A tab that tracks new documents arms its watch at each document's load: the first capture after
    it sends screenshot, table and check at once and keeps them; the next capture arms itself, and
    shows the same pixels and elements."""
    page = await _tracked_page(arena_browser)
    try:
        for n in (1, 2):  # every new document of the tab
            await page.goto(site.url("index.html"), on_commit=page.enter_new_document)
            first = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
            assert page.captures_at_load == n
            again = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
            assert page.captures_at_load == n  # armed by that capture, not at the load
            assert np.array_equal(_pixels(first.png), _pixels(again.png))
            assert [(e.id, e.box, e.text) for e in first.elements] == [(e.id, e.box, e.text) for e in again.elements]
            assert await page.changes_since_watch() == []
    finally:
        await page.close()


async def test_a_change_after_the_load_is_not_missed_by_the_capture_armed_at_load(arena_browser, site):
    """A page that changes 20 ms after its load: the capture sent at once is dropped (the watch marked
    the mutation) and the page is captured as it is after the change."""
    site.add("/late.html", LATE)
    page = await _tracked_page(arena_browser)
    try:
        await page.goto(site.url("late.html"), on_commit=page.enter_new_document)
        snap = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
        assert page.captures_at_load == 0
        assert [e.text for e in snap.elements if e.tag == "p"] == ["after load"]
        later = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
        assert np.array_equal(_pixels(snap.png), _pixels(later.png))
    finally:
        await page.close()


async def test_a_document_armed_while_it_loads_is_not_armed_again_at_its_load(arena_browser, site):
    """A capture's arm before the load event (an image still loading) stands: what the load brings is a
    change since that arm, not forgotten by an arm at the load."""
    site.add("/slow.html", SLOW_IMAGE)
    site.add("/dot.svg", DOT)
    page = await _tracked_page(arena_browser)
    page.delay_requests("*dot.svg", 1500)
    try:
        await page.goto(site.url("slow.html"), timeout=2.0, on_commit=page.enter_new_document)
        assert await page.evaluate("() => document.readyState") != "complete"
        await page.watch_changes()
        await page._page.wait_for_load_state("load", timeout=10_000)
        assert "load" in await page.changes_since_watch()
        assert not page._watches[page._page].armed_at_load
    finally:
        await page.close()


LATE_CANVAS = """<!doctype html><body style="margin:0"><canvas id="cv" width="200" height="100"></canvas>
<script>const g = document.getElementById('cv').getContext('2d'); g.fillStyle = '#08f'; g.fillRect(10, 10, 50, 30);
window.addEventListener('load', () => setTimeout(() => { g.fillStyle = '#f80'; g.fillRect(0, 0, 200, 100); }, 20));
</script></body>"""


async def test_a_canvas_repainted_after_the_load_is_not_missed_by_the_capture_armed_at_load(arena_browser, site):
    """A canvas is fingerprinted when the watch arms itself at the load: one drawn before the load is
    captured at once; one repainted 20 ms after it (no DOM mutation) is captured as repainted."""
    site.add("/late-canvas.html", LATE_CANVAS)
    page = await _tracked_page(arena_browser)
    try:
        await page.goto(site.url("canvas.html"), on_commit=page.enter_new_document)
        await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
        assert page.captures_at_load == 1
        await page.goto(site.url("late-canvas.html"), on_commit=page.enter_new_document)
        snap = await page.capture(with_aria=False, watch=True, stable_frames=1, quiet_ms=30)
        assert page.captures_at_load == 1
        assert tuple(_pixels(snap.png)[50, 100][:3]) == (255, 136, 0)  # the repaint, not the blue box's frame
    finally:
        await page.close()
