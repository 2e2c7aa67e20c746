"""The apps' pages fit a phone: in the ``cohort.mobile@2x`` variant (390 CSS px wide, a real mobile
viewport), no page is wider than the screen (the kanban board puts its columns in two rows). The
room calendar's grid is wide by design and pans sideways, as a phone shows a page wider than its
screen: at scale 1, the layout viewport grown to the page's width, the screen showing the visual
viewport. The observation's view is that visual viewport: its size is the screenshot's, its boxes
are where the screenshot shows them, and a click aimed by the screenshot's pixels lands on what
they show."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from webgauge.arena.core.actions import Action
from webgauge.arena.env import ArenaEnv
from webgauge.arena.tasks import build_tasks
from webgauge.arena.variants import get_variant

pytestmark = pytest.mark.browser

PAGES = ("/shop/", "/shop/orders", "/shop/cart", "/account/", "/admin/users",
         "/admin/users/1", "/forum/", "/forum/t/1", "/mail/", "/mail/compose", "/wiki/", "/desks/", "/dash/", "/board/",
         "/maps/", "/media/", "/media/briefs", "/media/tickets")

_WIDTHS = """() => ({vw: document.documentElement.clientWidth, page: document.documentElement.scrollWidth,
  scale: visualViewport.scale, dpr: devicePixelRatio,
  wider: [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right
    > document.documentElement.clientWidth + 1).slice(0, 3).map(e => e.tagName + '.' + e.className)})"""


async def test_every_app_page_fits_a_phone(browser, arena):
    phone = get_variant("cohort.mobile@2x")
    tasks = [t for t in build_tasks((0,)) if phone.applies_to(t)]
    env = ArenaEnv(browser, arena.app_url, arena.client(), hooks=[phone])
    try:
        wide, apps = {}, sorted({url.split("/")[1] for url in PAGES})
        for app in apps:  # each app's pages in an episode that starts in it (signed in where it must be)
            await env.reset(phone.apply(next(t for t in tasks if t.start_url.startswith(f"/{app}/"))))
            for url in (u for u in PAGES if u.split("/")[1] == app):
                out = await env.step(Action("goto", url=url))
                assert out.info["result"]["ok"] and out.observation.url.endswith(url), (url, out.observation.url)
                got = await env.page.evaluate(_WIDTHS)
                assert got["vw"] == 390 and got["dpr"] == 2, (url, got)  # the phone's viewport, after a capture too
                if got["page"] > got["vw"] or got["scale"] != 1:
                    wide[url] = got
                assert not out.observation.snapshot.warnings, (url, out.observation.snapshot.warnings)
        assert len(apps) == 11 and not wide, wide
        # a wide grid: the view is the phone's screen, the screenshot's size, and a click aimed by its pixels hits
        await env.reset(phone.apply(next(t for t in tasks if t.start_url.startswith("/calendar/"))))
        obs = (await env.step(Action("goto", url="/calendar/"))).observation
        png_w, png_h = Image.open(io.BytesIO(obs.png)).size
        assert obs.viewport == (390, 844) and (png_w, png_h) == (780, 1688), (obs.viewport, png_w, png_h)
        snap = obs.snapshot
        assert snap.page_size[0] > 500 and not snap.warnings, (snap.page_size, snap.warnings)
        outside = [e for e in obs.elements if e.visible and e.box[0] >= 400]
        assert outside and not any(e.in_viewport for e in outside)  # the rooms past the screen's edge
        nxt = next(e for e in obs.elements if e.tag == "button" and e.text == "Next day")
        x, y = nxt.center
        px, py = (x - obs.scroll[0]) * 2, (y - obs.scroll[1]) * 2  # where the screenshot shows it (2 px per CSS px)
        out = await env.step(Action("pointer", pointer="click", x=px / png_w, y=py / png_h,
                                    screenshot_hash=obs.screenshot_hash))
        headings = [e.text for e in out.observation.elements if e.role == "heading"]
        assert out.info["result"].get("ok") and "Tuesday 03 March 2026" in headings, (out.info["result"], headings)
    finally:
        await env.close()
