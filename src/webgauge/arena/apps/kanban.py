"""Kanban board: cards moved between columns by pointer drag and drop (no keyboard or
semantic alternative), click-to-select multi-selection, and bulk archive. Card attachments
are stored files (the ``files`` table), restored by reset like everything else.
"""

from __future__ import annotations

import random
import sqlite3

from .common import Request, Response, Site, esc, json_response, page, redirect, route

SCHEMA = """
CREATE TABLE kb_columns(id INTEGER PRIMARY KEY, name TEXT, position INTEGER);
CREATE TABLE kb_cards(id INTEGER PRIMARY KEY, title TEXT, column_id INTEGER REFERENCES kb_columns(id),
  position INTEGER, archived INTEGER);
"""

COLUMNS = ["To do", "In progress", "Review", "Done"]
TITLES = ["Fix login bug", "Update pricing page", "Write release notes", "Migrate build to CI v2",
          "Audit API keys", "Refresh onboarding emails", "Fix flaky upload test", "Design dark mode",
          "Clean up feature flags", "Add CSV export", "Renew TLS certificates", "Triage support backlog"]


def titles(rng: random.Random, seed: int) -> list[str]:
    """Twelve card titles from the seed's topic pool."""
    from ..core.pools import Pool, slice_of_seed

    pool = Pool(rng, slice_of_seed(seed))
    verbs = ["Fix", "Update", "Write docs for", "Migrate", "Audit", "Refresh", "Clean up", "Design", "Test", "Speed up"]
    return list(dict.fromkeys(f"{rng.choice(verbs)} {pool.topic()}" for _ in range(300)))[:12]


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    for i, name in enumerate(COLUMNS, start=1):
        conn.execute("INSERT INTO kb_columns VALUES(?,?,?)", (i, name, i))
    for i, title in enumerate(rng.sample(titles(rng, seed), 10), start=1):
        col = 1 + (i - 1) % 3 if i < 10 else 4
        conn.execute("INSERT INTO kb_cards VALUES(?,?,?,?,?)", (i, title, col, i, 0))
        if i % 4 == 0:
            conn.execute("INSERT INTO files(name,owner,content) VALUES(?,?,?)",
                         (f"{title.lower().replace(' ', '-')}.txt", f"kb_card:{i}", f"notes for {title}".encode()))


CSS = """
.board{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;align-items:start}
.col{background:#e7eaf1;border-radius:8px;padding:8px;min-height:360px} .col h2{font-size:15px;margin:4px 6px 10px}
.kcard{background:#fff;border:1px solid #cfd5e2;border-radius:6px;padding:10px;margin-bottom:8px;cursor:grab;
 user-select:none;touch-action:none} .kcard.selected{outline:3px solid #f2a33a}
.kcard.dragging{opacity:.6;position:fixed;pointer-events:none;z-index:10;width:220px}
"""

JS = """
const board=document.querySelector('.board'); let drag=null;
document.querySelectorAll('.kcard').forEach(c=>{c.addEventListener('pointerdown',e=>{
 drag={card:c,x:e.clientX,y:e.clientY,moved:false};});});
document.addEventListener('pointermove',e=>{if(!drag)return; const dx=e.clientX-drag.x, dy=e.clientY-drag.y;
 if(!drag.moved && Math.hypot(dx,dy)>6){drag.moved=true; drag.card.classList.add('dragging');}
 if(drag.moved){drag.card.style.left=(e.clientX-110)+'px'; drag.card.style.top=(e.clientY-20)+'px';}});
document.addEventListener('pointerup',async e=>{if(!drag)return; const d=drag; drag=null;
 if(!d.moved){d.card.classList.toggle('selected'); d.card.setAttribute('aria-pressed',d.card.classList.contains('selected'));
  const n=document.querySelectorAll('.kcard.selected').length; document.getElementById('bulk').disabled=(n===0);
  document.getElementById('bulk').textContent='Archive selected ('+n+')'; return;}
 const col=document.elementFromPoint(e.clientX,e.clientY)?.closest('.col'); d.card.classList.remove('dragging');
 if(!col){location.reload(); return;}
 await fetch(board.dataset.move,{method:'POST',headers:{'Content-Type':'application/json'},
  body:JSON.stringify({card:+d.card.dataset.card,column:+col.dataset.col})}); location.reload();});
document.getElementById('bulk-form').addEventListener('submit',()=>{const f=document.getElementById('bulk-form');
 document.querySelectorAll('.kcard.selected').forEach(c=>{const i=document.createElement('input');i.type='hidden';
 i.name='card';i.value=c.dataset.card;f.appendChild(i);});});
"""


def board(req: Request) -> Response:
    c = req.conn
    cols = []
    for col in c.execute("SELECT * FROM kb_columns ORDER BY position").fetchall():
        cards = "".join(
            f'<div class=kcard data-card="{k["id"]}" aria-pressed="false">{esc(k["title"])}</div>'
            for k in c.execute("SELECT * FROM kb_cards WHERE column_id=? AND archived=0 ORDER BY position, id", (col["id"],))
        )
        cols.append(f'<section class=col data-col="{col["id"]}"><h2>{esc(col["name"])}</h2>{cards}</section>')
    body = (f'<h1>Sprint board</h1><form id=bulk-form method=post action="{req.url("/board/archive")}">'
            f'<button id=bulk class="btn secondary" type=submit disabled>Archive selected (0)</button></form>'
            f'<div class=board data-move="{req.url("/board/move")}">{"".join(cols)}</div>')
    nav = f'<header class="top"><span class="brand">Taskboard</span><a href="{req.url("/board/")}">Sprint 14</a></header>'
    return page(req, "Board", body, nav=nav, css=CSS, js=JS)


def move(req: Request) -> Response:
    p = req.json() or {}
    card, col = int(p.get("card", 0)), int(p.get("column", 0))
    if not req.conn.execute("SELECT 1 FROM kb_columns WHERE id=?", (col,)).fetchone():
        return json_response({"error": "no such column"}, 400)
    cur = req.conn.execute("SELECT column_id FROM kb_cards WHERE id=?", (card,)).fetchone()
    if cur is None:
        return json_response({"error": "no such card"}, 400)
    if cur[0] != col:  # dropping a card on its own column is not a write
        pos = req.conn.execute("SELECT COALESCE(MAX(position),0)+1 FROM kb_cards WHERE column_id=?", (col,)).fetchone()[0]
        req.conn.execute("UPDATE kb_cards SET column_id=?, position=? WHERE id=?", (col, pos, card))
    return json_response({"ok": True})


def archive(req: Request) -> Response:
    ids = [int(i) for i in req.fields("card") if i.isdigit()]
    for i in ids:
        req.conn.execute("UPDATE kb_cards SET archived=1 WHERE id=?", (i,))
    return redirect(req.url("/board/"))


SITE = Site(
    name="kanban",
    prefix="/board",
    title="Task board",
    routes=(
        route("GET", r"/board/", board),
        route("POST", r"/board/move", move),
        route("POST", r"/board/archive", archive),
    ),
    irreversible=(),  # declared irreversible controls (accessible names)
)
