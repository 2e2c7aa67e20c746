"""Room calendar: a day grid of rooms by hours, rendered on the client from JSON.

A Starlette app. ``calendar.js`` fetches ``/calendar/api/day`` and draws the grid; empty
cells open a booking dialog, bookings open a details dialog with "Cancel booking" (declared
irreversible). A new booking's reference is shown only in a transient notification (gone at
the next click or key), so tasks that ask for it depend on catching that notification.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import sqlite3
from pathlib import Path

from ..content.pools import Pool, staff
from ..core.gate import GatedRoute
from .asgi import AsgiApp, LazyApp, template_cache
from .common import BASE_CSS, now

__all__ = ["APP", "SCHEMA", "HOURS", "FIRST_DAY", "DAYS", "reference"]

SCHEMA = """
CREATE TABLE cal_rooms(id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE cal_bookings(id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT, date TEXT, start INTEGER, end INTEGER,
  title TEXT, organiser TEXT, status TEXT, created TEXT);
"""

HOURS = tuple(range(8, 18))
FIRST_DAY = "2026-03-02"
DAYS = 60
_DIR = Path(__file__).parent / "templates"


def reference(booking_id: int, date: str, room: str, start: int) -> str:
    """The booking reference the app shows (deterministic, so tasks can check it)."""
    return "BK-" + hashlib.sha256(f"{booking_id}:{date}:{room}:{start}".encode()).hexdigest()[:6].upper()


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int) -> None:
    pool = Pool.of_seed(rng, seed)
    rooms = sorted({pool.city() for _ in range(40)})[:6]
    for i, name in enumerate(rooms, start=1):
        conn.execute("INSERT INTO cal_rooms VALUES(?,?)", (i, f"{name} room"))
    people = [n for n, _ in staff(seed)]
    first = dt.date.fromisoformat(FIRST_DAY)
    for day in range(DAYS):
        date = (first + dt.timedelta(days=day)).isoformat()
        for room in rooms:
            h = HOURS[0] + rng.randrange(3)
            while h < HOURS[-1]:
                length = rng.choice((1, 1, 2, 3))
                if rng.random() < 0.45 and h + length <= HOURS[-1] + 1:
                    topic = pool.topic().capitalize()  # drawn before the kind, as the seeds were built
                    title = f"{topic} {rng.choice(['sync', 'review', 'planning', 'workshop', 'interview'])}"
                    conn.execute("INSERT INTO cal_bookings(room, date, start, end, title, organiser, status, created) "
                                 "VALUES(?,?,?,?,?,?,?,?)", (f"{room} room", date, h, h + length, title,
                                                             rng.choice(people), "confirmed", "2026-02-20T10:00:00Z"))
                h += length + rng.randrange(2)


_env = template_cache(_DIR)


async def home(request):
    from starlette.responses import HTMLResponse

    day = request.query_params.get("date", FIRST_DAY)
    return HTMLResponse(_env().get_template("calendar.html").render(
        title="Rooms", base_css=BASE_CSS, base=request.state.base, day=day, toast="",
        rooms=[r[0] for r in request.state.conn.execute("SELECT name FROM cal_rooms ORDER BY id")]))


async def script(request):
    from starlette.responses import Response

    return Response((_DIR / "calendar.js").read_bytes(), media_type="text/javascript")


def _day(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return dt.date.fromisoformat(FIRST_DAY)


async def api_day(request):
    from starlette.responses import JSONResponse

    conn, day = request.state.conn, _day(request.query_params.get("date", FIRST_DAY))
    cols = ("id", "room", "start", "end", "title")
    rows = [dict(zip(cols, r, strict=True)) for r in conn.execute(
        "SELECT id, room, start, end, title FROM cal_bookings WHERE date=? AND status='confirmed' ORDER BY start",
        (day.isoformat(),))]
    return JSONResponse({"date": day.isoformat(), "label": day.strftime("%A %d %B %Y"), "hours": list(HOURS),
                         "rooms": [r[0] for r in conn.execute("SELECT name FROM cal_rooms ORDER BY id")],
                         "bookings": rows, "prev": (day - dt.timedelta(days=1)).isoformat(),
                         "next": (day + dt.timedelta(days=1)).isoformat()})


async def api_book(request):
    from starlette.responses import JSONResponse

    conn = request.state.conn
    try:
        d = json.loads(await request.body())
        date, room, start, hours = _day(str(d["date"])).isoformat(), str(d["room"]), int(d["start"]), int(d["hours"])
        title = str(d.get("title", "")).strip()
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"error": "send date, room, start, hours and title"}, status_code=400)
    if not title:
        return JSONResponse({"error": "Give the booking a title."})
    if not conn.execute("SELECT 1 FROM cal_rooms WHERE name=?", (room,)).fetchone() or start not in HOURS \
            or not 1 <= hours <= 3 or start + hours > HOURS[-1] + 1:
        return JSONResponse({"error": "That room or time does not exist."})
    clash = conn.execute("SELECT title FROM cal_bookings WHERE room=? AND date=? AND status='confirmed' AND start<? "
                         "AND end>?", (room, date, start + hours, start)).fetchone()
    if clash:
        return JSONResponse({"error": f"The room is taken by '{clash[0]}'."})
    cur = conn.execute("INSERT INTO cal_bookings(room, date, start, end, title, organiser, status, created) "
                       "VALUES(?,?,?,?,?,?,?,?)",
                       (room, date, start, start + hours, title, "You", "confirmed", now(conn)))
    return JSONResponse({"ok": True, "reference": reference(cur.lastrowid, date, room, start)})


async def api_booking(request):
    from starlette.responses import JSONResponse

    conn, bid = request.state.conn, int(request.path_params["bid"])
    cols = ("id", "room", "date", "start", "end", "title", "organiser", "status")
    row = conn.execute(f"SELECT {', '.join(cols)} FROM cal_bookings WHERE id=?", (bid,)).fetchone()
    if row is None:
        return JSONResponse({"error": "no such booking"}, status_code=404)
    if request.method == "POST":
        conn.execute("UPDATE cal_bookings SET status='cancelled' WHERE id=?", (bid,))
        return JSONResponse({"ok": True})
    return JSONResponse(dict(zip(cols, row, strict=True)))


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/calendar/", home), Route("/calendar/static/calendar.js", script),
        Route("/calendar/api/day", api_day), Route("/calendar/api/bookings", api_book, methods=["POST"]),
        Route("/calendar/api/bookings/{bid:int}", api_booking),
        Route("/calendar/api/bookings/{bid:int}/cancel", api_booking, methods=["POST"]),
    ])


APP = AsgiApp(name="calendar", prefix="/calendar", title="Room calendar", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=("Cancel booking",),
              gated=(GatedRoute("Cancel booking", r"/calendar/api/bookings/[^/]+/cancel"),), renders="client")
