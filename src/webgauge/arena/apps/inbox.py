"""Inbox: a few hundred mails in folders (inbox, archive, sent, trash) with search and
pagination, a dense message list with 14 px icon buttons (star, archive, delete), a message
view with a "More" popover menu (forward, delete), reply and compose, and a stand-in mail
relay (``ext_mail_outbox``) that records every message the app sends.

A Starlette app with Jinja2 templates, rendered on the server. The mails come from the
seed's slice of the entity pools: colleagues from the staff directory (two with
near-identical names), newsletters and tagged announcements from companies, invoices, and
reorder requests that name products of the seed's shop (so the shop must be seeded first).
"""

from __future__ import annotations

import functools
import random
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

from ..content.pools import Pool, staff
from ..core.gate import GatedRoute
from .asgi import AsgiApp, LazyApp, template_cache
from .common import BASE_CSS, int_param, now

__all__ = ["APP", "SCHEMA", "ME", "PAGE_SIZE", "FOLDERS", "TAGS", "people_and_subjects"]

SCHEMA = """
CREATE TABLE mail_messages(id INTEGER PRIMARY KEY AUTOINCREMENT, folder TEXT, sender TEXT, sender_name TEXT,
  recipients TEXT, subject TEXT, body TEXT, starred INTEGER, received_at TEXT);
CREATE TABLE mail_contacts(email TEXT PRIMARY KEY, name TEXT);
CREATE TABLE ext_mail_outbox(id INTEGER PRIMARY KEY AUTOINCREMENT, to_addr TEXT, subject TEXT, body TEXT, sent_at TEXT);
"""

ME = "alex.morgan@example.test"
PAGE_SIZE = 25
FOLDERS = ("inbox", "archive", "sent", "trash")
TAGS = ("Webinar", "Survey", "Sale", "Event", "Offer", "Reminder", "Update", "Invitation")
KINDS = ("numbers", "notes", "plan", "questions", "draft v2", "agenda", "review", "follow-up", "budget", "update",
         "timeline", "checklist", "proposal", "handover", "retro")
N_PERSONAL = 190
_DIR = Path(__file__).parent / "templates"


@functools.lru_cache(maxsize=8)
def _subjects(seed: int) -> list[str]:
    """Every subject of the seed's world: one of its topics and a kind of mail."""
    return [f"{t.capitalize()} {k}" for t in Pool.of_seed(random.Random(0), seed).words("topic") for k in KINDS]


def people_and_subjects(rng: random.Random, seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    """Thirty correspondents (the first two with near-identical names) and unique subjects from
    the seed's pools."""
    people = [n for n, _ in staff(seed)[100:129]]
    first, last = people[0].split(" ", 1)
    people.insert(1, f"{first} {last}son")  # like "Dana Park" / "Dana Parkson"
    subjects = rng.sample(_subjects(seed), N_PERSONAL + 40)
    users = [(n, n.lower().replace(" ", ".").replace("ü", "u")) for n in people]
    return users, subjects


def _when(rng: random.Random) -> str:
    day = rng.randrange(0, 88)  # 2025-12-03 .. 2026-02-28
    month, d = ((12, day + 3) if day < 29 else (1, day - 28) if day < 60 else (2, day - 59))
    year = 2025 if month == 12 else 2026
    return f"{year}-{month:02d}-{d:02d}T{rng.randrange(7, 19):02d}:{rng.randrange(60):02d}:00Z"


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    pool = Pool.of_seed(rng, seed)
    people, subjects = people_and_subjects(rng, seed)
    conn.executemany("INSERT INTO mail_contacts VALUES(?,?)", [(f"{u}@example.test", n) for n, u in people])
    rows = []  # (folder, sender, sender_name, recipients, subject, body, starred, received_at)
    openers = ("Please see below.", "Quick note on this.", "Details attached.", "Following up on our call.",
               "Can you take a look?", "Sharing this before Friday.")
    for i in range(N_PERSONAL):
        name, user = people[i] if i < len(people) else rng.choice(people)
        subj = subjects[i]
        body = (f"Hi Alex,\n\n{rng.choice(openers)} Reference {rng.randrange(1000, 9999)}.\n\n"
                f"Best,\n{name.split()[0]}")
        folder = "archive" if rng.random() < 0.12 else "inbox"
        rows.append((folder, f"{user}@example.test", name, ME, subj, body, int(rng.random() < 0.08), _when(rng)))
    for company in pool.companies(8):  # newsletters: several a sender, spread over the weeks
        slug = company.lower().replace(" ", "")
        for _ in range(rng.randint(3, 7)):
            issue = rng.randrange(10, 99)
            rows.append(("inbox", f"news@{slug}.example", f"{company} News", ME, f"{company} digest no. {issue}",
                         f"This week at {company}: {pool.topic()}, {pool.topic()} and {pool.topic()}.",
                         0, _when(rng)))
    for company in pool.companies(30):  # tagged announcements: "[Tag] ..." from many senders
        slug = company.lower().replace(" ", "")
        tag = rng.choice(TAGS)
        rows.append(("inbox", f"hello@{slug}.example", company, ME, f"[{tag}] {pool.topic().capitalize()} at {company}",
                     f"{company} invites you. Reply STOP to unsubscribe.", 0, _when(rng)))
    for vendor in pool.companies(5):  # invoices
        for _ in range(rng.randint(2, 4)):
            amount = pool.amount(40, 900)
            rows.append(("inbox", f"billing@{vendor.lower().replace(' ', '')}.example", f"{vendor} Billing", ME,
                         f"Invoice INV-{rng.randrange(10000, 99999)} from {vendor}",
                         f"Dear customer,\n\nYour invoice total is ${amount:.2f}, due in 30 days.\n\n{vendor}",
                         0, _when(rng)))
    rows += _reorder_requests(conn, rng, people)
    for i in range(22):  # sent mail
        name, user = rng.choice(people)
        rows.append(("sent", ME, "Alex Morgan", f"{user}@example.test", f"Re: {subjects[N_PERSONAL + i]}",
                     "Thanks, noted.\n\nAlex", 0, _when(rng)))
    rows.sort(key=lambda r: r[7])
    conn.executemany("INSERT INTO mail_messages(folder,sender,sender_name,recipients,subject,body,starred,received_at)"
                     " VALUES(?,?,?,?,?,?,?,?)", rows)


def _reorder_requests(conn: sqlite3.Connection, rng: random.Random, people: list) -> list[tuple]:
    """Mails asking Alex to reorder two or three items of the shop's catalogue for an address
    (read from the shop's seeded tables)."""
    products = conn.execute("SELECT name, sizes FROM shop_products WHERE sizes != 'One size' ORDER BY id").fetchall()
    labels = [r[0] for r in conn.execute("SELECT label FROM shop_addresses ORDER BY id")]
    if not products or not labels:
        return []
    out = []
    numbers = rng.sample(range(100, 1000), 4)
    for k, (name, user) in enumerate(rng.sample(people[2:], 4)):
        lines = []
        for pname, sizes in rng.sample(products, rng.choice((2, 2, 3))):
            lines.append(f"- {rng.choice((1, 1, 2, 3))} x {pname}, size {rng.choice(sizes.split(','))}")
        label = rng.choice(labels)
        body = (f"Hi Alex,\n\nCould you reorder these for the {label} address, please?\n" + "\n".join(lines) +
                f"\n\nReply with the order number when it's placed.\n\nThanks,\n{name.split()[0]}")
        rows_subject = f"Reorder request {numbers[k]}"
        out.append(("inbox", f"{user}@example.test", name, ME, rows_subject, body, 0,
                    f"2026-02-{20 + k:02d}T{8 + k:02d}:30:00Z"))
    return out


# ---------------------------------------------------------------- rendering helpers

_env = template_cache(_DIR)


def _render(request, name: str, title: str, **ctx):
    from starlette.responses import HTMLResponse

    n = request.state.conn.execute("SELECT COUNT(*) FROM mail_messages WHERE folder='inbox'").fetchone()[0]
    html = _env().get_template(name).render(title=title, base_css=BASE_CSS, base=request.state.base, inbox_count=n,
                                            toast=ctx.pop("toast", ""), **ctx)
    return HTMLResponse(html)


def _redirect(request, path: str, **query):
    from starlette.responses import RedirectResponse

    q = ("?" + urlencode({k: v for k, v in query.items() if v not in ("", None)})) if query else ""
    return RedirectResponse(request.state.base + path + q, status_code=303)


_COLS = ("id", "folder", "sender", "sender_name", "recipients", "subject", "body", "starred", "received_at")


def _message(conn, mid: int) -> dict | None:
    row = conn.execute(f"SELECT {', '.join(_COLS)} FROM mail_messages WHERE id=?", (mid,)).fetchone()
    return dict(zip(_COLS, row, strict=True)) if row else None


# ---------------------------------------------------------------- routes

async def listing(request):
    conn, qp = request.state.conn, request.query_params
    folder = qp.get("folder", "inbox")
    folder = folder if folder in FOLDERS else "inbox"
    q = qp.get("q", "").strip()
    where, args = "WHERE folder=?", [folder]
    if q:
        where += (" AND (lower(subject) LIKE ? OR lower(sender_name) LIKE ? OR lower(sender) LIKE ?"
                  " OR lower(body) LIKE ?)")
        args += [f"%{q.lower()}%"] * 4
    total = conn.execute(f"SELECT count(*) FROM mail_messages {where}", args).fetchone()[0]
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(pages, max(1, int_param(qp.get("page"))))
    rows = [dict(zip(_COLS, r, strict=True)) for r in conn.execute(
        f"SELECT {', '.join(_COLS)} FROM mail_messages {where} ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?",
        (*args, PAGE_SIZE, (page - 1) * PAGE_SIZE))]
    kept = {k: v for k, v in (("folder", folder if folder != "inbox" else ""), ("q", q)) if v}
    toast = {"sent": "Message sent", "archived": "Archived", "deleted": "Moved to trash"}.get(qp.get("done", ""), "")
    return _render(request, "mail_list.html", folder.title(), folder=folder, q=q, messages=rows, total=total,
                   page=page, pages=pages, folders=FOLDERS, back=urlencode({**kept, "page": page}),
                   pager=lambda p: urlencode({**kept, "page": p}), toast=toast)


async def message(request):
    m = _message(request.state.conn, request.path_params["mid"])
    if m is None:
        return _redirect(request, "/mail/")
    return _render(request, "mail_message.html", m["subject"], m=m)


async def compose(request):
    conn, qp = request.state.conn, request.query_params
    to = subject = body = ""
    src = qp.get("fwd") or qp.get("reply")
    m = _message(conn, int_param(src, 0)) if src else None
    if m is not None:
        if qp.get("fwd"):
            subject = f"Fwd: {m['subject']}"
            body = f"\n\n---------- Forwarded message ----------\nFrom: {m['sender_name']}\n\n{m['body']}"
        else:
            to, subject = m["sender"], f"Re: {m['subject']}"
            body = "\n\n" + "\n".join("> " + line for line in m["body"].splitlines())
    return _render(request, "mail_compose.html", "Compose", to=to, subject=subject, body=body,
                   error="Add at least one valid recipient." if qp.get("bad") else "")


async def send(request):
    conn, form = request.state.conn, await request.form()
    to = [a.strip() for a in str(form.get("to", "")).replace(";", ",").split(",") if a.strip()]
    if not to or not all("@" in a for a in to):
        return _redirect(request, "/mail/compose", bad=1)
    t = now(conn)
    subject, body = str(form.get("subject", "")), str(form.get("body", ""))
    # the stand-in mail relay: one row per delivered recipient
    conn.executemany("INSERT INTO ext_mail_outbox(to_addr,subject,body,sent_at) VALUES(?,?,?,?)",
                     [(addr, subject, body, t) for addr in to])
    conn.execute("INSERT INTO mail_messages(folder,sender,sender_name,recipients,subject,body,starred,received_at)"
                 " VALUES('sent',?,?,?,?,?,0,?)", (ME, "Alex Morgan", ", ".join(to), subject, body, t))
    return _redirect(request, "/mail/", done="sent")


def _back(form) -> dict:
    """The list view (folder, search, page) an action on a row returns to."""
    from urllib.parse import parse_qsl

    return {k: v for k, v in parse_qsl(str(form.get("back", ""))) if k in ("folder", "q", "page")}


async def act(request):
    conn, mid, action = request.state.conn, request.path_params["mid"], request.path_params["action"]
    form = await request.form()
    done = ""
    if action == "star":
        conn.execute("UPDATE mail_messages SET starred=1-starred WHERE id=?", (mid,))
    elif action == "archive":
        conn.execute("UPDATE mail_messages SET folder='archive' WHERE id=? AND folder='inbox'", (mid,))
        done = "archived"
    elif action == "delete":
        conn.execute("UPDATE mail_messages SET folder='trash' WHERE id=? AND folder!='trash'", (mid,))
        done = "deleted"
    return _redirect(request, "/mail/", **_back(form), done=done)


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/mail/", listing), Route("/mail/m/{mid:int}", message), Route("/mail/compose", compose),
        Route("/mail/send", send, methods=["POST"]),
        Route("/mail/m/{mid:int}/{action:str}", act, methods=["POST"]),
    ])


APP = AsgiApp(name="inbox", prefix="/mail", title="Postbox mail", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=("Send", "Delete"),
              gated=(GatedRoute("Send", r"/mail/send"), GatedRoute("Delete", r"/mail/m/[^/]+/delete")),
              renders="server")
