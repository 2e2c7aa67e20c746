"""Capturing a Playwright page into a :class:`Snapshot` without touching the page."""

from __future__ import annotations

import asyncio
import hashlib
import json
from functools import lru_cache
from importlib import resources
from typing import Awaitable, Callable

from .profile import RenderProfile
from .snapshot import Element, Snapshot, element_id

__all__ = ["capture_page", "screenshot_page", "settle"]


@lru_cache(maxsize=1)
def _capture_js() -> str:
    return resources.files(__package__).joinpath("capture.js").read_text()


_SETTLE_JS = """() => new Promise((resolve) => {
  const done = () => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)));
  const t = setTimeout(done, 3000);
  (document.fonts ? document.fonts.ready : Promise.resolve()).then(() => { clearTimeout(t); done(); });
})"""


async def settle(page, timeout: float = 5.0) -> bool:
    """Wait for web fonts and two animation frames, so the next screenshot is stable."""
    try:
        return bool(await asyncio.wait_for(page.evaluate(_SETTLE_JS), timeout))
    except Exception:
        return False


async def screenshot_page(page, profile: RenderProfile, *, full_page: bool = False,
                          clip: tuple[float, float, float, float] | None = None, timeout: float = 20.0) -> bytes:
    """PNG bytes with animations frozen (``clip`` in page CSS px).

    The caret is left as is: Playwright's ``caret="hide"`` leaves an empty ``style``
    attribute on inputs, a mark the page could see.
    """
    kwargs = dict(type="png", full_page=full_page and clip is None, timeout=timeout * 1000, caret="initial",
                  animations="disabled" if profile.disable_animations else "allow", scale="device")
    if clip is not None:
        x, y, w, h = clip
        kwargs["clip"] = {"x": x, "y": y, "width": max(1.0, w), "height": max(1.0, h)}
        kwargs["full_page"] = True  # clip coordinates are relative to the page, not the viewport
    return await page.screenshot(**kwargs)


#: Pages taller than this (CSS px) get a viewport screenshot instead of a full-page one, with a warning.
MAX_FULL_PAGE_HEIGHT = 12000


async def capture_page(page, profile: RenderProfile, *, full_page: bool = False, max_elements: int = 20000,
                       with_aria: bool = True, with_screenshot: bool = True, timeout: float = 20.0,
                       max_full_page_height: int = MAX_FULL_PAGE_HEIGHT,
                       viewport_screenshot: Callable[[], Awaitable[bytes]] | None = None) -> Snapshot:
    """Screenshot, element table and aria snapshot of ``page``.

    The screenshot is taken first (animations frozen), then the elements are read in one
    read-only script, so boxes describe what the screenshot shows. ``viewport_screenshot``
    (a coroutine function returning PNG bytes) replaces Playwright's viewport screenshot
    (``LivePage.viewport_png``: CDP, the same pixels).
    """
    warnings: list[str] = []
    if not await settle(page, min(5.0, timeout / 3)):
        warnings.append("page did not settle (fonts/animation frames) before capture")
    png = b""
    if with_screenshot:
        if full_page:
            _, height = await page.evaluate(
                "() => [document.documentElement.scrollWidth, Math.max(document.documentElement.scrollHeight,"
                " document.body ? document.body.scrollHeight : 0)]")
            if height > max_full_page_height:
                warnings.append(f"page is {height} px tall (over {max_full_page_height}): captured the viewport only")
                full_page = False
        if viewport_screenshot is not None and not full_page:
            png = await viewport_screenshot()
        else:
            png = await screenshot_page(page, profile, full_page=full_page, timeout=timeout)
    data = json.loads(await page.evaluate(_capture_js(), {"maxElements": max_elements}))
    elements: list[Element] = []
    for raw in data["elements"]:
        path = raw.pop("path")
        parent_path = raw.pop("parent_path")
        elements.append(Element(
            id=element_id(path), path=path, parent=element_id(parent_path) if parent_path else None,
            box=tuple(float(v) for v in raw.pop("box")), **raw))
    if data["truncated"]:
        warnings.append(f"element table truncated at {max_elements} of {data['total']} elements")
    aria = ""
    if with_aria:
        try:
            aria = await page.locator("body").aria_snapshot(timeout=min(10.0, timeout / 2) * 1000)
        except Exception as exc:  # a huge or stuck page: keep the rest of the capture
            warnings.append(f"aria snapshot unavailable: {str(exc).splitlines()[0][:200]}")
    vw, vh = data["viewport"]
    return Snapshot(
        url=page.url,
        viewport=(int(vw), int(vh)),
        device_scale_factor=profile.device_scale_factor,
        scroll=(float(data["scroll"][0]), float(data["scroll"][1])),
        png=png,
        png_sha256=hashlib.sha256(png).hexdigest() if png else "",
        full_page=full_page,
        elements=elements,
        aria=aria,
        title=data.get("title", ""),
        page_size=tuple(data["page_size"]),
        warnings=warnings,
        truncated=bool(data["truncated"]),
    )
