"""A quiet, threaded static HTTP server on loopback, for folders or in-memory pages."""

from __future__ import annotations

import http.server
import mimetypes
import os
import posixpath
import re
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["StaticServer", "LoopbackServer", "text_charset"]

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)


def text_charset(data: bytes) -> str | None:
    """The charset a text file declares in a ``<meta>`` anywhere in it, else ``utf-8`` when its
    bytes decode as UTF-8, else ``None``.

    Sent in the ``Content-Type`` header, it spares Chromium from guessing: a page whose meta
    charset comes after the first 1,024 bytes (a long inline ``<style>``, as on real pages) is
    otherwise decoded by a heuristic that can change with how the bytes arrive, so the same
    page could render with mojibake in one capture and not in the next.
    """
    m = _META_CHARSET.search(data)
    if m:
        name = m.group(1).decode("ascii", "replace").lower()
        try:
            "".encode(name)
            return name
        except LookupError:
            pass
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return "utf-8"


class _Handler(http.server.SimpleHTTPRequestHandler):
    server_version = "webgauge-static"

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's name
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def guess_type(self, path):  # a folder's text files carry their charset (see text_charset)
        ctype = super().guess_type(path)
        if ctype.startswith("text/") and "charset" not in ctype and os.path.isfile(path):
            try:
                with open(path, "rb") as fh:
                    charset = text_charset(fh.read())
            except OSError:
                charset = None
            if charset:
                ctype += f"; charset={charset}"
        return ctype

    def do_GET(self):  # noqa: N802 - the stdlib's name
        files = self.server.files
        if files is None:
            return super().do_GET()
        path = posixpath.normpath(unquote(urlsplit(self.path).path))
        if path.endswith("/") or path == ".":
            path = path.rstrip("/") + "/index.html"
        data = files.get(path) if path in files else files.get(path.lstrip("/"))
        if data is None:
            self.send_error(404, "not found")
            return
        body = data.encode() if isinstance(data, str) else data
        ctype = mimetypes.guess_type(path)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class LoopbackServer:
    """Start/stop lifecycle of a threaded HTTP server on 127.0.0.1 (a free port).

    Subclasses set ``self._httpd`` (a ``ThreadingHTTPServer``) in ``__init__`` and call
    ``super().__init__()``; use them as context managers.
    """

    thread_name = "webgauge-http"
    _httpd: http.server.ThreadingHTTPServer  # set by each subclass

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, relpath: str = "") -> str:
        return f"{self.base_url}/{relpath.lstrip('/')}"

    def start(self):
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever, name=self.thread_name, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class StaticServer(LoopbackServer):
    """Serve a folder (``root=``) or a dict of ``{"/path": bytes | str}`` (``files=``) on
    ``127.0.0.1`` at a free port. Use as a context manager; ``srv.url("a.html")``.
    """

    def __init__(self, root: str | Path | None = None, files: dict[str, bytes | str] | None = None,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        if (root is None) == (files is None):
            raise ValueError("give exactly one of root= (a folder) or files= (in-memory pages)")
        if root is not None and not Path(root).is_dir():
            raise FileNotFoundError(f"cannot serve {root}: not a folder")
        self.root = Path(root).resolve() if root is not None else None
        self.files = {("/" + k.lstrip("/")): v for k, v in files.items()} if files is not None else None
        root_dir = str(self.root) if self.root else "/nonexistent"
        handler = lambda *a, **kw: _Handler(*a, directory=root_dir, **kw)  # noqa: E731
        self._httpd = http.server.ThreadingHTTPServer((host, port), handler)
        self._httpd.daemon_threads = True
        self._httpd.files = self.files  # type: ignore[attr-defined]
        super().__init__()

    def add(self, path: str, data: bytes | str) -> None:
        """Add or replace an in-memory file (``files=`` servers only)."""
        if self.files is None:
            raise ValueError("add() works on in-memory servers (files=...)")
        self.files["/" + path.lstrip("/")] = data
