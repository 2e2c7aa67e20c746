"""Every perturbation the registry exposes is a pure function of the seed and the settled clean
page: applied twice, at the same time, in fresh browser contexts, it gives the same DOM and the
same PNG. The page is shared real page 11791, whose layout perturbation once picked different
elements from one build to the next."""

import asyncio

import pytest

from webgauge.pages import StaticServer
from webgauge.perturb import FAMILIES, apply_perturbation, variants

pytestmark = pytest.mark.browser

SEED = 7


async def _apply(browser, url, family, params, target):
    page = await browser.new_page(require_settled=True)
    try:
        await page.goto(url)
        params = dict(params)
        if family == "text":
            params["target"] = target
        elif family == "layout":
            params["protect"] = [target]
        try:
            record = (await apply_perturbation(page, FAMILIES[family], SEED, **params)).to_dict()
        except ValueError as exc:  # nothing on the page this variant can change
            record = {"not_applicable": str(exc)}
        snap = await page.capture(full_page=True, with_aria=False)
        return record, await page.content(), snap.png_sha256
    finally:
        await page.close()


async def test_every_perturbation_is_reproducible_in_fresh_contexts(browser, real_pages_dir):
    with StaticServer(root=real_pages_dir) as srv:
        url = srv.url("11791.html")
        page = await browser.new_page(require_settled=True)
        try:
            await page.goto(url)
            clean = await page.capture(full_page=True, with_aria=False)
            clean_dom = await page.content()
        finally:
            await page.close()
        target = next(e for e in clean.elements if e.tag == "button" and e.text == "Search").path
        applied = 0
        for family, params in variants():
            a, b = await asyncio.gather(*(_apply(browser, url, family, params, target) for _ in range(2)))
            assert a[0] == b[0], f"{family} {params}: records differ"
            assert a[1] == b[1], f"{family} {params}: DOMs differ"
            assert a[2] == b[2], f"{family} {params}: screenshots differ"
            if "not_applicable" not in a[0]:
                applied += 1
                assert a[1] != clean_dom, f"{family} {params} changed nothing"
    assert applied >= len(variants()) - 1
