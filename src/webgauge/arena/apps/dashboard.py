"""Operations dashboard: charts drawn on a canvas from server-rendered bitmaps (the numbers
exist only in pixels) for several regions, metrics and years; a report form; and a paginated
alerts list (search, severity/team/status filters, sort by impact) whose action buttons show
one label in pixels (CSS generated content) while their DOM text and accessible names carry
the stale labels of an older layout.

A Starlette app with Jinja2 templates, rendered on the server. Every chart series has one
clear highest and one clear lowest month, so chart-reading tasks have exactly one answer.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import sqlite3
from typing import Any
from urllib.parse import urlencode

from ..content.pools import Pool
from .asgi import AsgiApp, LazyApp
from .common import now
from .web import payload, redirect, render

__all__ = ["APP", "SCHEMA", "MONTHS", "ACTIONS", "METRICS", "YEARS", "SEVERITIES", "PER_PAGE", "list_alerts",
           "chart_png"]

SCHEMA = """
CREATE TABLE dash_series(region TEXT, metric TEXT, year INTEGER, month INTEGER, value INTEGER);
CREATE TABLE dash_reports(id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT, value TEXT, region TEXT, metric TEXT,
  year INTEGER, created_at TEXT);
CREATE TABLE dash_alerts(id INTEGER PRIMARY KEY, title TEXT, service TEXT, team TEXT, severity TEXT, impact INTEGER,
  opened_at TEXT, status TEXT);
CREATE TABLE dash_slots(slot INTEGER PRIMARY KEY, action TEXT);
"""

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
ACTIONS = ["acknowledge", "snooze", "escalate"]
METRICS = {"Revenue": (30, 120, "k$"), "Orders": (200, 900, ""), "Signups": (50, 400, ""),
           "Support tickets": (20, 300, "")}
YEARS = (2023, 2024, 2025)
SEVERITIES = ("critical", "high", "medium", "low")
STATUSES = ("open", "acknowledged", "snoozed", "escalated")
SORTS = {"newest": "opened_at DESC, id", "impact": "impact DESC, id"}
PER_PAGE = 20
N_ALERTS = 150
_KINDS = ("Disk usage {p}% on {svc}-db-{n}", "Latency p95 above {ms} ms on {svc}-api-{n}",
          "Certificate for {svc}-{n} expires in {d} days", "Queue backlog over {k}k in {svc}-worker-{n}",
          "Error rate {e}% on {svc}-web-{n}", "Backup job failed for {svc}-store-{n}")


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    pool = Pool.of_seed(rng, seed)
    regions = list(dict.fromkeys(pool.city() for _ in range(80)))[:6]
    rows, r = [], rng.random
    for region in regions:
        for metric, (lo, hi, _) in METRICS.items():
            span, gap = hi - lo, max(3, (hi - lo) // 9)
            for year in YEARS:
                vals = [lo + int(r() * span) for _ in MONTHS]
                peak, low = int(r() * 12), int(r() * 11)
                low += low >= peak  # a different month
                vals[peak] = max(vals) + gap + int(r() * gap)  # clear winners, visible in pixels
                vals[low] = max(1, min(vals) - gap - int(r() * gap))
                rows += [(region, metric, year, m, v) for m, v in enumerate(vals, start=1)]
    conn.executemany("INSERT INTO dash_series VALUES(?,?,?,?,?)", rows)
    topics = list(dict.fromkeys(pool.topic() for _ in range(200)))
    teams = [f"{t.capitalize()} team" for t in topics[:6]]
    services = {svc: teams[i % len(teams)] for i, svc in enumerate(topics[6:18] or topics[:12])}
    titles: dict[str, tuple[str, str]] = {}
    svcs = list(services)
    while len(titles) < N_ALERTS:
        svc, kind, x = svcs[int(r() * len(svcs))], _KINDS[int(r() * len(_KINDS))], r()
        t = kind.format(svc=svc, n=1 + int(r() * 9), p=85 + int(x * 15), ms=(5 + int(x * 25)) * 100, d=2 + int(x * 8),
                        k=10 + int(x * 80), e=f"{2 + int(x * 7)}.{int(r() * 10)}")
        titles.setdefault(t, (svc, services[svc]))
    impacts = rng.sample(range(50, 60000), N_ALERTS)
    start = dt.datetime(2026, 2, 16, 0, 0)
    alerts = []
    sev_cum, status_cum = (10, 35, 70, 100), (70, 85, 95, 100)
    for i, (title, (svc, team)) in enumerate(titles.items(), start=1):
        x, y = r() * 100, r() * 100
        sev = SEVERITIES[next(k for k, c in enumerate(sev_cum) if x < c)]
        status = STATUSES[next(k for k, c in enumerate(status_cum) if y < c)]
        opened = start + dt.timedelta(minutes=int(r() * 14 * 24 * 60))
        alerts.append((i, title, svc, team, sev, impacts[i - 1], opened.strftime("%Y-%m-%dT%H:%M:00Z"), status))
    conn.executemany("INSERT INTO dash_alerts VALUES(?,?,?,?,?,?,?,?)", alerts)
    conn.executemany("INSERT INTO dash_slots VALUES(?,?)", list(enumerate(rng.sample(ACTIONS, 3))))


def list_alerts(conn: sqlite3.Connection, q: str = "", severity: str = "", team: str = "", status: str = "",
                sort: str = "newest") -> list[dict]:
    """The alerts the dashboard lists for these filters, in its order."""
    sql, args = "SELECT * FROM dash_alerts WHERE 1=1", list[Any]()
    for col, val in (("severity", severity), ("team", team), ("status", status)):
        if val:
            sql, args = sql + f" AND {col}=?", args + [val]
    if q:
        sql, args = sql + " AND title LIKE ?", args + [f"%{q}%"]
    cur = conn.execute(sql + " ORDER BY " + SORTS.get(sort, SORTS["newest"]), args)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur]


def chart_png(values: list[int], title: str, unit: str = "") -> bytes:
    """The bars as a PNG (no numbers printed on bars: reading needs the y axis)."""
    from PIL import Image, ImageDraw, ImageFont

    w, h, left, bottom, top = 640, 320, 56, 40, 34
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=14)  # legible at device scale factor 1
    d.text((left, 8), title, fill=(30, 36, 50), font=font)
    step = next(s for s in (10, 20, 25, 50, 100, 200, 250, 500, 1000) if max(values) / s <= 6)
    top_val = step * (-(-max(values) // step))
    for v in range(0, top_val + 1, step):
        y = h - bottom - (h - bottom - top) * v / top_val
        d.line([(left, y), (w - 10, y)], fill=(225, 228, 235))
        d.text((4, y - 8), f"{v}{unit[:1] if unit else ''}", fill=(90, 96, 110), font=font)
    bw = (w - left - 20) / len(values)
    for i, a in enumerate(values):
        x0 = left + i * bw + 6
        y0 = h - bottom - (h - bottom - top) * a / top_val
        d.rectangle([x0, y0, x0 + bw - 12, h - bottom], fill=(43, 89, 195))
        d.text((x0 + 2, h - bottom + 8), MONTHS[i], fill=(50, 56, 70), font=font)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _regions(conn) -> list[str]:
    return [r[0] for r in conn.execute("SELECT DISTINCT region FROM dash_series ORDER BY rowid")]


def _alert_filters(qp) -> dict[str, str]:
    return {"q": qp.get("q", "").strip(),
            "severity": qp.get("severity", "") if qp.get("severity") in SEVERITIES else "",
            "team": qp.get("team", ""), "status": qp.get("status", "") if qp.get("status") in STATUSES else "",
            "sort": qp.get("sort", "newest") if qp.get("sort") in SORTS else "newest"}


async def dashboard(request):
    conn, qp = request.state.conn, request.query_params
    slots = dict(conn.execute("SELECT slot, action FROM dash_slots").fetchall())
    f = _alert_filters(qp)
    alerts = list_alerts(conn, **f)
    pages = max(1, -(-len(alerts) // PER_PAGE))
    try:
        page = min(max(1, int(qp.get("page", "1"))), pages)
    except ValueError:
        page = 1
    regions = _regions(conn)
    return render(
        request, "dashboard.html", "Dashboard", toast="Report filed" if qp.get("filed") else "",
        slots=slots, stale={0: "Acknowledge", 1: "Snooze", 2: "Escalate"}, months=MONTHS, regions=regions,
        metrics=list(METRICS), years=YEARS, severities=SEVERITIES, statuses=STATUSES, f=f,
        teams=[r[0] for r in conn.execute("SELECT DISTINCT team FROM dash_alerts ORDER BY team")],
        alerts=alerts[(page - 1) * PER_PAGE: page * PER_PAGE], total=len(alerts), page=page, pages=pages,
        here=urlencode({**f, "page": page}), pager=lambda p: urlencode({**f, "page": p}))


async def chart(request):
    from starlette.responses import Response

    conn, qp = request.state.conn, request.query_params
    region = qp.get("region") or _regions(conn)[0]
    metric = qp.get("metric") if qp.get("metric") in METRICS else "Revenue"
    year = int(qp["year"]) if qp.get("year", "").isdigit() else YEARS[-1]
    vals = [r[0]
            for r in conn.execute("SELECT value FROM dash_series WHERE region=? AND metric=? AND year=? ORDER BY month",
                                       (region, metric, year))]
    if len(vals) != 12:
        return Response(b"no such chart", status_code=404, media_type="text/plain")
    unit = METRICS[metric][2]
    title = f"{metric}{' (' + unit + ')' if unit else ''} · {region} · {year}"
    return Response(chart_png(vals, title, unit), media_type="image/png")


async def report(request):
    conn = request.state.conn
    form, _ = await payload(request)
    get = lambda k, d="": form.get(k, [d])[0]  # noqa: E731
    month, kind = get("month"), get("kind", "highest")
    region, metric, year = get("region") or _regions(conn)[0], get("metric", "Revenue"), get("year", str(YEARS[-1]))
    if month not in MONTHS or kind not in ("highest", "lowest") or metric not in METRICS or not year.isdigit() \
            or region not in _regions(conn):
        return redirect(request, "/dash/")
    conn.execute("INSERT INTO dash_reports(kind, value, region, metric, year, created_at) VALUES(?,?,?,?,?,?)",
                 ("peak_month" if kind == "highest" else "low_month", month, region, metric, int(year), now(conn)))
    return redirect(request, "/dash/", filed=1)


async def alert_action(request):
    from starlette.responses import Response

    conn = request.state.conn
    form, _ = await payload(request)
    row = conn.execute("SELECT action FROM dash_slots WHERE slot=?", (request.path_params["slot"],)).fetchone()
    if row is None:
        return Response(b"no such action", status_code=404)
    status = {"acknowledge": "acknowledged", "snooze": "snoozed", "escalate": "escalated"}[row[0]]
    conn.execute("UPDATE dash_alerts SET status=? WHERE id=?", (status, request.path_params["aid"]))
    back = {k: form.get(k, [""])[0] for k in ("q", "severity", "team", "status", "sort", "page")}
    return redirect(request, "/dash/", **back)


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/dash/", dashboard), Route("/dash/chart.png", chart), Route("/dash/report", report, methods=["POST"]),
        Route("/dash/alerts/{aid:int}/{slot:int}", alert_action, methods=["POST"]),
    ])


APP = AsgiApp(name="dashboard", prefix="/dash", title="Operations dashboard", app=LazyApp(_app), schema=SCHEMA,
              seed=seed, irreversible=(), renders="server")
