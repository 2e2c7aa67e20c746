"""Extract resource lists from rendered pages and multi-page sites (through ``webgauge.browser``).

Extraction reads the rendered DOM, never the HTML source: a read-only script
(``js/resources.js``) collects visible links, images, background images and backend routes
with their page-space boxes, texts and computed colours. Invisible or zero-size elements
are dropped. URLs are stored normalised (:func:`~webgauge.design2code.urls.normalize_url`),
so a loopback origin never leaks into a resource list; a link to a place on its own page is
stored as its fragment alone (``#top``, whether written ``#top`` or ``page.html#top``). A backend
route is a form or fetch target on the page's own site (its path, no query or fragment); a form
sent to another site is not one (offline, nothing could receive it).

For a site, :func:`extract_site` follows internal links breadth-first to ``depth`` and sets
``target_page`` on every link that opens a page of the site.
"""

from __future__ import annotations

from importlib import resources as _res
from urllib.parse import urljoin, urlsplit

from webgauge.browser import Browser, LivePage, RenderProfile
from webgauge.design2code.resources import Resource, ResourceList
from webgauge.design2code.urls import is_internal, normalize_url

__all__ = ["RESOURCES_JS", "extract_page", "extract_live", "extract_site", "page_name"]

RESOURCES_JS = _res.files("webgauge.design2code").joinpath("js/resources.js").read_text(encoding="utf-8")


def page_name(url: str, base_url: str) -> str:
    """Site-relative page name of ``url`` (``index.html`` for the site root)."""
    path = urlsplit(url).path
    base_path = urlsplit(base_url).path.rsplit("/", 1)[0] + "/"
    name = path[len(base_path):] if path.startswith(base_path) else path.lstrip("/")
    return name or "index.html"


async def extract_live(page: LivePage, name: str | None = None) -> ResourceList:
    """The resource list of the page currently shown in ``page``."""
    raw = await page.evaluate(RESOURCES_JS)
    resources = []
    here = raw["url"].split("#")[0]
    for r in raw["resources"]:
        url = normalize_url(r["url"])
        if r["type"] == "backend_route":
            if urlsplit(r["url"]).netloc != urlsplit(raw["url"]).netloc:
                continue  # a form sent to another site is no route of this site's backend
            url = "/" + url.split("#")[0]
        elif r["type"] == "link" and "#" in r["url"] and r["url"].split("#")[0] == here:
            url = r["url"][r["url"].index("#"):]  # a place on this page
        resources.append(Resource(
            type=r["type"], box=[[round(v, 2) for v in p] for p in r["box"]],
            url=url, text=r.get("text", ""), color=r.get("color"),
            background_color=r.get("background_color"), method=r.get("method"),
            fields=list(r.get("fields") or []), via=r.get("via"), raw_url=r.get("raw_url")))
    return ResourceList(page=name or page_name(raw["url"], raw["url"]), resources=resources,
                        viewport=tuple(raw["viewport"]), page_size=tuple(raw["page_size"]))


async def extract_page(browser: Browser, url: str, profile: RenderProfile | None = None,
                       name: str | None = None, timeout: float = 30.0) -> ResourceList:
    """Open ``url`` (loopback), extract its resource list, close it."""
    async with browser.open(url, profile or RenderProfile(), timeout=timeout) as page:
        return await extract_live(page, name)


async def extract_site(browser: Browser, start_url: str, depth: int = 2,
                       profile: RenderProfile | None = None, timeout: float = 30.0,
                       max_pages: int = 50) -> dict[str, ResourceList]:
    """Crawl internal links from ``start_url`` to ``depth`` clicks; ``{page name: list}``.

    Every internal link gets ``target_page`` (the name of the page it opens, whether or not
    that page was crawled within ``depth``).
    """
    base = start_url
    out: dict[str, ResourceList] = {}
    queue: list[tuple[str, int]] = [(start_url, 0)]
    seen = {page_name(start_url, base)}
    while queue and len(out) < max_pages:
        url, d = queue.pop(0)
        name = page_name(url, base)
        rl = await extract_page(browser, url, profile, name=name, timeout=timeout)
        for r in rl.resources:
            if r.type != "link" or not is_internal(r.url) or r.url.startswith("#"):
                continue
            target_url = urljoin(base, "/" + r.url.split("#")[0].split("?")[0])
            target = page_name(target_url, base)
            r.target_page = target
            if d < depth and target not in seen and target.endswith((".html", ".htm")):
                seen.add(target)
                queue.append((target_url, d + 1))
        out[name] = rl
    return out
