"""URL normalisation so a reference and a generated page can be compared by destination.

Sites are served from a random loopback port, so a loopback origin carries no meaning: it is
dropped, as are leading ``./`` and ``/``. External URLs keep scheme and host (lower-cased)
and lose a lone trailing slash.

How two resources' URLs are compared for RER and matching (``--url-match``,
:func:`url_key`):

* ``webgauge`` (default, ours): :func:`normalize_url` of the resolved URL.
* ``exact`` (MRWeb): the URL exactly as written in the page (the ``href``/``src``/``url()``
  attribute, ``Resource.raw_url``, when the extractor recorded it; MRWeb resource lists hold
  it as ``url``), with no normalisation. Only a loopback serving origin is dropped from a
  resolved URL, since it names webgauge's random port, not the page.
* flags added with commas, ours, not the paper's: ``unescape`` (HTML-unescape, so
  ``&amp;`` equals ``&``) and ``nocache`` (drop cache-busting query parameters, see
  :data:`CACHE_BUSTING_PARAMS`), e.g. ``webgauge,unescape,nocache`` or ``exact,unescape``.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["normalize_url", "is_loopback", "is_internal", "page_of", "url_key", "parse_url_match",
           "URL_MATCH_MODES", "URL_MATCH_FLAGS", "CACHE_BUSTING_PARAMS"]

URL_MATCH_MODES: tuple[str, ...] = ("webgauge", "exact")
URL_MATCH_FLAGS: tuple[str, ...] = ("unescape", "nocache")
CACHE_BUSTING_PARAMS = frozenset({"v", "ver", "version", "t", "ts", "timestamp", "_", "cb", "cachebust",
                                  "cachebuster", "nocache", "rev", "bust"})
"""Query parameters ``nocache`` drops (names compared lower-case)."""


def parse_url_match(spec: str) -> tuple[str, frozenset[str]]:
    """``"exact,unescape"`` -> ``("exact", {"unescape"})``; a clear error for anything else."""
    parts = [p.strip() for p in (spec or "webgauge").split(",") if p.strip()]
    base = parts[0] if parts and parts[0] in URL_MATCH_MODES else "webgauge"
    flags = frozenset(parts[1:] if parts and parts[0] in URL_MATCH_MODES else parts)
    bad = sorted(flags - set(URL_MATCH_FLAGS))
    if bad:
        raise ValueError(f"unknown --url-match {spec!r}: {bad} is not a mode {URL_MATCH_MODES} "
                         f"or a flag {URL_MATCH_FLAGS} (e.g. 'exact' or 'webgauge,unescape,nocache')")
    return base, flags


def _drop_cache_busting(u: str) -> str:
    parts = urlsplit(u)
    if not parts.query:
        return u
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if k.lower() not in CACHE_BUSTING_PARAMS]
    return urlunsplit(parts._replace(query=urlencode(kept)))


def url_key(resource_or_url, url_match: str = "webgauge") -> str:
    """The comparable form of a resource's URL under ``url_match`` (module docstring)."""
    base, flags = parse_url_match(url_match)
    if isinstance(resource_or_url, str) or resource_or_url is None:
        u = resource_or_url or ""
    elif base == "exact" and getattr(resource_or_url, "raw_url", None) is not None:
        u = resource_or_url.raw_url
    else:
        u = resource_or_url.url or ""
    if "unescape" in flags:
        u = html.unescape(u)
    if "nocache" in flags:
        u = _drop_cache_busting(u)
    if base == "exact":
        parts = urlsplit(u)
        if parts.scheme in ("http", "https") and is_loopback(u):
            return urlunsplit(("", "", parts.path, parts.query, parts.fragment)).lstrip("/")
        return u
    return normalize_url(u)

_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host in _LOOPBACK


def normalize_url(url: str | None) -> str:
    """Return the comparable form of ``url`` (see module docstring)."""
    if not url:
        return ""
    u = url.strip()
    parts = urlsplit(u)
    if parts.scheme in ("http", "https") and parts.hostname and not is_loopback(u):
        path = parts.path if parts.path not in ("", "/") else ""
        return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query,
                           parts.fragment))
    if parts.scheme in ("http", "https"):  # loopback: keep the path only
        u = urlunsplit(("", "", parts.path, parts.query, parts.fragment))
    if u.startswith(("mailto:", "tel:", "data:", "javascript:")):
        return u
    while u.startswith("./"):
        u = u[2:]
    return u.lstrip("/")


def is_internal(url: str | None) -> bool:
    """True for relative URLs and loopback URLs (pages of the same site), not fragments."""
    if not url or url.startswith("#"):
        return False
    parts = urlsplit(url.strip())
    if parts.scheme in ("http", "https"):
        return is_loopback(url)
    return parts.scheme == "" and bool(parts.path)


def page_of(url: str | None, pages: "list[str] | tuple[str, ...]") -> str | None:
    """The site page a URL opens, by its normalised path (query and fragment ignored)."""
    if not is_internal(url):
        return None
    path = normalize_url(urlsplit(url).path if "://" in (url or "") else (url or "").split("#")[0].split("?")[0])
    if path in pages:
        return path
    if path in ("", "index") and "index.html" in pages:
        return "index.html"
    if path + ".html" in pages:
        return path + ".html"
    return None
