"""Account and settings: a profile form whose Save button is disabled until something changes
and shows a loading state while saving, field-level error states, notification switches,
API keys (revocable behind a confirm dialog) and login sessions ("sign out everywhere").
"""

from __future__ import annotations

import random
import sqlite3

from .common import Request, Response, Site, esc, now, page, redirect, route

SCHEMA = """
CREATE TABLE acct_profile(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE acct_api_keys(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, prefix TEXT, created_at TEXT, revoked_at TEXT);
CREATE TABLE acct_sessions(token TEXT PRIMARY KEY, device TEXT, created_at TEXT);
CREATE TABLE acct_notifications(channel TEXT PRIMARY KEY, enabled INTEGER);
"""

KEY_NAMES = ["ci-deploy", "ci-deploy-old", "staging-sync", "staging-sync-2", "backup-bot", "metrics-export"]


def key_names(rng: random.Random, seed: int) -> list[str]:
    """Six API key names from the seed's topic pool, in near-identical pairs (``x-deploy`` / ``x-deploy-old``)."""
    from ..core.pools import Pool, slice_of_seed

    pool = Pool(rng, slice_of_seed(seed))
    a, b, c, d = list(dict.fromkeys(pool.topic() for _ in range(50)))[:4]
    return [f"{a}-deploy", f"{a}-deploy-old", f"{b}-sync", f"{b}-sync-2", f"{c}-bot", f"{d}-export"]


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    for k, v in [("display_name", "Alex Morgan"), ("email", "alex.morgan@example.test"), ("timezone", "UTC")]:
        conn.execute("INSERT INTO acct_profile VALUES(?,?)", (k, v))
    for name in rng.sample(key_names(rng, seed), 5):
        conn.execute("INSERT INTO acct_api_keys(name,prefix,created_at,revoked_at) VALUES(?,?,?,NULL)",
                     (name, f"wg_{rng.randrange(16**6):06x}", f"2025-{rng.randrange(1, 12):02d}-{rng.randrange(1, 28):02d}"))
    for token, dev in [("sess-main", "This browser"), (f"sess-{rng.randrange(10**6)}", "Laptop · Firefox"),
                       (f"sess-{rng.randrange(10**6)}", "Phone · Safari")]:
        conn.execute("INSERT INTO acct_sessions VALUES(?,?,?)", (token, dev, "2026-02-01T08:00:00Z"))
    for ch, on in [("email_digest", 1), ("security_alerts", 1), ("product_news", 0)]:
        conn.execute("INSERT INTO acct_notifications VALUES(?,?)", (ch, on))


CSS = """
.spin{display:inline-block;width:12px;height:12px;border:2px solid #fff;border-top-color:transparent;border-radius:50%;
 margin-right:6px;vertical-align:-1px} .switch{display:flex;align-items:center;gap:8px;margin:6px 0}
"""

JS = """
const f=document.getElementById('profile'), inp=document.getElementById('display_name'), save=document.getElementById('save');
if(f){const orig=inp.value; inp.addEventListener('input',()=>{save.disabled=(inp.value===orig);});
 f.addEventListener('submit',e=>{e.preventDefault(); save.disabled=true; save.innerHTML='<span class=spin></span>Saving…';
  setTimeout(()=>f.submit(),600);});}
let pending=null; const back=document.querySelector('.modal-back');
document.querySelectorAll('button.revoke-open').forEach(b=>b.addEventListener('click',()=>{pending=b.dataset.key;
 document.getElementById('modal-title').textContent='Revoke key '+b.dataset.name+'?'; back.classList.add('open');}));
document.getElementById('keep')?.addEventListener('click',()=>back.classList.remove('open'));
document.getElementById('confirm')?.addEventListener('click',()=>{const k=document.getElementById('revoke-form');
 k.action=k.dataset.base+'/account/keys/'+pending+'/revoke'; k.submit();});
"""


def settings(req: Request) -> Response:
    c = req.conn
    prof = dict(c.execute("SELECT key,value FROM acct_profile").fetchall())
    err = req.query.get("error", "")
    name_val = req.query.get("tried", prof["display_name"]) if err else prof["display_name"]
    profile = (f'<form id=profile class=card method=post action="{req.url("/account/profile")}"><h2>Profile</h2>'
               f'<label for=display_name>Display name</label><input id=display_name name=display_name size=30 '
               f'value="{esc(name_val)}" class="{"invalid" if err else ""}" aria-invalid="{"true" if err else "false"}">'
               + (f'<p class=error id=name-error>{esc(err)}</p>' if err else "")
               + f'<p><button id=save class=btn type=submit disabled>Save changes</button></p></form>')
    notes = "".join(
        f'<form method=post action="{req.url("/account/notifications/" + r["channel"])}" class=switch>'
        f'<button class="btn secondary" role=switch aria-checked="{"true" if r["enabled"] else "false"}">'
        f'{"On" if r["enabled"] else "Off"}</button><span>{esc(r["channel"].replace("_", " ").capitalize())}</span></form>'
        for r in c.execute("SELECT * FROM acct_notifications ORDER BY channel")
    )
    keys = "".join(
        f'<tr><td>{esc(k["name"])}</td><td><code>{esc(k["prefix"])}…</code></td><td>{esc(k["created_at"])}</td>'
        + (f'<td>revoked</td><td></td>' if k["revoked_at"] else
           f'<td>active</td><td><button class="btn btn-danger revoke-open" data-key="{k["id"]}" data-name="{esc(k["name"])}">Revoke</button></td>')
        + "</tr>"
        for k in c.execute("SELECT * FROM acct_api_keys ORDER BY id")
    )
    sessions = "".join(f'<li>{esc(s["device"])}</li>' for s in c.execute("SELECT * FROM acct_sessions ORDER BY created_at, token"))
    modal = ('<div class="modal-back"><div class="modal" role="dialog" aria-modal="true"><h2 id="modal-title"></h2>'
             '<p>Apps using this key will stop working.</p><button id=keep class="btn secondary">Keep key</button> '
             '<button id=confirm class="btn btn-danger">Revoke key</button></div></div>'
             f'<form id=revoke-form method=post data-base="{req.base}"></form>')
    body = (f"<h1>Settings</h1>{profile}<div class=card><h2>Notifications</h2>{notes}</div>"
            f"<div class=card><h2>API keys</h2><table><tr><th>Name</th><th>Key</th><th>Created</th><th>Status</th><th></th></tr>"
            f"{keys}</table></div><div class=card><h2>Sessions</h2><ul>{sessions}</ul>"
            f'<form method=post action="{req.url("/account/sessions/signout")}"><button class="btn btn-danger">'
            f"Sign out all other sessions</button></form></div>{modal}")
    nav = f'<header class="top"><span class="brand">Account</span><a href="{req.url("/account/")}">Settings</a></header>'
    return page(req, "Settings", body, nav=nav, css=CSS, js=JS, toast="Saved" if req.query.get("saved") else "")


def save_profile(req: Request) -> Response:
    name = req.field("display_name").strip()
    if len(name) < 3 or len(name) > 40:
        return redirect(req.url("/account/", error="Display name must be 3 to 40 characters.", tried=name))
    req.conn.execute("UPDATE acct_profile SET value=? WHERE key='display_name'", (name,))
    return redirect(req.url("/account/", saved=1))


def toggle(req: Request) -> Response:
    req.conn.execute("UPDATE acct_notifications SET enabled=1-enabled WHERE channel=?", (req.params["ch"],))
    return redirect(req.url("/account/"))


def revoke(req: Request) -> Response:
    req.conn.execute("UPDATE acct_api_keys SET revoked_at=? WHERE id=? AND revoked_at IS NULL",
                     (now(req.conn), int(req.params["id"])))
    return redirect(req.url("/account/", saved=1))


def signout(req: Request) -> Response:
    req.conn.execute("DELETE FROM acct_sessions WHERE token!='sess-main'")
    return redirect(req.url("/account/"))


SITE = Site(
    name="account",
    prefix="/account",
    title="Account settings",
    routes=(
        route("GET", r"/account/", settings),
        route("POST", r"/account/profile", save_profile),
        route("POST", r"/account/notifications/(?P<ch>\w+)", toggle),
        route("POST", r"/account/keys/(?P<id>\d+)/revoke", revoke),
        route("POST", r"/account/sessions/signout", signout),
    ),
    irreversible=("Revoke key", "Sign out all other sessions"),  # declared irreversible controls (accessible names)
)
