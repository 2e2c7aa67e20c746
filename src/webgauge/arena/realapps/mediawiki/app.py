"""MediaWiki 1.39 (Debian's ``mediawiki`` package) as a real arena app, on SQLite.

Layout under ``apps_home()/mediawiki``: ``LocalSettings.php`` (written by MediaWiki's own
``install.php``; the data folder and server URL come from the environment so one install
serves any port and any seed build), ``data/`` (``wiki.sqlite``, the object cache with
sessions and parser cache in ``wikicache.sqlite``, the job queue, ``images/`` the uploaded
files) and ``snapshots/v2-seed-N/``. Pages are loaded with MediaWiki's ``importDump.php``,
images (drawn locally) with its ``importImages.php``, links with ``refreshLinks.php``; pages
are served by PHP's built-in server on loopback (``router.php`` sends every non-static
request to MediaWiki's entry points and serves the uploads). Reset copies back the rows
written since the snapshot in each database file (``restore_db``; sessions and cached pages
are rows too) and brings ``images/`` back to the snapshot's files.
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...core.gate import GatedRoute
from ..base import (
    AppNotInstalled,
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
from .content import EDITORS, draw_images, dump_xml, world

__all__ = ["GATED", "IRREVERSIBLE", "SPEC", "MediaWikiServer", "app", "build_seed", "home", "install",
           "installed_version", "reset", "state", "stats"]

MW = Path("/usr/share/mediawiki")
APT = ("mediawiki", "php-sqlite3", "php-cli", "php-intl", "php-mbstring", "php-xml", "php-apcu")
_APT_WAIT = ("-o", "DPkg::Lock::Timeout=600")  # another apt run holding the lock: wait for it, do not fail
DB_FILES = ("wiki.sqlite", "wikicache.sqlite", "wiki_jobqueue.sqlite")
CONTENT_VERSION = 3  # snapshots of older content (other folder names) are never used
_UPLOADS = (
    "\n# webgauge: uploads in the data folder (restored by a reset), served by router.php; no image scaler needed\n"
    '$wgEnableUploads = true;\n$wgUploadDirectory = getenv("WG_MW_DATA") . "/images";\n$wgUploadPath = "/images";\n'
    "$wgUseImageResize = false;\n$wgUseInstantCommons = false;\n")
_LOGO = '\n# webgauge: logo\n$wgLogos = ["1x" => "$wgResourceBasePath/resources/assets/mediawiki.png"];\n'
# the gazetteer's infobox templates show optional rows with {{#if:}} (ParserFunctions ships with Debian's package)
_MAIN_CACHE = ("\n# webgauge: the main object cache (revision texts, page data, messages) in the database, where a\n"
               "# reset restores it: install.php picks APCu when PHP has it, whose entries outlive a reset, while the\n"
               "# rows a reset removes get their ids again (an episode's text under another's revision id)\n"
               "$wgMainCacheType = CACHE_DB;\n")
_EXTENSIONS = "\n# webgauge: parser functions for the infobox templates\nwfLoadExtension( 'ParserFunctions' );\n"
ADMIN_PASSWORD = "Wg-admin-pass-1"
# PHP's command-line server compiles every script on every request unless OPcache is on for the CLI:
# with it, MediaWiki's few hundred files are compiled once per worker and kept in shared memory
_OPCACHE = ("-d", "opcache.enable_cli=1", "-d", "opcache.memory_consumption=192", "-d",
            "opcache.max_accelerated_files=20000", "-d", "opcache.interned_strings_buffer=16")


def _php_modules(*flags: str) -> list[str]:
    try:
        out = subprocess.run(["php", *flags, "-m"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return out.split()


@functools.lru_cache(maxsize=1)
def _apcu() -> tuple[str, ...]:
    """PHP flags that turn APCu on for the server (loaded here when PHP's own settings do not load it).

    APCu is MediaWiki's local-server cache: the extension registry, ResourceLoader's minified
    modules and the like, keyed by what they are made from. It lives in the server's memory, so
    a reset (which restores the database files, the object cache's among them) leaves it warm,
    as OPcache is. Without it every start page after a reset rebuilt them."""
    on = ("-d", "apc.enable_cli=1", "-d", "apc.shm_size=64M")
    if "apcu" in _php_modules():
        return on
    if "apcu" in _php_modules("-d", "extension=apcu"):
        return ("-d", "extension=apcu", *on)
    raise AppNotInstalled("MediaWiki's server needs PHP's APCu (Debian: php-apcu); run: "
                          "webgauge arena apps install mediawiki")


def home() -> Path:
    return apps_home() / "mediawiki"


def installed_version() -> str | None:
    if not (MW / "maintenance" / "install.php").is_file() or not (home() / "data" / "wiki.sqlite").is_file():
        return None
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "mediawiki"], capture_output=True, text=True,
                         check=False)
    return out.stdout.strip() or "?"


def _env(data: Path | None = None, port: int = 8931) -> dict:
    return {**os.environ, "WG_MW_DATA": str(data or home() / "data"), "WG_MW_SERVER": f"http://127.0.0.1:{port}"}


def _php(script: str, *args: str, data: Path | None = None, timeout: float = 900) -> str:
    argv = ["php", str(MW / "maintenance" / script), "--conf", str(home() / "LocalSettings.php"), *args]
    proc = subprocess.run(argv, env=_env(data), capture_output=True, text=True, check=False, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{script} failed: {(proc.stderr or proc.stdout)[-1500:]}")
    return proc.stdout


def install(say=print) -> InstallReport:
    t0, steps = time.perf_counter(), []
    if (not (MW / "maintenance" / "install.php").is_file() or shutil.which("php") is None
            or "apcu" not in _php_modules("-d", "extension=apcu")):
        say("apt-get update")
        subprocess.run(["apt-get", *_APT_WAIT, "update", "-q"], check=True, stdout=subprocess.DEVNULL)
        say(f"apt-get install -y --no-install-recommends {' '.join(APT)}")
        subprocess.run(["apt-get", *_APT_WAIT, "install", "-y", "-q", "--no-install-recommends", *APT], check=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}, stdout=subprocess.DEVNULL)
        steps.append("apt-get install mediawiki")
    h = home()
    if not (h / "data" / "wiki.sqlite").is_file():
        shutil.rmtree(h, ignore_errors=True)
        (h / "data").mkdir(parents=True)
        say("php maintenance/install.php --dbtype sqlite")
        argv = ["php", str(MW / "maintenance" / "install.php"), "--dbtype=sqlite", f"--dbpath={h / 'data'}",
                "--dbname=wiki", "--server=http://127.0.0.1:8931", "--scriptpath=", "--lang=en",
                f"--pass={ADMIN_PASSWORD}", f"--confpath={h}", "Gazetteer Wiki", "Admin"]
        subprocess.run(argv, check=True, capture_output=True, text=True)
        ls = (h / "LocalSettings.php").read_text(encoding="utf-8")
        ls = ls.replace(f'$wgSQLiteDataDir = "{h / "data"}";', '$wgSQLiteDataDir = getenv("WG_MW_DATA");')
        ls = ls.replace('$wgServer = "http://127.0.0.1:8931";', '$wgServer = getenv("WG_MW_SERVER");')
        ls += ("\n# webgauge: sessions and caches in the database (restored by a reset), no mail, no jobs on requests\n"
               "$wgSessionCacheType = CACHE_DB;\n$wgParserCacheType = CACHE_DB;\n$wgEnableEmail = false;\n"
               "$wgJobRunRate = 0;\n$wgPasswordAttemptThrottle = [];\n$wgRateLimits = [];\n")
        (h / "LocalSettings.php").write_text(ls, encoding="utf-8")
        steps.append("wiki installed (SQLite)")
    ls = (h / "LocalSettings.php").read_text(encoding="utf-8")
    if "$wgUploadDirectory" not in ls:  # also upgrades an install made before the wiki had images
        (h / "LocalSettings.php").write_text(ls + _UPLOADS, encoding="utf-8")
        steps.append("uploads enabled")
    ls = (h / "LocalSettings.php").read_text(encoding="utf-8")
    if _LOGO not in ls:  # MediaWiki's own logo instead of install.php's "change your logo" placeholder
        ls = re.sub(r"\n# webgauge: logo\n.*\n", "\n", ls)  # an earlier choice
        (h / "LocalSettings.php").write_text(ls + _LOGO, encoding="utf-8")
        steps.append("logo set")
    for block, done in ((_EXTENSIONS, "ParserFunctions loaded"), (_MAIN_CACHE, "main cache in the database")):
        ls = (h / "LocalSettings.php").read_text(encoding="utf-8")
        if block not in ls:
            (h / "LocalSettings.php").write_text(ls + block, encoding="utf-8")
            steps.append(done)
    (h / "data" / "images").mkdir(exist_ok=True)
    if not (_snap(0) / "wiki.sqlite").is_file():
        say("importDump.php: seed 0")
        build_seed(0)
        steps.append("seed 0 built")
    return InstallReport("mediawiki", installed_version() or "?", time.perf_counter() - t0,
                         tuple(steps) or ("already installed",))


def _snap(seed: int) -> Path:
    return home() / "snapshots" / f"v{CONTENT_VERSION}-seed-{int(seed)}"


@checked_seed
def build_seed(seed: int) -> Path:
    snap = _snap(seed)
    if (snap / "wiki.sqlite").is_file():
        return snap
    with open(home() / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (snap / "wiki.sqlite").is_file():
            return snap
        blank = home() / "snapshots" / "blank"
        if not (blank / "wiki.sqlite").is_file():
            blank.mkdir(parents=True, exist_ok=True)
            for f in DB_FILES:
                restore_file(home() / "data" / f, blank / f)
        build = home() / f"build-{int(seed)}"
        shutil.rmtree(build, ignore_errors=True)
        shutil.copytree(blank, build)
        (build / "images").mkdir()
        w = world(seed)
        # the installer's Main Page revision is dated before the content, so the imported portal replaces it
        conn = sqlite3.connect(build / "wiki.sqlite")
        conn.execute("UPDATE revision SET rev_timestamp = '20260101000000'")
        conn.execute("UPDATE page SET page_touched = '20260101000000'")
        conn.commit()
        conn.close()
        for k, editor in enumerate(EDITORS):  # the editors the dump names (Admin is the installer's)
            _php("createAndPromote.php", editor, f"Wg-editor-{k}-pass", data=build)
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "dump.xml").write_text(dump_xml(w), encoding="utf-8")
            draw_images(w, Path(d) / "upload")
            _php("importDump.php", "--no-updates", str(Path(d) / "dump.xml"), data=build)
            _php("importImages.php", "--comment-ext=txt", "--extensions=png", "--user=Admin",
                 "--summary=Gazetteer images", "--timestamp=20260109100000", str(Path(d) / "upload"), data=build)
        _php("refreshLinks.php", data=build)  # links, image links and categories of the imported pages
        _php("runJobs.php", data=build)
        _php("rebuildrecentchanges.php", data=build)
        _php("initSiteStats.php", "--update", data=build)
        tmp = snap.with_name(snap.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "images").mkdir(parents=True)
        for f in DB_FILES:
            restore_file(build / f, tmp / f)
        restore_tree(build / "images", tmp / "images")
        shutil.rmtree(snap, ignore_errors=True)
        os.replace(tmp, snap)
        shutil.rmtree(build, ignore_errors=True)
    return snap


@checked_reset("mediawiki", installed_version)
def reset(seed: int) -> None:
    snap = build_seed(seed)
    for f in DB_FILES:  # the rows written since the last reset (each snapshot's undo log)
        restore_db(snap / f, home() / "data" / f)
    restore_tree(snap / "images", home() / "data" / "images")


_TEXT = ("SELECT p.page_id, p.page_namespace, p.page_title, p.page_is_redirect, p.page_latest, t.old_text AS text "
         "FROM page p "
         "JOIN slots s ON s.slot_revision_id = p.page_latest JOIN content c ON c.content_id = s.slot_content_id "
         "JOIN text t ON c.content_address = 'tt:' || t.old_id ORDER BY p.page_id")


_LINKS = {"pagelinks": ("pl_from", "pl_namespace", "pl_title"), "imagelinks": ("il_from", "il_to"),
          "redirect": ("rd_from", "rd_namespace", "rd_title")}


def state() -> dict[str, list[dict]]:
    """Pages with their current wikitext, revisions (with comments), users, uploaded images and the
    link tables (``pagelinks``, ``imagelinks``, ``redirect``; keyed ``from:...:to``), by SQL on MediaWiki's tables."""
    conn = open_state_db(home() / 'data' / 'wiki.sqlite')
    try:
        out = {"page": [dict(r) for r in conn.execute(_TEXT)],
               "revision": [dict(r) for r in conn.execute(
                   "SELECT r.rev_id, r.rev_page, a.actor_name, c.comment_text FROM revision r "
                   "JOIN actor a ON a.actor_id = r.rev_actor "
                   "JOIN revision_comment_temp rc ON rc.revcomment_rev = r.rev_id "
                   "JOIN comment c ON c.comment_id = rc.revcomment_comment_id "
                   "ORDER BY r.rev_id")],
               "user": [dict(r) for r in conn.execute("SELECT user_id, user_name FROM user ORDER BY user_id")],
               "image": [dict(r) for r in conn.execute(
                   "SELECT img_name, img_size, img_width, img_height, img_sha1 FROM image ORDER BY img_name")]}
        for table, cols in _LINKS.items():
            out[table] = [{"key": ":".join(str(r[c]) for c in cols), **dict(r)}
                          for r in conn.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {', '.join(cols)}")]
        for r in out["page"]:
            if isinstance(r["text"], bytes):
                r["text"] = r["text"].decode("utf-8", "replace")
    finally:
        conn.close()
    return out


def stats(seed: int) -> AppStats:
    """Seed ``seed``'s content counted with SQL on its snapshot (built if missing): articles (main
    namespace, no redirects) with their wikitext, templates, categories, files, users, links."""
    snap = build_seed(seed)
    conn = sqlite3.connect(f"file:{snap / 'wiki.sqlite'}?mode=ro", uri=True)
    try:
        def one(sql: str) -> int:
            return int(conn.execute(sql).fetchone()[0])

        texts = [r["text"] for r in _pages(conn) if r["page_namespace"] == 0 and not r["page_is_redirect"]]
        mean = sum(len(t.encode()) for t in texts) // max(1, len(texts))
        infobox = [t for t in texts if "{{Infobox" in t]
        sections = sum(len(re.findall(r"^==[^=].*==\s*$", t, flags=re.MULTILINE)) for t in texts)
        rows = [
            ContentCount("articles", len(texts), len(set(texts)), f"distinct wikitexts; mean {mean:,} bytes"),
            ContentCount("articles with an infobox", len(infobox), None, "use an Infobox template"),
            ContentCount("sections", sections, None, "== headings == over all articles"),
            ContentCount("tables", sum(t.count("{|") for t in texts), None, "wikitables in articles"),
            ContentCount("templates", one("SELECT count(*) FROM page WHERE page_namespace = 10"), None,
                         f"{one('SELECT count(*) FROM templatelinks')} uses"),
            ContentCount("categories", one("SELECT count(DISTINCT cl_to) FROM categorylinks"), None,
                         f"{one('SELECT count(*) FROM page WHERE page_namespace = 14')} category pages"),
            ContentCount("files", one("SELECT count(*) FROM image"), one("SELECT count(DISTINCT img_sha1) FROM image"),
                         f"distinct images; shown {one('SELECT count(*) FROM imagelinks')} times"),
            ContentCount("users", one("SELECT count(*) FROM user WHERE user_name <> 'MediaWiki default'"), None,
                         f"{one(_WRITERS)} wrote the pages"),
            ContentCount("links", one("SELECT count(*) FROM pagelinks"), None, "links between pages"),
        ]
    finally:
        conn.close()
    return AppStats("mediawiki", int(seed), tuple(rows))


_WRITERS = ("SELECT count(DISTINCT a.actor_name) FROM revision r JOIN actor a ON a.actor_id = r.rev_actor "
            "WHERE a.actor_name <> 'MediaWiki default'")


def _pages(conn: sqlite3.Connection) -> list[dict]:
    conn.row_factory = sqlite3.Row
    out = []
    for r in conn.execute(_TEXT):
        d = dict(r)
        if isinstance(d["text"], bytes):
            d["text"] = d["text"].decode("utf-8", "replace")
        out.append(d)
    conn.row_factory = None
    return out


@dataclass
class MediaWikiServer(LoopbackServer):
    """PHP's built-in server on loopback with MediaWiki behind ``router.php`` (4 workers, in a session of
    their own: stopped with the server)."""

    what: str = "MediaWiki"
    url_timeout: float = 20.0
    up_path: str = "/index.php?title=Main_Page"
    own_session: bool = True

    def command(self) -> tuple[list[str], dict[str, str]]:
        SPEC.require()
        env = {**_env(port=self.port), "PHP_CLI_SERVER_WORKERS": "4", "WG_MW_CONF": str(home() / "LocalSettings.php")}
        return (["php", *_OPCACHE, *_apcu(), "-S", f"127.0.0.1:{self.port}", "-t", str(MW),
                 str(Path(__file__).with_name("router.php"))], env)


IRREVERSIBLE = ("Delete page",)  # the control the approval gate asks before
# the requests that delete a page or file: a POST with ``action=delete`` (query or body; MediaWiki
# lower-cases it, PHP drops leading spaces of a name) to ``index.php`` (the delete form's "Delete page")
# or ``api.php`` (the action API), under any path; the form's GET only shows the confirmation
GATED = (GatedRoute("Delete page", r".*", "POST", ((r"\s*action", r"(?i)delete"),)),)


def app(server: MediaWikiServer) -> RealApp:
    return RealApp("mediawiki", server.base_url + "/",
                   ["webgauge", "arena", "apps", "reset", "mediawiki", "{seed}"], state,
                   irreversible=IRREVERSIBLE, gated=GATED, reset_fn=reset,
                   state_files=lambda: (home() / "data" / "wiki.sqlite",))


SPEC = RealAppSpec("mediawiki", "wiki", "GPL-2.0-or-later", f"Debian: {' '.join(APT)}", install, installed_version,
                   server=MediaWikiServer, arena_app=app, stats=stats)
