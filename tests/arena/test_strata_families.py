"""The strata families (tasks/strata.py): their oracles solve them (each at one of seeds 0 and 1) in real Chromium
with no forbidden effects, their validators fail on the seed, every visual stratum has at
least three families, the mail app really collapses its folder links at a phone width, and the
buy-again order starts under the shop's fixed banner."""

from __future__ import annotations

import pytest

from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.task import PATTERNS
from webgauge.arena.tasks import FAMILIES, build_tasks, seed_state

MINE = [k for k in FAMILIES if k.startswith("strata.")]


@pytest.fixture(scope="module")
def tasks():
    return build_tasks((0, 1))


def test_every_pattern_has_three_families(tasks):
    fams: dict[str, set] = {}
    for t in tasks:
        fams.setdefault(t.pattern, set()).add(t.family)
    thin = {p: sorted(fams.get(p, ())) for p in PATTERNS if len(fams.get(p, ())) < 3}
    assert not thin, thin
    mine = {t.family: (t.pattern, t.visual) for t in tasks if t.family in MINE}
    assert mine == {"strata.mobile_cart": ("responsive", False), "strata.mobile_star": ("responsive", False),
                    "strata.buy_again": ("scroll_sticky", False), "strata.snooze_top": ("pixels_vs_dom", True)}


def test_my_validators_fail_on_the_seed(tasks):
    mine = [t for t in tasks if t.family in MINE]
    assert len(mine) == 8
    states = {s: encode_state(seed_state(s)) for s in sorted({t.seed for t in mine})}  # shared: only read
    for t in mine:
        assert not t.validate(states[t.seed]).success, t.id
    assert states == {s: encode_state(seed_state(s)) for s in states}


@pytest.mark.browser
async def test_premises_folders_collapse_on_a_phone_and_the_order_sits_under_the_banner(browser, arena, control):
    from webgauge.browser import RenderProfile

    ep = control.create(seed=0)
    try:
        t = build_tasks((0,), families=["strata.buy_again"])[0]
        name = t.oracle()[0].target.name  # the order's link, e.g. "#1088"
        async with browser.open(arena.episode_url(ep["id"], "/shop/orders"), RenderProfile(width=1280, height=800),
                                allowed_origins=(arena.app_url,)) as page:
            on_top = await page.evaluate("""(name) => {
                const a = [...document.querySelectorAll('a')].find((x) => x.textContent.trim() === name), b = \
a.getBoundingClientRect();
                const hit = document.elementFromPoint(b.left + b.width / 2, Math.min(b.top + b.height / 2, innerHeight \
- 1));
                return hit.closest('.banner') ? 'banner' : hit === a ? 'link' : hit.tagName; }""", name)
            assert on_top == "banner", f"{name} is not under the promo banner at the start ({on_top})"
        url = arena.episode_url(ep["id"], "/mail/")
        shown = "() => !!document.querySelector('a[href$=\"folder=archive\"]').offsetParent"
        for width, height, want in ((390, 844, False), (1280, 800, True)):
            async with browser.open(url, RenderProfile(width=width, height=height),
                                    allowed_origins=(arena.app_url,)) as page:
                assert await page.evaluate(shown) is want, width
                if not want:
                    await page.evaluate("() => document.querySelector('.menu-btn').click()")
                    assert await page.evaluate(shown) is True
    finally:
        control.delete(ep["id"])


@pytest.mark.browser
async def test_oracle_solves_strata_families_at_seeds_0_and_1(solve_with_oracle, at_public_seeds):
    tasks = at_public_seeds(MINE)  # each family at one of seeds 0 and 1
    records, failed = await solve_with_oracle(tasks)
    assert len(records) == len(tasks) == 4 and {r.seed for r in records.values()} == {0, 1}
    assert not failed, str(failed)
