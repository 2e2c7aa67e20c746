"""django-oscar 4.2, the Django e-commerce framework, as a real arena app: a shop on SQLite.

Layout under ``apps_home()/oscar``: ``venv/`` (the shop's own virtualenv: django-oscar, Django,
sorl-thumbnail, Pillow, Whoosh and the WSGI server waitress from PyPI; the project's environment
is not touched), ``site/`` (the Django project, copied from this package: settings with DEBUG off, SQLite, loopback
hosts), ``static/`` (``collectstatic``), ``data/`` (the served ``db.sqlite3``, ``media/`` and
the search index ``whoosh_index/``) and ``snapshots/seed-N.v4/`` (the same right after seeding).
Sessions, Django's cache and the thumbnail store live in the database, so restoring the
database file drops sessions and brings the cache back to the snapshot's (warm: the catalogue was
rendered once when the seed was built); ``media/`` and ``whoosh_index/`` are
brought back to the snapshot's file lists. The server is waitress (PyPI) on 127.0.0.1 with a fixed
pool of threads, each keeping one database connection across requests (a reset restores the rows in
place, so a kept connection reads them).
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
    AppNotInstalled,
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

__all__ = ["GATED", "IRREVERSIBLE", "SPEC", "OscarServer", "app", "build_seed", "home", "install",
           "installed_version", "reset", "state", "stats"]

PIP_SPEC = "django-oscar[sorl-thumbnail]>=4.2,<4.3"
PIP_EXTRA = ("whoosh>=2.7,<3",)  # the search backend Oscar's catalogue pages use (Haystack's pure-Python one)
PIP_SERVER = "waitress>=3,<4"  # a multi-threaded WSGI server (a fixed pool: each thread keeps its database connection)
SERVER_THREADS = 6  # as many as a browser opens connections to one host
HERE = Path(__file__).resolve().parent


def _missing_image(blank: Path) -> None:
    """Oscar's "image not found" picture in the blank media folder (product pages without a photo show it)."""
    missing = next((home() / "venv").glob("lib/python*/site-packages/oscar/static/oscar/img/image_not_found.jpg"))
    shutil.copy2(missing, blank / "media" / "image_not_found.jpg")


SITE = DjangoSite("oscar", "the shop", HERE, "wgshop.settings", "WG_OSCAR_DATA", (
    PipStep("django_oscar", f"'{PIP_SPEC}'", (PIP_SPEC, *PIP_EXTRA)),
    PipStep("waitress", f"'{PIP_SERVER}'", (PIP_SERVER,)),
), "oscar")
home, _py, installed_version, _env, _manage, _sync_site = (SITE.home, SITE.py, SITE.installed_version, SITE.env,
                                                           SITE.manage, SITE.sync_site)


def install(say=print) -> InstallReport:
    """Install the shop (idempotent): virtualenv, pip install, project, migrations, static files, seed 0."""
    return SITE.install(say, seeding="seeding seed 0 through Oscar's models", snapshot0=lambda: _snap(0),
                        build_seed0=lambda: build_seed(0),
                        serve_seed0=lambda: reset.__wrapped__(0),  # type: ignore[attr-defined]
                        blank_extra=_missing_image)


SNAPSHOT_FORMAT = 4  # 4: the catalogue at volume (5,000+ products); 2: Django's cache kept warm in the snapshot


def _snap(seed: int) -> Path:
    return home() / "snapshots" / f"seed-{int(seed)}.v{SNAPSHOT_FORMAT}"


@checked_seed
def build_seed(seed: int) -> Path:
    """Create seed ``seed``'s snapshot: the blank database and media folder copied to a scratch folder,
    the seed's shop written through Oscar's models (a process in the shop's venv), saved as ``snapshots/seed-N.v4``."""
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
        raise RuntimeError("the shop is not installed; run: webgauge arena apps install oscar")
    work = home() / f"build-{int(seed)}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(blank, work)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(world(seed).to_json(), f)
    try:
        proc = subprocess.run([str(_py()), str(HERE / "seed_script.py"), str(home() / "site"), f.name,
                               str(home() / "photo-cache")],
                              env=_env(work), capture_output=True, text=True, check=False, timeout=1800)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        raise RuntimeError(f"seeding the shop's seed {seed} failed: {proc.stderr[-2500:]}")
    (work / "build.log").write_text(proc.stderr[-4000:], encoding="utf-8")  # the seeding phases and their times
    shutil.rmtree(snap, ignore_errors=True)
    snap.parent.mkdir(parents=True, exist_ok=True)
    os.replace(work, snap)
    return snap


@checked_reset("oscar", installed_version)
def reset(seed: int) -> None:
    """Restore the seed's snapshot: the database file (sessions, cache and thumbnail store in it), media and
    the search index."""
    snap = build_seed(seed)
    data = home() / "data"
    (data / "media").mkdir(parents=True, exist_ok=True)
    restore_db(snap / "db.sqlite3", data / "db.sqlite3")  # the rows written since the last reset (undo log)
    restore_tree(snap / "media", data / "media")
    restore_tree(snap / "whoosh_index", data / "whoosh_index")  # Whoosh reads its table of contents per search


# the shop's stored state: Oscar's tables (every column but those a page view or sign-in rewrites)
TABLES = ("auth_user", "address_useraddress", "basket_basket", "basket_line", "basket_lineattribute",
          "basket_basket_vouchers", "order_order", "order_line", "order_lineattribute", "order_shippingaddress",
          "order_orderdiscount", "catalogue_product", "catalogue_productcategory", "catalogue_category",
          "partner_stockrecord", "reviews_productreview", "wishlists_wishlist", "wishlists_line", "voucher_voucher",
          "voucher_voucherapplication", "voucher_voucher_offers",
          "catalogue_productattribute", "catalogue_productattributevalue", "django_session")
_SKIP = {"auth_user": ("last_login",), "django_session": ("session_data", "expire_date")}


def state(db: Path | None = None) -> dict[str, list[dict]]:
    """The shop's stored state, read with SQL from Oscar's own tables."""
    db = db or home() / "data" / "db.sqlite3"
    conn = open_state_db(db)
    try:
        out = {}
        for t in TABLES:
            rows = [dict(r) for r in conn.execute(f"SELECT * FROM {t} ORDER BY 1")]
            for r in rows:
                for c in _SKIP.get(t, ()):
                    r.pop(c, None)
                for k, v in r.items():
                    if isinstance(v, float):
                        r[k] = round(v, 6)
            out[t] = rows
    finally:
        conn.close()
    return out


@dataclass
class OscarServer(LoopbackServer):
    """The shop under waitress (a multi-threaded WSGI server from PyPI) on loopback; use as a context manager."""

    what: str = "the shop's server"
    up_path: str = "/catalogue/"

    def command(self) -> tuple[list[str], dict[str, str]]:
        SPEC.require()
        _sync_site()  # the project's settings as this package has them (an install made before may be older)
        if not SITE.has("waitress"):
            raise AppNotInstalled("the shop's server (waitress) is not installed; "
                                  "run: webgauge arena apps install oscar")
        return ([str(_py()), "-m", "waitress", "--host=127.0.0.1", f"--port={self.port}",
                 f"--threads={SERVER_THREADS}", "--ident=", "wgshop.wsgi:application"], _env())

    def cwd(self) -> str | None:
        return str(home() / "site")


IRREVERSIBLE = ("Place order", "Delete")  # the controls the approval gate asks before
# the request that places the order: the checkout preview's (or payment details') POST with
# ``action=place_order``, under any path (Oscar's PaymentDetailsView serves both pages)
# and the dashboard's deletions (a product, variant, voucher, offer, category, ...): the confirmation
# page's Delete posts to a path ending in ``delete/`` (``/dashboard/vouchers/delete/3/``,
# ``/dashboard/catalogue/products/12/delete/``)
GATED = (GatedRoute("Place order", r".*", "POST", ((r"action", r"place_order"),)),
         GatedRoute("Delete", r"/dashboard/(.*/)?delete(/.*)?", "POST"))


def app(server: OscarServer) -> RealApp:
    """The shop as an arena app (reset in-process; from a shell: ``webgauge arena apps reset oscar SEED``)."""
    return RealApp("oscar", server.base_url + "/",
                   [sys.executable, "-m", "webgauge.cli.main", "arena", "apps", "reset", "oscar", "{seed}"],
                   state, irreversible=IRREVERSIBLE, gated=GATED, reset_fn=reset,
                   state_files=lambda: (home() / "data" / "db.sqlite3",))


@checked_seed
def stats(seed: int) -> AppStats:
    """Content counts of seed ``seed``'s snapshot, read with SQL from Oscar's tables (builds the snapshot
    if it is missing)."""
    db = build_seed(seed) / "db.sqlite3"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

    def one(sql: str) -> int:
        return int(conn.execute(sql).fetchone()[0] or 0)

    try:
        top = "FROM catalogue_product WHERE parent_id IS NULL"
        paras = one(f"SELECT avg((length(description) - length(replace(description, '<p>', ''))) / 3) {top} "
                    "AND description != ''")
        rows = (
            ContentCount("products", one(f"SELECT count(*) {top}"), one(f"SELECT count(DISTINCT title) {top}"),
                         "top-level products; distinct titles"),
            ContentCount("variants", one("SELECT count(*) FROM catalogue_product WHERE parent_id IS NOT NULL"),
                         None, "size/colour children"),
            ContentCount("categories", one("SELECT count(*) FROM catalogue_category"),
                         one("SELECT count(DISTINCT category_id) FROM catalogue_productcategory"),
                         "all levels; distinct = categories holding products"),
            ContentCount("descriptions", one(f"SELECT count(*) {top} AND description != ''"),
                         one(f"SELECT count(DISTINCT description) {top} AND description != ''"),
                         f"distinct texts; about {paras} paragraphs each"),
            ContentCount("product classes", one("SELECT count(*) FROM catalogue_productclass"),
                         one("SELECT count(DISTINCT type) FROM catalogue_productattribute"),
                         "distinct = attribute types in use"),
            ContentCount("attribute values", one("SELECT count(*) FROM catalogue_productattributevalue"),
                         one("SELECT count(DISTINCT attribute_id) FROM catalogue_productattributevalue"),
                         "distinct = attributes"),
            ContentCount("photos", one("SELECT count(*) FROM catalogue_productimage"),
                         one("SELECT count(DISTINCT original) FROM catalogue_productimage"),
                         "product images; distinct image files"),
            ContentCount("reviews", one("SELECT count(*) FROM reviews_productreview"),
                         one("SELECT count(DISTINCT body) FROM reviews_productreview"), "distinct bodies"),
            ContentCount("customers", one("SELECT count(*) FROM auth_user WHERE NOT is_staff"),
                         one("SELECT count(DISTINCT email) FROM auth_user WHERE NOT is_staff"), "distinct e-mails"),
            ContentCount("staff", one("SELECT count(*) FROM auth_user WHERE is_staff"), None, "dashboard accounts"),
            ContentCount("addresses", one("SELECT count(*) FROM address_useraddress"),
                         one("SELECT count(DISTINCT line4) FROM address_useraddress"), "distinct towns"),
            ContentCount("orders", one("SELECT count(*) FROM order_order"),
                         one("SELECT count(DISTINCT user_id) FROM order_order"), "distinct customers"),
            ContentCount("order statuses", one("SELECT count(DISTINCT status) FROM order_order"), None, ""),
            ContentCount("vouchers", one("SELECT count(*) FROM voucher_voucher"),
                         one("SELECT count(DISTINCT code) FROM voucher_voucher"), "distinct codes"),
        )
    finally:
        conn.close()
    return AppStats("oscar", seed, rows)


SPEC = RealAppSpec("oscar", "shop", "BSD-3-Clause", f"PyPI: {PIP_SPEC}", install, installed_version,
                   server=OscarServer, arena_app=app, stats=stats)
