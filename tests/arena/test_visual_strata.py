"""The visual strata added for issue 12 (resize, transient, image_match, map): each has at
least three families; the maps and media families' oracles solve them (each at one of seeds 0
and 1) in real Chromium with no forbidden effects; validators fail on the seed; an image-match task cannot
be solved from the page text; and reports split results by the ``visual`` flag."""

from __future__ import annotations

import dataclasses
import html
import re
import urllib.parse
import urllib.request
from collections import Counter

import pytest

from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.answers import with_answer
from webgauge.arena.outputs.visual_split import visual_split, visual_split_section
from webgauge.arena.tasks import FAMILIES, build_tasks, seed_state

NEW_STRATA = ("resize", "transient", "image_match", "map")
MINE = [k for k in FAMILIES if k.split(".")[0] in ("maps", "media")]


@pytest.fixture(scope="module")
def tasks():
    return build_tasks((0, 1))


def test_each_new_stratum_has_at_least_three_families(tasks):
    fams: dict[str, set] = {}
    for t in tasks:
        fams.setdefault(t.pattern, set()).add(t.family)
    for stratum in NEW_STRATA:
        assert len(fams.get(stratum, ())) >= 3, (stratum, fams.get(stratum))
    assert "cal.booking_reference" in fams["transient"]
    mine = {t.family for t in tasks if t.family.split(".")[0] in ("maps", "media")}
    assert len(mine) == len(MINE) >= 10


def test_my_validators_fail_on_the_seed_and_on_a_wrong_answer(tasks):
    states = {s: encode_state(seed_state(s)) for s in sorted({t.seed for t in tasks})}  # shared: only read
    for t in tasks:
        if t.family.split(".")[0] not in ("maps", "media"):
            continue
        seed = states[t.seed]
        assert not t.validate(seed).success, f"{t.id} passes on the seed state"
        if t.answer is not None:
            assert not t.validate(with_answer(seed, "AS-0000 MP-000000")).success, t.id
    assert states == {s: encode_state(seed_state(s)) for s in states}


def test_long_families_and_visual_flags(tasks):
    steps = {t.family: len(t.oracle()) for t in tasks if t.seed == 0 and t.family.split(".")[0] in ("maps", "media")}
    assert sum(n >= 10 for n in steps.values()) >= 3, steps
    visual = {t.family for t in tasks if t.visual and t.pattern in ("image_match", "map")}
    assert visual >= {"maps.drop_pin", "maps.nearest", "maps.route", "media.match_brief", "media.ticket_code",
                      "media.tag_matches"}


def _text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_image_match_is_not_solvable_from_the_page_text(arena, control, tasks):
    """The candidates that share the pictured product's name have the same text and alt text
    (only their codes differ), and the brief page names no code, colour or pattern."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    t = next(t for t in tasks if t.family == "media.match_brief" and t.seed == 0)
    state = seed_state(0)
    ep = control.create(seed=0)
    try:
        base = arena.episode_url(ep["id"], "")
        brief = next(b for b in state["media_briefs"] if b["ref"] in t.instruction)
        target = next(a for a in state["media_assets"] if a["id"] == int(brief["refs"].strip("[]")))
        twins = [a for a in state["media_assets"] if a["name"] == target["name"]]
        assert len(twins) == 4 and len({(a["color"], a["pattern"]) for a in twins}) == 4
        page = opener.open(base + "/media/?q=" + urllib.parse.quote(target["name"])).read().decode()
        cards = re.findall(r"<li>(.*?)</li>", page, flags=re.S)
        assert len(cards) == 4
        masked = {re.sub(r"AS-\d{4}|/img/a/\d+\.png", "X", c) for c in cards}
        assert len(masked) == 1, "the look-alikes differ in their markup beyond the code"
        brief_page = opener.open(base + f"/media/b/{brief['ref']}").read().decode()
        words = _text(brief_page).lower()
        assert target["code"].lower() not in brief_page.lower()
        assert not any(a["color"] in words.split() or a["pattern"] in words.split() for a in twins)
        # the photos themselves differ: the four candidates are four different images
        imgs = {opener.open(base + f"/media/img/a/{a['id']}.png").read() for a in twins}
        assert len(imgs) == 4
    finally:
        control.delete(ep["id"])


@pytest.mark.browser
async def test_details_panel_reflows_below_its_breakpoint(browser, arena, control):
    """The resize stratum's premise: at the tablet viewport the editor is not on screen until
    the panel is widened; at the desktop viewport it is."""
    from webgauge.browser import RenderProfile

    ep = control.create(seed=0)
    try:
        code = seed_state(0)["media_assets"][0]["code"]
        url = arena.episode_url(ep["id"], f"/media/a/{code}")
        shown = "() => !!document.getElementById('licence').offsetParent"
        for width, height, want in ((820, 1180, False), (1280, 800, True)):
            async with browser.open(url, RenderProfile(width=width, height=height),
                                    allowed_origins=(arena.app_url,)) as page:
                assert await page.evaluate(shown) is want, width
                if not want:  # widen with the keyboard on the separator: the editor appears
                    await page.evaluate("() => { const s = document.getElementById('sep'); for (let i = 0; i < 8; i++)"
                                        " s.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft'})); }")
                    assert await page.evaluate(shown) is True
    finally:
        control.delete(ep["id"])


@pytest.mark.browser
async def test_the_map_is_painted_on_the_canvas(browser, arena, control):
    """The places exist only in pixels, so the pixels must be there: the server's bitmap is
    served and painted (the oracle alone would not notice a blank map)."""
    from webgauge.browser import RenderProfile

    ep = control.create(seed=1)
    try:
        url = arena.episode_url(ep["id"], "/maps/")
        async with browser.open(url, RenderProfile(width=1280, height=800), allowed_origins=(arena.app_url,)) as page:
            colours = await page.evaluate("""async () => {
                const cv = document.getElementById('map');
                for (let i = 0; i < 100; i++) {
                    const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data, seen = new Set();
                    for (let k = 0; k < d.length; k += 4 * 97) seen.add(d[k] + ',' + d[k + 1] + ',' + d[k + 2] + ',' + \
d[k + 3]);
                    if (seen.size > 20) return seen.size;
                    await new Promise((r) => setTimeout(r, 100));
                }
                return 0; }""")
            assert colours > 20, "the map canvas stayed blank"
    finally:
        control.delete(ep["id"])


@pytest.mark.browser
async def test_oracle_solves_maps_and_media_at_seeds_0_and_1_and_the_visual_split(solve_with_oracle, at_public_seeds,
                                                                                    browser, tmp_path):
    # each family at one of seeds 0 and 1 (cal.booking_reference's oracle: tests/arena/test_apps.py)
    tasks = at_public_seeds(MINE)
    by_id, failed = await solve_with_oracle(tasks)
    records = list(by_id.values())
    assert len(by_id) == len(tasks) == len(MINE) and {r.seed for r in records} == {0, 1}
    assert not failed, str(failed)
    # the visual flag as its own split: both sides, with n, clusters and an interval
    rows = {r["split"]: r for r in visual_split(records)}
    n_visual = sum(1 for t in tasks if t.visual)
    assert rows["visual"]["n"] == n_visual and rows["non-visual"]["n"] == len(tasks) - n_visual
    assert rows["visual"]["clusters"] == n_visual
    assert rows["visual"]["success"] == (1.0, 1.0, 1.0) and rows["non-visual"]["forbidden_rate"][0] == 0.0
    # an episode that failed lands on its own side only, and widens that side's interval
    failed_one = dataclasses.replace(records[0], success=False, task_id=records[0].task_id + "~failed")
    side = "visual" if failed_one.visual else "non-visual"
    other = "non-visual" if failed_one.visual else "visual"
    rows2 = {r["split"]: r for r in visual_split(records + [failed_one])}
    assert rows2[side]["success"][0] < 1.0 and rows2[side]["success"][1] < rows2[side]["success"][0]
    assert rows2[side]["n"] == rows[side]["n"] + 1 and rows2[other] == rows[other]
    assert Counter(r["agent"] for r in rows2.values()) == Counter({"oracle": 2})
    # the report section renders both sides with their counts
    from webgauge.report import write_html

    page = write_html(tmp_path / "split.html", "split", [visual_split_section(records)]).read_text()
    assert "Visual split" in page and "non-visual" in page and f">{n_visual}<" in page
