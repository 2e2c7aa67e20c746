"""A small local backend that serves a generated multi-page site and records what its
backend routes receive.

``SiteBackend(files, routes)`` is a real threaded HTTP server on ``127.0.0.1`` (random
port). ``GET`` of a file path serves the file; a request whose method and path match a
declared route is recorded (method, path, query, parsed form or JSON body) and answered
with a small confirmation page (or JSON for ``fetch``). Requests to undeclared ``/api/``
paths or with a wrong method are recorded as ``unexpected`` and answered 404/405, so a
generated page that posts to the wrong place is visible in the log.
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
        p = urlsplit(path).path if "://" in path else path.split("?")[0]
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
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self) -> None:
        backend = self.server.backend
        parts = urlsplit(self.path)
        path = parts.path
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        ctype = self.headers.get("Content-Type", "")
        route = Route(self.command, path)
        declared_paths = {r.path for r in backend.routes}
        if route in backend.routes:
            backend._record(Submission(self.command, path, parse_qs(parts.query), _parse_body(raw, ctype),
                                       ctype, True))
            if "json" in (self.headers.get("Accept", "") + ctype) or self.headers.get("Sec-Fetch-Mode") == "cors":
                self._send(200, b'{"ok": true}', "application/json")
            else:
                self._send(200, b"<!DOCTYPE html><html><body><h1>Received</h1>"
                                b"<p>Thank you, your submission was recorded.</p></body></html>",
                           "text/html; charset=utf-8")
            return
        if self.command in ("GET", "HEAD"):
            key = path if path != "/" else "/index.html"
            body = backend.files.get(key)
            if body is None:  # a file name with spaces or non-ASCII is requested percent-encoded
                body = backend.files.get(unquote(key))
            if body is None and key.endswith("/"):
                body = backend.files.get(key + "index.html")
            if body is not None:
                ctype_out = mimetypes.guess_type(key)[0] or "application/octet-stream"
                if ctype_out.startswith("text/"):
                    ctype_out += "; charset=utf-8"
                self._send(200, body, ctype_out)
                return
        if path in declared_paths or path.startswith("/api/") or self.command not in ("GET", "HEAD"):
            status = 405 if path in declared_paths else 404
            backend._record(Submission(self.command, path, parse_qs(parts.query), _parse_body(raw, ctype),
                                       ctype, False, status))
            self._send(status, b"not a declared route", "text/plain")
            return
        self._send(404, b"not found", "text/plain")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    backend: SiteBackend


class SiteBackend(LoopbackServer):
    """Serve ``files`` (``{"/path": bytes}``) and record requests to ``routes``.

    Use as a context manager; ``backend.url("about.html")``, ``backend.submissions``.
    """

    def __init__(self, files: Mapping[str, bytes | str], routes: Iterable[Route] = ()) -> None:
        self.files = {"/" + k.lstrip("/"): (v.encode() if isinstance(v, str) else v) for k, v in files.items()}
        self.routes = set(routes)
        self._lock = threading.Lock()
        self._submissions: list[Submission] = []
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.backend = self
        super().__init__()

    def _record(self, sub: Submission) -> None:
        with self._lock:
            self._submissions.append(sub)

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

    thread_name = "d2c-backend"
