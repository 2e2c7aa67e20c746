"""A tiny self-hosted notes app, run as its own process: the arena's external-app example.

It knows nothing about webgauge: stdlib ``http.server`` on loopback, one SQLite file, HTML
forms, a session cookie set by a log-in form. ``python notes_app.py --db notes.sqlite
--port 0`` prints ``listening on http://127.0.0.1:<port>`` once it serves. Every request opens
the SQLite file afresh, so ``reset_notes.py`` can rewrite the data while the server runs.

Routes: ``GET /`` (the note list; a log-in form when logged out), ``POST /login``,
``POST /logout``, ``POST /notes`` (add), ``POST /notes/<id>/done``,
``POST /notes/<id>/delete`` (its button, "Delete note", cannot be undone).
"""

from __future__ import annotations

import argparse
import html
import secrets
import sqlite3
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


def page(body: str) -> bytes:
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><title>Notes</title><style>"
            "body{font:15px sans-serif;margin:24px} li{margin:6px 0} form{display:inline}"
            ".danger{background:#fff;color:#333;border:1px solid #999}</style></head><body>"
            f"<h1>Notes</h1>{body}</body></html>").encode()


class Handler(BaseHTTPRequestHandler):
    db = "notes.sqlite"

    def log_message(self, *args) -> None:
        pass

    def _conn(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.db, timeout=10, isolation_level=None)
        conn.row_factory = sqlite3.Row
        return conn

    def _user(self, conn) -> str | None:
        cookie = self.headers.get("Cookie", "")
        token = next((c.split("=", 1)[1] for c in cookie.split("; ") if c.startswith("sid=")), None)
        row = conn.execute("SELECT user FROM sessions WHERE token=?", (token,)).fetchone() if token else None
        return row["user"] if row else None

    def _send(self, status: int, body: bytes = b"", headers: dict | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.split("?")[0] != "/":
            return self._send(404, page("<p>Not found</p>"))
        with self._conn() as conn:
            user = self._user(conn)
            if user is None:
                return self._send(200, page(
                    "<form method=post action=/login><label>Username <input name=user></label> "
                    "<label>Password <input name=password type=password></label> <button>Sign in</button></form>"))
            notes = conn.execute("SELECT * FROM notes ORDER BY id").fetchall()
        items = "".join(
            f"<li><span class=title>{html.escape(n['title'])}</span> ({n['status']}) "
            f"<form method=post action=/notes/{n['id']}/done><button aria-label=\"Mark {html.escape(n['title'])} done\">"
            f"Done</button></form> <form method=post action=/notes/{n['id']}/delete>"
            "<button class=danger>Delete note</button></form></li>"
            for n in notes)
        self._send(200, page(
            f"<p>Signed in as {html.escape(user)} <form method=post action=/logout><button>Sign out</button></form></p>"
            f"<ul>{items}</ul><form method=post action=/notes><label>New note <input name=title></label> "
            "<button>Add note</button></form>"))

    def do_POST(self) -> None:
        form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
        val = lambda k: (form.get(k) or [""])[0].strip()  # noqa: E731
        parts = self.path.strip("/").split("/")
        with self._conn() as conn:
            if parts == ["login"]:
                if conn.execute("SELECT 1 FROM users WHERE name=? AND password=?",
                                (val("user"), val("password"))).fetchone() is None:
                    return self._send(200, page("<p role=alert>Wrong username or password.</p><a href=/>Back</a>"))
                token = secrets.token_hex(16)
                conn.execute("INSERT INTO sessions VALUES(?,?)", (token, val("user")))
                return self._send(303, headers={"Location": "/", "Set-Cookie": f"sid={token}; Path=/; HttpOnly"})
            user = self._user(conn)
            if user is None:
                return self._send(403, page("<p>Sign in first.</p>"))
            if parts == ["logout"]:
                conn.execute("DELETE FROM sessions WHERE user=?", (user,))
            elif parts == ["notes"] and val("title"):
                conn.execute("INSERT INTO notes(title, status, owner) VALUES(?, 'open', ?)", (val("title"), user))
            elif len(parts) == 3 and parts[0] == "notes" and parts[2] in ("done", "delete"):
                if parts[2] == "done":
                    conn.execute("UPDATE notes SET status='done' WHERE id=?", (int(parts[1]),))
                else:
                    conn.execute("DELETE FROM notes WHERE id=?", (int(parts[1]),))
            else:
                return self._send(404, page("<p>Not found</p>"))
        self._send(303, headers={"Location": "/"})


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args(argv)
    Handler.db = args.db
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{srv.server_address[1]}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
