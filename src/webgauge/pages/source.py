"""Where pages come from: an HTML file, a folder of pages with relative assets, or a
loopback URL. Files and folders are served from a local loopback server, never opened
as ``file://`` (so relative assets, fetches and origins behave as on the web)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from webgauge.browser import is_loopback_url

from .server import StaticServer

__all__ = ["PageRef", "load_pages", "serve_pages", "HTML_SUFFIXES"]

HTML_SUFFIXES = (".html", ".htm")


@dataclass(frozen=True)
class PageRef:
    """One page: ``id`` is unique within a corpus; either ``path`` (with the ``root`` folder
    it is served from) or a loopback ``url``."""

    id: str
    path: Path | None = None
    root: Path | None = None
    url: str | None = None

    @property
    def source(self) -> str:
        return self.url or str(self.path)

    def to_dict(self) -> dict:
        return {"id": self.id, "path": str(self.path) if self.path else None,
                "root": str(self.root) if self.root else None, "url": self.url}


def _from_one(spec: str | Path) -> list[PageRef]:
    text = str(spec)
    if "://" in text:
        if urlsplit(text).scheme not in ("http", "https"):
            raise ValueError(f"{text}: only http(s) URLs are pages")
        if not is_loopback_url(text):
            raise ValueError(f"{text} is not on this machine; webgauge is offline by default. Save the page to a "
                             "folder (with its assets) and pass the folder, or serve it on 127.0.0.1.")
        parts = urlsplit(text)
        stem = Path(parts.path).stem or "index"
        return [PageRef(id=f"{parts.port or 80}-{stem}", url=text)]
    path = Path(text).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"no such page or folder: {path}")
    if path.is_file():
        if path.suffix.lower() not in HTML_SUFFIXES:
            raise ValueError(f"{path} is not an HTML file (expected {', '.join(HTML_SUFFIXES)})")
        path = path.resolve()
        stem = path.parent.name if path.stem == "index" and path.parent.name else path.stem
        return [PageRef(id=stem, path=path, root=path.parent)]
    root = path.resolve()
    files = sorted(p for p in root.rglob("*") if p.suffix.lower() in HTML_SUFFIXES and p.is_file())
    if not files:
        raise ValueError(f"{root} holds no .html pages")
    return [PageRef(id=str(p.relative_to(root).with_suffix("")), path=p, root=root) for p in files]


def load_pages(specs: str | Path | Iterable[str | Path], limit: int | None = None) -> list[PageRef]:
    """Page refs from files, folders and loopback URLs (ids made unique, order kept)."""
    if isinstance(specs, (str, Path)):
        specs = [specs]
    refs: list[PageRef] = []
    seen: dict[str, int] = {}
    for spec in specs:
        for ref in _from_one(spec):
            n = seen.get(ref.id, 0)
            seen[ref.id] = n + 1
            if n:
                ref = PageRef(id=f"{ref.id}~{n}", path=ref.path, root=ref.root, url=ref.url)
            refs.append(ref)
    return refs[:limit] if limit is not None else refs


@contextlib.contextmanager
def serve_pages(refs: Iterable[PageRef]) -> Iterator[dict[str, str]]:
    """Serve every folder the refs need; yields ``{ref.id: url}``."""
    refs = list(refs)
    servers: dict[Path, StaticServer] = {}
    try:
        urls: dict[str, str] = {}
        for ref in refs:
            if ref.url:
                urls[ref.id] = ref.url
                continue
            assert ref.root is not None and ref.path is not None
            if ref.root not in servers:
                servers[ref.root] = StaticServer(root=ref.root).start()
            urls[ref.id] = servers[ref.root].url(ref.path.relative_to(ref.root).as_posix())
        yield urls
    finally:
        for srv in servers.values():
            srv.stop()
