"""Apps written as ASGI applications (Starlette routes, Jinja2 templates) inside the arena.

The arena's episode server owns the transport, the per-episode SQLite database and the
control API; an ASGI app owns its routes, templates, forms, JSON API and cookies, the way a
real web app does. :func:`asgi_site` wraps a Starlette (or any ASGI) app as a
:class:`~webgauge.arena.apps.common.Site`: every request under the app's prefix is turned
into an ASGI ``http`` scope and run to completion, with the episode's database connection in
``request.state.conn`` and the episode's URL base (``/e/<id>``) in ``request.state.base``.
So the same app could be served by uvicorn unchanged, given a connection per request.

Apps declare their irreversible controls (``irreversible``: accessible names of buttons that
send, pay, delete or revoke) and the requests that carry them out (``gated``: control name,
method and path pattern, see :mod:`~webgauge.arena.core.gate`): the episode server refuses such a
request unless an approval for that control is waiting, whatever input produced it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ..core.gate import GatedRoute
from .common import Request, Response, Route, Site

__all__ = ["AsgiApp", "asgi_site", "call_asgi", "templates", "LazyApp"]


def templates(directory: str):
    """A Jinja2 environment for an app's template folder (autoescaping on)."""
    import jinja2

    from .common import TOAST_JS

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(directory), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals["toast_js"] = TOAST_JS  # base.html's: a notification stays until the next input
    return env


def template_cache(directory: str | Path, filters: Mapping[str, Callable[..., Any]] | None = None,
                   ) -> Callable[[], Any]:
    """``get()`` for one app's Jinja2 environment (:func:`templates` of ``directory`` plus ``filters``),
    made on first use and kept: the template folder is read only when the app first renders."""
    env: Any = None

    def get() -> Any:
        nonlocal env
        if env is None:
            env = templates(str(directory))
            env.filters.update(filters or {})
        return env

    return get


@dataclass(frozen=True)
class AsgiApp:
    """An arena app built as an ASGI application, with its seed data and declarations."""

    name: str
    prefix: str
    title: str
    app: Any  # an ASGI callable (a Starlette application)
    schema: str
    seed: Callable  # seed(conn, rng, seed) fills the app's tables
    irreversible: tuple[str, ...] = ()  # accessible names of controls that cannot be undone
    # the requests that carry those controls out: the server's approval gate refuses them unapproved
    gated: tuple[GatedRoute, ...] = ()
    renders: str = "server"  # "server" (HTML from templates) or "client" (JavaScript fetching JSON)
    flags: dict[str, str] = field(default_factory=dict)  # feature flags the app reads, with seed values


def _headers(req: Request) -> list[tuple[bytes, bytes]]:
    hdrs = dict(getattr(req, "headers", {}) or {})
    if req.cookies and "cookie" not in {k.lower() for k in hdrs}:
        hdrs["cookie"] = "; ".join(f"{k}={v}" for k, v in req.cookies.items())
    if req.form and "content-type" not in {k.lower() for k in hdrs}:
        hdrs["content-type"] = "application/x-www-form-urlencoded"
    out = [(k.lower().encode("latin-1"), str(v).encode("latin-1", "replace")) for k, v in hdrs.items()]
    out.append((b"content-length", str(len(_body(req))).encode()))
    return out


def _body(req: Request) -> bytes:
    if req.body or not req.form:
        return req.body or b""
    return urlencode([(k, v) for k, vs in req.form.items() for v in vs]).encode()


def call_asgi(app: Any, req: Request) -> Response:
    """Run one request through an ASGI app (to completion, in a fresh event loop)."""
    body = _body(req)
    scope = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
        "method": req.method, "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 0),
        "root_path": req.base, "path": req.base + req.path, "raw_path": (req.base + req.path).encode(),
        "query_string": urlencode(req.query).encode(), "headers": _headers(req),
        "state": {"conn": req.conn, "base": req.base},
    }
    sent: dict[str, Any] = {"status": 500, "headers": [], "body": bytearray()}
    chunks = [body]

    async def receive() -> dict:
        if chunks:
            return {"type": "http.request", "body": chunks.pop(), "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            sent["status"] = message["status"]
            sent["headers"] = message.get("headers", [])
        elif message["type"] == "http.response.body":
            sent["body"] += message.get("body", b"")

    asyncio.run(app(scope, receive, send))
    headers: dict[str, str] = {}
    ctype = "text/html; charset=utf-8"
    for k, v in sent["headers"]:
        key, val = k.decode("latin-1"), v.decode("latin-1")
        if key.lower() == "content-type":
            ctype = val
        elif key.lower() not in ("content-length",):
            headers[key] = val  # one value per header (the apps set at most one cookie per response)
    return Response(status=sent["status"], body=bytes(sent["body"]), content_type=ctype, headers=headers)


def asgi_site(spec: AsgiApp) -> Site:
    """``spec`` as a site of the episode server: one catch-all route per method under its prefix."""
    pattern = re.compile("^" + re.escape(spec.prefix) + "(/.*)?$")

    def handler(req: Request) -> Response:
        return call_asgi(spec.app, req)

    routes = tuple(Route(m, pattern, handler) for m in ("GET", "POST"))
    return Site(spec.name, spec.prefix, routes, spec.title, tuple(spec.irreversible), tuple(spec.gated))


class LazyApp:
    """An ASGI app built by ``factory`` on its first request, so Starlette is imported only when
    the arena serves (each app module passes its own ``_app`` builder)."""

    def __init__(self, factory) -> None:
        self._factory = factory
        self._app = None

    async def __call__(self, scope, receive, send):
        if self._app is None:
            self._app = self._factory()
        await self._app(scope, receive, send)
