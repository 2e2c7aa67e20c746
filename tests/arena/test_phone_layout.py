"""The apps' pages fit a phone: in the ``cohort.mobile@2x`` variant (390 CSS px wide, a real mobile
viewport), no page is wider than the screen. A wider page is zoomed out by the browser, as a phone
zooms out a page that does not fit; the boxes an agent is told are then not where the screenshot
shows them, and clicks miss. The two grids that are wide by design (the kanban board, the room
calendar) are left to scroll sideways; an observation of such a zoomed-out page says so in its
capture warnings."""

from __future__ import annotations

import pytest

from webgauge.arena.core.actions import Action
from webgauge.arena.env import ArenaEnv
from webgauge.arena.tasks import build_tasks
from webgauge.arena.variants import get_variant

pytestmark = pytest.mark.browser

PAGES = ("/shop/", "/shop/orders", "/shop/cart", "/account/", "/admin/users",
         "/admin/users/1", "/forum/", "/forum/t/1", "/mail/", "/mail/compose", "/wiki/", "/desks/", "/dash/",
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
        assert len(apps) == 10 and not wide, wide
        # the wide grids are zoomed out, and the observation says so
        await env.reset(phone.apply(next(t for t in tasks if t.start_url.startswith("/calendar/"))))
        out = await env.step(Action("goto", url="/calendar/"))
        said = [w for w in out.observation.snapshot.warnings if "wider than the phone's screen" in w]
        assert said and "in 390;" in said[0], out.observation.snapshot.warnings
    finally:
        await env.close()
