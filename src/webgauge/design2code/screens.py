"""Full-page screenshots with one documented height cap, shared by references and generations.

Pages are captured full-page at the profile's width. A generated page can be arbitrarily
tall (a runaway loop of elements), so captures stop at ``MAX_PAGE_HEIGHT`` CSS px for both
the reference and the generated page; none of the 41 real pages comes near it (max 3,299 px).
"""

from __future__ import annotations

from webgauge.browser import LivePage

__all__ = ["MAX_PAGE_HEIGHT", "page_screenshot"]

MAX_PAGE_HEIGHT = 8000


async def page_screenshot(page: LivePage) -> bytes:
    """PNG of the whole page (capped at ``MAX_PAGE_HEIGHT`` CSS px)."""
    w, h = await page.evaluate(
        "() => [document.documentElement.clientWidth, Math.max(document.documentElement.scrollHeight,"
        " document.body ? document.body.scrollHeight : 0)]")
    if h > MAX_PAGE_HEIGHT:
        return await page.screenshot(full_page=True, clip=(0, 0, w, MAX_PAGE_HEIGHT))
    return await page.screenshot(full_page=True)
