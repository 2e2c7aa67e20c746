"""Media library: hundreds of product photos, briefs with reference photos, support tickets.

A Starlette app with Jinja2 templates (server-rendered). Every asset's photo is drawn on
request by :mod:`.media_images` from its row (shape, colour, pattern), so a seed stays a
few hundred rows and no image is stored. Products come in near-duplicate groups: four
assets share a name, a shape and the same alt text and differ only in colour or pattern,
so picking "the one in the reference photo" needs the pixels. Briefs, moodboards and
tickets show reference photos (another shot of the product), never its code.

The asset page has a resizable details panel (drag the separator, or arrow keys on it): the
panel is a CSS container, and below 420 px it reflows to a compact summary that hides the
editable details (licence, credit, rights). At a tablet viewport it starts compact, so editing
them needs a resize; tags and sharing sit outside the panel and work at every width.
Creating a share link shows the link's code only in a 3-second notification. "Delete asset"
is declared irreversible.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from pathlib import Path

from ..content.pools import Pool
from ..core.gate import GatedRoute
from .asgi import AsgiApp, LazyApp, template_cache
from .common import BASE_CSS, now
from .media_images import COLORS, PATTERNS, SHAPES, asset_png, distinct, reference_png

__all__ = ["APP", "SCHEMA", "LICENCES", "PAGE_SIZE", "share_code", "N_GROUPS"]

SCHEMA = """
CREATE TABLE media_assets(id INTEGER PRIMARY KEY, code TEXT UNIQUE, name TEXT, shape TEXT, color TEXT, pattern TEXT,
  licence TEXT, credit TEXT, rights_until TEXT, tags TEXT, updated TEXT);
CREATE TABLE media_briefs(id INTEGER PRIMARY KEY, ref TEXT UNIQUE, kind TEXT, title TEXT, client TEXT, refs TEXT,
  asset_code TEXT, share_code TEXT, updated TEXT);
CREATE TABLE media_tickets(id INTEGER PRIMARY KEY, ref TEXT UNIQUE, customer TEXT, body TEXT, asset_id INTEGER);
CREATE TABLE media_links(id INTEGER PRIMARY KEY AUTOINCREMENT, asset_id INTEGER, code TEXT, created TEXT);
"""

LICENCES = ("All rights reserved", "Editorial only", "Internal use", "Royalty free", "Creative Commons BY")
PAGE_SIZE = 24
N_GROUPS = 55  # near-duplicate groups of 4 assets: 220 assets
_DIR = Path(__file__).parent / "templates"


def share_code(asset_code: str, link_id: int) -> str:
    """The code of a share link (deterministic, so tasks can check it)."""
    return "SL-" + hashlib.sha256(f"{asset_code}:{link_id}".encode()).hexdigest()[:6].upper()


def _looks(rng: random.Random) -> list[tuple[str, str]]:
    """Four (colour, pattern) looks, pairwise distinct, sharing a colour or a pattern in pairs."""
    colors = list(COLORS)
    while True:
        c, c2, c3 = rng.sample(colors, 3)
        p, p2, p3 = rng.choice(PATTERNS), rng.choice(PATTERNS), rng.choice(PATTERNS)
        looks = [(c, p), (c2, p), (c, p2), (c3, p3)]
        if all(distinct(a, b) for i, a in enumerate(looks) for b in looks[i + 1:]):
            rng.shuffle(looks)
            return looks


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int) -> None:
    pool = Pool.of_seed(rng, seed)
    shapes = list(SHAPES)
    names: dict[str, str] = {}
    while len(names) < N_GROUPS:
        shape = rng.choice(shapes)
        names.setdefault(f"{pool.pick('adjective')} {SHAPES[shape]}", shape)
    codes = rng.sample(range(1000, 9999), 4 * N_GROUPS)
    people = pool.people(30)
    assets, k = [], 0
    for name, shape in names.items():
        for color, pattern in _looks(rng):
            assets.append((k + 1, f"AS-{codes[k]}", name, shape, color, pattern, rng.choice(LICENCES),
                           f"Photo: {rng.choice(people)}", pool.date("2026-04-01", 900), "", "2026-02-20"))
            k += 1
    conn.executemany("INSERT INTO media_assets VALUES(?,?,?,?,?,?,?,?,?,?,?)", assets)
    clients = pool.companies(24)
    campaigns = ("Spring campaign", "Summer sale", "Autumn lookbook", "Holiday catalogue", "Launch page", "Newsletter")
    briefs, refs = [], rng.sample(range(1, len(assets) + 1), 40)
    numbers = sorted(rng.sample(range(1000, 10000), 48))  # brief, moodboard and ticket numbers
    for i in range(24):  # single-product briefs
        a = assets[refs[i] - 1]
        briefs.append((i + 1, f"BR-{numbers[i]}", "brief", f"{rng.choice(campaigns)}: {a[2]}",
                       clients[i], json.dumps([a[0]]), "", "", "2026-02-24"))
    for i in range(8):  # moodboards with three reference photos of three products
        group = rng.sample([a for a in assets], 3)
        while len({a[2] for a in group}) < 3:
            group = rng.sample([a for a in assets], 3)
        briefs.append((25 + i, f"MB-{numbers[24 + i]}", "moodboard",
                       f"Moodboard: {rng.choice(campaigns).lower()}", rng.choice(clients),
                       json.dumps([a[0] for a in group]), "", "", "2026-02-24"))
    conn.executemany("INSERT INTO media_briefs VALUES(?,?,?,?,?,?,?,?,?)", briefs)
    tickets = []
    for i in range(16):
        a = assets[refs[24 + i] - 1]
        who = rng.choice(people)
        tickets.append((i + 1, f"TK-{numbers[32 + i]}", who,
                        f"Hi, I bought the {a[2]} last month and want to reorder the same one. Photo attached. "
                        f"Which one is it? — {who}", a[0]))
    conn.executemany("INSERT INTO media_tickets VALUES(?,?,?,?,?)", tickets)


_env = template_cache(_DIR)


def _render(request, name: str, **ctx):
    from starlette.responses import HTMLResponse

    toast = request.query_params.get("toast", "")
    return HTMLResponse(_env().get_template(name).render(base_css=BASE_CSS, base=request.state.base, toast=toast[:120],
                                                         **ctx))


def _redirect(request, path: str, toast: str = ""):
    from urllib.parse import urlencode

    from starlette.responses import RedirectResponse

    q = "?" + urlencode({"toast": toast}) if toast else ""
    return RedirectResponse(request.state.base + path + q, status_code=303)


def _asset_dict(r) -> dict:
    keys = ("id", "code", "name", "shape", "color", "pattern", "licence", "credit", "rights_until", "tags", "updated")
    return dict(zip(keys, r, strict=True))


async def library(request):
    conn = request.state.conn
    q = request.query_params.get("q", "").strip()
    try:
        page = max(1, int(request.query_params.get("page", "1")))
    except ValueError:
        page = 1
    where, args = ("WHERE lower(name) LIKE ? OR lower(code) LIKE ? OR lower(tags) LIKE ?",
                   (f"%{q.lower()}%",) * 3) if q else ("", ())
    total = conn.execute(f"SELECT count(*) FROM media_assets {where}", args).fetchone()[0]
    rows = conn.execute(f"SELECT * FROM media_assets {where} ORDER BY name, code LIMIT ? OFFSET ?",
                        (*args, PAGE_SIZE, (page - 1) * PAGE_SIZE)).fetchall()
    return _render(request, "media_library.html", title="Media library", q=q, page=page, total=total,
                   pages=max(1, -(-total // PAGE_SIZE)), assets=[_asset_dict(r) for r in rows])


def _asset(conn, code: str):
    r = conn.execute("SELECT * FROM media_assets WHERE code=?", (code,)).fetchone()
    return _asset_dict(r) if r else None


async def asset_page(request):
    a = _asset(request.state.conn, request.path_params["code"])
    if a is None:
        return _redirect(request, "/media/", "No such asset")
    return _render(request, "media_asset.html", title=a["name"], a=a, licences=LICENCES)


async def asset_save(request):
    conn = request.state.conn
    a = _asset(conn, request.path_params["code"])
    form = await request.form()
    if a is None:
        return _redirect(request, "/media/", "No such asset")
    licence = str(form.get("licence", a["licence"]))
    if licence not in LICENCES:
        return _redirect(request, f"/media/a/{a['code']}", "Pick a licence from the list")
    conn.execute("UPDATE media_assets SET licence=?, credit=?, updated=? WHERE id=?",
                 (licence, str(form.get("credit", "")).strip()[:120], now(conn)[:10], a["id"]))
    return _redirect(request, f"/media/a/{a['code']}", "Details saved")


async def asset_tags(request):
    conn = request.state.conn
    a = _asset(conn, request.path_params["code"])
    form = await request.form()
    if a is None:
        return _redirect(request, "/media/", "No such asset")
    tags = ", ".join(t.strip() for t in str(form.get("tags", "")).split(",") if t.strip())
    conn.execute("UPDATE media_assets SET tags=?, updated=? WHERE id=?", (tags[:200], now(conn)[:10], a["id"]))
    return _redirect(request, f"/media/a/{a['code']}", "Tags saved")


async def asset_share(request):
    from starlette.responses import JSONResponse

    conn = request.state.conn
    a = _asset(conn, request.path_params["code"])
    if a is None:
        return JSONResponse({"error": "no such asset"}, status_code=404)
    cur = conn.execute("INSERT INTO media_links(asset_id, code, created) VALUES(?,?,?)", (a["id"], "", now(conn)))
    code = share_code(a["code"], cur.lastrowid)
    conn.execute("UPDATE media_links SET code=? WHERE id=?", (code, cur.lastrowid))
    return JSONResponse({"ok": True, "code": code})


async def asset_delete(request):
    conn = request.state.conn
    a = _asset(conn, request.path_params["code"])
    if a is not None:
        conn.execute("DELETE FROM media_assets WHERE id=?", (a["id"],))
    return _redirect(request, "/media/", "Asset deleted")


async def image(request):
    from starlette.responses import Response

    conn, kind, key = request.state.conn, request.path_params["kind"], request.path_params["key"]
    if kind == "a":
        row = conn.execute("SELECT shape, color, pattern FROM media_assets WHERE id=?", (key,)).fetchone()
        png = asset_png(*row) if row else None
    else:  # a reference shot: "<brief or ticket ref>-<k>"
        ref, _, k = key.rpartition("-")
        row = None
        if kind == "b":
            b = conn.execute("SELECT refs FROM media_briefs WHERE ref=?", (ref,)).fetchone()
            ids = json.loads(b[0]) if b else []
            aid = ids[int(k)] if k.isdigit() and int(k) < len(ids) else None
        else:
            t = conn.execute("SELECT asset_id FROM media_tickets WHERE ref=?", (ref,)).fetchone()
            aid = t[0] if t else None
        if aid is not None:
            row = conn.execute("SELECT shape, color, pattern FROM media_assets WHERE id=?", (aid,)).fetchone()
        png = reference_png(*row, shot=key) if row else None
    if png is None:
        return Response(b"not found", status_code=404)
    return Response(png, media_type="image/png")


async def briefs(request):
    rows = request.state.conn.execute("SELECT ref, kind, title, client FROM media_briefs ORDER BY ref").fetchall()
    return _render(request, "media_briefs.html", title="Briefs",
                   briefs=[dict(zip(("ref", "kind", "title", "client"), r, strict=True))
                                                                        for r in rows])


async def brief_page(request):
    r = request.state.conn.execute("SELECT ref, kind, title, client, refs, asset_code, share_code, updated "
                                   "FROM media_briefs WHERE ref=?", (request.path_params["ref"],)).fetchone()
    if r is None:
        return _redirect(request, "/media/briefs", "No such brief")
    b = dict(zip(("ref", "kind", "title", "client", "refs", "asset_code", "share_code", "updated"), r, strict=True))
    names = [request.state.conn.execute("SELECT name FROM media_assets WHERE id=?", (i,)).fetchone()
             for i in json.loads(b["refs"])]
    return _render(request, "media_brief.html", title=b["ref"], b=b, shots=[n[0] if n else "(deleted)" for n in names])


async def brief_save(request):
    conn = request.state.conn
    ref = request.path_params["ref"]
    form = await request.form()
    if not conn.execute("SELECT 1 FROM media_briefs WHERE ref=?", (ref,)).fetchone():
        return _redirect(request, "/media/briefs", "No such brief")
    if "asset_code" in form:
        code = str(form["asset_code"]).strip().upper()
        if not conn.execute("SELECT 1 FROM media_assets WHERE code=?", (code,)).fetchone():
            return _redirect(request, f"/media/b/{ref}", f"No asset with the code {code or '(empty)'}")
        conn.execute("UPDATE media_briefs SET asset_code=?, updated=? WHERE ref=?", (code, now(conn)[:10], ref))
        return _redirect(request, f"/media/b/{ref}", f"Attached {code}")
    link = str(form.get("share_code", "")).strip().upper()
    conn.execute("UPDATE media_briefs SET share_code=?, updated=? WHERE ref=?", (link, now(conn)[:10], ref))
    return _redirect(request, f"/media/b/{ref}", "Share link saved")


async def tickets(request):
    rows = request.state.conn.execute("SELECT ref, customer FROM media_tickets ORDER BY ref").fetchall()
    return _render(request, "media_tickets.html", title="Support tickets",
                   tickets=[{"ref": r[0], "customer": r[1]} for r in rows])


async def ticket_page(request):
    r = request.state.conn.execute("SELECT ref, customer, body FROM media_tickets WHERE ref=?",
                                   (request.path_params["ref"],)).fetchone()
    if r is None:
        return _redirect(request, "/media/tickets", "No such ticket")
    return _render(request, "media_ticket.html", title=r[0], t={"ref": r[0], "customer": r[1], "body": r[2]})


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/media/", library), Route("/media/a/{code}", asset_page),
        Route("/media/a/{code}/save", asset_save, methods=["POST"]),
        Route("/media/a/{code}/tags", asset_tags, methods=["POST"]),
        Route("/media/a/{code}/share", asset_share, methods=["POST"]),
        Route("/media/a/{code}/delete", asset_delete, methods=["POST"]),
        Route("/media/img/{kind}/{key}.png", image),
        Route("/media/briefs", briefs), Route("/media/b/{ref}", brief_page),
        Route("/media/b/{ref}/save", brief_save, methods=["POST"]),
        Route("/media/tickets", tickets), Route("/media/t/{ref}", ticket_page),
    ])


APP = AsgiApp(name="media", prefix="/media", title="Media library", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=("Delete asset",),
              gated=(GatedRoute("Delete asset", r"/media/a/[^/]+/delete"),))
