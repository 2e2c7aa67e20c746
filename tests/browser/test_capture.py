import asyncio
import io
import time

import pytest
from PIL import Image

from webgauge.browser import ChromiumNotFound, ElementNotFound, RenderProfile, find_chromium
from webgauge.pages import StaticServer

PAGE = """<!doctype html><html><head><title>T</title>
<style>@keyframes spin{from{transform:rotate(0)}to{transform:rotate(360deg)}} .s{animation:spin 1s infinite}</style>\
</head>
<body style="margin:0">
<header style="height:60px;background:#123456;color:#fff"><a href="/next.html">Next page</a></header>
<main style="height:2000px;padding:10px">
 <label for="email">Email address</label><input id="email" placeholder="you@example.com">
 <button id="go" style="background:rgb(200,0,0)">Go now</button>
 <div class="s" style="width:40px;height:40px;background:blue"></div>
 <p id="clock"></p>
 <img src="https://cdn.example.com/pic.png" alt="remote">
 <div id="far" style="position:absolute;top:1500px;left:20px;width:100px;height:30px">Far away</div>
</main>
<script>document.getElementById('clock').textContent = new Date().toISOString();</script>
</body></html>"""


@pytest.fixture
def site():
    with StaticServer(files={"/index.html": PAGE, "/next.html": "<h1>Next</h1>"}) as srv:
        yield srv


@pytest.mark.browser
async def test_same_page_twice_gives_same_screenshot_hash(browser, site):
    a = await browser.capture_url(site.url("index.html"), full_page=True)
    b = await browser.capture_url(site.url("index.html"), full_page=True)
    assert a.png_sha256 == b.png_sha256
    assert len(a.png) > 1000
    # the frozen clock is what the page saw
    clock = next(e for e in a.elements if e.attrs.get("id") == "clock")
    assert clock.text.startswith("2026-01-01T12:00:00")


@pytest.mark.browser
async def test_snapshot_fields_and_full_page_geometry(browser, site):
    snap = await browser.capture_url(site.url("index.html"), RenderProfile(width=800, height=600), full_page=True)
    img = Image.open(io.BytesIO(snap.png))
    assert img.size == (800, snap.page_size[1])
    assert snap.viewport == (800, 600) and snap.device_scale_factor == 1.0 and snap.scroll == (0.0, 0.0)
    email = next(e for e in snap.elements if e.attrs.get("id") == "email")
    assert email.role == "textbox" and email.name == "Email address" and email.clickable and email.visible
    go = next(e for e in snap.elements if e.attrs.get("id") == "go")
    assert go.role == "button" and go.name == "Go now" and go.background_color == "rgb(200, 0, 0)"
    assert go.font_size > 0 and go.color.startswith("rgb")
    link = next(e for e in snap.elements if e.tag == "a")
    assert link.role == "link" and link.clickable and link.background_color == "rgb(18, 52, 86)"
    far = next(e for e in snap.elements if e.attrs.get("id") == "far")
    assert far.box == (20.0, 1500.0, 100.0, 30.0) and not far.in_viewport
    assert 'button "Go now"' in snap.aria
    assert snap.title == "T"


@pytest.mark.browser
async def test_offline_blocks_and_records_remote_requests(browser, site):
    snap = await browser.capture_url(site.url("index.html"))
    assert any(r["url"].startswith("https://cdn.example.com/") for r in snap.blocked_requests)


@pytest.mark.browser
async def test_stand_ins_answer_only_the_listed_remote_urls(browser, site):
    buf = io.BytesIO()
    Image.new("RGB", (37, 23), (0, 200, 0)).save(buf, "PNG")
    stand_ins = {"https://cdn.example.com/pic.png": (buf.getvalue(), "image/png")}
    async with browser.open(site.url("index.html"), stand_ins=stand_ins) as page:
        img = await page.evaluate("() => { const i = document.querySelector('img');"
                                  " return [i.complete, i.naturalWidth, i.naturalHeight]; }")
        assert img == [True, 37, 23]
        assert page.stood_in_requests == ["https://cdn.example.com/pic.png"]
        assert not any(r["url"] == "https://cdn.example.com/pic.png" for r in page.blocked_requests)
    async with browser.open(site.url("index.html"),
                            stand_ins={"https://cdn.example.com/other.png": stand_ins.popitem()[1]}) as page:
        assert await page.evaluate("() => document.querySelector('img').naturalWidth") == 0
        assert any(r["url"] == "https://cdn.example.com/pic.png" for r in page.blocked_requests)


@pytest.mark.browser
async def test_capture_leaves_no_marks(browser, site):
    async with browser.open(site.url("index.html")) as page:
        probe = ("() => [document.documentElement.outerHTML, Object.keys(window).sort().join(','), "
                 "document.styleSheets.length]")
        before = await page.evaluate(probe)
        await page.capture(full_page=True)
        await page.capture(full_page=False)
        after = await page.evaluate(probe)
        assert before == after


@pytest.mark.browser
async def test_box_is_in_page_coordinates_after_scroll(browser, site):
    async with browser.open(site.url("index.html"), RenderProfile(width=800, height=600)) as page:
        await page.scroll_to(0, 1200)
        snap = await page.capture()
        assert snap.scroll == (0.0, 1200.0)
        far = next(e for e in snap.elements if e.attrs.get("id") == "far")
        assert far.box[1] == 1500.0 and far.in_viewport


@pytest.mark.browser
async def test_ids_are_stable_and_actionable(browser, site):
    async with browser.open(site.url("index.html")) as page:
        s1 = await page.capture()
        s2 = await page.capture()
        assert [e.id for e in s1.elements] == [e.id for e in s2.elements]
        email = next(e for e in s1.elements if e.attrs.get("id") == "email")
        await page.fill(email.id, "a@b.c")
        s3 = await page.capture()
        assert s3.element(email.id).attrs["value"] == "a@b.c"
        nav0 = page.navigation_id
        link = next(e for e in s1.elements if e.tag == "a")
        await page.click(link.id)
        await page.wait_for_load()
        assert page.url.endswith("/next.html") and page.navigation_id == nav0 + 1
        with pytest.raises(ElementNotFound):
            await page.click(email.id)
        with pytest.raises(ElementNotFound):
            await page.click("e_not_an_id")


@pytest.mark.browser
async def test_device_scale_factor_scales_pixels(browser, site):
    snap = await browser.capture_url(site.url("next.html"), RenderProfile(width=400, height=300, device_scale_factor=2),
                                     full_page=False)
    assert Image.open(io.BytesIO(snap.png)).size == (800, 600)


def test_missing_chromium_names_the_fix(monkeypatch, tmp_path):
    with pytest.raises(ChromiumNotFound, match="apt-get install -y chromium"):
        find_chromium(tmp_path / "nope")
    monkeypatch.setenv("WEBGAUGE_CHROMIUM", str(tmp_path / "nope"))
    with pytest.raises(ChromiumNotFound, match="WEBGAUGE_CHROMIUM"):
        find_chromium()
    monkeypatch.delenv("WEBGAUGE_CHROMIUM")
    assert find_chromium().endswith(("chromium", "chrome", "google-chrome", "chromium-browser", "Chromium"))


def test_webgauge_launches_the_headless_shell_and_an_explicit_choice_still_wins(monkeypatch, tmp_path):
    """webgauge's browser is Chromium's headless shell (``make bootstrap`` installs it); an explicit
    executable or WEBGAUGE_CHROMIUM still decides, ``headless_shell=False`` or a headed launch take
    the full browser."""
    from webgauge.browser import Browser

    monkeypatch.delenv("WEBGAUGE_CHROMIUM", raising=False)
    shell = find_chromium(headless_shell=True)
    assert shell.endswith("chromium-headless-shell"), (
        f"webgauge would run on {shell}: install the headless shell with `make bootstrap` "
        "(or `sudo apt-get install -y chromium-headless-shell`)")
    assert Browser.launch().executable == shell
    assert not find_chromium().endswith("headless-shell")
    assert Browser.launch(headless_shell=False).executable == find_chromium()
    assert Browser.launch(headless=False).executable == find_chromium()
    full = find_chromium()
    assert find_chromium(full, headless_shell=True) == full
    monkeypatch.setenv("WEBGAUGE_CHROMIUM", full)
    assert find_chromium(headless_shell=True) == full


@pytest.mark.browser
async def test_our_disable_features_switch_keeps_playwrights(browser, child_pids):
    """Chromium honours only the last --disable-features switch, and ours follows Playwright's: it
    must name every feature Playwright turns off (PaintHolding, third-party storage partitioning,
    ...) or they are silently back on. A Playwright upgrade that adds one fails here, naming it."""
    import os
    from pathlib import Path

    await browser.new_page()  # the browser runs
    switches, todo = None, child_pids(os.getpid())  # this process's descendants: Playwright's driver, Chromium
    while todo and switches is None:
        pid = todo.pop()
        todo += child_pids(pid)
        try:
            args = (Path("/proc") / str(pid) / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "--remote-debugging-pipe" in args:
            switches = [a.split("=", 1)[1].split(",") for a in args if a.startswith("--disable-features=")]
    assert switches, "no Chromium of this test process with --disable-features found in /proc"
    named = {f for sw in switches for f in sw}
    assert not named - set(switches[-1]), f"add to DISABLED_FEATURES: {sorted(named - set(switches[-1]))}"
    assert "PaintHolding" in switches[-1]


@pytest.mark.browser
async def test_non_loopback_url_is_refused(browser):
    from webgauge.browser import PageError

    with pytest.raises(PageError) as err:
        await browser.capture_url("https://example.com/")
    assert err.value.kind == "blocked" and "offline" in str(err.value)


@pytest.mark.browser
async def test_init_scripts_and_request_delays_for_variants(browser, site):
    import time

    page = await browser.new_page()
    try:
        await page.add_init_script("document.addEventListener('DOMContentLoaded', () => {"
                                   " const d = document.createElement('div'); d.id = 'banner';"
                                   " d.textContent = 'Cookies?'; document.body.prepend(d); });")
        page.delay_requests("*/next.html", 800)
        t0 = time.monotonic()
        await page.goto(site.url("next.html"))
        assert time.monotonic() - t0 >= 0.8
        snap = await page.capture()
        assert any(e.attrs.get("id") == "banner" and e.text == "Cookies?" for e in snap.elements)
    finally:
        await page.close()


@pytest.mark.browser
async def test_a_screenshot_stalled_by_a_navigation_is_abandoned_and_the_new_document_captured(browser, monkeypatch):
    """Playwright's screenshot of a page that navigates under it once waited its whole 20 s (suite
    run): the capture gives it NAVIGATION_GRACE seconds after the navigation, then takes the new
    document through CDP (Playwright's own queue is held by the stalled one) and says so."""
    import webgauge.browser.capture as capture_mod
    from webgauge.browser.page_capture import NAVIGATION_GRACE

    stalled = []

    async def stalls_as_the_page_navigates(page, profile, **kw):
        stalled.append(page.url)
        await page.evaluate("location.href = '/b.html'")
        await asyncio.Event().wait()  # never returns: only cancelling ends it

    monkeypatch.setattr(capture_mod, "screenshot_page", stalls_as_the_page_navigates)
    with StaticServer(files={"/a.html": "<h1>Start</h1>", "/b.html": "<h1>Landed</h1>"}) as srv:
        page = await browser.new_page()
        try:
            await page.goto(srv.url("a.html"))
            t0 = time.monotonic()
            snap = await page.capture(full_page=True, timeout=15)
            took = time.monotonic() - t0
        finally:
            await page.close()
    assert stalled and stalled[0].endswith("/a.html") and len(stalled) == 1
    assert snap.url.endswith("/b.html") and [e.text for e in snap.elements if e.tag == "h1"] == ["Landed"]
    assert NAVIGATION_GRACE <= took < 15, took
    assert snap.png[:8] == b"\x89PNG\r\n\x1a\n" and any("stalled" in w for w in snap.warnings), snap.warnings


@pytest.mark.browser
async def test_capture_survives_a_navigation_during_capture(browser):
    a = ("<button onclick=\"setTimeout(() => location.href = '/b.html', 100)\">go</button>"
         + "".join(f"<p>row {i}</p>" for i in range(2000)))
    with StaticServer(files={"/a.html": a, "/b.html": "<h1>Landed</h1>"}) as srv:
        for delay in (0.0, 0.08, 0.15):
            page = await browser.new_page()
            try:
                await page.goto(srv.url("a.html"))
                await page.click("css=button")
                await asyncio.sleep(delay)
                snap = await page.capture(full_page=True)
                if snap.url.endswith("/b.html"):
                    assert any(e.tag == "h1" and e.text == "Landed" for e in snap.elements)
                else:  # captured before the timer fired: a consistent picture of page a
                    assert sum(e.tag == "p" for e in snap.elements) == 2000
            finally:
                await page.close()
