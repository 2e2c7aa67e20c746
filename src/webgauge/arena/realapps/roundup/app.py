"""Roundup, the Python issue tracker, as a real arena app: install, seed, serve, reset, state.

Layout under ``apps_home()/roundup``: ``lib/`` (Roundup from PyPI, ``pip install --target``),
``tracker/`` (a ``classic`` tracker on the SQLite backend: ``db/db`` is the database,
``db/files/`` the stored message and file contents) and ``snapshots/seed-N/`` (the same
``db`` folder right after seeding). Resetting copies back the rows written since the snapshot
(``restore_db``: the snapshot's undo log; sessions, one-time keys and login-rate records are
rows too, so they are dropped with them) and brings ``db/files`` back to the snapshot's list of files.
The server runs in Roundup's ``fork`` mode: every request is a fresh process that opens the
database anew, so no cache survives a reset.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...core.gate import GatedRoute
from ..base import (
    AppStats,
    ContentCount,
    InstallReport,
    LoopbackServer,
    RealApp,
    RealAppSpec,
    apps_home,
    checked_reset,
    checked_seed,
    open_state_db,
    restore_db,
    restore_file,
    restore_tree,
)
from .content import world

__all__ = ["GATED", "IRREVERSIBLE", "SPEC", "RoundupServer", "app", "build_seed", "home", "install",
           "installed_version", "reset", "state", "stats"]

PIP_SPEC = "roundup>=2.4,<3"
ADMIN_PASSWORD = "admin-pass-1"  # the tracker's admin (tasks sign in as seeded users, never as admin)


def home() -> Path:
    return apps_home() / "roundup"


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(home() / "lib"), "PYTHONDONTWRITEBYTECODE": "1"}


def installed_version() -> str | None:
    lib = home() / "lib"
    metas = sorted(lib.glob("roundup-*.dist-info")) if lib.is_dir() else []
    if not metas or not (home() / "tracker" / "db" / "db").is_file():
        return None
    return metas[-1].name[len("roundup-"):-len(".dist-info")]


def _admin(*args: str) -> str:
    argv = [sys.executable, "-m", "roundup.scripts.roundup_admin", "-i", str(home() / "tracker"), *args]
    proc = subprocess.run(argv, check=False,
                          env=_env(), capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        raise RuntimeError(f"roundup-admin {' '.join(args[:1])} failed: {(proc.stderr or proc.stdout)[-1500:]}")
    return proc.stdout


def set_option(cfg: Path, section: str, key: str, value: str) -> None:
    """Set ``key`` in ``[section]`` of a Roundup config.ini (the commented default line is replaced)."""
    lines = cfg.read_text(encoding="utf-8").splitlines()
    cur, done = None, False
    for i, line in enumerate(lines):
        m = re.match(r"^\[(\w+)\]", line)
        if m:
            cur = m.group(1)
            continue
        if cur == section and re.match(rf"^#?\s*{re.escape(key)}\s*=", line):
            lines[i] = f"{key} = {value}"
            done = True
            break
    if not done:
        raise RuntimeError(f"{cfg}: no option {key} in [{section}]")
    cfg.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _configure(port: int) -> None:
    cfg = home() / "tracker" / "config.ini"
    set_option(cfg, "tracker", "web", f"http://127.0.0.1:{port}/tracker/")
    set_option(cfg, "tracker", "name", "Roundup issue tracker")


def install(say=print) -> InstallReport:
    """Install Roundup from PyPI and a classic SQLite tracker (idempotent), then build seed 0's snapshot."""
    t0, steps = time.perf_counter(), []
    h = home()
    if not list((h / "lib").glob("roundup-*.dist-info")):
        say(f"pip install --target {h / 'lib'} '{PIP_SPEC}'")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                        "--target", str(h / "lib"), PIP_SPEC], check=True)
        steps.append("pip install roundup")
    tracker = h / "tracker"
    if not (tracker / "config.ini").is_file():
        say(f"roundup-admin install classic sqlite -> {tracker}")
        _admin("install", "classic", "sqlite")
        cfg = tracker / "config.ini"
        for section, key, value in (
                ("mail", "domain", "tracker.example"), ("mail", "debug", str(tracker / "sent-mail.txt")),
                ("main", "password_pbkdf2_default_rounds", "1000"), ("web", "login_attempts_min", "0"),
                ("web", "registration_delay", "0"), ("main", "indexer", "native")):
            set_option(cfg, section, key, value)
        _configure(8917)
        steps.append("tracker installed (classic template, SQLite backend, mail written to a file)")
    if not (tracker / "db" / "db").is_file():
        say("roundup-admin initialise")
        _admin("initialise", ADMIN_PASSWORD)
        steps.append("tracker initialised")
    if not (_snap(0) / "db").is_file():
        say("seeding seed 0 through Roundup's API")
        build_seed(0)
        steps.append("seed 0 built")
    version = installed_version() or "?"
    return InstallReport("roundup", version, time.perf_counter() - t0, tuple(steps) or ("already installed",))


CONTENT_VERSION = 2  # snapshots of older content (other folder names) are never used


def _snap(seed: int) -> Path:
    return home() / "snapshots" / f"v{CONTENT_VERSION}-seed-{int(seed)}"


@checked_seed
def build_seed(seed: int) -> Path:
    """Create seed ``seed``'s snapshot: a fresh database from the initialised tracker, the seed's
    content written through Roundup's API (a separate process), saved as ``snapshots/seed-N``."""
    snap = _snap(seed)
    if (snap / "db").is_file():
        return snap
    home().mkdir(parents=True, exist_ok=True)
    with open(home() / ".build.lock", "w") as lock:  # one builder at a time (two processes may ask)
        fcntl.flock(lock, fcntl.LOCK_EX)
        return snap if (snap / "db").is_file() else _build(seed, snap)


def _build(seed: int, snap: Path) -> Path:
    live = home() / "tracker"
    blank = home() / "snapshots" / "blank"
    if not (blank / "db").is_file():  # the initialised, empty tracker: the start of every seed
        blank.mkdir(parents=True, exist_ok=True)
        restore_file(live / "db" / "db", blank / "db")
    # seed in a scratch copy of the tracker (same config, schema, detectors), never in the served one
    tracker = home() / f"build-{int(seed)}"
    shutil.rmtree(tracker, ignore_errors=True)
    shutil.copytree(live, tracker, ignore=shutil.ignore_patterns("db", "__pycache__", "sent-mail.txt"))
    (tracker / "db").mkdir()
    restore_file(blank / "db", tracker / "db" / "db")
    set_option(tracker / "config.ini", "mail", "debug", str(tracker / "sent-mail.txt"))  # the build's mail, dropped
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(world(seed).to_json(), f)
    try:
        argv = [sys.executable, str(Path(__file__).with_name("seed_script.py")), str(tracker), f.name]
        proc = subprocess.run(argv, check=False,
                              env=_env(), capture_output=True, text=True, timeout=900)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        raise RuntimeError(f"seeding roundup seed {seed} failed: {proc.stderr[-2000:]}")
    tmp = snap.with_name(snap.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    restore_file(tracker / "db" / "db", tmp / "db")
    restore_tree(tracker / "db" / "files", tmp / "files")
    shutil.rmtree(snap, ignore_errors=True)
    os.replace(tmp, snap)
    shutil.rmtree(tracker, ignore_errors=True)
    return snap


@checked_reset("roundup", installed_version)
def reset(seed: int) -> None:
    """Restore the seed's snapshot: database file (with sessions) and stored files."""
    snap = build_seed(seed)
    db = home() / "tracker" / "db"
    restore_db(snap / "db", db / "db")  # the rows written since the last reset (the snapshot's undo log)
    restore_tree(snap / "files", db / "files")


_TABLES = {
    "_issue": "id, _title, _status, _priority, _assignedto, _creator, _actor, __retired__",
    "_msg": "id, _author, _date, _summary, __retired__",
    "_user": "id, _username, _realname, _address, _organisation, _roles, _password, __retired__",
    "_keyword": "id, _name, __retired__",
    "_status": "id, _name, __retired__",
    "_priority": "id, _name, __retired__",
    "_file": "id, _name, _type, __retired__",
    "_query": "id, _name, _klass, _url, _private_for, __retired__",
}
_LINKS = ("issue_messages", "issue_nosy", "issue_keyword", "issue_files", "issue_superseder", "msg_files")


NEWEST_TEXTS = 20


def state() -> dict[str, list[dict]]:
    """The tracker's stored state, read with SQL from Roundup's own tables, plus the text of the
    :data:`NEWEST_TEXTS` newest messages (where a task's new messages are), read from Roundup's file store."""
    db = home() / "tracker" / "db"
    conn = open_state_db(db / 'db')
    try:
        out = {t: [dict(r) for r in conn.execute(f"SELECT {cols} FROM {t} ORDER BY id")] for t, cols in _TABLES.items()}
        for t in _LINKS:
            out[t] = [{"key": f"{r['nodeid']}:{r['linkid']}", "nodeid": r["nodeid"], "linkid": r["linkid"]}
                      for r in conn.execute(f"SELECT nodeid, linkid FROM {t} ORDER BY nodeid, linkid")]
        out["sessions"] = [dict(r) for r in conn.execute("SELECT session_key FROM sessions ORDER BY session_key")]
    finally:
        conn.close()
    newest = sorted(m["id"] for m in out["_msg"])[-NEWEST_TEXTS:]  # a new message is always the newest
    out["msg_text"] = [{"id": i, "text": _msg_text(db, i)} for i in newest]
    return out


def _state_files() -> tuple[Path, ...]:
    """What :func:`state` reads: the database and the message store's folders (a message's file is only
    ever added, under a temporary name first)."""
    db = home() / "tracker" / "db"
    msg = db / "files" / "msg"
    return (db / "db", msg, *(sorted(p for p in msg.iterdir() if p.is_dir()) if msg.is_dir() else ()))


def _msg_text(db: Path, mid: int) -> str:
    p = db / "files" / "msg" / str(int(mid) // 1000) / f"msg{mid}"
    return p.read_text(encoding="utf-8", errors="replace") if p.is_file() else ""


def stats(seed: int) -> AppStats:
    """Seed ``seed``'s content counted on its snapshot (built if missing): Roundup's tables by SQL, the
    message and file texts from its file store."""
    snap = build_seed(seed)
    conn = sqlite3.connect(f"file:{snap / 'db'}?mode=ro", uri=True)
    try:
        def one(sql: str) -> int:
            return int(conn.execute(sql).fetchone()[0])

        msg_ids = [r[0] for r in conn.execute("SELECT id FROM _msg WHERE __retired__=0")]
        file_ids = [r[0] for r in conn.execute("SELECT id FROM _file WHERE __retired__=0")]
        rows = [
            ContentCount("issues", one("SELECT count(*) FROM _issue WHERE __retired__=0"),
                         one("SELECT count(DISTINCT _title) FROM _issue WHERE __retired__=0"), "distinct titles"),
            ContentCount("messages", len(msg_ids), len({_stored(snap, "msg", i) for i in msg_ids}),
                         "distinct message texts"),
            ContentCount("files", len(file_ids), len({_stored(snap, "file", i) for i in file_ids}),
                         f"distinct contents; {one('SELECT count(DISTINCT nodeid) FROM issue_files')} issues "
                         "with attachments"),
            ContentCount("people", one("SELECT count(*) FROM _user WHERE _username NOT IN ('admin', 'anonymous')"),
                         one("SELECT count(DISTINCT _realname) FROM _user WHERE _username NOT IN "
                             "('admin', 'anonymous')"), "distinct real names"),
            ContentCount("history entries", one("SELECT count(*) FROM issue__journal"),
                         one("SELECT count(DISTINCT tag) FROM issue__journal"), "distinct actors"),
            ContentCount("keywords", one("SELECT count(*) FROM _keyword")),
        ]
    finally:
        conn.close()
    return AppStats("roundup", int(seed), tuple(rows))


def _stored(snap: Path, cls: str, nid: int) -> str:
    """A message's or file's text as Roundup stores it (``files/<class>/<id // 1000>/<class><id>``)."""
    p = snap / "files" / cls / str(int(nid) // 1000) / f"{cls}{nid}"
    return p.read_text(encoding="utf-8", errors="replace") if p.is_file() else ""


@dataclass
class RoundupServer(LoopbackServer):
    """``roundup-server`` on loopback in fork mode; use as a context manager."""

    what: str = "roundup-server"
    base_path: str = "/tracker"

    def command(self) -> tuple[list[str], dict[str, str]]:
        SPEC.require()
        _configure(self.port)
        return ([sys.executable, str(Path(__file__).with_name("serve_script.py")), "-n", "127.0.0.1", "-p",
                 str(self.port), "-t", "fork", f"tracker={home() / 'tracker'}"], _env())


IRREVERSIBLE = ("retire",)  # the control the approval gate asks before (the button as Roundup names it)
# the requests that retire something (paths inside the tracker): the web interface's ``@action=retire``
# (or its old spelling ``:action``; Roundup lower-cases the value) on any item, by any method; the REST
# interface's DELETE (an item, or a whole class) and ``@op=action`` with ``@action_name=retire``; and
# XML-RPC, gated whole (its ``retire``/``action`` calls are in an XML body)
GATED = (GatedRoute("retire", r".*", "*", ((r"[:@]action", r"(?i)retire"),)),
         GatedRoute("retire", r"/rest(/.*)?", "DELETE"),
         GatedRoute("retire", r"/rest(/.*)?", "*", ((r"@action_name", r"(?i)retire"),)),
         GatedRoute("retire", r"/xmlrpc(/.*)?", "POST"))


def app(server: RoundupServer) -> RealApp:
    """The tracker as an arena app (reset in-process; the same from a shell:
    ``webgauge arena apps reset roundup SEED``)."""
    return RealApp("roundup", server.base_url + "/",
                   [sys.executable, "-m", "webgauge.cli.main", "arena", "apps", "reset", "roundup", "{seed}"],
                   state, irreversible=IRREVERSIBLE, gated=GATED, reset_fn=reset,
                   state_files=_state_files)


SPEC = RealAppSpec("roundup", "issue tracker", "MIT (Roundup's licence, ZPL 2.0 parts)", f"PyPI: {PIP_SPEC}",
                   install, installed_version,
                   server=RoundupServer, arena_app=app, stats=stats)
