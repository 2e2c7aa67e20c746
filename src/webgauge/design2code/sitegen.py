"""Seeded synthetic multi-page sites built from ``webgauge.pages.synthetic.generate_page``.

``synthetic_site(seed, n_pages)`` generates one synthetic page per site page and then inserts
what MRWeb needs and the single-page generator does not write:

* internal links: top-bar navigation and the brand link point at the other pages of the site
  (every page links to every other page at least once when the top bar has enough links);
* one external link in the footer (or, without a footer, at the end of the main column),
  never fetched (offline);
* a contact form on the last page that posts to ``/api/contact`` (names kept from the form);
* on the first page, the call-to-action button declares a fetch target
  (``data-fetch="/api/subscribe"``) and a tiny script that posts to it on click;
* deterministic local images: each page's PNG assets are kept under ``p<i>/img/`` so pages of
  one site never overwrite one another's images.

Same seed, same site bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["SiteSpec", "synthetic_site", "SITE_ROUTES", "FETCH_SCRIPT"]

SITE_ROUTES: tuple[tuple[str, str], ...] = (("POST", "/api/contact"), ("POST", "/api/subscribe"))
FETCH_SCRIPT = (
    "<script>document.querySelectorAll('[data-fetch]').forEach(function(el){"
    "el.addEventListener('click',function(ev){ev.preventDefault();"
    "fetch(el.getAttribute('data-fetch'),{method:el.getAttribute('data-method')||'POST',"
    "headers:{'Content-Type':'application/json','Accept':'application/json'},"
    "body:JSON.stringify({action:el.textContent.trim()})});});});</script>")


@dataclass
class SiteSpec:
    """A multi-page site: page names in order, files (``{"path": bytes}``) and routes."""

    pages: list[str]
    files: dict[str, bytes]
    routes: list[tuple[str, str]]
    meta: dict = field(default_factory=dict)


def _page_names(n: int) -> list[str]:
    base = ["index.html", "products.html", "about.html", "blog.html", "help.html"]
    names = base[: max(0, n - 1)] if n > 1 else []
    names = (names + [f"page{i}.html" for i in range(len(names), n - 1)])[: n - 1]
    return (names + ["contact.html"]) if n > 1 else ["index.html"]


def synthetic_site(seed: int, n_pages: int = 3, length: str = "short") -> SiteSpec:
    """Build a seeded synthetic site of ``n_pages`` pages (see module docstring)."""
    from webgauge.pages.synthetic import generate_page

    if n_pages < 1:
        raise ValueError("n_pages must be at least 1")
    names = _page_names(n_pages)
    files: dict[str, bytes] = {}
    domain = None
    for i, name in enumerate(names):
        page = generate_page(seed * 1000 + i, domain=domain, with_safety=False, with_ads=False,
                             length=length)
        domain = page.domain  # one site, one domain
        html = page.html.replace('src="img/', f'src="p{i}/img/')
        others = [n for n in names if n != name] or [name]
        counter = {"k": 0}

        def nav_link(m: re.Match, others: list[str] = others, counter: dict[str, int] = counter) -> str:
            target = others[counter["k"] % len(others)]
            counter["k"] += 1
            return f'<a href="{target}" id="{m.group(1)}">'

        html = re.sub(r'<a href="#" id="(nav-[^"]+)">', nav_link, html)
        html = re.sub(r'<a href="#" class="brand"', '<a href="index.html" class="brand"', html, count=1)
        if "footer-" in html:
            html = re.sub(r'<a href="#" id="(footer-[^"]+)">', r'<a href="https://www.example.com/\1" id="\1">',
                          html, count=1)
        else:  # no footer in this layout: the external link goes at the end of the main column
            html = html.replace("</main>", '<p class="help"><a href="https://www.example.com/learn-more" '
                                'id="learn-more">Learn more on example.com</a></p></main>', 1)
        if i == n_pages - 1:
            html = html.replace('<form onsubmit="return false">',
                                '<form action="/api/contact" method="post">', 1)
        if i == 0:
            cta = page.truth["cta"]["id"]
            html = html.replace(f'id="{cta}"', f'id="{cta}" data-fetch="/api/subscribe" data-method="POST"', 1)
            html = html.replace("</body>", FETCH_SCRIPT + "</body>", 1)
        files[name] = html.encode()
        for path, data in page.assets.items():
            files[f"p{i}/{path}"] = data
    return SiteSpec(pages=names, files=files, routes=list(SITE_ROUTES),
                    meta={"seed": seed, "domain": domain, "n_pages": n_pages, "length": length})
