"""Scoring one generated site against its instance: visual, functional and fine-grained.

:func:`score_site` serves the generated files with the instance's backend routes, and for
every page renders a full-page screenshot, extracts the generated resource list (the same
extractor as the reference) and computes:

* visual: MAE, PSNR, SSIM, NEMD (exact, full resolution, ``pad`` alignment), CLIP and LPIPS
  (``{"missing": reason}`` without local weights);
* functional: RER, navigation, image loading, backend submissions;
* fine-grained: position offset, area difference, CIEDE2000 colour and text difference over
  optimally matched pairs.

An instance whose reference is ``rendered`` (imported MRWeb data,
:mod:`webgauge.design2code.refrender`) has its reference page rendered beside the candidate in
the same browser and profile, with the same remote-image stand-ins: the reference screenshot
and the reference's boxes, colours and texts are measured there, and the scores against
MRWeb's recorded values are kept beside them (``reference.recorded``). Its ``images`` is the
share of the reference's images (``<img>`` and backgrounds) whose URL the candidate uses
(matched like RER); the share of ``<img>`` that loaded stays in ``functional_detail``.

:func:`score_item` is the ``webgauge.run`` handler that scores one generation record.
A page that fails to render gets an ``error`` and no scores; the other pages are scored. A file
the candidate asks for and does not have is a counted miss (``summary["not_found"]``, listed with
the unexpected requests), never an error.

Metric families (:data:`METRIC_FAMILIES`, the one list every entry point reads): ``mrweb``, the
suite's own (MRWeb's visual, functional and fine-grained metrics), always computed; ``d2c``,
Design2Code's visual score (:mod:`webgauge.design2code.d2c`), added with ``metrics=("d2c",)``:
both pages are rendered again in Design2Code's 1280x720 window and scored ``d2c_*``.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

from webgauge.browser import PageError
from webgauge.design2code.backend import SiteBackend
from webgauge.design2code.d2c.capture import D2C_PROFILE, d2c_capture
from webgauge.design2code.d2c.score import D2C_METRICS, d2c_scores
from webgauge.design2code.dataset import Instance
from webgauge.design2code.extract import extract_live
from webgauge.design2code.finegrained import fine_grained
from webgauge.design2code.functional import check_backend, check_images, check_navigation, rer
from webgauge.design2code.matching import match_resources
from webgauge.design2code.neural import Missing, load_clip, load_lpips
from webgauge.design2code.refrender import measure_reference, renders_reference, stand_ins_for
from webgauge.design2code.screens import page_screenshot
from webgauge.design2code.visual import visual_metrics

__all__ = ["score_site", "score_item", "site_record", "aggregate_pages", "PAGE_METRICS", "METRIC_FAMILIES",
           "check_families"]

MRWEB_METRICS = ("mae", "psnr", "ssim", "nemd", "clip", "lpips", "rer", "navigation", "images",
                 "backend", "position_offset", "area_difference", "color_difference", "color_difference_raw",
                 "text_difference")
PAGE_METRICS = MRWEB_METRICS + D2C_METRICS

#: metric family -> (its source, its metrics); ``mrweb`` is always computed
METRIC_FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "mrweb": ("MRWeb (Wan et al., 2025): visual, functional and fine-grained", MRWEB_METRICS),
    "d2c": ("Design2Code (Si et al., 2024): visual score", D2C_METRICS),
}


def check_families(metrics) -> tuple[str, ...]:
    """The metric families asked for, ``mrweb`` first; an unknown name is a ``ValueError``."""
    asked = [m.strip() for m in metrics if m.strip()]
    bad = [m for m in asked if m not in METRIC_FAMILIES]
    if bad:
        raise ValueError(f"unknown metric family {', '.join(bad)}; choose from {', '.join(METRIC_FAMILIES)}")
    return ("mrweb", *[m for m in METRIC_FAMILIES if m in asked and m != "mrweb"])


def _ratio(rows: list[dict]) -> float | None:
    return sum(1 for r in rows if r["ok"]) / len(rows) if rows else None


def _neural(scorer, ref: bytes, gen: bytes) -> Any:
    if isinstance(scorer, Missing):
        return scorer.to_json()
    return scorer.score(ref, gen)


async def score_site(instance: Instance, files: dict[str, bytes], browser, *, clip=None, lpips=None,
                     functional: bool = True, pages: list[str] | None = None,
                     url_match: str = "webgauge", metrics=("mrweb",)) -> dict[str, Any]:
    """Score every page of a generated site (or only ``pages``; see module docstring).
    ``url_match`` is how resource URLs compare for RER and matching
    (:func:`webgauge.design2code.urls.url_key`); ``metrics`` the families (:data:`METRIC_FAMILIES`)."""
    families = check_families(metrics)
    clip = clip if clip is not None else load_clip(None)
    lpips = lpips if lpips is not None else load_lpips(None)
    only = set(pages) if pages is not None else None
    pages_out: list[dict[str, Any]] = []
    rendered_ref = renders_reference(instance)
    open_kw: dict[str, Any] = {"stand_ins": stand_ins_for(instance)} if rendered_ref else {}
    ref_site = None
    if rendered_ref or "d2c" in families:
        ref_site = SiteBackend({**instance.asset_files(),
                                **{n: (instance.root / "site" / n).read_bytes() for n in instance.page_names}})
    with SiteBackend(files, instance.routes) as backend, (ref_site or contextlib.nullcontext()):
        for rec in instance.pages:
            if only is not None and rec.name not in only:
                continue
            url = backend.url(rec.name)
            row: dict[str, Any] = {"page": rec.name, "ref_size": [rec.width, rec.height],
                                   "n_resources": len(rec.resources.resources)}
            if not files.get(rec.name):
                row["error"] = "no generated code for this page"
                pages_out.append(row)
                continue
            try:
                measured = None
                if ref_site is not None and rendered_ref:
                    async with browser.open(ref_site.url(rec.name), instance.profile, timeout=30, **open_kw) as rpage:
                        measured = await measure_reference(rpage, rec, await page_screenshot(rpage))
                async with browser.open(url, instance.profile, timeout=30, **open_kw) as page:
                    gen_rl = await extract_live(page, rec.name)
                    png = await page_screenshot(page)
                    ref_png = measured.png if measured else instance.screenshot(rec.name)
                    row.update(visual_metrics(ref_png, png))
                    row["clip"] = _neural(clip, ref_png, png)
                    row["lpips"] = _neural(lpips, ref_png, png)
                    ref_res = measured.resources.resources if measured else rec.resources.resources
                    gen_res = gen_rl.resources
                    w, h = measured.resources.page_size if measured else (rec.width, rec.height)
                    pairs = match_resources(ref_res, gen_res, w, h, url_match)
                    row["rer"] = rer(ref_res, gen_res, w, h, pairs)
                    row["n_generated_resources"] = len(gen_res)
                    fg = fine_grained(ref_res, gen_res, w, h, pairs)
                    row.update(fg.summary())
                    row["gen_size"] = list(gen_rl.page_size)
                    if measured:
                        row["reference"] = _recorded_beside(rec, measured, gen_res, url_match)
                    if functional:
                        nav = await check_navigation(page, url, backend.base_url, rec.name, pairs, ref_res)
                        imgs = await check_images(page, url)
                        routes = await check_backend(page, url, backend, pairs, ref_res)
                        row["navigation"] = _ratio(nav)
                        row["images"] = _images_used(ref_res, pairs) if measured else imgs["ratio"]
                        row["backend"] = _ratio(routes)
                        row["functional_detail"] = {"navigation": nav, "images": imgs, "backend": routes}
                    row["screenshot_png"] = png
                if ref_site is not None and "d2c" in families:
                    row.update(await _d2c_page(browser, ref_site.url(rec.name), url, open_kw, clip))
            except PageError as exc:
                row["error"] = f"PageError({exc.kind}): {exc}"
            pages_out.append(row)
        row_unexpected = [s.__dict__ for s in backend.submissions if not s.expected]
        missing_files = backend.not_found
    summary = aggregate_pages(pages_out)
    summary["not_found"] = len(missing_files)  # the candidate's requests for files it does not have
    misses = [{"method": "GET", "path": p, "status": 404, "expected": False} for p in dict.fromkeys(missing_files)]
    return {"instance": instance.id, "kind": instance.kind, "pages": pages_out,
            "summary": summary, "unexpected_requests": (row_unexpected + misses)[:20]}


_IMAGE_TYPES = ("image", "background_image")


async def _d2c_page(browser, ref_url: str, url: str, open_kw: dict[str, Any], clip) -> dict[str, Any]:
    """Design2Code's scores of one page (both sides rendered in its window); a page it cannot
    render or recolour gets every ``d2c_*`` metric missing, with the reason."""
    try:
        async with browser.open(ref_url, D2C_PROFILE, timeout=30, **open_kw) as rpage:
            ref = await d2c_capture(rpage)
        async with browser.open(url, D2C_PROFILE, timeout=30, **open_kw) as cpage:
            cand = await d2c_capture(cpage)
    except (ValueError, PageError) as exc:  # MRWeb's scores of the page stand
        return {m: {"missing": f"Design2Code: {exc}"} for m in D2C_METRICS}
    scores = d2c_scores(cand.png, cand.blocks, ref.png, ref.blocks, clip)
    return dict(scores)


def _images_used(reference: list, pairs: list) -> float | None:
    """Share of the reference's images whose URL the candidate uses (``None`` without images)."""
    wanted = {i for i, r in enumerate(reference) if r.type in _IMAGE_TYPES}
    if not wanted:
        return None
    return sum(1 for p in pairs if p.ref_index in wanted) / len(wanted)


def _recorded_beside(rec, measured, gen_res: list, url_match: str) -> dict[str, Any]:
    """How the reference was measured, and the candidate's RER and fine-grained scores against
    the recorded values (the imported boxes, colours and texts, the recorded page size)."""
    recorded = rec.resources.resources
    pairs = match_resources(recorded, gen_res, rec.width, rec.height, url_match)
    fg = fine_grained(recorded, gen_res, rec.width, rec.height, pairs)
    return {"rendered": True, "measured": measured.measured, "resources": len(recorded),
            "rendered_size": list(measured.resources.page_size), "recorded_size": [rec.width, rec.height],
            "recorded": {"rer": rer(recorded, gen_res, rec.width, rec.height, pairs), **fg.summary()}}


def aggregate_pages(pages: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean of each metric over the pages that have a number for it (``None`` if none)."""
    out: dict[str, Any] = {}
    for m in PAGE_METRICS:
        vals = [p[m] for p in pages if isinstance(p.get(m), (int, float)) and not isinstance(p.get(m), bool)]
        finite = [v for v in vals if math.isfinite(v)]
        out[m] = (sum(finite) / len(finite)) if finite else (math.inf if vals else None)
        if not vals:
            missing = next((p[m] for p in pages if isinstance(p.get(m), dict)), None)
            if missing is not None or m in ("clip", "lpips"):
                out[m] = missing
    out["pages_scored"] = sum(1 for p in pages if "error" not in p)
    out["pages_failed"] = sum(1 for p in pages if "error" in p)
    return out


async def score_item(item, ctx):
    """``webgauge.run`` handler: payload ``{"instance_dir", "gen_run", "gen_item", "clip_weights",
    "lpips_weights", "functional", "url_match", "metrics"}``; reads the generated pages from the generation
    run's blobs and stores a :class:`~webgauge.design2code.records.SiteScore`."""
    from webgauge.design2code.records import GenerationRecord
    from webgauge.run import ItemResult, RunStore

    p = item.payload
    instance = Instance.load(p["instance_dir"])
    store = RunStore(p["gen_run"])
    row = store.get(p["gen_item"])
    if row is None or row.status != "ok":
        raise RuntimeError(f"generation item {p['gen_item']} did not finish ok in {p['gen_run']}")
    files = dict(instance.asset_files())
    for name in instance.page_names:
        sha = row.blobs.get(f"page:{name}")
        files[name] = store.blob(sha) if sha else b""
    browser = await ctx.browser()
    url_match = p.get("url_match", "webgauge")
    result = await score_site(instance, files, browser, clip=load_clip(p.get("clip_weights")),
                              lpips=load_lpips(p.get("lpips_weights")), functional=p.get("functional", True),
                              url_match=url_match, metrics=tuple(p.get("metrics", ("mrweb",))))
    blobs = {}
    for page in result["pages"]:
        png = page.pop("screenshot_png", None)
        if png:
            blobs[f"screenshot:{page['page']}"] = png
    gen = GenerationRecord.from_json(row.record)
    return ItemResult(record=site_record(result, gen, p["gen_item"], url_match).to_json(), blobs=blobs)


def site_record(result: dict[str, Any], gen, gen_item: str, url_match: str = "webgauge"):
    """The typed :class:`~webgauge.design2code.records.SiteScore` of a :func:`score_site` result."""
    from webgauge.design2code.records import PageScore, SiteScore

    safe = _json_safe(result)
    pages = []
    for row in safe["pages"]:
        pages.append(PageScore(
            model=gen.model, strategy=gen.strategy, instance=gen.instance, seed=gen.seed, page=row["page"],
            kind=safe["kind"], metrics={m: row[m] for m in PAGE_METRICS if m in row},
            ref_size=row.get("ref_size", []), gen_size=row.get("gen_size", []),
            n_resources=row.get("n_resources", 0), n_generated_resources=row.get("n_generated_resources"),
            n_matched=row.get("n_matched"), functional_detail=row.get("functional_detail"), error=row.get("error"),
            reference=row.get("reference")))
    return SiteScore(model=gen.model, strategy=gen.strategy, instance=gen.instance, seed=gen.seed, kind=safe["kind"],
                     gen_item=gen_item, pages=pages, summary=safe["summary"], generation_statuses=gen.statuses,
                     unexpected_requests=safe["unexpected_requests"], prompts=gen.prompts, url_match=url_match)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else "-inf" if value < 0 else "nan"
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value
