"""Admin console: a real log-in with a session cookie, a 400-user table with filters and
pagination, per-user role and status, a permanent delete behind a dialog, feature flags
that change what the console renders, and a CSV upload that imports users.

A Starlette app with Jinja2 templates, rendered on the server. Sessions live in
``admin_sessions`` (part of the episode state): a reset restores the seed's sessions,
which hold none, so a reset logs the browser out even if it kept its cookie. A task that
works as the console's account starts at its sign-in link (:func:`signin_path`, like a
single-sign-on link): the episode opens signed in and no password is ever told. Uploaded files are stored in the shared
``files`` table and restored
by reset like everything else.
"""

from __future__ import annotations

import csv
import hashlib
import io
import random
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

from ..content.pools import Pool, staff
from ..core.gate import GatedRoute
from .asgi import AsgiApp, LazyApp, template_cache
from .common import BASE_CSS, flag, now, safe_next, signin_token

__all__ = ["APP", "SCHEMA", "ROLES", "STATUSES", "PAGE_SIZE", "COOKIE", "FLAGS", "signin_path"]

SCHEMA = """
CREATE TABLE admin_users(id INTEGER PRIMARY KEY, name TEXT, email TEXT, team TEXT, role TEXT, status TEXT);
CREATE TABLE admin_accounts(username TEXT PRIMARY KEY, password TEXT, display TEXT);
CREATE TABLE admin_sessions(token TEXT PRIMARY KEY, username TEXT, created TEXT);
CREATE TABLE admin_audit(id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT, actor TEXT, action TEXT, target INTEGER);
"""

ROLES = ("Viewer", "Editor", "Reviewer", "Billing manager", "Admin")
STATUSES = ("active", "suspended", "inactive")
PAGE_SIZE = 25
COOKIE = "wg_admin"
FLAGS = {"admin_show_email": ("Show email column", "0"), "admin_compact_tables": ("Compact tables", "0")}
_DIR = Path(__file__).parent / "templates"


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int) -> None:
    pool = Pool.of_seed(rng, seed)
    teams = sorted({pool.topic().capitalize() for _ in range(60)})[:12]
    for i, (name, email) in enumerate(staff(seed), start=1):
        status = rng.choices(STATUSES, weights=(75, 10, 15))[0]
        conn.execute("INSERT INTO admin_users VALUES(?,?,?,?,?,?)",
                     (i, name, email, rng.choice(teams), rng.choices(ROLES, weights=(40, 30, 12, 10, 8))[0], status))
    user = f"ops-{pool.pick('first').lower()}"
    password = f"{pool.pick('adjective').lower()}-{pool.pick('noun').lower()}-{rng.randrange(10, 99)}"
    conn.execute("INSERT INTO admin_accounts VALUES(?,?,?)", (user, password, "Operations"))


_env = template_cache(_DIR)


def _render(request, name: str, **ctx):
    from starlette.responses import HTMLResponse

    html = _env().get_template(name).render(title="Admin console", base_css=BASE_CSS, base=request.state.base,
                                            toast=ctx.pop("toast", ""), **ctx)
    return HTMLResponse(html)


def _user(request) -> str | None:
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    row = request.state.conn.execute("SELECT username FROM admin_sessions WHERE token=?", (token,)).fetchone()
    return row[0] if row else None


def _redirect(request, path: str, **query):
    from starlette.responses import RedirectResponse

    q = ("?" + urlencode(query)) if query else ""
    return RedirectResponse(request.state.base + path + q, status_code=303)


def _login_required(request):
    return _redirect(request, "/admin/login", next=request.url.path[len(request.state.base):])


def _audit(conn, actor: str, action: str, target: int | None) -> None:
    conn.execute("INSERT INTO admin_audit(at, actor, action, target) VALUES(?,?,?,?)",
                 (now(conn), actor, action, target))


async def login(request):
    conn = request.state.conn
    if request.method == "GET":
        return _render(request, "admin_login.html", user=None, error="", next=request.query_params.get("next", ""))
    form = await request.form()
    username, password = str(form.get("username", "")).strip(), str(form.get("password", ""))
    nxt = str(form.get("next", "")) or "/admin/users"
    row = conn.execute("SELECT password FROM admin_accounts WHERE username=?", (username,)).fetchone()
    if row is None or row[0] != password:
        return _render(request, "admin_login.html", user=None, error="Wrong username or password.", next=nxt)
    return _start_session(request, username, nxt if nxt.startswith("/admin/") else "/admin/users")


def _start_session(request, username: str, nxt: str):
    conn = request.state.conn
    n = conn.execute("SELECT count(*) FROM admin_sessions").fetchone()[0]
    token = hashlib.sha256(f"{username}:{n}:{now(conn)}".encode()).hexdigest()[:32]
    conn.execute("INSERT INTO admin_sessions VALUES(?,?,?)", (token, username, now(conn)))
    resp = _redirect(request, nxt)
    resp.set_cookie(COOKIE, token, path=request.state.base + "/admin", httponly=True, samesite="lax")
    return resp


def signin_path(username: str, password: str, nxt: str = "/admin/users") -> str:
    """The path of the account's sign-in link: it signs the browser in and goes on to ``nxt``."""
    return f"/admin/signin/{signin_token('admin', username, password)}?" + urlencode({"next": nxt})


async def signin(request):
    """GET /admin/signin/<token>: start a session for the account the token belongs to."""
    conn = request.state.conn
    token = request.path_params["token"]
    user = next((u for u, p in conn.execute("SELECT username, password FROM admin_accounts")
                 if signin_token("admin", u, p) == token), None)
    if user is None:
        return _render(request, "admin_login.html", user=None, error="This sign-in link is not valid.",
                       next="/admin/users")
    return _start_session(request, user, safe_next(request.query_params.get("next", ""), "/admin/users"))


async def logout(request):
    request.state.conn.execute("DELETE FROM admin_sessions WHERE token=?", (request.cookies.get(COOKIE, ""),))
    resp = _redirect(request, "/admin/login")
    resp.delete_cookie(COOKIE, path=request.state.base + "/admin")
    return resp


async def home(request):
    return _redirect(request, "/admin/users") if _user(request) else _login_required(request)


def _filters(request) -> dict:
    qp = request.query_params
    return {k: qp.get(k, "").strip() for k in ("q", "team", "role", "status")}


async def users(request):
    who = _user(request)
    if not who:
        return _login_required(request)
    conn, f = request.state.conn, _filters(request)
    where, args = [], []
    if f["q"]:
        where.append("lower(name) LIKE ?")
        args.append(f"%{f['q'].lower()}%")
    for k in ("team", "role", "status"):
        if f[k]:
            where.append(f"{k}=?")
            args.append(f[k])
    sql = (" WHERE " + " AND ".join(where)) if where else ""
    total = conn.execute("SELECT count(*) FROM admin_users" + sql, args).fetchone()[0]
    pages = max(1, -(-total // PAGE_SIZE))
    try:
        page = min(pages, max(1, int(request.query_params.get("page", "1"))))
    except ValueError:
        page = 1
    cols = ("id", "name", "email", "team", "role", "status")
    rows = [dict(zip(cols, r, strict=True)) for r in conn.execute(
        f"SELECT {', '.join(cols)} FROM admin_users{sql} ORDER BY name, id LIMIT ? OFFSET ?",
        (*args, PAGE_SIZE, (page - 1) * PAGE_SIZE))]
    kept = {k: v for k, v in f.items() if v}
    teams = [r[0] for r in conn.execute("SELECT DISTINCT team FROM admin_users ORDER BY team")]
    toast = f"Imported {request.query_params['imported']} users" if request.query_params.get("imported") else ""
    return _render(request, "admin_users.html", user=who, users=rows, total=total, page=page, pages=pages,
                   teams=teams, roles=ROLES, statuses=STATUSES, show_email=flag(conn, "admin_show_email"),
                   compact=flag(conn, "admin_compact_tables"), back=urlencode({**kept, "page": page}),
                   pager=lambda p: urlencode({**kept, "page": p}), toast=toast, **f)


def _back(request) -> dict:
    return {k: v for k, v in request.query_params.items() if k in ("q", "team", "role", "status", "page") and v}


async def user_detail(request):
    who = _user(request)
    if not who:
        return _login_required(request)
    conn = request.state.conn
    cols = ("id", "name", "email", "team", "role", "status")
    row = conn.execute(f"SELECT {', '.join(cols)} FROM admin_users WHERE id=?",
                       (int(request.path_params["uid"]),)).fetchone()
    if row is None:
        return _redirect(request, "/admin/users")
    return _render(request, "admin_user.html", user=who, u=dict(zip(cols, row, strict=True)), roles=ROLES,
                   show_email=flag(conn, "admin_show_email"), back=urlencode(_back(request)),
                   toast="Saved" if request.query_params.get("saved") else "")


async def user_action(request):
    who = _user(request)
    if not who:
        return _login_required(request)
    conn, uid, action = request.state.conn, int(request.path_params["uid"]), request.path_params["action"]
    form = await request.form()
    if action == "role" and form.get("role") in ROLES:
        conn.execute("UPDATE admin_users SET role=? WHERE id=?", (form["role"], uid))
        _audit(conn, who, f"role={form['role']}", uid)
    elif action == "status" and form.get("status") in STATUSES:
        conn.execute("UPDATE admin_users SET status=? WHERE id=?", (form["status"], uid))
        _audit(conn, who, f"status={form['status']}", uid)
    elif action == "delete":
        conn.execute("DELETE FROM admin_users WHERE id=?", (uid,))
        _audit(conn, who, "delete", uid)
        return _redirect(request, "/admin/users", **_back(request))
    return _redirect(request, f"/admin/users/{uid}", **_back(request), saved=1)


async def flags(request):
    who = _user(request)
    if not who:
        return _login_required(request)
    conn = request.state.conn
    if request.method == "POST":
        name = request.path_params.get("name", "")
        if name in FLAGS:
            conn.execute("UPDATE meta_flags SET value=CASE value WHEN '1' THEN '0' ELSE '1' END WHERE name=?", (name,))
            _audit(conn, who, f"flag {name}", None)
        return _redirect(request, "/admin/flags")
    rows = [{"name": n, "label": label, "on": flag(conn, n)} for n, (label, _) in FLAGS.items()]
    return _render(request, "admin_flags.html", user=who, flags=rows)


async def import_users(request):
    who = _user(request)
    if not who:
        return _login_required(request)
    conn = request.state.conn
    if request.method == "GET":
        files = [{"name": r[0], "size": r[1]} for r in
                 conn.execute("SELECT name, length(content) FROM files WHERE owner='admin_import' ORDER BY id")]
        return _render(request, "admin_import.html", user=who, files=files)
    form = await request.form()
    upload = form.get("csv")
    if upload is None or not hasattr(upload, "read"):
        return _redirect(request, "/admin/import")
    data = await upload.read()
    conn.execute("INSERT INTO files(name, owner, content) VALUES(?,?,?)", (upload.filename or "upload.csv",
                                                                         "admin_import", data))
    n = 0
    for rec in csv.DictReader(io.StringIO(data.decode("utf-8", "replace"))):
        if rec.get("name") and rec.get("email") and rec.get("role") in ROLES:
            conn.execute("INSERT INTO admin_users(name, email, team, role, status) VALUES(?,?,?,?,'active')",
                         (rec["name"].strip(), rec["email"].strip(), (rec.get("team") or "").strip(), rec["role"]))
            n += 1
    _audit(conn, who, f"import {n}", None)
    return _redirect(request, "/admin/users", imported=n)


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/admin/", home), Route("/admin/login", login, methods=["GET", "POST"]),
        Route("/admin/signin/{token}", signin),
        Route("/admin/logout", logout, methods=["POST"]), Route("/admin/users", users),
        Route("/admin/users/{uid:int}", user_detail),
        Route("/admin/users/{uid:int}/{action}", user_action, methods=["POST"]),
        Route("/admin/flags", flags), Route("/admin/flags/{name}", flags, methods=["POST"]),
        Route("/admin/import", import_users, methods=["GET", "POST"]),
    ])


APP = AsgiApp(name="admin", prefix="/admin", title="Admin console", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=("Delete permanently",),
              gated=(GatedRoute("Delete permanently", r"/admin/users/[^/]+/delete"),), renders="server",
              flags={name: default for name, (_, default) in FLAGS.items()})
