"""A small local backend that serves a generated multi-page site and records what its
backend routes receive.

``SiteBackend(files, routes)`` is a real threaded HTTP server on ``127.0.0.1`` (random
port). ``GET`` of a file path serves the file; a request whose method and path match a
declared route is recorded (method, path, query, parsed form or JSON body) and answered
with a small confirmation page (or JSON for ``fetch``). Requests to undeclared ``/api/``
paths or with a wrong method are recorded as ``unexpected`` and answered 404/405, so a
generated page that posts to the wrong place is visible in the log.

A route may be a page of the site itself (``<form action="">`` submits to its own page): a
``GET`` of that page without a query (no ``?``) is a page load and serves the page; only a
submission (a ``GET`` with a query, or another method) is recorded. So a form never shadows the
page it sits on.
"""

from __future__ import annotations

import http.server
import json
import mimetypes
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import collapse_rfc2231_value
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from webgauge.pages.server import LoopbackServer

__all__ = ["Route", "Submission", "SiteBackend"]


@dataclass(frozen=True)
class Route:
    """A declared backend route: upper-case method and path (``/api/contact``)."""

    method: str
    path: str

    @classmethod
    def of(cls, method: str | None, path: str) -> Route:
        """The route of a form action or fetch target (query and fragment dropped)."""
        p = urlsplit(path).path if "://" in path else path.split("#")[0].split("?")[0]
        return cls((method or "POST").upper(), "/" + p.lstrip("/"))


@dataclass
class Submission:
    """One request a route received."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    content_type: str
    expected: bool
    status: int = 200
    extra: dict = field(default_factory=dict)


def _parse_body(raw: bytes, ctype: str) -> Any:
    if not raw:
        return None
    if "json" in ctype:
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")
    if "x-www-form-urlencoded" in ctype:
        return parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
    if "multipart/form-data" in ctype:
        from email.parser import BytesParser
        from email.policy import HTTP

        msg = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + raw)
        out: dict[str, list[str]] = {}
        for part in msg.iter_parts():
            raw_name = part.get_param("name", header="content-disposition")
            name = collapse_rfc2231_value(raw_name) if raw_name else ""  # an RFC 2231 name decoded
            if name:
                out.setdefault(name, []).append(part.get_content() if part.get_content_maintype() == "text"
                                                else f"<{len(part.get_payload(decode=True) or b'')} bytes>")
        return out
    return raw.decode("utf-8", "replace")


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format, *args):  # noqa: A002 - stdlib name
        pass

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        except ConnectionError:  # the browser went away (a page closed mid-load): nothing to answer
            self.close_connection = True

    def _file(self, path: str) -> tuple[str, bytes] | None:
        """The served file at ``path`` (its key and bytes), if there is one."""
        files = self.server.backend.files
        key = path if path != "/" else "/index.html"
        for k in (key, unquote(key), key + "index.html" if key.endswith("/") else None):
            # a file name with spaces or non-ASCII is requested percent-encoded
            if k is not None and k in files:
                return k, files[k]
        return None

    def _handle(self) -> None:
        backend = self.server.backend
        parts = urlsplit(self.path)
        path = parts.path
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        ctype = self.headers.get("Content-Type", "")
        route = Route(self.command, path)
        query = parse_qs(parts.query, keep_blank_values=True)
        declared_paths = {r.path for r in backend.routes}
        page = self._file(path) if self.command in ("GET", "HEAD") else None
        if route in backend.routes and not (page is not None and "?" not in self.path):
            backend._record(Submission(self.command, path, query, _parse_body(raw, ctype),
                                       ctype, True))
            if "json" in (self.headers.get("Accept", "") + ctype) or self.headers.get("Sec-Fetch-Mode") == "cors":
                self._send(200, b'{"ok": true}', "application/json")
            else:
                self._send(200, b"<!DOCTYPE html><html><body><h1>Received</h1>"
                                b"<p>Thank you, your submission was recorded.</p></body></html>",
                           "text/html; charset=utf-8")
            return
        if page is not None:
            key, body = page
            ctype_out = mimetypes.guess_type(key)[0] or "application/octet-stream"
            if ctype_out.startswith("text/"):
                ctype_out += "; charset=utf-8"
            self._send(200, body, ctype_out)
            return
        if path in declared_paths or path.startswith("/api/") or self.command not in ("GET", "HEAD"):
            status = 405 if path in declared_paths else 404
            backend._record(Submission(self.command, path, query, _parse_body(raw, ctype),
                                       ctype, False, status))
            self._send(status, b"not a declared route", "text/plain")
            return
        backend._miss(path)
        self._send(404, b"not found", "text/plain")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    backend: SiteBackend

    def handle_error(self, request, client_address) -> None:
        """A connection the browser dropped is no error of the site; anything else is recorded as
        a 500 on the backend (never a traceback on the console)."""
        import sys

        exc = sys.exc_info()[1]
        if not isinstance(exc, ConnectionError):
            self.backend._miss(f"<server error: {type(exc).__name__}: {exc}>")


class SiteBackend(LoopbackServer):
    """Serve ``files`` (``{"/path": bytes}``) and record requests to ``routes``.

    Use as a context manager; ``backend.url("about.html")``, ``backend.submissions``.
    """

    def __init__(self, files: Mapping[str, bytes | str], routes: Iterable[Route] = ()) -> None:
        self.files = {"/" + k.lstrip("/"): (v.encode() if isinstance(v, str) else v) for k, v in files.items()}
        self.routes = set(routes)
        self._lock = threading.Lock()
        self._submissions: list[Submission] = []
        self._not_found: list[str] = []
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.backend = self
        super().__init__()

    def _record(self, sub: Submission) -> None:
        with self._lock:
            self._submissions.append(sub)

    def _miss(self, path: str) -> None:
        with self._lock:
            self._not_found.append(path)

    @property
    def not_found(self) -> list[str]:
        """Paths a ``GET`` asked for that the site does not have (404), in order, repeats kept."""
        with self._lock:
            return list(self._not_found)

    @property
    def submissions(self) -> list[Submission]:
        with self._lock:
            return list(self._submissions)

    def received(self, route: Route) -> list[Submission]:
        """The expected submissions ``route`` has received so far."""
        return [s for s in self.submissions if s.expected and Route(s.method, s.path) == route]

    def clear(self) -> None:
        with self._lock:
            self._submissions.clear()
            self._not_found.clear()

    thread_name = "d2c-backend"
