"""Spirit (django-spirit 0.14), the Django forum, as a real arena app: a forum / social news site on SQLite.

Layout under ``apps_home()/spirit``: ``venv/`` (the forum's own virtualenv: django-spirit, Django,
Haystack, Whoosh, mistune from PyPI; the project's environment is not touched), ``site/`` (the
Django project, copied from this package: Spirit's apps, DEBUG off, SQLite, loopback hosts),
``static/`` (``collectstatic``), ``data/`` (the served ``db.sqlite3``, ``media/`` and the search
index ``st_search/``) and ``snapshots/seed-N.v1/`` (the same right after seeding). Sessions and
Django's caches live in the database, so restoring the database's rows (``restore_db``: the snapshot's undo
log replays what an episode wrote, in place) drops sessions;
``st_search/`` and ``media/`` are brought back to the snapshot's file lists. The server is
Django's own ``runserver`` on 127.0.0.1 (no autoreload); every request opens the database anew.
"""

from __future__ import annotations

import fcntl
import json
import os
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
    restore_db,
    restore_tree,
)
from .content import world

__all__ = ["GATED", "IRREVERSIBLE", "SPEC", "SpiritServer", "app", "build_seed", "home", "install",
           "installed_version", "reset", "state", "stats"]

PIP_SPEC = "django-spirit>=0.14.3,<0.15"
HERE = Path(__file__).resolve().parent


def home() -> Path:
    return apps_home() / "spirit"


def _py() -> Path:
    return home() / "venv" / "bin" / "python"


def installed_version() -> str | None:
    metas = sorted((home() / "venv").glob("lib/python*/site-packages/django_spirit-*.dist-info"))
    if not metas or not (home() / "data" / "db.sqlite3").is_file():
        return None
    return metas[-1].name[len("django_spirit-"):-len(".dist-info")]


def _env(data: Path | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "DJANGO_SETTINGS_MODULE")}
    return {**env, "WG_SPIRIT_DATA": str(data or home() / "data"), "DJANGO_SETTINGS_MODULE": "wgforum.settings",
            "PYTHONPATH": str(home() / "site"), "PYTHONDONTWRITEBYTECODE": "1"}


def _manage(*args: str, data: Path | None = None, timeout: float = 900) -> str:
    proc = subprocess.run([str(_py()), str(home() / "site" / "manage.py"), *args], env=_env(data),
                          capture_output=True, text=True, check=False, timeout=timeout, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError(f"manage.py {args[0]} failed: {(proc.stderr or proc.stdout)[-1500:]}")
    return proc.stdout


def _sync_site() -> bool:
    """Copy the Django project from this package into the app folder; True when something changed."""
    src, dst = HERE / "site", home() / "site"
    changed = False
    for f in src.rglob("*.py"):
        target = dst / f.relative_to(src)
        if not target.is_file() or target.read_bytes() != f.read_bytes():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
            changed = True
    return changed


def install(say=print) -> InstallReport:
    """Install the forum (idempotent): virtualenv, pip install, project, migrations, static files, seed 0."""
    t0, steps = time.perf_counter(), []
    h = home()
    h.mkdir(parents=True, exist_ok=True)

    def step(msg: str, fn) -> None:
        say(msg)
        t = time.perf_counter()
        fn()
        steps.append(f"{msg.split(' ->')[0]} ({time.perf_counter() - t:.1f} s)")
        say(f"  done in {time.perf_counter() - t:.1f} s")

    if not _py().is_file():
        step(f"python -m venv {h / 'venv'}",
             lambda: subprocess.run([sys.executable, "-m", "venv", str(h / "venv")], check=True))
    if not list((h / "venv").glob("lib/python*/site-packages/django_spirit-*.dist-info")):
        step(f"pip install '{PIP_SPEC}' (into the forum's venv)",
             lambda: subprocess.run([str(_py()), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                                     PIP_SPEC], check=True))
    if _sync_site():
        say(f"project files -> {h / 'site'}")
        steps.append("project written")
    blank = h / "snapshots" / "blank"
    if not (blank / "db.sqlite3").is_file():
        step("manage.py migrate + createcachetable (blank forum database)", lambda: _blank(blank))
    if not (h / "static" / "spirit").is_dir():
        step("manage.py collectstatic", lambda: _manage("collectstatic", "--noinput", data=blank))
    if not (_snap(0) / "db.sqlite3").is_file():
        step("seeding seed 0 through Spirit's models", lambda: build_seed(0))
    if not (h / "data" / "db.sqlite3").is_file():
        step("serving folder data/ <- seed 0", lambda: reset.__wrapped__(0))  # type: ignore[attr-defined]
    return InstallReport("spirit", installed_version() or "?", time.perf_counter() - t0,
                         tuple(steps) or ("already installed",))


def _blank(blank: Path) -> None:
    tmp = blank.with_name("blank.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "media").mkdir(parents=True)
    _manage("migrate", "--noinput", data=tmp)
    _manage("createcachetable", data=tmp)
    shutil.rmtree(blank, ignore_errors=True)
    os.replace(tmp, blank)


SNAPSHOT_FORMAT = 1


def _snap(seed: int) -> Path:
    return home() / "snapshots" / f"seed-{int(seed)}.v{SNAPSHOT_FORMAT}"


@checked_seed
def build_seed(seed: int) -> Path:
    """Create seed ``seed``'s snapshot: the blank database and media folder copied to a scratch folder,
    the seed's forum written through Spirit's models (a process in the forum's venv), saved as
    ``snapshots/seed-N.v1``."""
    snap = _snap(seed)
    if (snap / "db.sqlite3").is_file():
        return snap
    home().mkdir(parents=True, exist_ok=True)
    with open(home() / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return snap if (snap / "db.sqlite3").is_file() else _build(seed, snap)


def _build(seed: int, snap: Path) -> Path:
    blank = home() / "snapshots" / "blank"
    if not (blank / "db.sqlite3").is_file():
        raise RuntimeError("the forum is not installed; run: webgauge arena apps install spirit")
    work = home() / f"build-{int(seed)}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(blank, work)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(world(seed).to_json(), f)
    try:
        proc = subprocess.run([str(_py()), str(HERE / "seed_script.py"), str(home() / "site"), f.name],
                              env=_env(work), capture_output=True, text=True, check=False, timeout=1800)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        raise RuntimeError(f"seeding the forum's seed {seed} failed: {proc.stderr[-2500:]}")
    (work / "build.log").write_text(proc.stderr[-4000:], encoding="utf-8")  # the seeding phases and their times
    shutil.rmtree(snap, ignore_errors=True)
    snap.parent.mkdir(parents=True, exist_ok=True)
    os.replace(work, snap)
    return snap


@checked_reset("spirit", installed_version)
def reset(seed: int) -> None:
    """Restore the seed's snapshot: the database file (sessions and caches in it), media and the search index."""
    snap = build_seed(seed)
    data = home() / "data"
    (data / "media").mkdir(parents=True, exist_ok=True)
    restore_db(snap / "db.sqlite3", data / "db.sqlite3")  # the rows written since the last reset (undo log)
    restore_tree(snap / "media", data / "media")
    restore_tree(snap / "st_search", data / "st_search")  # Whoosh reads its table of contents per search


# the forum's stored state: Spirit's tables, without the columns a page view or sign-in rewrites
# (view counts, last seen, last IP, read marks), without the HTML Spirit renders from a comment's Markdown
# (the Markdown is kept), and without the tables only reading writes (comment bookmarks: how far a member
# has read; unread marks)
TABLES = ("auth_user", "spirit_user_userprofile", "spirit_category_category", "spirit_topic_topic",
          "spirit_comment_comment", "spirit_comment_like_commentlike", "spirit_topic_favorite_topicfavorite",
          "spirit_topic_notification_topicnotification", "spirit_comment_flag_commentflag",
          "spirit_comment_flag_flag", "spirit_comment_history_commenthistory")
_SKIP = {"auth_user": ("last_login",), "spirit_user_userprofile": ("last_seen", "last_ip", "last_post_hash",
                                                                   "last_post_on"),
         "spirit_topic_topic": ("view_count",), "spirit_comment_comment": ("comment_html",),
         "spirit_topic_notification_topicnotification": ("is_read",)}


def state(db: Path | None = None) -> dict[str, list[dict]]:
    """The forum's stored state, read with SQL from Spirit's own tables."""
    db = db or home() / "data" / "db.sqlite3"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    conn.row_factory = sqlite3.Row
    try:
        out = {}
        for t in TABLES:
            rows = [dict(r) for r in conn.execute(f"SELECT * FROM {t} ORDER BY 1")]
            for r in rows:
                for c in _SKIP.get(t, ()):
                    r.pop(c, None)
            out[t] = rows
    finally:
        conn.close()
    return out


def stats(seed: int) -> AppStats:
    """Seed ``seed``'s content counted with SQL on its snapshot (built when missing)."""
    conn = sqlite3.connect(f"file:{build_seed(seed) / 'db.sqlite3'}?mode=ro", uri=True)
    try:
        def one(sql: str) -> int:
            return int(conn.execute(sql).fetchone()[0])

        rows = (
            ContentCount("members", one("SELECT count(*) FROM auth_user"),
                         one("SELECT count(DISTINCT nickname) FROM spirit_user_userprofile"), "distinct names"),
            ContentCount("categories", one("SELECT count(*) FROM spirit_category_category WHERE NOT is_removed "
                                           "AND NOT is_private"),
                         one("SELECT count(DISTINCT title) FROM spirit_category_category WHERE NOT is_removed "
                             "AND NOT is_private"), "distinct titles"),
            ContentCount("topics", one("SELECT count(*) FROM spirit_topic_topic"),
                         one("SELECT count(DISTINCT title) FROM spirit_topic_topic"), "distinct titles"),
            ContentCount("comments", one("SELECT count(*) FROM spirit_comment_comment"),
                         one("SELECT count(DISTINCT comment) FROM spirit_comment_comment"),
                         f"distinct bodies, mean {one('SELECT avg(length(comment)) FROM spirit_comment_comment')} "
                         "characters"),
            ContentCount("replies", one("SELECT count(*) FROM spirit_comment_comment c WHERE c.id > (SELECT "
                                        "min(id) FROM spirit_comment_comment d WHERE d.topic_id = c.topic_id)"),
                         None, "comments after a topic's opening post"),
            ContentCount("likes", one("SELECT count(*) FROM spirit_comment_like_commentlike"), None),
            ContentCount("subscriptions", one("SELECT count(*) FROM spirit_topic_notification_topicnotification "
                                              "WHERE is_active"), None, "active topic notifications"),
            ContentCount("favourites", one("SELECT count(*) FROM spirit_topic_favorite_topicfavorite"), None),
            ContentCount("closed topics", one("SELECT count(*) FROM spirit_topic_topic WHERE is_closed"), None),
            ContentCount("pinned topics", one("SELECT count(*) FROM spirit_topic_topic WHERE is_pinned"), None),
            ContentCount("moderators", one("SELECT count(*) FROM spirit_user_userprofile WHERE is_moderator"), None),
        )
    finally:
        conn.close()
    return AppStats("spirit", seed, rows)


@dataclass
class SpiritServer(LoopbackServer):
    """Django's ``runserver`` for the forum on loopback (no autoreload); use as a context manager."""

    what: str = "the forum's server"

    def command(self) -> tuple[list[str], dict[str, str]]:
        SPEC.require()
        return ([str(_py()), str(home() / "site" / "manage.py"), "runserver", f"127.0.0.1:{self.port}", "--noreload",
                 "--skip-checks"], _env())


IRREVERSIBLE = ("delete", "Delete topic")  # the controls the approval gate asks before
# a comment's "delete" link (moderators see it under every post) and a topic's "Delete topic" (in its
# Moderate menu) POST the deletion at once, without a confirmation page
GATED = (GatedRoute("delete", r"/comment/\d+/delete/", "POST"),
         GatedRoute("Delete topic", r"/topic/moderate/delete/\d+/", "POST"))


def app(server: SpiritServer) -> RealApp:
    """The forum as an arena app (reset in-process; from a shell: ``webgauge arena apps reset spirit SEED``)."""
    return RealApp("spirit", server.base_url + "/",
                   [sys.executable, "-m", "webgauge.cli.main", "arena", "apps", "reset", "spirit", "{seed}"],
                   state, irreversible=IRREVERSIBLE, gated=GATED, reset_fn=reset,
                   state_files=lambda: (home() / "data" / "db.sqlite3",))


SPEC = RealAppSpec("spirit", "forum", "MIT", f"PyPI: {PIP_SPEC}", install, installed_version,
                   server=SpiritServer, arena_app=app, stats=stats)
