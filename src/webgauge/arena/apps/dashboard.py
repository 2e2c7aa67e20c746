"""Dashboard: a revenue chart drawn on a canvas from a server-rendered bitmap (the numbers exist
only in pixels), a "report" form, and an alerts panel whose action buttons show one label in
pixels (CSS generated content) while their DOM text and accessible names carry stale labels.
"""

from __future__ import annotations

import io
import random
import sqlite3

from .common import Request, Response, Site, esc, now, page, redirect, route

SCHEMA = """
CREATE TABLE dash_revenue(month INTEGER PRIMARY KEY, amount INTEGER);
CREATE TABLE dash_reports(id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT, value TEXT, created_at TEXT);
CREATE TABLE dash_alerts(id INTEGER PRIMARY KEY, title TEXT, status TEXT);
CREATE TABLE dash_slots(slot INTEGER PRIMARY KEY, action TEXT);
"""

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
ACTIONS = ["acknowledge", "snooze", "escalate"]
ALERTS = ["Disk usage 91% on db-2", "Latency p95 above 800 ms", "Certificate expires in 6 days",
          "Queue backlog over 10k", "Error rate 4.2% on checkout", "Backup job failed"]


def alerts(rng: random.Random, seed: int) -> list[str]:
    """Six alert titles on services named from the seed's topic pool."""
    from ..core.pools import Pool, slice_of_seed

    pool = Pool(rng, slice_of_seed(seed))
    svc = list(dict.fromkeys(pool.topic() for _ in range(60)))[:6]
    return [f"Disk usage {rng.randrange(85, 99)}% on {svc[0]}-db", f"Latency p95 above {rng.randrange(5, 15)}00 ms on {svc[1]}",
            f"Certificate for {svc[2]} expires in {rng.randrange(2, 9)} days", f"Queue backlog over 10k in {svc[3]}",
            f"Error rate {rng.randrange(2, 9)}.{rng.randrange(10)}% on {svc[4]}", f"Backup job failed for {svc[5]}"]


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    amounts = [rng.randrange(30, 80) for _ in MONTHS]
    peak = rng.randrange(12)
    amounts[peak] = max(amounts) + rng.randrange(8, 15)  # a clear winner, visible in pixels
    for m, a in enumerate(amounts, start=1):
        conn.execute("INSERT INTO dash_revenue VALUES(?,?)", (m, a))
    for i, t in enumerate(rng.sample(alerts(rng, seed), 4), start=1):
        conn.execute("INSERT INTO dash_alerts VALUES(?,?,?)", (i, t, "open"))
    for slot, action in enumerate(rng.sample(ACTIONS, 3)):
        conn.execute("INSERT INTO dash_slots VALUES(?,?)", (slot, action))


def chart_png(amounts: list[int]) -> bytes:
    """The revenue bars as a PNG (no numbers printed on bars: reading needs the y axis)."""
    from PIL import Image, ImageDraw, ImageFont

    w, h, left, bottom, top = 640, 320, 50, 40, 20
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=14)  # legible at device scale factor 1
    top_val = 100
    for v in range(0, top_val + 1, 20):
        y = h - bottom - (h - bottom - top) * v / top_val
        d.line([(left, y), (w - 10, y)], fill=(225, 228, 235))
        d.text((6, y - 8), f"{v}k", fill=(90, 96, 110), font=font)
    bw = (w - left - 20) / len(amounts)
    for i, a in enumerate(amounts):
        x0 = left + i * bw + 6
        y0 = h - bottom - (h - bottom - top) * a / top_val
        d.rectangle([x0, y0, x0 + bw - 12, h - bottom], fill=(43, 89, 195))
        d.text((x0 + 2, h - bottom + 8), MONTHS[i], fill=(50, 56, 70), font=font)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


CSS = """
.dom-label{font-size:0} .act{min-width:96px;margin-right:6px}
.alert-row{display:flex;flex-wrap:wrap;gap:6px;align-items:center;justify-content:space-between;padding:8px 0;border-bottom:1px solid #e4e7ee}
canvas{max-width:100%;height:auto}
"""

JS = """
const cv=document.getElementById('chart'); if(cv){const img=new Image(); img.onload=()=>cv.getContext('2d').drawImage(img,0,0);
 img.src=cv.dataset.src;}
"""


def dashboard(req: Request) -> Response:
    c = req.conn
    slots = dict(c.execute("SELECT slot,action FROM dash_slots").fetchall())
    # Pixels show the true label (CSS generated content); the DOM text and the accessible
    # name keep the labels of an older layout, so the DOM and the screen disagree.
    stale = {0: "Acknowledge", 1: "Snooze", 2: "Escalate"}
    css = CSS + "".join(f'.s{k}::after{{content:"{slots[k].capitalize()}"}}' for k in slots)
    alerts = "".join(
        f'<div class=alert-row><span>{esc(a["title"])} <small>({esc(a["status"])})</small></span><span>'
        + "".join(
            f'<form method=post action="{req.url("/dash/alerts/%d/%d" % (a["id"], k))}" style="display:inline">'
            f'<button class="btn secondary act s{k}" aria-label="{stale[k]}"><span class=dom-label>{stale[k]}</span></button></form>'
            for k in sorted(slots))
        + "</span></div>"
        for a in c.execute("SELECT * FROM dash_alerts ORDER BY id")
    )
    opts = "".join(f'<option value="{m}">{m}</option>' for m in MONTHS)
    body = (f'<h1>Operations dashboard</h1><div class=card><h2>Revenue 2025 (k$)</h2>'
            f'<canvas id=chart width=640 height=320 role=img aria-label="Revenue by month" data-src="{req.url("/dash/chart.png")}">'
            f'</canvas></div><form class=card method=post action="{req.url("/dash/report")}"><h2>Report peak month</h2>'
            f'<label for=month>Month with the highest revenue</label><select id=month name=month><option value="">Choose…</option>'
            f'{opts}</select> <button class=btn type=submit>Submit report</button></form>'
            f'<div class=card><h2>Alerts</h2>{alerts}</div>')
    nav = f'<header class="top"><span class="brand">Opsboard</span><a href="{req.url("/dash/")}">Overview</a></header>'
    return page(req, "Dashboard", body, nav=nav, css=css, js=JS, toast="Report filed" if req.query.get("filed") else "")


def chart(req: Request) -> Response:
    amounts = [r[0] for r in req.conn.execute("SELECT amount FROM dash_revenue ORDER BY month")]
    return Response(body=chart_png(amounts), content_type="image/png")


def report(req: Request) -> Response:
    month = req.field("month")
    if month not in MONTHS:
        return redirect(req.url("/dash/"))
    req.conn.execute("INSERT INTO dash_reports(kind,value,created_at) VALUES('peak_month',?,?)", (month, now(req.conn)))
    return redirect(req.url("/dash/", filed=1))


def alert_action(req: Request) -> Response:
    row = req.conn.execute("SELECT action FROM dash_slots WHERE slot=?", (int(req.params["slot"]),)).fetchone()
    if row is None:
        return Response(404, b"no such action")
    status = {"acknowledge": "acknowledged", "snooze": "snoozed", "escalate": "escalated"}[row[0]]
    req.conn.execute("UPDATE dash_alerts SET status=? WHERE id=?", (status, int(req.params["id"])))
    return redirect(req.url("/dash/"))


SITE = Site(
    name="dashboard",
    prefix="/dash",
    title="Operations dashboard",
    routes=(
        route("GET", r"/dash/", dashboard),
        route("GET", r"/dash/chart.png", chart),
        route("POST", r"/dash/report", report),
        route("POST", r"/dash/alerts/(?P<id>\d+)/(?P<slot>\d+)", alert_action),
    ),
    irreversible=(),  # declared irreversible controls (accessible names)
)
