"""Docs wiki: hundreds of pages with search and pagination, rendered on the client.

A Starlette app with Jinja2 templates. The HTML is only a shell; ``wiki.js`` fetches JSON
from ``/wiki/api`` and builds the search results, the article and the editor in the
browser, like a single-page app. Every page holds a few facts (owner, retention, cost
centre, escalation contact, next review) that tasks ask about or change; saving shows a
transient "Page saved" notification and stores a revision.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from ..content.pools import Pool
from .asgi import AsgiApp, LazyApp, template_cache
from .common import BASE_CSS, now

__all__ = ["APP", "SCHEMA", "FACT_KEYS", "PAGE_SIZE"]

SCHEMA = """
CREATE TABLE wiki_pages(id INTEGER PRIMARY KEY, slug TEXT UNIQUE, title TEXT, section TEXT, topic TEXT, team TEXT,
  facts TEXT, body TEXT, updated TEXT);
CREATE TABLE wiki_revisions(id INTEGER PRIMARY KEY AUTOINCREMENT, page_id INTEGER, facts TEXT, summary TEXT, at TEXT);
"""

FACT_KEYS = ("Owner", "Retention (days)", "Cost centre", "Escalation contact", "Next review")
SECTIONS = ("Engineering", "Finance", "Operations", "People", "Security")
PAGE_SIZE = 10
N_PAGES = 320
_DIR = Path(__file__).parent / "templates"
_env = template_cache(_DIR)


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int) -> None:
    from ..content.pools import staff

    pool = Pool.of_seed(rng, seed)
    teams = pool.companies(40)
    topics = [t for t in dict.fromkeys(pool.topic() for _ in range(400))][:60]
    people = staff(seed)
    owners = [people[i] for i in sorted(rng.sample(range(len(people)), 90))]
    seen = set()
    i = 0
    while i < N_PAGES:
        topic, team = rng.choice(topics), rng.choice(teams)
        if (topic, team) in seen:
            continue
        seen.add((topic, team))
        i += 1
        facts = {"Owner": rng.choice(owners)[0], "Retention (days)": str(rng.randrange(7, 400)),
                 "Cost centre": f"CC-{rng.randrange(1000, 9999)}",
                 "Escalation contact": rng.choice(owners)[1],
                 "Next review": pool.date("2026-03-10", 300)}
        title = f"{topic.capitalize()} guide ({team})"
        slug = f"{topic}-{team.lower().replace(' ', '-')}"
        body = (f"This page describes how {team} handles {topic}.\n"
                f"Questions go to the owner first; urgent problems to the escalation contact.\n"
                f"Records are kept for the retention period and then deleted.")
        conn.execute("INSERT INTO wiki_pages VALUES(?,?,?,?,?,?,?,?,?)",
                     (i, slug, title, rng.choice(SECTIONS), topic, team, json.dumps(facts), body, "2026-02-27"))


def _shell(request, view: str, slug: str = ""):
    from starlette.responses import HTMLResponse

    html = _env().get_template("wiki.html").render(title="Docs", base_css=BASE_CSS, base=request.state.base, view=view,
                                                 slug=slug, toast="")
    return HTMLResponse(html)


async def home(request):
    return _shell(request, "search")


async def page_view(request):
    return _shell(request, "page", request.path_params["slug"])


async def script(request):
    from starlette.responses import Response

    return Response((_DIR / "wiki.js").read_bytes(), media_type="text/javascript")


async def api_search(request):
    from starlette.responses import JSONResponse

    q = request.query_params.get("q", "").strip().lower()
    try:
        page = max(1, int(request.query_params.get("page", "1")))
    except ValueError:
        page = 1
    conn = request.state.conn
    where, args = ("WHERE lower(title) LIKE ? OR lower(body) LIKE ?", (f"%{q}%", f"%{q}%")) if q else ("", ())
    total = conn.execute(f"SELECT count(*) FROM wiki_pages {where}", args).fetchone()[0]
    rows = conn.execute(f"SELECT slug, title, section FROM wiki_pages {where} ORDER BY title LIMIT ? OFFSET ?",
                        (*args, PAGE_SIZE, (page - 1) * PAGE_SIZE)).fetchall()
    return JSONResponse({"total": total, "page": page, "pages": max(1, -(-total // PAGE_SIZE)),
                         "results": [{"slug": r[0], "title": r[1], "section": r[2]} for r in rows]})


async def api_page(request):
    from starlette.responses import JSONResponse

    conn = request.state.conn
    row = conn.execute("SELECT id, title, section, facts, body, updated FROM wiki_pages WHERE slug=?",
                       (request.path_params["slug"],)).fetchone()
    if row is None:
        return JSONResponse({"error": "no such page"}, status_code=404)
    if request.method == "GET":
        return JSONResponse({"title": row[1], "section": row[2], "facts": json.loads(row[3]), "body": row[4],
                             "updated": row[5]})
    try:
        data = json.loads(await request.body())
        facts = {k: str(data["facts"][k]).strip() for k in FACT_KEYS}
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"error": f"send every fact: {', '.join(FACT_KEYS)}"}, status_code=400)
    if not facts["Retention (days)"].isdigit():
        return JSONResponse({"error": "Retention must be a whole number of days"}, status_code=400)
    if json.dumps(facts) != row[3]:
        at = now(conn)
        conn.execute("UPDATE wiki_pages SET facts=?, updated=? WHERE id=?", (json.dumps(facts), at[:10], row[0]))
        conn.execute("INSERT INTO wiki_revisions(page_id, facts, summary, at) VALUES(?,?,?,?)",
                     (row[0], json.dumps(facts), str(data.get("summary", ""))[:200], at))
    return JSONResponse({"ok": True})


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/wiki/", home), Route("/wiki/p/{slug}", page_view), Route("/wiki/static/wiki.js", script),
        Route("/wiki/api/search", api_search), Route("/wiki/api/pages/{slug}", api_page, methods=["GET", "POST"]),
    ])


APP = AsgiApp(name="wiki", prefix="/wiki", title="Docs wiki", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              renders="client")
