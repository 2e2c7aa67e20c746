"""URL normalisation so a reference and a generated page can be compared by destination.

Sites are served from a random loopback port, so a loopback origin carries no meaning: it is
dropped, as are leading ``./`` and ``/``. External URLs keep scheme and host (lower-cased)
and lose a lone trailing slash.

How two resources' URLs are compared for RER and matching (``--url-match``,
:func:`url_key`):

* ``webgauge`` (default, ours): :func:`normalize_url` of the resolved URL.
  A link to a place on its own page is its fragment alone (``#top``): the extractor records it so.
* ``mrweb``: MRWeb's own convention (:func:`mrweb_url`). MRWeb records the browser's
  ``href``/``src`` property, i.e. the URL resolved and serialised as browsers do (lower-case
  scheme and host, ``/`` as the path of a bare host, default port dropped, spaces and non-ASCII
  percent-encoded), and keeps only the fragment of any link that has one (``page.html#x`` is
  ``#x``); URLs then compare as strings. A page's own attribute (``Resource.raw_url``) is put
  in that form; a URL recorded by MRWeb is already in it and stays as it is.
* ``exact`` (ours, strict): the URL exactly as written in the page (the ``href``/``src``/``url()``
  attribute, ``Resource.raw_url``, when the extractor recorded it; MRWeb resource lists hold
  it as ``url``), with no normalisation. Only a loopback serving origin is dropped from a
  resolved URL, since it names webgauge's random port, not the page.
* flags added with commas, ours, not the paper's: ``unescape`` (HTML-unescape, so
  ``&amp;`` equals ``&``) and ``nocache`` (drop cache-busting query parameters, see
  :data:`CACHE_BUSTING_PARAMS`), e.g. ``webgauge,unescape,nocache`` or ``exact,unescape``.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

__all__ = ["normalize_url", "is_loopback", "is_internal", "page_of", "url_key", "parse_url_match",
           "URL_MATCH_MODES", "URL_MATCH_FLAGS", "CACHE_BUSTING_PARAMS", "mrweb_url"]

URL_MATCH_MODES: tuple[str, ...] = ("webgauge", "mrweb", "exact")
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
    elif base == "mrweb":
        raw = getattr(resource_or_url, "raw_url", None)
        u = raw if raw is not None else (resource_or_url.url or "")
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
    if base == "mrweb":
        link = getattr(resource_or_url, "type", "link") == "link"
        return mrweb_url(u, link=link)
    return normalize_url(u)


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_PRINTABLE = "".join(chr(c) for c in range(0x21, 0x7f))
# the WHATWG URL standard's percent-encode sets (what a browser's href/src property encodes)
_PATH_SAFE = "".join(c for c in _PRINTABLE if c not in '"#<>?`{}')
_QUERY_SAFE = "".join(c for c in _PRINTABLE if c not in '"#<>\'')
_FRAGMENT_SAFE = "".join(c for c in _PRINTABLE if c not in '"<>`')


def mrweb_url(url: str | None, link: bool = True) -> str:
    """A URL in the form MRWeb records and compares (module docstring, ``mrweb`` mode).

    A link's URL with a ``#`` becomes everything from the ``#`` on. An absolute http(s) URL is
    serialised the way a browser's ``href`` property is; a loopback one (webgauge's serving
    origin) keeps its path and query only. Anything else is returned as given.
    """
    u = (url or "").strip()
    if link and "#" in u:
        return u[u.index("#"):]
    parts = urlsplit(u)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return u
    if is_loopback(u):
        return urlunsplit(("", "", parts.path, parts.query, "")).lstrip("/")
    host = parts.hostname
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        pass
    netloc = host
    if parts.port is not None and parts.port != _DEFAULT_PORTS[scheme]:
        netloc += f":{parts.port}"
    if parts.username is not None:
        cred = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{cred}@{netloc}"
    path = quote(parts.path.replace("\\", "/") or "/", safe=_PATH_SAFE)
    query = quote(parts.query, safe=_QUERY_SAFE)
    frag = quote(parts.fragment, safe=_FRAGMENT_SAFE)
    return urlunsplit((scheme, netloc, path, query, frag))

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


def page_of(url: str | None, pages: list[str] | tuple[str, ...]) -> str | None:
    """The site page a URL opens, by its normalised path (query and fragment ignored)."""
    if not is_internal(url):
        return None
    u = url or ""
    path = normalize_url(urlsplit(u).path if "://" in u else u.split("#")[0].split("?")[0])
    if path in pages:
        return path
    if path in ("", "index") and "index.html" in pages:
        return "index.html"
    if path + ".html" in pages:
        return path + ".html"
    return None
