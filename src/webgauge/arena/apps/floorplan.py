"""Desk booking: office floor plans drawn on a canvas from server-rendered bitmaps, one per
floor and date. Desk labels, positions and who sits where exist only in pixels; a click sends
plan coordinates to the server, which resolves them to a desk (the page never holds the
desk geometry).

A Starlette app with Jinja2 templates. Three floors of 36 desks (four rows of nine; desks
next to each other in a row are neighbours), bookable on the next fifteen working days,
about a third of them already taken by colleagues.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import sqlite3
from typing import Any

from ..content.pools import Pool
from .asgi import AsgiApp, LazyApp
from .web import payload, redirect, render

__all__ = ["APP", "SCHEMA", "PLAN_W", "PLAN_H", "FLOORS", "DAYS", "ROWS", "COLS", "day_label", "booked_on",
           "booked_on_state"]

SCHEMA = """
CREATE TABLE fp_desks(id INTEGER PRIMARY KEY, floor INTEGER, label TEXT, row INTEGER, col INTEGER,
  x INTEGER, y INTEGER, w INTEGER, h INTEGER);
CREATE TABLE fp_bookings(id INTEGER PRIMARY KEY AUTOINCREMENT, desk_id INTEGER REFERENCES fp_desks(id), day TEXT,
  user TEXT, mine INTEGER DEFAULT 0);
"""

PLAN_W, PLAN_H = 920, 460
FLOORS = (2, 3, 4)
ROWS, COLS = 4, 9
DESK_W, DESK_H = 70, 46


def _working_days(start: str, n: int) -> tuple[str, ...]:
    d, out = dt.date.fromisoformat(start), list[Any]()
    while len(out) < n:
        d += dt.timedelta(days=1)
        if d.weekday() < 5:
            out.append(d.isoformat())
    return tuple(out)


DAYS = _working_days("2026-03-02", 15)
"""The bookable dates: the fifteen working days after the seed clock's date."""


def day_label(day: str) -> str:
    return dt.date.fromisoformat(day).strftime("%A %d %B %Y")


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    desks, k = [], 0
    for floor in FLOORS:
        x0, y0 = 190 + rng.randrange(0, 40), 30 + rng.randrange(0, 30)
        for row in range(ROWS):
            y = y0 + row * (DESK_H + 6) + (row // 2) * 110  # two pairs of facing rows with an aisle between
            for col in range(COLS):
                k += 1
                desks.append((k, floor, f"{floor}-{'ABCD'[row]}{col + 1:02d}", row, col, x0 + col * (DESK_W + 4), y,
                              DESK_W, DESK_H))
    conn.executemany("INSERT INTO fp_desks VALUES(?,?,?,?,?,?,?,?,?)", desks)
    people = Pool.of_seed(rng, seed).people(60)
    r = rng.random
    conn.executemany("INSERT INTO fp_bookings(desk_id, day, user, mine) VALUES(?,?,?,0)",
                     [(d[0], day, people[int(r() * 60)]) for day in DAYS for d in desks if r() < 0.3])


def booked_on(conn: sqlite3.Connection, floor: int, day: str) -> dict[int, str]:
    """Desk id -> who booked it, on one floor and date."""
    return dict(conn.execute("SELECT b.desk_id, b.user FROM fp_bookings b JOIN fp_desks d ON d.id=b.desk_id "
                             "WHERE d.floor=? AND b.day=?", (floor, day)).fetchall())


def plan_png(desks: list[tuple], booked: dict[int, str], floor: int, day: str) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (PLAN_W, PLAN_H), (250, 250, 246))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=14)  # legible at device scale factor 1
    small = ImageFont.load_default(size=11)
    d.rectangle([2, 2, PLAN_W - 3, PLAN_H - 3], outline=(60, 60, 60), width=4)
    d.text((14, PLAN_H - 26), f"Floor {floor} · {day_label(day)}", fill=(40, 40, 40), font=font)
    d.rectangle([10, 10, 170, 200], fill=(232, 240, 226), outline=(90, 110, 80), width=2)
    d.text((55, 100), "Kitchen", fill=(60, 80, 50), font=font)
    d.rectangle([10, 225, 170, 420], fill=(236, 232, 245), outline=(100, 90, 130), width=2)
    d.text((40, 315), "Meeting room", fill=(80, 70, 110), font=font)
    d.line([(PLAN_W - 4, 20), (PLAN_W - 4, PLAN_H - 20)], fill=(120, 170, 230), width=6)  # windows
    for did, label, x, y, w, h in desks:
        taken = did in booked
        d.rectangle([x, y, x + w, y + h], fill=(205, 205, 205) if taken else (190, 215, 250), outline=(40, 60, 100),
                    width=2)
        d.text((x + 12, y + 6), label, fill=(20, 30, 60), font=font)
        if taken:
            d.text((x + 8, y + 27), "booked", fill=(120, 40, 40), font=small)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _where(qp) -> tuple[int, str]:
    floor = int(qp["floor"]) if qp.get("floor", "").isdigit() and int(qp["floor"]) in FLOORS else FLOORS[1]
    day = qp.get("day") if qp.get("day") in DAYS else DAYS[0]
    return floor, day


async def plan(request):
    conn = request.state.conn
    floor, day = _where(request.query_params)
    mine = conn.execute("SELECT d.label, b.day, b.user FROM fp_bookings b JOIN fp_desks d ON d.id=b.desk_id "
                        "WHERE b.mine=1 ORDER BY b.id").fetchall()
    booked = request.query_params.get("booked", "")
    return render(request, "floorplan.html", "Desks", toast=f"Desk {booked} booked" if booked else "",
                  floor=floor, day=day, floors=FLOORS, days=[(d, day_label(d)) for d in DAYS],
                  plan_w=PLAN_W, plan_h=PLAN_H, mine=[{"label": m[0], "day": m[1], "user": m[2]} for m in mine])


async def plan_image(request):
    from starlette.responses import Response

    conn = request.state.conn
    floor, day = _where(request.query_params)
    desks = conn.execute("SELECT id, label, x, y, w, h FROM fp_desks WHERE floor=? ORDER BY id", (floor,)).fetchall()
    return Response(plan_png([tuple(r) for r in desks], booked_on(conn, floor, day), floor, day),
                    media_type="image/png")


async def pick(request):
    from starlette.responses import JSONResponse

    form, _ = await payload(request)
    try:
        x, y = float(form.get("x", ["-1"])[0]), float(form.get("y", ["-1"])[0])
    except ValueError:
        return JSONResponse({"id": None})
    floor, day = _where({"floor": form.get("floor", [""])[0], "day": form.get("day", [""])[0]})
    conn = request.state.conn
    row = conn.execute("SELECT id, label FROM fp_desks WHERE floor=? AND ?>=x AND ?<=x+w AND ?>=y AND ?<=y+h",
                       (floor, x, x, y, y)).fetchone()
    if row is None:
        return JSONResponse({"id": None})
    return JSONResponse({"id": row[0], "label": row[1], "booked": row[0] in booked_on(conn, floor, day)})


async def book(request):
    conn = request.state.conn
    form, _ = await payload(request)
    did, day = form.get("desk", [""])[0], form.get("day", [DAYS[0]])[0]
    who = form.get("booked_for", ["Me"])[0].strip() or "Me"
    row = conn.execute("SELECT floor, label FROM fp_desks WHERE id=?",
                       (int(did),)).fetchone() if did.isdigit() else None
    if row is None or day not in DAYS:
        return redirect(request, "/desks/")
    if int(did) in booked_on(conn, row[0], day):
        return redirect(request, "/desks/", floor=row[0], day=day)
    conn.execute("INSERT INTO fp_bookings(desk_id, day, user, mine) VALUES(?,?,?,1)", (int(did), day, who[:60]))
    return redirect(request, "/desks/", floor=row[0], day=day, booked=row[1])


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/desks/", plan), Route("/desks/plan.png", plan_image), Route("/desks/pick", pick, methods=["POST"]),
        Route("/desks/book", book, methods=["POST"]),
    ])


APP = AsgiApp(name="floorplan", prefix="/desks", title="Desk booking", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=(), renders="server")


def booked_on_state(state: dict, day: str) -> set[int]:
    """Desk ids booked on ``day`` in a state dump (what tasks read; the app reads SQL)."""
    return {b["desk_id"] for b in state["fp_bookings"] if b["day"] == day}
