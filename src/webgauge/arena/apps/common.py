"""Request/response types, routing and HTML helpers shared by the arena sites.

Sites are plain functions of a :class:`Request` that read and write the episode database and
return a :class:`Response`. They know nothing about the server, the agent or the tasks.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from ..core.gate import GatedRoute

__all__ = [
    "int_param",
    "Request",
    "Response",
    "Route",
    "Site",
    "esc",
    "page",
    "redirect",
    "json_response",
    "now",
    "flag",
    "signin_token",
    "safe_next",
    "BASE_CSS",
]


def int_param(value: Any, default: int = 1) -> int:
    """A query parameter as an int (``default`` when missing or not a number: a page number, say)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def signin_token(app: str, username: str, password: str) -> str:
    """The token of an account's sign-in link (``/<app>/signin/<token>``): it names neither the
    user nor the password, and only the stored account matches it."""
    return hashlib.sha256(f"{app}-signin:{username}:{password}".encode()).hexdigest()[:24]


def safe_next(path: str, default: str) -> str:
    """``path`` if it is a path inside the episode (``/...``, not ``//host``), else ``default``."""
    return path if path.startswith("/") and not path.startswith("//") and "\\" not in path else default


@dataclass
class Request:
    """One HTTP request to an app, already scoped to its episode."""

    method: str
    path: str  # path inside the episode, e.g. "/shop/cart"
    query: dict[str, str]
    form: dict[str, list[str]]
    body: bytes
    cookies: dict[str, str]
    base: str  # "/e/<episode id>"
    conn: sqlite3.Connection
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)  # request headers (lower-case names)

    def url(self, path: str, **query: Any) -> str:
        q = ("?" + urlencode(query)) if query else ""
        return f"{self.base}{path}{q}"

    def field(self, name: str, default: str = "") -> str:
        vals = self.form.get(name)
        return vals[0] if vals else default

    def fields(self, name: str) -> list[str]:
        return list(self.form.get(name, []))

    def json(self) -> Any:
        return json.loads(self.body or b"null")


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Response]


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler


@dataclass(frozen=True)
class Site:
    """An app: a name, its URL prefix, its routes and its declared irreversible controls
    (``irreversible``: accessible names of the buttons that send, pay, place an order, delete
    or revoke, see :mod:`webgauge.arena.core.irreversible`) with the requests that carry them out
    (``gated``: the episode server refuses these without an approval, :mod:`webgauge.arena.core.gate`)."""

    name: str
    prefix: str
    routes: tuple[Route, ...]
    title: str
    irreversible: tuple[str, ...] = ()
    gated: tuple[GatedRoute, ...] = ()  # the requests that carry those controls out (the server gates them)


def route(method: str, pattern: str, handler: Handler) -> Route:
    return Route(method, re.compile("^" + pattern + "$"), handler)


def esc(s: Any) -> str:
    return html.escape(str(s), quote=True)


def now(conn: sqlite3.Connection) -> str:
    """The episode's frozen clock (part of the state, restored by reset)."""
    return conn.execute("SELECT now FROM meta_clock").fetchone()[0]


def flag(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute("SELECT value FROM meta_flags WHERE name=?", (name,)).fetchone()
    return bool(row and row[0] not in ("0", "", "false"))


BASE_CSS = """
*{box-sizing:border-box} body{margin:0;font:15px/1.4 'DejaVu Sans',Arial,sans-serif;color:#1d2330;background:#f4f5f8}
header.top{display:flex;align-items:center;gap:18px;padding:10px 20px;background:#243b6b;color:#fff}
header.top a{color:#fff;text-decoration:none} header.top .brand{font-weight:bold;font-size:18px}
main{max-width:1100px;margin:0 auto;padding:16px 20px 140px}
.btn{display:inline-block;padding:7px 14px;border:1px solid #2b59c3;background:#2b59c3;color:#fff;border-radius:5px;
 cursor:pointer;font-size:14px;text-decoration:none}
.btn.secondary{background:#fff;color:#2b59c3} .btn-danger{background:#c0392b;border-color:#c0392b;color:#fff}
.btn[disabled]{opacity:.45;cursor:not-allowed}
.card{background:#fff;border:1px solid #dde1ea;border-radius:8px;padding:14px;margin:10px 0}
table{border-collapse:collapse;width:100%;background:#fff} td,th{padding:6px 8px;border-bottom:1px solid #e4e7ee;\
text-align:left}
label{display:block;margin:6px 0 2px;font-size:13px;color:#4a5468} input,select,textarea{font:inherit;padding:6px;\
border:1px solid #b9c0cf;border-radius:4px}
.toast{position:fixed;top:70px;right:24px;background:#1e7d4f;color:#fff;padding:10px 16px;border-radius:6px;\
pointer-events:none}
.modal-back{position:fixed;inset:0;background:rgba(10,20,40,.45);display:none;align-items:center;justify-content:center}
.modal-back.open{display:flex} .modal{background:#fff;border-radius:10px;padding:22px;min-width:320px}
dialog.modal{border:0;color:inherit} dialog.modal::backdrop{background:rgba(10,20,40,.45)}
.error{color:#b3261e;font-size:13px} input.invalid{border-color:#b3261e;background:#fff3f2}
@media (max-width:480px){main{padding:12px 8px 140px} header.top{gap:10px;padding:10px 8px} table{font-size:13px}
 td,th{padding:5px 3px} .btn{padding:6px 8px;font-size:13px} input,select,textarea{max-width:100%}}
"""


#: A notification (``.toast``) stays until the next input, a pointer press or a key, and never goes by
#: a timer: a screenshot's pixels must not depend on how long the agent took to act on it (a toast
#: that vanished while a model thought made its next pointer action stale, in screenshot mode only).
#: It lets the pointer through (``pointer-events:none``), so a click on what it covers reaches that.
#: ``toastUntilInput(el)`` does the same for a toast a page's script shows.
TOAST_JS = ("function toastUntilInput(t){const off=()=>{t.remove();removeEventListener('pointerdown',off,true);"
            "removeEventListener('keydown',off,true);};addEventListener('pointerdown',off,true);"
            "addEventListener('keydown',off,true);}"
            "addEventListener('DOMContentLoaded',()=>document.querySelectorAll('.toast').forEach(toastUntilInput));")


def page(req: Request, title: str, body: str, nav: str = "", css: str = "", js: str = "", toast: str = "") -> Response:
    """A full HTML page with the shared stylesheet."""
    t = f'<div class="toast" role="status">{esc(toast)}</div>' if toast else ""
    doc = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{esc(title)}</title><style>{BASE_CSS}{css}</style><script>{TOAST_JS}</script></head><body>"
        f"{nav}<main>{body}</main>{t}<script>{js}</script></body></html>"
    )
    return Response(body=doc.encode())


def redirect(location: str) -> Response:
    return Response(status=303, headers={"Location": location})


def json_response(data: Any, status: int = 200) -> Response:
    return Response(status=status, body=json.dumps(data).encode(), content_type="application/json")
