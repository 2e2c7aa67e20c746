"""The local assets a page references, so a real instance carries what its page shows.

:func:`page_assets` reads an HTML page and finds every asset it references: ``<img src>``
and ``srcset``, ``<source src/srcset>``, ``<input type=image src>``, ``<video poster>``,
``<body/table/td background>``, ``<link href>`` for icons, stylesheets and preloads,
``<script src>``, CSS ``url(...)`` in ``style`` attributes and ``<style>`` blocks, and the
``url(...)`` and ``@import`` of local stylesheets it copies (followed to a small depth).

* **local** references (relative paths, or root-relative ``/x.png``) that name a file inside
  the page's folder are returned as ``{site path: bytes}`` to copy into the instance, where
  the reference and every generated site are served from;
* **remote** references (``http(s)://``, ``//host``) stay blocked, since webgauge renders
  offline: they are listed as unavailable with ``reason: "remote"``, as are local references
  whose file is missing (``"missing"``) or lies outside the page's folder (``"outside"``).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

__all__ = ["page_assets", "asset_references"]

_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)""", re.I)
_CSS_IMPORT = re.compile(r"""@import\s+(?:"([^"]+)"|'([^']+)')""", re.I)
_LINK_RELS = {"icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed", "stylesheet", "preload",
              "mask-icon", "manifest", "image_src"}


def _css_refs(css: str) -> list[str]:
    out = [next(g for g in m.groups() if g is not None) for m in _CSS_URL.finditer(css)]
    out += [m.group(1) or m.group(2) for m in _CSS_IMPORT.finditer(css)]
    return [u.strip() for u in out if u and u.strip()]


def _srcset(value: str) -> list[str]:
    return [part.strip().split()[0] for part in value.split(",") if part.strip()]


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag in ("img", "source", "input", "embed", "audio", "video", "track", "iframe", "script"):
            if a.get("src") and (tag != "input" or a.get("type", "").lower() == "image"):
                self.refs.append(a["src"])
        for key in ("srcset", "data-srcset"):
            if a.get(key):
                self.refs += _srcset(a[key])
        if tag == "video" and a.get("poster"):
            self.refs.append(a["poster"])
        if a.get("background") and tag in ("body", "table", "td", "th", "tr"):
            self.refs.append(a["background"])
        if tag == "link" and a.get("href") and set(a.get("rel", "").lower().split()) & _LINK_RELS:
            self.refs.append(a["href"])
        if a.get("style"):
            self.refs += _css_refs(a["style"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.refs += _css_refs(data)


def asset_references(html_text: str) -> list[str]:
    """Every asset URL the page references, in document order, without duplicates."""
    p = _Refs()
    p.feed(html_text)
    p.close()
    return list(dict.fromkeys(p.refs))


def _classify(url: str) -> str | None:
    """``"remote"``, ``"local"``, or ``None`` for references that load nothing (data:, #...)."""
    u = url.strip()
    if not u or u.startswith("#"):
        return None
    parts = urlsplit(u)
    if parts.scheme in ("data", "javascript", "mailto", "tel", "about", "blob"):
        return None
    if parts.scheme or u.startswith("//"):
        return "remote"
    return "local"


def page_assets(page: str | Path, max_depth: int = 3) -> tuple[dict[str, bytes], list[dict]]:
    """``(files, unavailable)`` for the HTML file ``page`` (see module docstring).

    ``files`` maps a site path relative to the page's folder (``img/a.png``) to its bytes;
    ``unavailable`` lists ``{"url", "reason", "referenced_by"}`` for remote, missing and
    outside references.
    """
    page = Path(page)
    root = page.resolve().parent  # a symlinked page finds its assets beside the real file
    files: dict[str, bytes] = {}
    unavailable: dict[str, dict] = {}
    todo: list[tuple[str, PurePosixPath, str, int]] = [
        (u, PurePosixPath("."), page.name, 0)
        for u in asset_references(page.read_text(encoding="utf-8", errors="replace"))]
    while todo:
        url, base, by, depth = todo.pop(0)
        kind = _classify(url)
        if kind is None:
            continue
        if kind == "remote":
            unavailable.setdefault(url, {"url": url, "reason": "remote", "referenced_by": by})
            continue
        path = unquote(urlsplit(url.strip()).path)
        if not path:
            continue
        rel = PurePosixPath(path.lstrip("/")) if path.startswith("/") else base / path
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            unavailable.setdefault(url, {"url": url, "reason": "outside", "referenced_by": by})
            continue
        key = target.relative_to(root).as_posix()
        if key in files or key == page.name:
            continue
        if not target.is_file():
            unavailable.setdefault(url, {"url": url, "reason": "missing", "referenced_by": by})
            continue
        files[key] = target.read_bytes()
        if target.suffix.lower() == ".css" and depth < max_depth:
            css = files[key].decode("utf-8", errors="replace")
            todo += [(u, PurePosixPath(key).parent, key, depth + 1) for u in _css_refs(css)]
    return files, list(unavailable.values())
