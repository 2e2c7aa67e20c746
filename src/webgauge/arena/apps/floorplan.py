"""Desk booking: an office floor plan drawn on a canvas from a server-rendered bitmap. Desk
labels and positions exist only in pixels; a click sends plan coordinates to the server,
which resolves them to a desk (the page never holds the desk geometry).
"""

from __future__ import annotations

import io
import random
import sqlite3

from .common import Request, Response, Site, esc, json_response, now, page, redirect, route

SCHEMA = """
CREATE TABLE fp_desks(id INTEGER PRIMARY KEY, label TEXT, x INTEGER, y INTEGER, w INTEGER, h INTEGER, booked INTEGER);
CREATE TABLE fp_bookings(id INTEGER PRIMARY KEY AUTOINCREMENT, desk_id INTEGER REFERENCES fp_desks(id), day TEXT, user TEXT);
"""

PLAN_W, PLAN_H = 640, 400


def seed(conn: sqlite3.Connection, rng: random.Random) -> None:
    labels = [f"D-{i}" for i in range(1, 13)]
    rng.shuffle(labels)
    k = 0
    for row in range(3):
        for col in range(4):
            x = 200 + col * 105 + rng.randrange(-6, 7)
            y = 40 + row * 120 + rng.randrange(-6, 7)
            conn.execute("INSERT INTO fp_desks VALUES(?,?,?,?,?,?,?)",
                         (k + 1, labels[k], x, y, 80, 60, 1 if rng.random() < 0.25 else 0))
            k += 1


def plan_png(desks: list[sqlite3.Row]) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (PLAN_W, PLAN_H), (250, 250, 246))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=14)  # legible at device scale factor 1
    d.rectangle([2, 2, PLAN_W - 3, PLAN_H - 3], outline=(60, 60, 60), width=4)
    d.rectangle([10, 10, 170, 180], fill=(232, 240, 226), outline=(90, 110, 80), width=2)
    d.text((50, 90), "Kitchen", fill=(60, 80, 50), font=font)
    d.rectangle([10, 220, 170, 390], fill=(236, 232, 245), outline=(100, 90, 130), width=2)
    d.text((40, 300), "Meeting room", fill=(80, 70, 110), font=font)
    d.line([(PLAN_W - 4, 20), (PLAN_W - 4, PLAN_H - 20)], fill=(120, 170, 230), width=6)  # windows
    for desk in desks:
        x, y, w, h = desk["x"], desk["y"], desk["w"], desk["h"]
        fill = (205, 205, 205) if desk["booked"] else (190, 215, 250)
        d.rectangle([x, y, x + w, y + h], fill=fill, outline=(40, 60, 100), width=2)
        d.text((x + 18, y + 12), desk["label"], fill=(20, 30, 60), font=font)
        if desk["booked"]:
            d.text((x + 12, y + 34), "booked", fill=(120, 40, 40), font=font)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


JS = """
const cv=document.getElementById('plan'); const img=new Image(); img.onload=()=>cv.getContext('2d').drawImage(img,0,0);
img.src=cv.dataset.src; const sel=document.getElementById('selected'), inp=document.getElementById('desk'),
 btn=document.getElementById('book');
cv.addEventListener('click',async e=>{const r=cv.getBoundingClientRect();
 const x=(e.clientX-r.left)*cv.width/r.width, y=(e.clientY-r.top)*cv.height/r.height;
 const res=await fetch(cv.dataset.pick,{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify({x,y})});
 const d=await res.json(); if(!d.id){sel.textContent='No desk there'; btn.disabled=true; return;}
 sel.textContent=d.booked?('Desk '+d.label+' is already booked'):('Selected desk '+d.label);
 inp.value=d.id; btn.disabled=!!d.booked;});
"""


def plan(req: Request) -> Response:
    mine = req.conn.execute("SELECT d.label,b.day FROM fp_bookings b JOIN fp_desks d ON d.id=b.desk_id ORDER BY b.id").fetchall()
    lis = "".join(f"<li>{esc(m['label'])} on {esc(m['day'])}</li>" for m in mine) or "<li>None yet</li>"
    body = (f'<h1>Book a desk for tomorrow</h1><div class=card><canvas id=plan width={PLAN_W} height={PLAN_H} role=img '
            f'aria-label="Office floor plan" data-src="{req.url("/desks/plan.png")}" data-pick="{req.url("/desks/pick")}" '
            f'style="max-width:100%;cursor:pointer"></canvas><p id=selected aria-live=polite>Click a desk on the plan.</p>'
            f'<form method=post action="{req.url("/desks/book")}"><input type=hidden id=desk name=desk>'
            f'<button id=book class=btn type=submit disabled>Book this desk</button></form></div>'
            f'<div class=card><h2>My bookings</h2><ul>{lis}</ul></div>')
    nav = f'<header class="top"><span class="brand">Deskly</span><a href="{req.url("/desks/")}">Floor 3</a></header>'
    return page(req, "Desks", body, nav=nav, js=JS, toast="Desk booked" if req.query.get("booked") else "")


def plan_image(req: Request) -> Response:
    desks = req.conn.execute("SELECT * FROM fp_desks ORDER BY id").fetchall()
    return Response(body=plan_png(desks), content_type="image/png")


def pick(req: Request) -> Response:
    p = req.json() or {}
    x, y = float(p.get("x", -1)), float(p.get("y", -1))
    row = req.conn.execute("SELECT id,label,booked FROM fp_desks WHERE ?>=x AND ?<=x+w AND ?>=y AND ?<=y+h",
                           (x, x, y, y)).fetchone()
    return json_response({"id": row["id"], "label": row["label"], "booked": bool(row["booked"])} if row else {"id": None})


def book(req: Request) -> Response:
    did = req.field("desk")
    row = req.conn.execute("SELECT booked FROM fp_desks WHERE id=?", (int(did),)).fetchone() if did.isdigit() else None
    if row is None or row[0]:
        return redirect(req.url("/desks/"))
    day = now(req.conn)[:10]
    req.conn.execute("UPDATE fp_desks SET booked=1 WHERE id=?", (int(did),))
    req.conn.execute("INSERT INTO fp_bookings(desk_id,day,user) VALUES(?,?,?)", (int(did), f"after {day}", "alex"))
    return redirect(req.url("/desks/", booked=1))


SITE = Site(
    name="floorplan",
    prefix="/desks",
    title="Desk booking",
    routes=(
        route("GET", r"/desks/", plan),
        route("GET", r"/desks/plan.png", plan_image),
        route("POST", r"/desks/pick", pick),
        route("POST", r"/desks/book", book),
    ),
    irreversible=(),  # declared irreversible controls (accessible names)
)
