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
    checked_reset,
    checked_seed,
    open_state_db,
    restore_db,
    restore_tree,
)
from ..django_site import DjangoSite, PipStep
from .content import world

__all__ = ["GATED", "IRREVERSIBLE", "SPEC", "SpiritServer", "app", "build_seed", "home", "install",
           "installed_version", "reset", "state", "stats"]

PIP_SPEC = "django-spirit>=0.14.3,<0.15"
HERE = Path(__file__).resolve().parent


SITE = DjangoSite("spirit", "the forum", HERE, "wgforum.settings", "WG_SPIRIT_DATA", (
    PipStep("django_spirit", f"'{PIP_SPEC}'", (PIP_SPEC,)),
), "spirit")
home, _py, installed_version, _env, _manage, _sync_site = (SITE.home, SITE.py, SITE.installed_version, SITE.env,
                                                           SITE.manage, SITE.sync_site)


def install(say=print) -> InstallReport:
    """Install the forum (idempotent): virtualenv, pip install, project, migrations, static files, seed 0."""
    return SITE.install(say, seeding="seeding seed 0 through Spirit's models", snapshot0=lambda: _snap(0),
                        build_seed0=lambda: build_seed(0),
                        serve_seed0=lambda: reset.__wrapped__(0),  # type: ignore[attr-defined]
                        blank_extra=None)


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
    conn = open_state_db(db)
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
