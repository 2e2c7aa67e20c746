"""Render an HTML report to a PNG with the real browser, so reports can be looked at as pictures.

The report's folder is served on a loopback port (``webgauge.pages.StaticServer``) and
captured full-page under a fixed render profile, so relative links to blobs and charts
resolve exactly as they do when the report is opened from disk, and nothing leaves the
machine (the browser layer blocks every non-loopback request).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["render_html_to_png"]


async def render_html_to_png(html_path: str | os.PathLike, png_path: str | os.PathLike, width: int = 1280, *,
                             height: int = 800, full_page: bool = True, root: str | os.PathLike | None = None,
                             browser=None, timeout: float = 60.0) -> Path:
    """Screenshot ``html_path`` into ``png_path`` (CSS width ``width``; full page by default).

    ``root`` is the folder served (default: the report's folder); make it the run
    directory when the report links to ``../blobs``. ``browser`` reuses a running
    :class:`webgauge.browser.Browser`; otherwise one is launched and closed.
    """
    from webgauge.browser import Browser, RenderProfile
    from webgauge.pages import StaticServer

    html_path = Path(html_path).resolve()
    if not html_path.is_file():
        raise FileNotFoundError(f"no report to render at {html_path}")
    root_dir = Path(root).resolve() if root is not None else html_path.parent
    try:
        rel = html_path.relative_to(root_dir).as_posix()
    except ValueError:
        raise ValueError(f"{html_path} is not inside root={root_dir}; pass a root folder that contains it") from None
    if width < 100 or height < 100:
        raise ValueError(f"width and height must be at least 100 CSS px, got {width}x{height}")
    profile = RenderProfile(width=width, height=height)
    png_path = Path(png_path)
    png_path.parent.mkdir(parents=True, exist_ok=True)
    with StaticServer(root=root_dir) as srv:
        if browser is None:
            async with Browser.launch() as own:
                png = await _shoot(own, srv.url(rel), profile, full_page, timeout)
        else:
            png = await _shoot(browser, srv.url(rel), profile, full_page, timeout)
    tmp = png_path.with_name(f".{png_path.name}.tmp")
    tmp.write_bytes(png)
    os.replace(tmp, png_path)
    return png_path


async def _shoot(browser, url: str, profile, full_page: bool, timeout: float) -> bytes:
    async with browser.open(url, profile, timeout=timeout) as page:
        await page.wait_for_load("load", timeout=timeout)
        return await page.screenshot(full_page=full_page)
