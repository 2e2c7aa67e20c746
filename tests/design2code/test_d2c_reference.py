"""``--metrics d2c`` agrees with Design2Code's own visual_score.py on pairs made from the shared pages.

``data/d2c_reference.json`` holds the recipe of the (reference, candidate) pairs (page id, edit kind,
seed: :func:`webgauge.design2code.d2c.edits.reference_pairs`, regenerated here from the shared
pages, which never enter the tree) and the values Design2Code's code gave on them
(``bench/d2c_reference_bench.py --write``: its import error re-indented, CLIP stubbed, its
repetition truncation skipped). Each pair is scored here by webgauge in Chromium; per metric,
Pearson's r with the reference is at least 0.99, and identical copies are 1.0 in both.
"""

import json
from pathlib import Path

import numpy as np
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DATA = Path(__file__).parent / "data" / "d2c_reference.json"
METRICS = ("d2c_block", "d2c_text", "d2c_position", "d2c_color")


def test_the_kept_pairs_follow_the_recipe(real_pages):
    from webgauge.design2code.d2c.edits import reference_pairs

    data = json.loads(DATA.read_text(encoding="utf-8"))
    pairs = data["pairs"]
    ids = [p.stem for p in real_pages.glob("*.html")]
    recipe = reference_pairs(ids, 30, 0)
    kept = [recipe.index((p["page"], p["kind"], p["seed"])) for p in pairs]  # each is the recipe's, in order
    assert kept == sorted(kept)
    assert len(pairs) >= 12 and {p["kind"] for p in pairs} == {"identical", "typos", "removed", "colours",
                                                                   "swapped", "narrow"}
    # the reference tells the edits apart: they are not all perfect
    assert any(p["reference"][m] < 0.99 for p in pairs for m in METRICS)


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.timeout(1800)  # every pair: two pages, each rendered three times
async def test_d2c_agrees_with_the_reference(browser, real_pages):
    from webgauge.design2code.backend import SiteBackend
    from webgauge.design2code.d2c import D2C_PROFILE, d2c_capture, d2c_scores
    from webgauge.design2code.d2c.edits import edit_page

    pairs = json.loads(DATA.read_text(encoding="utf-8"))["pairs"]
    ours: list[dict] = []
    assets = {p.name: p.read_bytes() for p in real_pages.iterdir() if p.suffix in (".jpg", ".gif", ".svg")}
    for p in pairs:
        html = (real_pages / f"{p['page']}.html").read_text(encoding="utf-8")
        files = {**assets, "ref.html": html.encode(), "cand.html": edit_page(html, p["kind"], p["seed"]).encode()}
        with SiteBackend(files) as site:
            async with browser.open(site.url("ref.html"), D2C_PROFILE) as page:
                ref = await d2c_capture(page)
            async with browser.open(site.url("cand.html"), D2C_PROFILE) as page:
                cand = await d2c_capture(page)
        s = d2c_scores(cand.png, cand.blocks, ref.png, ref.blocks)
        ours.append({m: s[m] for m in METRICS})
    for m in METRICS:
        theirs = [p["reference"][m] for p in pairs]
        mine = [o[m] for o in ours]
        r = float(np.corrcoef(theirs, mine)[0, 1])
        assert r >= 0.99, f"{m}: Pearson {r:.4f} with Design2Code's values"
    for p, o in zip(pairs, ours, strict=True):
        if p["kind"] == "identical":
            assert all(p["reference"][m] == 1.0 and o[m] == 1.0 for m in METRICS), p["page"]
