"""Build -> generate (baseline) -> score on sites whose true scores are known by construction."""

import math

import pytest

from webgauge.design2code.generate import generate_site, make_generator
from webgauge.design2code.score import score_site

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.browser]


def reference_files(inst):
    return {**inst.asset_files(), **{n: inst.reference_code(n).encode() for n in inst.page_names}}


async def test_built_instance_shape(instances):
    _, by_kind = instances
    syn, real = by_kind["synthetic"], by_kind["real"]
    assert syn.page_names == ["index.html", "contact.html"]
    assert {(r.method, r.path) for r in syn.routes} == {("POST", "/api/contact"), ("POST", "/api/subscribe")}
    index = syn.pages[0].resources
    targets = {r.target_page for r in index.of_type("link")}
    assert "contact.html" in targets                        # inserted internal link
    assert any(r.url.startswith("https://www.example.com/") for r in index.of_type("link"))
    assert any(r.via == "fetch" and r.url == "/api/subscribe" for r in index.of_type("backend_route"))
    assert any(r.via == "form" and r.url == "/api/contact" for r in syn.pages[1].resources.of_type("backend_route"))
    assert all(r.url.startswith("p0/img/") for r in index.of_type("image"))  # local, per-page images
    assert real.kind == "real" and len(real.pages) == 1 and real.screenshot(real.page_names[0])[:4] == b"\x89PNG"


async def test_reference_scores_perfectly_against_itself(instances, browser, tmp_path):
    import torch

    from webgauge.design2code.neural import LpipsScorer

    # an LPIPS file in the documented format (one 1x1 identity conv): identical pages score 0
    torch.save({"format": "webgauge-lpips/1", "layers": [{"conv": [3, 3, 1, 1, 0]}, {"relu": {}}], "taps": [1],
                "state_dict": {"features.0.weight": torch.eye(3).view(3, 3, 1, 1), "features.0.bias": torch.zeros(3),
                               "lin0.weight": torch.ones(1, 3, 1, 1)}}, tmp_path / "lpips.pt")
    _, by_kind = instances
    syn = by_kind["synthetic"]
    res = await score_site(syn, reference_files(syn), browser, lpips=LpipsScorer(tmp_path / "lpips.pt"))
    s = res["summary"]
    assert s["mae"] == 0.0 and s["psnr"] == math.inf and s["nemd"] == 1.0 and s["ssim"] == pytest.approx(1.0)
    assert s["rer"] == 1.0 and s["navigation"] == 1.0 and s["images"] == 1.0 and s["backend"] == 1.0
    assert s["position_offset"] == 0.0 and s["area_difference"] == 0.0 and s["color_difference"] == 0.0
    assert s["lpips"] == 0.0
    assert "missing" in s["clip"] and "WEBGAUGE_CLIP_WEIGHTS" in s["clip"]["missing"]  # no weights: not a number


async def test_baseline_with_and_without_resources(instances, browser):
    _, by_kind = instances
    syn = by_kind["synthetic"]
    files_zs, recs = await generate_site(syn, make_generator("baseline"), "zs", browser)
    assert [r["status"] for r in recs] == ["ok", "ok"]
    zs = (await score_site(syn, files_zs, browser))["summary"]
    assert zs["rer"] == 1.0 and zs["navigation"] == 1.0 and zs["backend"] == 1.0 and zs["images"] == 1.0
    assert zs["position_offset"] < 0.01 and 0 < zs["mae"] < 30
    # without the resource list the same baseline draws the background only: no resource exists
    files_sc, recs_sc = await generate_site(syn, make_generator("baseline"), "sc", browser)
    assert [r["status"] for r in recs_sc] == ["ok", "ok"]
    sc = (await score_site(syn, files_sc, browser, functional=False))["summary"]
    assert sc["rer"] == 0.0 and sc["position_offset"] is None and sc["mae"] > zs["mae"]


async def test_broken_site_fails_functional_checks(instances, browser):
    _, by_kind = instances
    syn = by_kind["synthetic"]
    files = reference_files(syn)
    # contact form posts to the wrong route; every link to contact.html points at a missing page
    contact = files["contact.html"].decode().replace('action="/api/contact"', 'action="/api/wrong"')
    index = files["index.html"].decode().replace('href="contact.html"', 'href="missing.html"')
    n_contact_links = sum(1 for r in syn.pages[0].resources.of_type("link") if r.target_page == "contact.html")
    files.update({"contact.html": contact.encode(), "index.html": index.encode()})
    files.pop("p0/img/hero.png")                            # one of index.html's images is gone
    res = await score_site(syn, files, browser)
    pages = {p["page"]: p for p in res["pages"]}
    assert pages["contact.html"]["backend"] == 0.0 and pages["contact.html"]["images"] == 1.0
    imgs = pages["index.html"]["functional_detail"]["images"]
    assert imgs["loaded"] == imgs["total"] - 1 and imgs["failed"][0].endswith("p0/img/hero.png")
    assert pages["index.html"]["backend"] == 1.0            # the fetch target still works
    nav_rows = pages["index.html"]["functional_detail"]["navigation"]
    failed = [r for r in nav_rows if not r["ok"]]
    assert len(failed) == n_contact_links > 0 and all(r["target"] == "contact.html" for r in failed)
    route_rows = pages["contact.html"]["functional_detail"]["backend"]
    assert route_rows == [{"ref_index": route_rows[0]["ref_index"], "route": "POST /api/contact", "ok": False,
                           "reason": "no matching form or fetch element"}]


async def test_form_missing_a_field_fails_backend(instances, browser):
    _, by_kind = instances
    syn = by_kind["synthetic"]
    files = reference_files(syn)
    form = next(r for r in syn.pages[1].resources.of_type("backend_route") if r.via == "form")
    dropped = form.fields[0]
    html = files["contact.html"].decode()
    files["contact.html"] = html.replace(f'name="{dropped}"', 'name="renamed"', 1).encode()
    res = await score_site(syn, files, browser, pages=["contact.html"])
    row = res["pages"][0]["functional_detail"]["backend"][0]
    assert row["ok"] is False and row["missing_fields"] == [dropped] and "renamed" in row["received"][0]


async def test_real_page_reference_and_baseline(instances, browser):
    _, by_kind = instances
    real = by_kind["real"]
    same = (await score_site(real, reference_files(real), browser, functional=False))["summary"]
    assert same["mae"] == 0.0 and same["nemd"] == 1.0
    files, _ = await generate_site(real, make_generator("baseline"), "zs", browser)
    got = (await score_site(real, files, browser, functional=False))["summary"]
    assert got["mae"] > 0 and got["pages_scored"] == 1
