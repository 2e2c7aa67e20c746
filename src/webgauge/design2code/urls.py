"""URL normalisation so a reference and a generated page can be compared by destination.

Sites are served from a random loopback port, so a loopback origin carries no meaning: it is
dropped, as are leading ``./`` and ``/``. External URLs keep scheme and host (lower-cased)
and lose a lone trailing slash.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["normalize_url", "is_loopback", "is_internal", "page_of"]

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
