"""Element actions on a target that cannot be reached now (covered by another element, inert,
outside the viewport) are rejected at once with ``reject_blocked``, naming what is in the way;
fill, select, upload, focus, hover, drag and typing are held to the same rule as click, and a
target that is only scrolled out of view is still scrolled to and acted on, as Playwright does."""

from __future__ import annotations

import time

import pytest

from webgauge.browser import NotInteractable, RenderProfile
from webgauge.pages import StaticServer

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><style>
body{margin:0;font:16px sans-serif} button,input,select{display:block;margin:8px;width:200px;height:30px}
.back{position:fixed;inset:0;background:rgba(0,0,0,.4);display:none}
.back.open{display:block} .modal{background:#fff;margin:120px auto;width:300px;padding:10px}
#sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
@keyframes fade{from{opacity:1}to{opacity:0}} .fading{animation:fade 120ms linear forwards}
</style></head><body>
<button id="go">Go</button>
<input id="name" value="Ada">
<select id="size"><option>Small</option><option>Large</option></select>
<label id="pick" for="sr">Choose a file</label><input id="sr" type="file">
<button id="far" style="margin-top:1500px">Far</button>
<button id="off" style="position:absolute;left:-9999px;top:10px">Off</button>
<div class="back" id="back"><div class="modal" role="dialog" aria-labelledby="t"><h2 id="t">Confirm order</h2>
<button id="keep">Keep</button></div></div>
<div id="bar" style="position:fixed;top:0;left:0;right:0;height:80px;background:#eee;display:none">Header</div>
<dialog id="dlg"><p>Native dialog</p><button id="inside">Inside</button></dialog>
<script>
window.log = [];
for (const el of document.querySelectorAll('button, input, select'))
  for (const ev of ['click', 'input', 'change', 'focus']) el.addEventListener(ev, () => log.push(ev + ':' + el.id));
document.getElementById('keep').addEventListener('click', () => back.classList.remove('open'));
</script></body></html>"""


@pytest.fixture
def site():
    with StaticServer(files={"/reach.html": PAGE}) as srv:
        yield srv


async def _open(browser, site, fast: bool):
    page = await browser.new_page(RenderProfile(width=640, height=480))
    await page.goto(site.url("reach.html"))
    ids = {e.attrs.get("id"): e.id for e in (await page.capture(with_aria=False)).elements}
    page.fast_actions = fast
    page.reject_blocked = True
    if fast:
        await page.watch_changes()  # the checks run in the watch's isolated world
    return page, ids


async def _rejected(action, reason: str, *, within: float = 2.0) -> NotInteractable:
    """Rejected with ``reason`` well inside the 8 s action timeout these calls are given (the 300 ms
    bound of a step is tests/arena/test_env.py's; this one holds on a loaded machine too)."""
    t0 = time.perf_counter()
    with pytest.raises(NotInteractable) as info:
        await action
    elapsed = time.perf_counter() - t0
    assert info.value.reason == reason, info.value
    assert elapsed <= within, f"rejected after {elapsed * 1000:.0f} ms (bound {within * 1000:.0f} ms)"
    return info.value


@pytest.mark.parametrize("fast", [True, False])
async def test_every_element_action_behind_an_open_dialog_is_rejected_at_once_and_changes_nothing(
        browser, site, fast):
    page, ids = await _open(browser, site, fast)
    try:
        await page.focus(ids["name"])  # focused before the dialog opens (a dialog on a timer, say)
        await page.evaluate("() => { document.getElementById('back').classList.add('open'); log.length = 0; }")
        err = await _rejected(page.click(ids["go"], timeout=8.0), "covered")
        assert "covered by <div class=modal role=dialog> 'Confirm order'" in str(err), err
        await _rejected(page.fill(ids["name"], "Mallory", timeout=8.0), "covered")
        await _rejected(page.select(ids["size"], "Large", timeout=8.0), "covered")
        await _rejected(page.set_input_files(ids["sr"], [{"name": "a.txt", "mimeType": "text/plain",
                                                           "buffer": b"x"}], timeout=8.0), "covered")
        await _rejected(page.type_text("Mallory"), "covered")  # typing reaches the focused field behind it
        await _rejected(page.hover(ids["go"], timeout=8.0), "covered")
        await _rejected(page.focus(ids["size"]), "covered")
        await _rejected(page.drag(ids["go"], ids["size"], timeout=8.0), "covered")
        await _rejected(page.click("css=#go", timeout=8.0), "covered")  # a selector target too
        values = await page.evaluate("() => [document.getElementById('name').value, document.getElementById('size')"
                                     ".value, document.getElementById('sr').files.length, log.slice()]")
        assert values == ["Ada", "Small", 0, []]
        # far below the fold and covered: scrolled to (as Playwright would), then found covered
        await _rejected(page.click(ids["far"], timeout=8.0), "covered")
        # the dialog's own button is on top: it works, and then so does everything behind it
        await page.click(ids["keep"], timeout=8.0)
        await page.fill(ids["name"], "Grace", timeout=8.0)
        await page.select(ids["size"], "Large", timeout=8.0)
        await page.set_input_files(ids["sr"], [{"name": "a.txt", "mimeType": "text/plain", "buffer": b"x"}])
        await page.click(ids["far"], timeout=8.0)  # only scrolled out of view: scrolled to and clicked
        got = await page.evaluate("() => [document.getElementById('name').value, document.getElementById('size')"
                                  ".value, document.getElementById('sr').files.length, log.includes('click:far')]")
        assert got == ["Grace", "Large", 1, True]
    finally:
        await page.close()


@pytest.mark.parametrize("fast", [True, False])
async def test_inert_and_unreachable_targets_are_rejected_and_an_animating_cover_is_waited_for(
        browser, site, fast):
    page, ids = await _open(browser, site, fast)
    try:
        await page.evaluate("() => document.getElementById('dlg').showModal()")
        err = await _rejected(page.fill(ids["name"], "Mallory", timeout=8.0), "inert")
        assert "outside the open modal <dialog id=dlg>" in str(err), err
        await _rejected(page.click(ids["go"], timeout=8.0), "inert")
        await page.click(ids["inside"], timeout=8.0)  # inside the modal dialog: fine
        await page.evaluate("() => { document.getElementById('dlg').close(); document.body.inert = true; }")
        err = await _rejected(page.click(ids["go"], timeout=8.0), "inert")
        assert "inside <body>" in str(err), err
        await page.evaluate("() => { document.body.inert = false; }")
        err = await _rejected(page.click(ids["off"], timeout=8.0), "outside")
        assert "<button id=off> 'Off'" in str(err), err
        assert await page.evaluate("() => log.filter((e) => !e.endsWith(':inside'))") == []
        # a cover that is animating (it may be on its way out) is waited for a quarter second, then rejected
        await page.evaluate("""() => { const b = document.getElementById('back'); b.classList.add('open');
            b.animate([{opacity: 1}, {opacity: 0.9}], {duration: 1000, iterations: Infinity}); }""")
        t0 = time.perf_counter()
        with pytest.raises(NotInteractable, match="covered by"):
            await page.click(ids["go"], timeout=8.0)
        assert 0.25 <= time.perf_counter() - t0 <= 2.0
        assert "click:go" not in await page.evaluate("() => log")
    finally:
        await page.close()


@pytest.mark.parametrize("fast", [True, False])
async def test_a_target_under_a_sticky_header_is_centred_and_acted_on_as_playwright_would(browser, site, fast):
    page, ids = await _open(browser, site, fast)
    try:
        await page.evaluate("""() => { document.getElementById('bar').style.display = 'block';
            const far = document.getElementById('far'); scrollTo(0, far.offsetTop - 20); log.length = 0; }""")
        assert await page.evaluate("() => document.elementFromPoint(100, 35).id") == "bar"  # covered where it is
        await page.click(ids["far"], timeout=8.0)
        assert await page.evaluate("() => log.includes('click:far')")
    finally:
        await page.close()


async def test_without_reject_blocked_a_covered_click_is_playwrights_to_wait_for(browser, site):
    page, ids = await _open(browser, site, True)
    try:
        page.reject_blocked = False
        await page.evaluate("() => document.getElementById('back').classList.add('open')")
        with pytest.raises(Exception, match="Timeout"):
            await page.click(ids["go"], timeout=0.5)
    finally:
        await page.close()
