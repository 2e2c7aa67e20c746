"""Functional metrics, measured in Chromium on the generated site served by a
:class:`~webgauge.design2code.backend.SiteBackend`.

* **RER** (resource existence ratio): share of reference resources that have a match in the
  generated page (links by destination, images by source, routes by method and path;
  optimal one-to-one matching, so two reference links need two generated ones).
* **Navigation**: for each internal link of the reference, the matched generated link is
  clicked with the mouse at its box centre; it works when the browser lands on the link's
  ``target_page`` (a link to the page itself must keep the browser on the page).
  Unmatched internal links count as not working. Generated links with the same destination
  are clicked once (the first matched one) and share the outcome, which keeps a page with
  twenty "#" links to a handful of clicks.
* **Images**: share of the generated page's ``<img>`` elements that loaded (``None`` if none).
* **Backend**: for each reference route, the matched generated form is filled and its submit
  button clicked (a fetch element is clicked); it works when the backend records a request
  with that method and path within ``wait`` seconds that carries every field name of the
  reference form (``missing_fields`` lists the ones it lacked). The form sent is the first visible one
  with that action and method.
"""

from __future__ import annotations

import asyncio
from importlib import resources as _res
from typing import Any

from webgauge.browser import LivePage
from webgauge.design2code.backend import Route, SiteBackend
from webgauge.design2code.extract import page_name
from webgauge.design2code.matching import MatchedPair, match_resources
from webgauge.design2code.resources import Resource

__all__ = ["rer", "check_navigation", "check_images", "check_backend", "FUNCTIONAL_JS"]

FUNCTIONAL_JS = _res.files("webgauge.design2code").joinpath("js/functional.js").read_text(encoding="utf-8")


def rer(reference: list[Resource], generated: list[Resource], width: float, height: float,
        pairs: list[MatchedPair] | None = None) -> float | None:
    """Resource existence ratio; ``None`` when the reference has no resources."""
    if not reference:
        return None
    pairs = match_resources(reference, generated, width, height) if pairs is None else pairs
    return len(pairs) / len(reference)


_HREF_AT = ("([x, y]) => { const e = document.elementFromPoint(x, y); const a = e && e.closest('a');"
            " return a ? a.getAttribute('href') : null; }")


async def _click_page_point(page: LivePage, x: float, y: float) -> str | None:
    """Scroll ``(x, y)`` (page px) into view and click it; returns the raw ``href`` of the link
    under the pointer (``None`` if the click does not land on a link)."""
    vw, vh = page.profile.width, page.profile.height
    await page.scroll_to(max(0.0, x - vw / 2), max(0.0, y - vh / 2))
    sx, sy = await page.scroll_offsets()
    href = await page.evaluate(_HREF_AT, [x - sx, y - sy])
    await page.mouse_click(x - sx, y - sy)
    return href


async def _wait_url_change(page: LivePage, before: int, seconds: float) -> None:
    for _ in range(int(seconds / 0.05)):
        if page.navigation_id != before:
            break
        await asyncio.sleep(0.05)
    try:
        await page.wait_for_load("load", timeout=seconds)
    except Exception:  # noqa: BLE001 - a page that does not finish loading still has a URL
        pass


async def check_navigation(page: LivePage, url: str, base_url: str, this_page: str,
                           pairs: list[MatchedPair], reference: list[Resource],
                           max_clicks: int = 40, wait: float = 1.5) -> list[dict[str, Any]]:
    """Click every matched internal link (see module docstring); one row per reference link."""
    matched = {p.ref_index: p for p in pairs}
    rows: list[dict[str, Any]] = []
    tried: dict[str, dict] = {}
    for i, r in enumerate(reference):
        if r.type != "link" or not r.target_page:
            continue
        p = matched.get(i)
        if p is None:
            rows.append({"ref_index": i, "target": r.target_page, "ok": False, "reason": "no matching link"})
            continue
        key = p.generated.url
        if key not in tried:
            if len(tried) >= max_clicks:
                break
            await page.goto(url)
            before = page.navigation_id
            (x1, y1), (x2, y2) = p.generated.box
            try:
                href = await _click_page_point(page, (x1 + x2) / 2, (y1 + y2) / 2)
                # a fragment-only link never loads a page: a short wait is enough
                await _wait_url_change(page, before, 0.2 if href is not None and href.startswith("#") else wait)
                landed = page_name(page.url.split("#")[0], base_url)
                tried[key] = {"landed": landed}
            except Exception as exc:  # noqa: BLE001 - a broken click is a failed link
                tried[key] = {"landed": None, "error": f"{type(exc).__name__}: {exc}"}
        res = tried[key]
        rows.append({"ref_index": i, "target": r.target_page, "landed": res["landed"],
                     "ok": res["landed"] == r.target_page, **({"error": res["error"]} if "error" in res else {})})
    return rows


async def check_images(page: LivePage, url: str) -> dict[str, Any]:
    """``{"total", "loaded", "ratio"}`` over the page's ``<img>`` elements."""
    await page.goto(url)
    imgs = await page.evaluate(FUNCTIONAL_JS, {"op": "images"})
    total = len(imgs)
    loaded = sum(1 for i in imgs if i["loaded"])
    return {"total": total, "loaded": loaded, "ratio": loaded / total if total else None,
            "failed": [i["url"] for i in imgs if not i["loaded"]][:20]}


def _missing_fields(fields: list[str], body: Any, query: dict) -> list[str]:
    """Reference form fields absent from a submission (form body, JSON object or query)."""
    names = set(query)
    if isinstance(body, dict):
        names |= set(body)
    return [f for f in fields if f not in names]


async def _received(backend: SiteBackend, route: Route, before: int, wait: float) -> bool:
    """Has the route received a submission beyond the first ``before``, within ``wait`` seconds?"""
    for _ in range(max(1, int(wait / 0.05))):
        if len(backend.received(route)) > before:
            return True
        await asyncio.sleep(0.05)
    return len(backend.received(route)) > before


async def check_backend(page: LivePage, url: str, backend: SiteBackend, pairs: list[MatchedPair],
                        reference: list[Resource], wait: float = 5.0) -> list[dict[str, Any]]:
    """Submit each matched route (see module docstring); one row per reference route."""
    matched = {p.ref_index: p for p in pairs}
    rows = []
    for i, r in enumerate(reference):
        if r.type != "backend_route":
            continue
        route = Route.of(r.method, r.url)
        p = matched.get(i)
        if p is None:
            rows.append({"ref_index": i, "route": f"{route.method} {route.path}", "ok": False,
                         "reason": "no matching form or fetch element"})
            continue
        before = len(backend.received(route))
        g = p.generated
        try:
            await page.goto(url)
            nav = page.navigation_id
            if g.via == "form":
                form = {"path": route.path, "method": route.method}
                info = await page.evaluate(FUNCTIONAL_JS, {"op": "fill_form", **form})
                if info and info.get("button"):
                    await _click_page_point(page, *info["button"])
                    if not await _received(backend, route, before, wait / 2):
                        # the page moved under the click (an image that loaded late shifts the button):
                        # the button is read again where it is now, then the form is submitted as its
                        # button would submit it (its own submit handler runs)
                        info = await page.evaluate(FUNCTIONAL_JS, {"op": "fill_form", **form})
                        if info and info.get("button"):
                            await _click_page_point(page, *info["button"])
                        if not await _received(backend, route, before, wait / 4):
                            await page.evaluate(FUNCTIONAL_JS, {"op": "submit_form", **form})
                else:
                    await page.evaluate(FUNCTIONAL_JS, {"op": "submit_form", **form})
            else:
                (x1, y1), (x2, y2) = g.box
                await _click_page_point(page, (x1 + x2) / 2, (y1 + y2) / 2)
            await _received(backend, route, before, wait)
            got = backend.received(route)[before:]
            if got and g.via == "form":  # the answer's page loads before the next goto (never interrupts it)
                await _wait_url_change(page, nav, 2.0)
            missing = _missing_fields(r.fields, got[0].body, got[0].query) if got else list(r.fields)
            rows.append({"ref_index": i, "route": f"{route.method} {route.path}", "ok": bool(got) and not missing,
                         "missing_fields": missing, "received": [s.body for s in got][:3]})
        except Exception as exc:  # noqa: BLE001 - a broken submission is a failed route
            rows.append({"ref_index": i, "route": f"{route.method} {route.path}", "ok": False,
                         "error": f"{type(exc).__name__}: {exc}"})
    return rows
