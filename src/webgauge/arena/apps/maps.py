"""City map: places, pins, routes and delivery zones whose positions exist only in pixels.

A Starlette app with a Jinja2 template. The map is a bitmap the server draws with PIL
(streets, a river, parks, about 34 labelled places, saved pins and the delivery zones) and
the page paints on a canvas. The page never holds place geometry: a click sends map
coordinates to ``/maps/api/pick``, which resolves them to the place under the pointer; a
drag on a zone's handle goes to ``/maps/api/zone``. Modes: select a place (save it to one of
your lists), drop a pin (name and save it), plan a route (click the stops in order, name and
save it) and edit a zone (drag the handle on its rim to resize it, then save). Sharing a saved
place shows its share code only in a 3-second notification.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import random
import sqlite3
from pathlib import Path

from ..content.pools import Pool
from .asgi import AsgiApp, LazyApp, template_cache
from .common import BASE_CSS, now

__all__ = ["APP", "SCHEMA", "MAP_W", "MAP_H", "KINDS", "LISTS", "M_PER_PX", "PICK_RADIUS", "handle_at", "share_code"]

SCHEMA = """
CREATE TABLE maps_places(id INTEGER PRIMARY KEY, name TEXT UNIQUE, kind TEXT, x INTEGER, y INTEGER);
CREATE TABLE maps_pins(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, x REAL, y REAL, place_id INTEGER, created TEXT);
CREATE TABLE maps_favs(id INTEGER PRIMARY KEY AUTOINCREMENT, place_id INTEGER, list TEXT, note TEXT, created TEXT);
CREATE TABLE maps_routes(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, stops TEXT, created TEXT);
CREATE TABLE maps_zones(id INTEGER PRIMARY KEY, depot_id INTEGER, radius INTEGER, updated TEXT);
CREATE TABLE maps_shares(id INTEGER PRIMARY KEY AUTOINCREMENT, fav_id INTEGER, code TEXT, created TEXT);
"""

MAP_W, MAP_H = 760, 480
M_PER_PX = 5  # the scale bar: one map pixel is five metres
PICK_RADIUS = 14  # a click within this many map pixels of a place selects it
KINDS = {"cafe": ("Cafe", (150, 90, 40), "C"), "pharmacy": ("Pharmacy", (30, 140, 70), "+"),
         "bakery": ("Bakery", (205, 130, 30), "B"), "library": ("Library", (95, 70, 165), "L"),
         "bike": ("Bike dock", (35, 115, 200), "b"), "parking": ("Parking", (55, 60, 160), "P"),
         "museum": ("Museum", (165, 40, 95), "M"), "gym": ("Gym", (200, 60, 40), "G"),
         "depot": ("Depot", (30, 30, 30), "D")}
LISTS = ("Favourites", "Lunch spots", "Client visits", "Weekend", "Errands")
_DIR = Path(__file__).parent / "templates"


def share_code(fav_id: int, share_id: int) -> str:
    """The share code of a saved place (deterministic, so tasks can check it)."""
    return "MP-" + hashlib.sha256(f"{fav_id}:{share_id}".encode()).hexdigest()[:6].upper()


def handle_at(x: float, y: float, radius_px: float) -> tuple[float, float]:
    """Where a zone's resize handle sits: on the rim, east of the depot (west if that is off the map)."""
    return (x + radius_px, y) if x + radius_px <= MAP_W - 8 else (x - radius_px, y)


def _label_w(name: str) -> int:
    return 7 * len(name) + 16


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int) -> None:
    pool = Pool.of_seed(rng, seed)
    kinds = [k for k in KINDS if k != "depot"] * 4 + ["depot", "depot"]
    places: list[tuple] = []
    names: set[str] = set()
    for kind in kinds:
        while True:
            name = f"{pool.pick('adjective')} {KINDS[kind][0]}"
            if name in names:
                continue
            x, y = rng.randrange(20, MAP_W - _label_w(name)), rng.randrange(24, MAP_H - 20)
            if kind == "depot" and not 150 < x < MAP_W - 260:
                continue
            if all(math.dist((x, y), (p[3], p[4])) >= 44 and not _labels_clash((x, y, name), (p[3], p[4], p[1]))
                   for p in places):
                break
        names.add(name)
        places.append((len(places) + 1, name, kind, x, y))
    order = list(range(len(places)))
    rng.shuffle(order)  # ids do not reveal the kind or the position
    places = [(i + 1, *places[j][1:]) for i, j in enumerate(order)]
    conn.executemany("INSERT INTO maps_places VALUES(?,?,?,?,?)", places)
    depots = [p for p in places if p[2] == "depot"]
    conn.executemany("INSERT INTO maps_zones VALUES(?,?,?,?)",
                     [(i + 1, d[0], rng.randrange(12, 22) * 25, "2026-02-20") for i, d in enumerate(depots)])
    favs = [(places[j][0], rng.choice(LISTS), rng.choice(["", "good coffee", "open late", "near the office",
                                                          "meet here", "quiet"]), "2026-02-21T10:00:00Z")
            for j in rng.sample(range(len(places)), 12)]
    conn.executemany("INSERT INTO maps_favs(place_id, list, note, created) VALUES(?,?,?,?)", favs)


def _labels_clash(a: tuple, b: tuple) -> bool:
    (ax, ay, an), (bx, by, bn) = a, b
    if abs(ay - by) >= 18:
        return False
    return not (ax + _label_w(an) < bx - 10 or bx + _label_w(bn) < ax - 10)


_FONTS: list = []


def _fonts():
    from PIL import ImageFont

    if not _FONTS:
        _FONTS.extend([ImageFont.load_default(size=12), ImageFont.load_default(size=11)])
    return _FONTS


def map_png(conn: sqlite3.Connection, seed_key: str, draft_zone: tuple[int, int] | None = None) -> bytes:
    from PIL import Image, ImageDraw

    rng = random.Random(f"mapbg:{seed_key}")
    img = Image.new("RGB", (MAP_W, MAP_H), (238, 236, 228))
    d = ImageDraw.Draw(img)
    for _ in range(3):
        x, y = rng.randrange(0, MAP_W - 160), rng.randrange(0, MAP_H - 110)
        d.rounded_rectangle((x, y, x + rng.randrange(90, 160), y + rng.randrange(60, 110)), 12, fill=(206, 230, 196))
    for y in range(40, MAP_H, 82):
        d.line([(0, y + rng.randrange(-6, 7)), (MAP_W, y + rng.randrange(-6, 7))], fill=(255, 255, 255), width=6)
    for x in range(60, MAP_W, 96):
        d.line([(x + rng.randrange(-6, 7), 0), (x + rng.randrange(-6, 7), MAP_H)], fill=(255, 255, 255), width=6)
    phase, amp = rng.uniform(0, 6.28), rng.uniform(20, 50)
    river = [(x, MAP_H * 0.55 + amp * math.sin(x / 110 + phase)) for x in range(0, MAP_W + 20, 20)]
    d.line(river, fill=(160, 200, 235), width=14)
    font, small = _fonts()
    places = {r[0]: r for r in conn.execute("SELECT id, name, kind, x, y FROM maps_places")}
    for zid, depot_id, radius in conn.execute("SELECT id, depot_id, radius FROM maps_zones ORDER BY id"):
        if draft_zone and draft_zone[0] == zid:
            radius = draft_zone[1]
        p = places.get(depot_id)
        if p is None:
            continue
        r = radius / M_PER_PX
        d.ellipse((p[3] - r, p[4] - r, p[3] + r, p[4] + r), outline=(60, 60, 60), width=2)
        hx, hy = handle_at(p[3], p[4], r)
        d.rectangle((hx - 5, hy - 5, hx + 5, hy + 5), fill=(255, 255, 255), outline=(30, 30, 30), width=2)
    for name, x, y in conn.execute("SELECT name, x, y FROM maps_pins ORDER BY id"):
        d.ellipse((x - 6, y - 6, x + 6, y + 6), fill=(220, 30, 40), outline=(120, 0, 0), width=2)
        d.text((x + 9, y - 16), name[:24], fill=(140, 0, 10), font=small)
    for _, name, kind, x, y in places.values():
        color, glyph = KINDS[kind][1], KINDS[kind][2]
        d.ellipse((x - 8, y - 8, x + 8, y + 8), fill=color, outline=(255, 255, 255), width=2)
        d.text((x, y), glyph, fill=(255, 255, 255), font=small, anchor="mm")
        d.text((x + 12, y - 7), name, fill=(30, 34, 44), font=font)
    d.line([(MAP_W - 130, MAP_H - 16), (MAP_W - 30, MAP_H - 16)], fill=(30, 30, 30), width=3)
    d.text((MAP_W - 130, MAP_H - 34), f"{100 * M_PER_PX} m", fill=(30, 30, 30), font=small)
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


_env = template_cache(_DIR)


def _redirect(request, toast: str):
    from urllib.parse import urlencode

    from starlette.responses import RedirectResponse

    return RedirectResponse(request.state.base + "/maps/?" + urlencode({"toast": toast}), status_code=303)


def _nearest(conn, x: float, y: float, radius: float = PICK_RADIUS):
    best = None
    for pid, name, kind, px, py in conn.execute("SELECT id, name, kind, x, y FROM maps_places"):
        dist = math.dist((x, y), (px, py))
        if dist <= radius and (best is None or dist < best[0]):
            best = (dist, {"id": pid, "name": name, "kind": KINDS[kind][0]})
    return best[1] if best else None


async def home(request):
    from starlette.responses import HTMLResponse

    conn = request.state.conn
    favs = [{"id": r[0], "list": r[1], "note": r[2], "name": r[3]} for r in conn.execute(
        "SELECT f.id, f.list, f.note, p.name FROM maps_favs f JOIN maps_places p ON p.id=f.place_id ORDER BY f.list, "
        "p.name")]
    zones = [{"id": r[0], "depot": r[1], "radius": r[2]} for r in conn.execute(
        "SELECT z.id, p.name, z.radius FROM maps_zones z JOIN maps_places p ON p.id=z.depot_id ORDER BY z.id")]
    version = conn.execute(
        "SELECT (SELECT count(*) FROM maps_pins) || '-' || (SELECT group_concat(radius) FROM maps_zones)"
                           ).fetchone()[0]
    return HTMLResponse(_env().get_template("maps.html").render(
        title="Maps", base_css=BASE_CSS, base=request.state.base, toast=request.query_params.get("toast", "")[:120],
        favs=favs, zones=zones, lists=LISTS, map_w=MAP_W, map_h=MAP_H, version=version,
        routes=[r[0] for r in conn.execute("SELECT name FROM maps_routes ORDER BY id")]))


_CACHE: dict[str, bytes] = {}  # rendered maps by what they show (places, zones, pins, draft); a few dozen


async def image(request):
    from starlette.responses import Response

    conn = request.state.conn
    draft = None
    z = request.query_params.get("zone", "")
    if ":" in z and all(p.isdigit() for p in z.split(":", 1)):
        draft = tuple(int(p) for p in z.split(":", 1))
    places = conn.execute("SELECT group_concat(name || x || ',' || y) FROM maps_places").fetchone()[0] or ""
    shown = json.dumps([places, [tuple(r) for r in conn.execute("SELECT id, depot_id, radius FROM maps_zones")],
                        [tuple(r) for r in conn.execute("SELECT name, x, y FROM maps_pins")], draft])
    key = hashlib.sha256(shown.encode()).hexdigest()
    if key not in _CACHE:
        if len(_CACHE) > 64:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = map_png(conn, hashlib.sha256(places.encode()).hexdigest()[:12], draft)
    return Response(_CACHE[key], media_type="image/png")


async def _json(request) -> dict:
    try:
        d = json.loads(await request.body())
        return d if isinstance(d, dict) else {}
    except ValueError:
        return {}


async def api_pick(request):
    from starlette.responses import JSONResponse

    d = await _json(request)
    try:
        x, y = float(d["x"]), float(d["y"])
    except (KeyError, TypeError, ValueError):
        return JSONResponse({"error": "send x and y in map pixels"}, status_code=400)
    return JSONResponse({"place": _nearest(request.state.conn, x, y)})


async def api_zone(request):
    """A drag that started on a zone's handle: the zone's new (unsaved) radius in metres."""
    from starlette.responses import JSONResponse

    d = await _json(request)
    try:
        x0, y0, x1, y1 = (float(d[k]) for k in ("x0", "y0", "x1", "y1"))
    except (KeyError, TypeError, ValueError):
        return JSONResponse({"error": "send x0, y0, x1, y1 in map pixels"}, status_code=400)
    conn = request.state.conn
    for zid, name, px, py, radius in conn.execute(
            "SELECT z.id, p.name, p.x, p.y, z.radius FROM maps_zones z JOIN maps_places p ON p.id=z.depot_id"):
        hx, hy = handle_at(px, py, radius / M_PER_PX)
        if math.dist((x0, y0), (hx, hy)) <= 12:
            new = max(5, round(math.dist((px, py), (x1, y1)) * M_PER_PX / 5) * 5)
            return JSONResponse({"zone": zid, "depot": name, "radius": new})
    return JSONResponse({"zone": None})


async def save(request):
    conn = request.state.conn
    form = await request.form()
    what = form.get("what", "")
    at = now(conn)
    if what == "pin":
        name = str(form.get("name", "")).strip()[:60]
        try:
            x, y = float(form["x"]), float(form["y"])
        except (KeyError, ValueError):
            return _redirect(request, "Click the map where the pin goes first")
        if not name:
            return _redirect(request, "Give the pin a name")
        place = _nearest(conn, x, y)
        conn.execute("INSERT INTO maps_pins(name, x, y, place_id, created) VALUES(?,?,?,?,?)",
                     (name, round(x, 1), round(y, 1), place["id"] if place else None, at))
        return _redirect(request, f"Pin '{name}' saved")
    if what == "fav":
        pid, lst = str(form.get("place_id", "")), str(form.get("list", ""))
        if not pid.isdigit() or lst not in LISTS or not conn.execute("SELECT 1 FROM maps_places WHERE id=?",
                                                                     (pid,)).fetchone():
            return _redirect(request, "Select a place on the map and a list first")
        conn.execute("INSERT INTO maps_favs(place_id, list, note, created) VALUES(?,?,?,?)",
                     (int(pid), lst, str(form.get("note", "")).strip()[:80], at))
        return _redirect(request, f"Saved to {lst}")
    if what == "route":
        name = str(form.get("name", "")).strip()[:60]
        stops = [s for s in str(form.get("stops", "")).split(",") if s.isdigit()]
        if not name or len(stops) < 2:
            return _redirect(request, "A route needs a name and at least two stops")
        conn.execute("INSERT INTO maps_routes(name, stops, created) VALUES(?,?,?)",
                     (name, json.dumps([int(s) for s in stops]), at))
        return _redirect(request, f"Route '{name}' saved with {len(stops)} stops")
    if what == "zone":
        zid, radius = str(form.get("zone", "")), str(form.get("radius", ""))
        if not zid.isdigit() or not radius.isdigit():
            return _redirect(request, "Drag a zone's handle first")
        conn.execute("UPDATE maps_zones SET radius=?, updated=? WHERE id=?", (int(radius), at[:10], int(zid)))
        return _redirect(request, f"Zone saved: {radius} m")
    return _redirect(request, "Nothing to save")


async def api_share(request):
    from starlette.responses import JSONResponse

    conn = request.state.conn
    d = await _json(request)
    fav = d.get("fav")
    if not isinstance(fav, int) or not conn.execute("SELECT 1 FROM maps_favs WHERE id=?", (fav,)).fetchone():
        return JSONResponse({"error": "no such saved place"}, status_code=404)
    cur = conn.execute("INSERT INTO maps_shares(fav_id, code, created) VALUES(?,?,?)", (fav, "", now(conn)))
    code = share_code(fav, cur.lastrowid)
    conn.execute("UPDATE maps_shares SET code=? WHERE id=?", (code, cur.lastrowid))
    return JSONResponse({"ok": True, "code": code})


async def script(request):
    from starlette.responses import Response

    return Response((_DIR / "maps.js").read_bytes(), media_type="text/javascript")


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/maps/", home), Route("/maps/map.png", image), Route("/maps/static/maps.js", script),
        Route("/maps/api/pick", api_pick, methods=["POST"]), Route("/maps/api/zone", api_zone, methods=["POST"]),
        Route("/maps/api/share", api_share, methods=["POST"]), Route("/maps/save", save, methods=["POST"]),
    ])


APP = AsgiApp(name="maps", prefix="/maps", title="City map", app=LazyApp(_app), schema=SCHEMA, seed=seed)
