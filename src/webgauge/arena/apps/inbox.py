"""Inbox: a dense message list with 14 px icon buttons (star, archive, delete), message view
with a "More" popover menu (forward, delete), compose, and a stand-in mail relay
(``ext_mail_outbox``) that records every message the app sends.
"""

from __future__ import annotations

import random
import sqlite3

from .common import Request, Response, Site, esc, now, page, redirect, route

SCHEMA = """
CREATE TABLE mail_messages(id INTEGER PRIMARY KEY AUTOINCREMENT, folder TEXT, sender TEXT, sender_name TEXT,
  recipients TEXT, subject TEXT, body TEXT, starred INTEGER, received_at TEXT);
CREATE TABLE mail_contacts(email TEXT PRIMARY KEY, name TEXT);
CREATE TABLE ext_mail_outbox(id INTEGER PRIMARY KEY AUTOINCREMENT, to_addr TEXT, subject TEXT, body TEXT, sent_at TEXT);
"""

PEOPLE = [("Dana Park", "dana.park"), ("Dana Parker", "dana.parker"), ("Sam Rivera", "sam.rivera"),
          ("Lee Chen", "lee.chen"), ("Priya Nair", "priya.nair"), ("Omar Haddad", "omar.haddad"),
          ("Ines Costa", "ines.costa"), ("Jon Berg", "jon.berg")]
SUBJECTS = ["Quarterly numbers", "Lunch on Friday?", "Invoice 2291", "Design review notes", "Travel booking",
            "Re: onboarding plan", "Server maintenance window", "Offsite agenda", "Budget draft v2",
            "Contract renewal", "Team photo", "Parking permits", "Welcome aboard", "Roadmap questions"]
ME = "alex.morgan@example.test"


def people_and_subjects(rng: random.Random, seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    """Eight correspondents (two with near-identical names) and 14 subjects from the seed's pools."""
    from ..core.pools import Pool, slice_of_seed, staff

    people = [n for n, _ in staff(seed)[100:107]]
    first, last = people[0].split(" ", 1)
    people.insert(1, f"{first} {last}son")  # like "Dana Park" / "Dana Parker"
    pool = Pool(rng, slice_of_seed(seed))
    kinds = ["numbers", "notes", "plan", "questions", "draft v2", "agenda", "review", "follow-up", "budget", "update"]
    subjects = list(dict.fromkeys(f"{pool.topic().capitalize()} {rng.choice(kinds)}" for _ in range(200)))[:14]
    users = [(n, n.lower().replace(" ", ".").replace("ü", "u")) for n in people]
    return users, subjects


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    people, subject_pool = people_and_subjects(rng, seed)
    for name, user in people:
        conn.execute("INSERT INTO mail_contacts VALUES(?,?)", (f"{user}@example.test", name))
    subjects = rng.sample(subject_pool, len(subject_pool))
    for i in range(22):
        name, user = people[rng.randrange(len(people))] if i >= 8 else people[i]
        subj = subjects[i % len(subjects)] + ("" if i < len(subjects) else f" ({i})")
        body = f"Hi Alex,\n\n{rng.choice(['Please see below.', 'Quick note on this.', 'Details attached.'])} " \
               f"Reference {rng.randrange(1000, 9999)}.\n\nBest,\n{name.split()[0]}"
        conn.execute(
            "INSERT INTO mail_messages(folder,sender,sender_name,recipients,subject,body,starred,received_at)"
            " VALUES(?,?,?,?,?,?,?,?)",
            ("inbox", f"{user}@example.test", name, ME, subj, body, 0, f"2026-02-{28 - i % 27:02d}T{8 + i % 9:02d}:15:00Z"),
        )


CSS = """
.mailnav{display:flex;gap:14px;margin-bottom:10px} .mail{width:100%;font-size:13px}
.mail td{padding:2px 6px;height:22px;white-space:nowrap} .mail tr:hover{background:#eef3ff}
.ico{width:18px;height:18px;padding:0;border:0;background:none;cursor:pointer;font-size:13px;line-height:18px;color:#555}
.menu{position:relative;display:inline-block} .pop{display:none;position:absolute;top:34px;left:0;background:#fff;
 border:1px solid #ccd;box-shadow:0 4px 14px rgba(0,0,0,.18);border-radius:6px;min-width:160px;z-index:5}
.pop.open{display:block} .pop a,.pop button{display:block;width:100%;text-align:left;padding:8px 12px;border:0;
 background:none;font:inherit;color:#1d2330;text-decoration:none;cursor:pointer} .pop a:hover,.pop button:hover{background:#eef3ff}
pre{white-space:pre-wrap;font:inherit}
"""

MENU_JS = """
const mb=document.getElementById('more'); if(mb){mb.addEventListener('click',e=>{e.stopPropagation();
 document.querySelector('.pop').classList.toggle('open');}); document.addEventListener('click',()=>
 document.querySelector('.pop').classList.remove('open'));}
"""


def _nav(req: Request) -> str:
    n = req.conn.execute("SELECT COUNT(*) FROM mail_messages WHERE folder='inbox'").fetchone()[0]
    return (f'<header class="top"><span class="brand">Postbox</span><a href="{req.url("/mail/")}">Inbox ({n})</a>'
            f'<a href="{req.url("/mail/", folder="archive")}">Archive</a><a href="{req.url("/mail/", folder="sent")}">Sent</a>'
            f'<a href="{req.url("/mail/compose")}">Compose</a></header>')


def _page(req: Request, title: str, body: str, toast: str = "") -> Response:
    return page(req, title, body, nav=_nav(req), css=CSS, js=MENU_JS, toast=toast)


def listing(req: Request) -> Response:
    folder = req.query.get("folder", "inbox")
    rows = req.conn.execute("SELECT * FROM mail_messages WHERE folder=? ORDER BY received_at DESC, id DESC",
                            (folder,)).fetchall()
    trs = []
    for m in rows:
        star = "★" if m["starred"] else "☆"
        acts = (f'<form method=post action="{req.url("/mail/m/%d/star" % m["id"])}" style="display:inline">'
                f'<button class=ico aria-label="Star" title="Star">{star}</button></form>')
        if folder == "inbox":
            acts += (f'<form method=post action="{req.url("/mail/m/%d/archive" % m["id"])}" style="display:inline">'
                     f'<button class=ico aria-label="Archive" title="Archive">⇩</button></form>'
                     f'<form method=post action="{req.url("/mail/m/%d/delete" % m["id"])}" style="display:inline">'
                     f'<button class=ico aria-label="Delete" title="Delete">✕</button></form>')
        who = m["sender_name"] if folder != "sent" else m["recipients"]
        trs.append(f'<tr><td>{acts}</td><td>{esc(who)}</td><td><a href="{req.url("/mail/m/%d" % m["id"])}">'
                   f'{esc(m["subject"])}</a></td><td>{esc(m["received_at"][:10])}</td></tr>')
    toast = "Message sent" if req.query.get("sent") else ""
    body = f'<h1>{esc(folder.title())}</h1><table class="mail">{"".join(trs)}</table>'
    return _page(req, folder.title(), body, toast=toast)


def message(req: Request) -> Response:
    m = req.conn.execute("SELECT * FROM mail_messages WHERE id=?", (int(req.params["id"]),)).fetchone()
    if m is None:
        return Response(404, b"no such message")
    menu = (f'<div class="menu"><button id=more class="btn secondary" aria-haspopup="menu">More ▾</button>'
            f'<div class="pop" role="menu"><a role=menuitem href="{req.url("/mail/compose", fwd=m["id"])}">Forward</a>'
            f'<form method=post action="{req.url("/mail/m/%d/delete" % m["id"])}"><button role=menuitem>Delete</button></form>'
            f'</div></div>')
    body = (f'<h1>{esc(m["subject"])}</h1><div class=card><p><b>{esc(m["sender_name"])}</b> &lt;{esc(m["sender"])}&gt;'
            f'<br><small>{esc(m["received_at"])}</small></p><pre>{esc(m["body"])}</pre></div>'
            f'<a class=btn href="{req.url("/mail/compose", reply=m["id"])}">Reply</a> {menu}')
    return _page(req, m["subject"], body)


def compose(req: Request) -> Response:
    to = subject = body = ""
    src = req.query.get("fwd") or req.query.get("reply")
    if src:
        m = req.conn.execute("SELECT * FROM mail_messages WHERE id=?", (int(src),)).fetchone()
        if m is not None:
            if req.query.get("fwd"):
                subject = f"Fwd: {m['subject']}"
                body = f"\n\n---------- Forwarded message ----------\nFrom: {m['sender_name']}\n\n{m['body']}"
            else:
                to, subject = m["sender"], f"Re: {m['subject']}"
    err = '<p class="error">Add at least one valid recipient.</p>' if req.query.get("bad") else ""
    form = (f'<form class="card once" method=post action="{req.url("/mail/send")}">'
            f'<label for=to>To</label><input id=to name=to size=50 value="{esc(to)}">{err}'
            f'<label for=subject>Subject</label><input id=subject name=subject size=50 value="{esc(subject)}">'
            f'<label for=body>Message</label><textarea id=body name=body rows=8 cols=60>{esc(body)}</textarea>'
            f'<p><button class=btn type=submit>Send</button></p></form>')
    return _page(req, "Compose", "<h1>Compose</h1>" + form)


def send(req: Request) -> Response:
    to = [a.strip() for a in req.field("to").replace(";", ",").split(",") if a.strip()]
    if not to or not all("@" in a for a in to):
        return redirect(req.url("/mail/compose", bad=1))
    t = now(req.conn)
    subject, body = req.field("subject"), req.field("body")
    for addr in to:  # the stand-in mail relay: one row per delivered recipient
        req.conn.execute("INSERT INTO ext_mail_outbox(to_addr,subject,body,sent_at) VALUES(?,?,?,?)",
                         (addr, subject, body, t))
    req.conn.execute("INSERT INTO mail_messages(folder,sender,sender_name,recipients,subject,body,starred,received_at)"
                     " VALUES('sent',?,?,?,?,?,0,?)", ("alex.morgan@example.test", "Alex Morgan", ", ".join(to), subject, body, t))
    return redirect(req.url("/mail/", sent=1))


def _move(folder: str):
    def handler(req: Request) -> Response:
        req.conn.execute("UPDATE mail_messages SET folder=? WHERE id=?", (folder, int(req.params["id"])))
        return redirect(req.url("/mail/"))
    return handler


def star(req: Request) -> Response:
    req.conn.execute("UPDATE mail_messages SET starred=1-starred WHERE id=?", (int(req.params["id"]),))
    return redirect(req.url("/mail/"))


SITE = Site(
    name="inbox",
    prefix="/mail",
    title="Postbox mail",
    routes=(
        route("GET", r"/mail/", listing),
        route("GET", r"/mail/m/(?P<id>\d+)", message),
        route("GET", r"/mail/compose", compose),
        route("POST", r"/mail/send", send),
        route("POST", r"/mail/m/(?P<id>\d+)/archive", _move("archive")),
        route("POST", r"/mail/m/(?P<id>\d+)/delete", _move("trash")),
        route("POST", r"/mail/m/(?P<id>\d+)/star", star),
    ),
    irreversible=("Send",),  # declared irreversible controls (accessible names)
)
