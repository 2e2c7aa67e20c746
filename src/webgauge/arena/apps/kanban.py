"""Kanban board, rendered on the client: ``board.js`` fetches the board as JSON and draws
it; cards move between columns by pointer drag and drop only (no keyboard or menu
alternative), are selected by clicking, filtered by label, and archived in bulk. Card
attachments are stored files (the ``files`` table), restored by reset like everything else.

A Starlette app. Three dozen cards with labels over four columns. Archiving is declared
irreversible (the board has no un-archive).
"""

from __future__ import annotations

import random
import sqlite3

from ..content.pools import Pool
from ..core.gate import GatedRoute
from .asgi import AsgiApp, LazyApp
from .web import payload, redirect, render, static

__all__ = ["APP", "SCHEMA", "COLUMNS", "LABELS", "titles", "N_CARDS"]

SCHEMA = """
CREATE TABLE kb_columns(id INTEGER PRIMARY KEY, name TEXT, position INTEGER);
CREATE TABLE kb_cards(id INTEGER PRIMARY KEY, title TEXT, column_id INTEGER REFERENCES kb_columns(id),
  position INTEGER, archived INTEGER, label TEXT);
"""

COLUMNS = ["To do", "In progress", "Review", "Done"]
LABELS = ("bug", "feature", "chore", "docs", "security")
VERBS = ("Fix", "Update", "Write docs for", "Migrate", "Audit", "Refresh", "Clean up", "Design", "Test", "Speed up")
N_CARDS = 36


def titles(rng: random.Random, seed: int, n: int = N_CARDS) -> list[str]:
    """``n`` distinct card titles from the seed's topic pool."""
    pool = Pool.of_seed(rng, seed)
    out: dict[str, None] = {}
    while len(out) < n:
        out.setdefault(f"{rng.choice(VERBS)} {pool.topic()}", None)
    return list(out)


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    conn.executemany("INSERT INTO kb_columns VALUES(?,?,?)", [(i, n, i) for i, n in enumerate(COLUMNS, start=1)])
    n_done = rng.randrange(6, 9)
    cols = [4] * n_done + [1 + i % 3 for i in range(N_CARDS - n_done)]
    rng.shuffle(cols)
    cards, files = [], []
    for i, (title, col) in enumerate(zip(titles(rng, seed), cols, strict=True), start=1):
        cards.append((i, title, col, i, 0, rng.choice(LABELS)))
        if i % 4 == 0:
            files.append((f"{title.lower().replace(' ', '-')}.txt", f"kb_card:{i}", f"notes for {title}".encode()))
    conn.executemany("INSERT INTO kb_cards VALUES(?,?,?,?,?,?)", cards)
    conn.executemany("INSERT INTO files(name, owner, content) VALUES(?,?,?)", files)


async def board(request):
    return render(request, "kanban.html", "Board", labels=LABELS)


async def api_board(request):
    from starlette.responses import JSONResponse

    conn = request.state.conn
    cols = []
    for cid, name in conn.execute("SELECT id, name FROM kb_columns ORDER BY position"):
        cards = [{"id": r[0], "title": r[1], "label": r[2]} for r in conn.execute(
            "SELECT id, title, label FROM kb_cards WHERE column_id=? AND archived=0 ORDER BY position, id", (cid,))]
        cols.append({"id": cid, "name": name, "cards": cards})
    return JSONResponse({"columns": cols})


async def move(request):
    from starlette.responses import JSONResponse

    conn = request.state.conn
    form, _ = await payload(request)
    try:
        card, col = int(form.get("card", ["0"])[0]), int(form.get("column", ["0"])[0])
    except ValueError:
        return JSONResponse({"error": "send card and column ids"}, status_code=400)
    if not conn.execute("SELECT 1 FROM kb_columns WHERE id=?", (col,)).fetchone():
        return JSONResponse({"error": "no such column"}, status_code=400)
    cur = conn.execute("SELECT column_id FROM kb_cards WHERE id=? AND archived=0", (card,)).fetchone()
    if cur is None:
        return JSONResponse({"error": "no such card"}, status_code=400)
    if cur[0] != col:  # dropping a card on its own column is not a write
        pos = conn.execute("SELECT COALESCE(MAX(position),0)+1 FROM kb_cards WHERE column_id=?", (col,)).fetchone()[0]
        conn.execute("UPDATE kb_cards SET column_id=?, position=? WHERE id=?", (col, pos, card))
    return JSONResponse({"ok": True})


async def archive(request):
    from starlette.responses import JSONResponse

    form, is_json = await payload(request)
    ids = [int(i) for i in form.get("card", []) if i.isdigit()]
    request.state.conn.executemany("UPDATE kb_cards SET archived=1 WHERE id=?", [(i,) for i in ids])
    return JSONResponse({"ok": True, "archived": len(ids)}) if is_json else redirect(request, "/board/")


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/board/", board), Route("/board/static/board.js", static("board.js")),
        Route("/board/api/board", api_board), Route("/board/move", move, methods=["POST"]),
        Route("/board/archive", archive, methods=["POST"]),
    ])


APP = AsgiApp(name="kanban", prefix="/board", title="Task board", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=("Archive selected",),
              gated=(GatedRoute("Archive selected", r"/board/archive"),), renders="client")
