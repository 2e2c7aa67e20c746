"""Account and settings: a profile form whose Save button is disabled until something changes
and shows a loading state while saving, field-level error states, notification switches,
dozens of API keys (search, status and age filters, pagination; revoke or rotate behind a
confirm dialog) and login sessions ("sign out all other sessions").

A Starlette app with Jinja2 templates, rendered on the server. Revoking a key, rotating it
(the old key is revoked) and signing out the other sessions are declared irreversible. A
rotated key's new prefix is derived from its row id and name (:func:`key_prefix`), so tasks
can check what the agent reports.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import sqlite3
from typing import Any

from ..content.pools import Pool
from ..core.gate import GatedRoute
from .asgi import AsgiApp, LazyApp
from .common import now
from .web import payload, redirect, render

__all__ = ["APP", "SCHEMA", "key_names", "key_prefix", "PER_PAGE", "SUFFIX_PAIRS", "list_keys", "list_keys_state"]

SCHEMA = """
CREATE TABLE acct_profile(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE acct_api_keys(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, prefix TEXT, created_at TEXT, revoked_at \
TEXT);
CREATE TABLE acct_sessions(token TEXT PRIMARY KEY, device TEXT, created_at TEXT);
CREATE TABLE acct_notifications(channel TEXT PRIMARY KEY, enabled INTEGER);
"""

PER_PAGE = 15
SUFFIX_PAIRS = (("deploy", "deploy-old"), ("sync", "sync-2"), ("bot", "bot-legacy"), ("export", "export-v2"),
                ("reader", "reader-ro"), ("webhook", "webhook-test"))
DEVICES = ("Laptop · Firefox", "Phone · Safari", "Desktop · Chrome", "Tablet · Safari", "Laptop · Edge",
           "Phone · Chrome", "CLI · curl", "Desktop · Firefox")
N_KEYS = 48
N_SESSIONS = 24


def key_prefix(key_id: int, name: str) -> str:
    """The visible prefix of a key created by the app (deterministic in its row id and name)."""
    return "wg_" + hashlib.sha256(f"{key_id}:{name}".encode()).hexdigest()[:6]


def key_names(rng: random.Random, seed: int, n: int = N_KEYS) -> list[str]:
    """``n`` API key names from the seed's topic pool, in near-identical pairs (``x-deploy`` / ``x-deploy-old``)."""
    pool = Pool.of_seed(rng, seed)
    combos: dict[tuple[str, tuple[str, str]], None] = {}
    while len(combos) < n // 2:
        combos.setdefault((pool.topic(), rng.choice(SUFFIX_PAIRS)), None)
    return [f"{t}-{s}" for t, pair in combos for s in pair]


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    pool = Pool.of_seed(rng, seed)
    conn.executemany("INSERT INTO acct_profile VALUES(?,?)",
                     [("display_name", pool.person()), ("email", "me@example.test"), ("timezone", "UTC")])
    names = key_names(rng, seed)
    rng.shuffle(names)
    first = dt.date(2024, 1, 1)
    keys = []
    for name in names:
        created = first + dt.timedelta(days=rng.randrange(780))
        revoked = (created + dt.timedelta(days=rng.randrange(1, 60))).isoformat() if rng.random() < 0.15 else None
        keys.append((name, f"wg_{rng.randrange(16 ** 6):06x}", created.isoformat(), revoked))
    conn.executemany("INSERT INTO acct_api_keys(name,prefix,created_at,revoked_at) VALUES(?,?,?,?)", keys)
    sessions = [("sess-main", "This browser", "2026-03-01T08:00:00Z")]
    for _ in range(N_SESSIONS - 1):
        day = dt.date(2026, 2, 1) + dt.timedelta(days=rng.randrange(28))
        sessions.append((f"sess-{rng.randrange(16 ** 8):08x}", f"{rng.choice(DEVICES)} · {pool.city()}",
                         f"{day.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00Z"))
    conn.executemany("INSERT OR IGNORE INTO acct_sessions VALUES(?,?,?)", sessions)
    conn.executemany("INSERT INTO acct_notifications VALUES(?,?)",
                     [("email_digest", 1), ("security_alerts", 1), ("product_news", 0)])


def list_keys(conn: sqlite3.Connection, q: str = "", status: str = "", before: str = "") -> list[dict]:
    """The keys the settings page lists for these filters, in its order (newest first)."""
    sql, args = "SELECT id, name, prefix, created_at, revoked_at FROM acct_api_keys WHERE 1=1", list[Any]()
    if q:
        sql, args = sql + " AND name LIKE ?", args + [f"%{q}%"]
    if status == "active":
        sql += " AND revoked_at IS NULL"
    elif status == "revoked":
        sql += " AND revoked_at IS NOT NULL"
    if before:
        sql, args = sql + " AND created_at < ?", args + [before]
    cols = ("id", "name", "prefix", "created_at", "revoked_at")
    return [dict(zip(cols, r, strict=True)) for r in conn.execute(sql + " ORDER BY created_at DESC, id DESC", args)]


def list_keys_state(state: dict, q: str = "", status: str = "", before: str = "") -> list[dict]:
    """:func:`list_keys` over a state dump (what tasks read)."""
    rows = [k for k in state["acct_api_keys"] if q.casefold() in k["name"].casefold()
            and (status != "active" or not k["revoked_at"]) and (status != "revoked" or k["revoked_at"])
            and (not before or k["created_at"] < before)]
    return sorted(rows, key=lambda k: (k["created_at"], k["id"]), reverse=True)


def _filters(request) -> dict[str, str]:
    qp = request.query_params
    before = qp.get("before", "")
    try:
        before = dt.date.fromisoformat(before).isoformat() if before else ""
    except ValueError:
        before = ""
    return {"q": qp.get("q", "").strip(),
            "status": qp.get("status", "") if qp.get("status") in ("active", "revoked") else "",
            "before": before}


def _page(request) -> int:
    try:
        return max(1, int(request.query_params.get("page", "1")))
    except ValueError:
        return 1


async def settings(request):
    from urllib.parse import urlencode

    conn, qp = request.state.conn, request.query_params
    prof = dict(conn.execute("SELECT key, value FROM acct_profile").fetchall())
    err = qp.get("error", "")
    f = _filters(request)
    keys = list_keys(conn, **f)
    pages = max(1, -(-len(keys) // PER_PAGE))
    page = min(_page(request), pages)
    toast = {"saved": "Saved", "revoked": "Key revoked", "signedout": "Signed out of all other sessions"}.get(
        qp.get("done", ""), "")
    if qp.get("rotated"):
        toast = f"New key {qp['rotated']} created. The old key is revoked."
    return render(
        request, "account.html", "Settings", toast=toast, err=err,
        name_val=qp.get("tried", prof["display_name"]) if err else prof["display_name"],
        notes=[dict(zip(("channel", "enabled"), r, strict=True))
               for r in conn.execute("SELECT * FROM acct_notifications ORDER BY channel")],
        keys=keys[(page - 1) * PER_PAGE: page * PER_PAGE], total=len(keys), page=page, pages=pages, f=f,
        here=urlencode({**f, "page": page}), pager=lambda p: urlencode({**f, "page": p}),
        sessions=[dict(zip(("device", "created_at"), r, strict=True)) for r in
                  conn.execute("SELECT device, created_at FROM acct_sessions ORDER BY created_at DESC, token")])


def _back(form: dict) -> dict:
    return {k: form.get(k, [""])[0] for k in ("q", "status", "before", "page")}


async def save_profile(request):
    form, _ = await payload(request)
    name = form.get("display_name", [""])[0].strip()
    if len(name) < 3 or len(name) > 40:
        return redirect(request, "/account/", error="Display name must be 3 to 40 characters.", tried=name)
    request.state.conn.execute("UPDATE acct_profile SET value=? WHERE key='display_name'", (name,))
    return redirect(request, "/account/", done="saved")


async def toggle(request):
    request.state.conn.execute("UPDATE acct_notifications SET enabled=1-enabled WHERE channel=?",
                               (request.path_params["ch"],))
    return redirect(request, "/account/")


async def revoke(request):
    form, _ = await payload(request)
    request.state.conn.execute("UPDATE acct_api_keys SET revoked_at=? WHERE id=? AND revoked_at IS NULL",
                               (now(request.state.conn), request.path_params["kid"]))
    return redirect(request, "/account/", done="revoked", **_back(form))


async def rotate(request):
    conn, kid = request.state.conn, request.path_params["kid"]
    form, _ = await payload(request)
    row = conn.execute("SELECT name FROM acct_api_keys WHERE id=? AND revoked_at IS NULL", (kid,)).fetchone()
    if row is None:
        return redirect(request, "/account/", **_back(form))
    stamp = now(conn)
    conn.execute("UPDATE acct_api_keys SET revoked_at=? WHERE id=?", (stamp, kid))
    cur = conn.execute("INSERT INTO acct_api_keys(name, prefix, created_at, revoked_at) VALUES(?,?,?,NULL)",
                       (row[0], "pending", stamp[:10]))
    prefix = key_prefix(cur.lastrowid, row[0])
    conn.execute("UPDATE acct_api_keys SET prefix=? WHERE id=?", (prefix, cur.lastrowid))
    return redirect(request, "/account/", rotated=prefix, **_back(form))


async def signout(request):
    request.state.conn.execute("DELETE FROM acct_sessions WHERE token!='sess-main'")
    return redirect(request, "/account/", done="signedout")


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/account/", settings), Route("/account/profile", save_profile, methods=["POST"]),
        Route("/account/notifications/{ch}", toggle, methods=["POST"]),
        Route("/account/keys/{kid:int}/revoke", revoke, methods=["POST"]),
        Route("/account/keys/{kid:int}/rotate", rotate, methods=["POST"]),
        Route("/account/sessions/signout", signout, methods=["POST"]),
    ])


APP = AsgiApp(name="account", prefix="/account", title="Account settings", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=("Revoke key", "Rotate key", "Sign out all other sessions"),
              gated=(GatedRoute("Revoke key", r"/account/keys/[^/]+/revoke"),
                     GatedRoute("Rotate key", r"/account/keys/[^/]+/rotate"),
                     GatedRoute("Sign out all other sessions", r"/account/sessions/signout")), renders="server")
