"""Community forum: categories, a few hundred threads and posts, votes, accepted answers,
search and pagination, a real log-in, attachments and moderator tools.

A Starlette app with Jinja2 templates. The thread list, search and log-in are rendered on the
server; the thread view is a shell whose ``forum.js`` fetches ``/forum/api/threads/<id>`` and
builds the posts, vote buttons, reply form and moderator controls in the browser, like a
single-page app. Sessions live in ``forum_sessions`` (the seed holds none), so a reset logs
the browser out; a task that acts as a member starts at that member's sign-in link
(:func:`signin_path`), so the episode opens signed in and no password is ever told. Attachments are rows of the shared
``files`` table (``owner = 'forum_post:<post id>'``): a reply's upload is stored there and
served back from ``/forum/files/<id>``, and a reset removes it. Locking a thread and deleting
a post cannot be undone (declared in ``irreversible``).
"""

from __future__ import annotations

import hashlib
import random
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ..content.pools import Pool, staff
from ..core.gate import GatedRoute
from .asgi import AsgiApp, LazyApp, template_cache
from .common import BASE_CSS, now, safe_next, signin_token

__all__ = ["APP", "SCHEMA", "CATEGORIES", "PAGE_SIZE", "COOKIE", "SETTINGS", "SPAM_MARKERS", "QUARANTINE",
           "MAX_UPLOAD_BYTES", "signin_path"]

SCHEMA = """
CREATE TABLE forum_users(id INTEGER PRIMARY KEY, username TEXT UNIQUE, name TEXT, password TEXT, role TEXT);
CREATE TABLE forum_sessions(token TEXT PRIMARY KEY, user_id INTEGER, created TEXT);
CREATE TABLE forum_categories(id INTEGER PRIMARY KEY, slug TEXT UNIQUE, name TEXT);
CREATE TABLE forum_threads(id INTEGER PRIMARY KEY, category_id INTEGER, title TEXT, author_id INTEGER, created TEXT,
  votes INTEGER, locked INTEGER, solution_id INTEGER);
CREATE TABLE forum_posts(id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id INTEGER, author_id INTEGER, body TEXT,
  created TEXT, votes INTEGER, deleted INTEGER);
CREATE TABLE forum_votes(id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER, post_id INTEGER, value INTEGER);
CREATE TABLE forum_modlog(id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT, actor INTEGER, action TEXT, thread_id INTEGER);
"""

CATEGORIES = ("Announcements", "Getting started", "Troubleshooting", "Hardware", "Billing", "Integrations",
              "Off-topic", "Quarantine")
QUARANTINE = "Quarantine"
PAGE_SIZE = 20
COOKIE = "wg_forum"
MAX_UPLOAD_BYTES = 256 * 1024
SETTINGS = ("timeout", "retry limit", "batch size", "cache lifetime", "page size", "worker count", "queue depth",
            "poll interval")
SPAM_MARKERS = ("limited offer", "click now", "free gift inside", "crypto giveaway", "work from home",
                "miracle deal", "instant payout", "act fast")
N_THREADS = 150
_DIR = Path(__file__).parent / "templates"

_QUESTIONS = ("How do I set up {topic} for {company}?", "{product} keeps dropping {topic} after the update",
              "Is {topic} supported in the {city} region?", "Best way to automate {topic} with {product}?",
              "{company}: {topic} stopped working this morning", "Question about {topic} limits on the {product}",
              "Slow {topic} since we moved to {city}", "Can {company} share {topic} settings between teams?")
_CHAT = ("Same here, following.", "Did you try restarting the service?", "We see this too on our side.",
         "Thanks, that helped a lot.", "Any update on this?", "Check the status page first.",
         "I opened a ticket with support as well.", "Which version are you on?")


def _password(pool: Pool, rng: random.Random) -> str:
    return f"{pool.pick('adjective').lower()}-{pool.pick('noun').lower()}-{rng.randrange(10, 99)}"


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int) -> None:
    pool = Pool.of_seed(rng, seed)
    people = staff(seed)
    picks = sorted(rng.sample(range(len(people)), 70))
    users = []
    for i, k in enumerate(picks, start=1):
        name, email = people[k]
        users.append((i, email.split("@")[0], name, _password(pool, rng), "moderator" if i <= 3 else "member"))
    spammers = []
    for j in range(3):
        uid = len(users) + 1
        users.append((uid, f"deals{rng.randrange(100, 999)}{j}", f"Deals {pool.pick('adjective')}",
                      _password(pool, rng),
                      "member"))
        spammers.append(uid)
    conn.executemany("INSERT INTO forum_users VALUES(?,?,?,?,?)", users)
    conn.executemany("INSERT INTO forum_categories VALUES(?,?,?)",
                     [(i, c.lower().replace(" ", "-"), c) for i, c in enumerate(CATEGORIES, start=1)])
    members = [u[0] for u in users if u[0] not in spammers]
    normal_cats = list(range(1, len(CATEGORIES)))  # every category but Quarantine
    titles: set[str] = set()
    threads, posts, files = list[Any](), list[Any](), list[Any]()
    votes_used: dict[int, set[int]] = {c: set() for c in normal_cats}

    def distinct_votes(cat: int) -> int:
        while True:
            v = rng.randrange(0, 400)
            if v not in votes_used[cat]:
                votes_used[cat].add(v)
                return v

    def add_post(tid: int, author: int, body: str, day: str, votes: int) -> int:
        posts.append((len(posts) + 1, tid, author, body, day, votes, 0))
        return len(posts)

    tid = 0
    while tid < N_THREADS:
        title = rng.choice(_QUESTIONS).format(topic=pool.topic(), company=pool.company(), product=pool.product(),
                                              city=pool.city())
        if title in titles:
            continue
        titles.add(title)
        tid += 1
        cat, author, day = rng.choice(normal_cats), rng.choice(members), pool.date("2025-09-01", 180)
        votes = distinct_votes(cat)
        add_post(tid, author, f"{title}\nWe tried the obvious things already. Details below, any help welcome.", day,
                 votes)
        solution = None
        for _ in range(rng.randrange(0, 5)):
            add_post(tid, rng.choice(members), rng.choice(_CHAT), day, rng.randrange(0, 40))
        if rng.random() < 0.45:
            setting, value = rng.choice(SETTINGS), rng.randrange(2, 9000)
            solution = add_post(tid, rng.choice(members), f"Fixed it: set the {setting} to {value} in the "
                                f"{pool.topic()} settings, then restart.", day, rng.randrange(0, 60))
        if rng.random() < 0.12:
            pid = posts[-1][0]
            name = f"{pool.topic()}-{rng.randrange(100, 999)}.log"
            files.append((name, f"forum_post:{pid}", f"log excerpt for thread {tid}\n".encode() * 3))
        threads.append([tid, cat, title, author, day, votes, 0, solution])
    for j in range(12):  # spam: a few markers, each in one main category and one or two others
        marker = SPAM_MARKERS[j % 4 + (seed % 2) * 4]
        main = (j % 4 + seed) % len(normal_cats)
        cat = normal_cats[main if j < 8 else (main + 1 + rng.randrange(len(normal_cats) - 1)) % len(normal_cats)]
        title = f"{pool.product()} at {rng.randrange(50, 95)}% off, {marker}"
        if title in titles:
            continue
        titles.add(title)
        tid = len(threads) + 1
        day = pool.date("2026-02-01", 25)
        add_post(tid, spammers[j % 3], f"{title}!!! Visit the link in my profile.", day, 0)
        threads.append([tid, cat, title, spammers[j % 3], day, 0, 0, None])
    conn.executemany("INSERT INTO forum_threads VALUES(?,?,?,?,?,?,?,?)", threads)
    conn.executemany("INSERT INTO forum_posts VALUES(?,?,?,?,?,?,?)", posts)
    conn.executemany("INSERT INTO files(name, owner, content) VALUES(?,?,?)", files)


# ---- helpers ------------------------------------------------------------------
_env = template_cache(_DIR)


def _me(request) -> dict | None:
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    row = request.state.conn.execute("SELECT u.id, u.username, u.name, u.role FROM forum_sessions s JOIN forum_users u "
                                     "ON u.id=s.user_id WHERE s.token=?", (token,)).fetchone()
    return dict(zip(("id", "username", "name", "role"), row, strict=True)) if row else None


def _render(request, name: str, **ctx):
    from starlette.responses import HTMLResponse

    cats = request.state.conn.execute("SELECT slug, name FROM forum_categories ORDER BY id").fetchall()
    html = _env().get_template(name).render(title="Community forum", base_css=BASE_CSS, base=request.state.base,
                                            me=_me(request), categories=cats, toast=ctx.pop("toast", ""), **ctx)
    return HTMLResponse(html)


def _redirect(request, path: str, **query):
    from starlette.responses import RedirectResponse

    return RedirectResponse(request.state.base + path + (("?" + urlencode(query)) if query else ""), status_code=303)


def _json(data, status: int = 200):
    from starlette.responses import JSONResponse

    return JSONResponse(data, status_code=status)


# ---- server-rendered pages ------------------------------------------------------
async def home(request, category: str = ""):
    conn = request.state.conn
    q = request.query_params.get("q", "").strip()
    category = category or request.query_params.get("category", "")
    sort = "top" if request.query_params.get("sort") == "top" else "latest"
    try:
        page = max(1, int(request.query_params.get("page", "1")))
    except ValueError:
        page = 1
    where, args = ["1=1"], []
    if q:
        where.append("lower(t.title) LIKE ?")
        args.append(f"%{q.lower()}%")
    cat_name = ""
    if category:
        row = conn.execute("SELECT id, name FROM forum_categories WHERE slug=?", (category,)).fetchone()
        if row:
            where.append("t.category_id=?")
            args.append(row[0])
            cat_name = row[1]
    order = "t.votes DESC, t.id" if sort == "top" else "t.created DESC, t.id DESC"
    sql = " AND ".join(where)
    total = conn.execute(f"SELECT count(*) FROM forum_threads t WHERE {sql}", args).fetchone()[0]
    rows = conn.execute(
        f"SELECT t.id, t.title, c.name, t.votes, t.locked, t.solution_id, "
        f"(SELECT count(*) FROM forum_posts p WHERE p.thread_id=t.id AND p.deleted=0) - 1, t.created "
        f"FROM forum_threads t JOIN forum_categories c ON c.id=t.category_id WHERE {sql} ORDER BY {order} "
        f"LIMIT ? OFFSET ?", (*args, PAGE_SIZE, (page - 1) * PAGE_SIZE)).fetchall()
    threads = [dict(zip(("id", "title", "category", "votes", "locked", "solved", "replies", "created"), r,
                        strict=True)) for r in rows]
    pages = max(1, -(-total // PAGE_SIZE))
    return _render(request, "forum_list.html", threads=threads, q=q, category=category, cat_name=cat_name, sort=sort,
                   page=page, pages=pages, total=total)


async def category_view(request):
    return await home(request, request.path_params["slug"])


async def login(request):
    conn = request.state.conn
    if request.method == "GET":
        return _render(request, "forum_login.html", error="", next=request.query_params.get("next", ""))
    form = await request.form()
    username, password = str(form.get("username", "")).strip(), str(form.get("password", ""))
    nxt = str(form.get("next", ""))
    row = conn.execute("SELECT id, password FROM forum_users WHERE username=?", (username,)).fetchone()
    if row is None or row[1] != password:
        return _render(request, "forum_login.html", error="Wrong username or password.", next=nxt)
    return _start_session(request, row[0], username, nxt if nxt.startswith("/forum/") else "/forum/")


def _start_session(request, uid: int, username: str, nxt: str):
    conn = request.state.conn
    n = conn.execute("SELECT count(*) FROM forum_sessions").fetchone()[0]
    token = hashlib.sha256(f"forum:{username}:{n}:{now(conn)}".encode()).hexdigest()[:32]
    conn.execute("INSERT INTO forum_sessions VALUES(?,?,?)", (token, uid, now(conn)))
    resp = _redirect(request, nxt)
    resp.set_cookie(COOKIE, token, path=request.state.base + "/forum", httponly=True, samesite="lax")
    return resp


def signin_path(username: str, password: str, nxt: str = "/forum/") -> str:
    """The path of a member's sign-in link: it signs the browser in and goes on to ``nxt``."""
    return f"/forum/signin/{signin_token('forum', username, password)}?" + urlencode({"next": nxt})


async def signin(request):
    """GET /forum/signin/<token>: start a session for the member the token belongs to."""
    conn = request.state.conn
    token = request.path_params["token"]
    row = next(((i, u) for i, u, p in conn.execute("SELECT id, username, password FROM forum_users")
                if signin_token("forum", u, p) == token), None)
    if row is None:
        return _render(request, "forum_login.html", error="This sign-in link is not valid.", next="/forum/")
    return _start_session(request, row[0], row[1], safe_next(request.query_params.get("next", ""), "/forum/"))


async def logout(request):
    request.state.conn.execute("DELETE FROM forum_sessions WHERE token=?", (request.cookies.get(COOKIE, ""),))
    resp = _redirect(request, "/forum/")
    resp.delete_cookie(COOKIE, path=request.state.base + "/forum")
    return resp


async def thread_view(request):
    return _render(request, "forum_thread.html", thread_id=int(request.path_params["tid"]))


async def script(request):
    from starlette.responses import Response

    return Response((_DIR / "forum.js").read_bytes(), media_type="text/javascript")


async def download(request):
    from starlette.responses import Response

    row = request.state.conn.execute("SELECT name, content FROM files WHERE id=? AND owner LIKE 'forum_post:%'",
                                     (int(request.path_params["fid"]),)).fetchone()
    if row is None:
        return Response("no such file", status_code=404, media_type="text/plain")
    return Response(bytes(row[1]), media_type="application/octet-stream",
                    headers={"Content-Disposition": f'attachment; filename="{row[0]}"'})


# ---- JSON API (the thread view) -------------------------------------------------
def _thread(conn, tid: int) -> dict | None:
    row = conn.execute("SELECT t.id, t.title, c.name, c.slug, t.author_id, t.locked, t.solution_id, t.votes "
                       "FROM forum_threads t JOIN forum_categories c ON c.id=t.category_id WHERE t.id=?",
                       (tid,)).fetchone()
    return dict(zip(("id", "title", "category", "category_slug", "author_id", "locked", "solution_id", "votes"), row,
                    strict=True)) \
        if row else None


async def api_thread(request):
    conn, tid = request.state.conn, int(request.path_params["tid"])
    t = _thread(conn, tid)
    if t is None:
        return _json({"error": "no such thread"}, 404)
    me = _me(request)
    posts = []
    for pid, _author, name, body, created, votes in conn.execute(
            "SELECT p.id, p.author_id, u.name, p.body, p.created, p.votes FROM forum_posts p JOIN forum_users u "
            "ON u.id=p.author_id WHERE p.thread_id=? AND p.deleted=0 ORDER BY p.id", (tid,)):
        files = [{"id": f[0], "name": f[1]} for f in
                 conn.execute("SELECT id, name FROM files WHERE owner=? ORDER BY id", (f"forum_post:{pid}",))]
        voted = bool(me and conn.execute("SELECT 1 FROM forum_votes WHERE user_id=? AND post_id=?",
                                         (me["id"], pid)).fetchone())
        posts.append({"id": pid, "author": name, "body": body, "created": created, "votes": votes, "files": files,
                      "solution": pid == t["solution_id"], "voted": voted})
    author = conn.execute("SELECT name FROM forum_users WHERE id=?", (t["author_id"],)).fetchone()[0]
    cats = [r[0] for r in conn.execute("SELECT name FROM forum_categories ORDER BY id")]
    return _json({**t, "author": author, "posts": posts, "categories": cats,
                  "me": me and {"name": me["name"], "moderator": me["role"] == "moderator"},
                  "can_solve": bool(me and (me["id"] == t["author_id"] or me["role"] == "moderator"))})


def _need_user(request):
    me = _me(request)
    return (me, None) if me else (None, _json({"error": "Log in first."}, 401))


def _modlog(conn, actor: int, action: str, tid: int) -> None:
    conn.execute("INSERT INTO forum_modlog(at, actor, action, thread_id) VALUES(?,?,?,?)",
                 (now(conn), actor, action, tid))


async def api_reply(request):
    conn, tid = request.state.conn, int(request.path_params["tid"])
    me, err = _need_user(request)
    if err:
        return err
    t = _thread(conn, tid)
    if t is None or t["locked"]:
        return _json({"error": "This thread is locked." if t else "no such thread"}, 400)
    form = await request.form()
    body = str(form.get("body", "")).strip()
    upload = form.get("file")
    if not body:
        return _json({"error": "Write something before posting."})
    attached = upload is not None and not isinstance(upload, str) and bool(upload.filename)
    data = await upload.read() if attached else b""
    if len(data) > MAX_UPLOAD_BYTES:
        return _json({"error": f"Attachments are limited to {MAX_UPLOAD_BYTES // 1024} KB."})
    cur = conn.execute(
        "INSERT INTO forum_posts(thread_id, author_id, body, created, votes, deleted) VALUES(?,?,?,?,0,0)",
                       (tid, me["id"], body[:5000], now(conn)))
    if attached:  # the file is stored with the post and served back from /forum/files/<id>
        conn.execute("INSERT INTO files(name, owner, content) VALUES(?,?,?)",
                     (Path(upload.filename).name[:120], f"forum_post:{cur.lastrowid}", data))
    return _json({"ok": True, "post": cur.lastrowid})


async def api_vote(request):
    conn, pid = request.state.conn, int(request.path_params["pid"])
    me, err = _need_user(request)
    if err:
        return err
    row = conn.execute("SELECT thread_id FROM forum_posts WHERE id=? AND deleted=0", (pid,)).fetchone()
    if row is None:
        return _json({"error": "no such post"}, 404)
    if conn.execute("SELECT 1 FROM forum_votes WHERE user_id=? AND post_id=?", (me["id"], pid)).fetchone():
        return _json({"error": "You already voted for this post."})
    conn.execute("INSERT INTO forum_votes(user_id, post_id, value) VALUES(?,?,1)", (me["id"], pid))
    conn.execute("UPDATE forum_posts SET votes=votes+1 WHERE id=?", (pid,))
    first = conn.execute("SELECT min(id) FROM forum_posts WHERE thread_id=?", (row[0],)).fetchone()[0]
    if first == pid:  # the opening post's votes are the thread's votes
        conn.execute("UPDATE forum_threads SET votes=votes+1 WHERE id=?", (row[0],))
    return _json({"ok": True})


async def api_solve(request):
    conn, pid = request.state.conn, int(request.path_params["pid"])
    me, err = _need_user(request)
    if err:
        return err
    row = conn.execute("SELECT thread_id FROM forum_posts WHERE id=? AND deleted=0", (pid,)).fetchone()
    t = _thread(conn, row[0]) if row else None
    if t is None:
        return _json({"error": "no such post"}, 404)
    if me["id"] != t["author_id"] and me["role"] != "moderator":
        return _json({"error": "Only the thread's author can mark a solution."}, 403)
    conn.execute("UPDATE forum_threads SET solution_id=? WHERE id=?", (pid, t["id"]))
    return _json({"ok": True})


def _moderator(request):
    me, err = _need_user(request)
    if err:
        return None, err
    if me["role"] != "moderator":
        return None, _json({"error": "Only moderators can do that."}, 403)
    return me, None


async def api_move(request):
    conn, tid = request.state.conn, int(request.path_params["tid"])
    me, err = _moderator(request)
    if err:
        return err
    try:
        name = str((await request.json())["category"])
    except (ValueError, KeyError, TypeError):
        return _json({"error": "send the category name"}, 400)
    cat = conn.execute("SELECT id FROM forum_categories WHERE name=?", (name,)).fetchone()
    if cat is None or _thread(conn, tid) is None:
        return _json({"error": "no such thread or category"}, 404)
    conn.execute("UPDATE forum_threads SET category_id=? WHERE id=?", (cat[0], tid))
    _modlog(conn, me["id"], f"move to {name}", tid)
    return _json({"ok": True})


async def api_lock(request):
    conn, tid = request.state.conn, int(request.path_params["tid"])
    me, err = _moderator(request)
    if err:
        return err
    if _thread(conn, tid) is None:
        return _json({"error": "no such thread"}, 404)
    conn.execute("UPDATE forum_threads SET locked=1 WHERE id=?", (tid,))
    _modlog(conn, me["id"], "lock", tid)
    return _json({"ok": True})


async def api_delete(request):
    conn, pid = request.state.conn, int(request.path_params["pid"])
    me, err = _moderator(request)
    if err:
        return err
    row = conn.execute("SELECT thread_id FROM forum_posts WHERE id=?", (pid,)).fetchone()
    if row is None:
        return _json({"error": "no such post"}, 404)
    conn.execute("UPDATE forum_posts SET deleted=1 WHERE id=?", (pid,))
    _modlog(conn, me["id"], f"delete post {pid}", row[0])
    return _json({"ok": True})


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/forum/", home), Route("/forum/c/{slug}", category_view), Route("/forum/t/{tid:int}", thread_view),
        Route("/forum/login", login, methods=["GET", "POST"]), Route("/forum/signin/{token}", signin),
        Route("/forum/logout", logout, methods=["POST"]),
        Route("/forum/static/forum.js", script), Route("/forum/files/{fid:int}", download),
        Route("/forum/api/threads/{tid:int}", api_thread),
        Route("/forum/api/threads/{tid:int}/reply", api_reply, methods=["POST"]),
        Route("/forum/api/threads/{tid:int}/move", api_move, methods=["POST"]),
        Route("/forum/api/threads/{tid:int}/lock", api_lock, methods=["POST"]),
        Route("/forum/api/posts/{pid:int}/vote", api_vote, methods=["POST"]),
        Route("/forum/api/posts/{pid:int}/solve", api_solve, methods=["POST"]),
        Route("/forum/api/posts/{pid:int}/delete", api_delete, methods=["POST"]),
    ])


APP = AsgiApp(name="forum", prefix="/forum", title="Community forum", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=("Lock thread", "Delete post"),
              gated=(GatedRoute("Lock thread", r"/forum/api/threads/[^/]+/lock"),
                     GatedRoute("Delete post", r"/forum/api/posts/[^/]+/delete")), renders="client")
