"""Every shared Design2Code page, scored as its own generation, is at the maximum on every metric.

MRWeb's family: MAE 0, PSNR inf, SSIM 1, NEMD 1, LPIPS 0 (a documented-format identity network),
CLIP n/a by rule (no weights offline: a missing value, never a number), RER 1, navigation, images
and backend 1 or n/a (a page without internal links, images or routes), every fine-grained
difference 0 or n/a (no matched resource). Design2Code's family: Block-Match, Text, Position,
Color and the overall without CLIP 1 (CLIP and the overall n/a by the same rule). No page fails
and the copy sends nothing to a route the reference does not declare (files the reference itself
lacks are asked for by the copy too: counted misses, not failures).
"""

import math

import pytest

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.browser, pytest.mark.slow,
              pytest.mark.timeout(3600)]  # 41 pages, each rendered and checked five times

BEST = {"mae": 0.0, "psnr": math.inf, "ssim": 1.0, "nemd": 1.0, "lpips": 0.0, "rer": 1.0, "navigation": 1.0,
        "images": 1.0, "backend": 1.0, "position_offset": 0.0, "area_difference": 0.0, "color_difference": 0.0,
        "color_difference_raw": 0.0, "text_difference": 0.0, "d2c_block": 1.0, "d2c_text": 1.0,
        "d2c_position": 1.0, "d2c_color": 1.0, "d2c_final_noclip": 1.0}
MAY_BE_NA = {"navigation", "images", "backend", "position_offset", "area_difference", "color_difference",
             "color_difference_raw", "text_difference", "rer"}


async def test_every_shared_page_scores_perfectly_against_itself(browser, real_pages, tmp_path, monkeypatch):
    import torch

    from webgauge.browser import RenderProfile
    from webgauge.design2code.dataset import build_instances
    from webgauge.design2code.neural import CLIP_ENV, LpipsScorer
    from webgauge.design2code.score import score_site

    monkeypatch.delenv(CLIP_ENV, raising=False)
    torch.save({"format": "webgauge-lpips/1", "layers": [{"conv": [3, 3, 1, 1, 0]}, {"relu": {}}], "taps": [1],
                "state_dict": {"features.0.weight": torch.eye(3).view(3, 3, 1, 1), "features.0.bias": torch.zeros(3),
                               "lin0.weight": torch.ones(1, 3, 1, 1)}}, tmp_path / "lpips.pt")
    lpips = LpipsScorer(tmp_path / "lpips.pt")
    insts, failures = await build_instances(tmp_path / "inst", real=real_pages, browser=browser, progress=False,
                                            profile=RenderProfile(width=960, height=600))
    assert failures == [] and len(insts) == len(list(real_pages.glob("*.html"))) == 41
    wrong: dict[str, dict] = {}
    for inst in insts:
        files = {**inst.asset_files(), **{n: inst.reference_code(n).encode() for n in inst.page_names}}
        res = await score_site(inst, files, browser, lpips=lpips, metrics=("d2c",))
        (page,) = res["pages"]
        bad = {m: page.get(m) for m, best in BEST.items()
               if not (page.get(m) == best or (page.get(m) is None and m in MAY_BE_NA))}
        bad.update({m: page.get(m) for m in ("clip", "d2c_clip", "d2c_final")
                    if not (isinstance(page.get(m), dict) and "missing" in page[m])})
        sent_wrong = [r for r in res["unexpected_requests"] if r.get("status") != 404]
        if "error" in page or sent_wrong:
            bad.update(error=page.get("error"), unexpected=sent_wrong)
        if bad:
            wrong[inst.id] = bad
    assert not wrong, f"{len(wrong)} pages below the maximum: {wrong}"
