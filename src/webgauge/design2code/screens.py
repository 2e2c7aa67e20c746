"""Full-page screenshots with one documented height cap, shared by references and generations.

Pages are captured full-page at the profile's width. A generated page can be arbitrarily
tall (a runaway loop of elements), so captures stop at ``MAX_PAGE_HEIGHT`` CSS px for both
the reference and the generated page; none of the 41 real pages comes near it (max 3,299 px).

Reference screenshots (``design2code build``) go through :func:`reference_screenshot`: the page
is settled and the PNG checked against the page size (``LivePage.capture``), so the same
build gives the same bytes on a busy machine; a page that does not settle is an error.
"""

from __future__ import annotations

from webgauge.browser import LivePage

__all__ = ["MAX_PAGE_HEIGHT", "page_screenshot", "reference_screenshot"]

MAX_PAGE_HEIGHT = 8000


async def page_screenshot(page: LivePage) -> bytes:
    """PNG of the whole page (capped at ``MAX_PAGE_HEIGHT`` CSS px)."""
    w, h = await page.evaluate(
        "() => [document.documentElement.clientWidth, Math.max(document.documentElement.scrollHeight,"
        " document.body ? document.body.scrollHeight : 0)]")
    if h > MAX_PAGE_HEIGHT:
        return await page.screenshot(full_page=True, clip=(0, 0, w, MAX_PAGE_HEIGHT))
    return await page.screenshot(full_page=True)


async def reference_screenshot(page: LivePage) -> bytes:
    """A settled, size-checked full-page PNG (``LivePage.capture``), cut at ``MAX_PAGE_HEIGHT``
    like :func:`page_screenshot`. Open ``page`` with ``require_settled=True`` so that a page that
    does not settle raises ``PageError("unsettled")``."""
    snap = await page.capture(full_page=True, with_aria=False)
    if snap.full_page and snap.page_size[1] <= MAX_PAGE_HEIGHT:
        return snap.png
    return await page_screenshot(page)  # a very tall page: the documented cut, on the settled page
