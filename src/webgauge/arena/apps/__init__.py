"""The arena's self-hosted apps, their seeded data, the episode database, the server and its control API.

Every episode database holds all sites' tables plus the shared ones that a reset must also
restore: the frozen clock (``meta_clock``), feature flags (``meta_flags``) and stored files
(``files``). Seed data comes only from ``random.Random(f"{seed}:{site}")``.
"""

from __future__ import annotations

import random
import sqlite3
import threading
from collections import OrderedDict
from typing import Any

from ..core.irreversible import IrreversibleControls
from . import account, admin, calendar, dashboard, floorplan, forum, inbox, kanban, maps, media, shop, wiki
from .asgi import AsgiApp, asgi_site
from .common import Request, Response, Route, Site

__all__ = ["SITES", "ASGI_APPS", "build_seed", "Request", "Response", "Route", "Site", "SEED_CLOCK",
           "declared_controls"]

_MODULES: tuple[Any, ...] = ()  # every app is an ASGI app now; the hand-written Site layer stays for plug-ins and tests
ASGI_APPS: tuple[AsgiApp, ...] = (shop.APP, inbox.APP, wiki.APP, admin.APP, calendar.APP, account.APP, dashboard.APP,
                                  floorplan.APP, kanban.APP, forum.APP,
                                  maps.APP, media.APP)
"""Apps built as ASGI applications (Starlette + Jinja2), served through :func:`asgi_site`."""


def _plugin_apps() -> tuple[AsgiApp, ...]:
    """Apps from other packages (entry-point group ``webgauge.arena.apps``)."""
    from ..core.plugins import APPS_GROUP, PluginError, load_plugins

    apps = []
    for name, obj in load_plugins(APPS_GROUP):
        if not isinstance(obj, AsgiApp):
            raise PluginError(f"arena plug-in app {name!r} must be a webgauge.arena.apps.asgi.AsgiApp, "
                              f"got {type(obj).__name__}")
        apps.append(obj)
    return tuple(apps)


ASGI_APPS = ASGI_APPS + _plugin_apps()
SITES: dict[str, Site] = {m.SITE.name: m.SITE for m in _MODULES}
SITES.update({a.name: asgi_site(a) for a in ASGI_APPS})



def declared_controls() -> IrreversibleControls:
    """Every arena app's irreversible controls (old ``Site`` apps and ASGI apps, plug-ins included)."""
    return IrreversibleControls.of({s.prefix: s.irreversible for s in SITES.values()})


SEED_CLOCK = "2026-03-02T09:00:00Z"
"""The frozen clock every seed starts from (the browser's clock is frozen to the same instant)."""

META_SCHEMA = """
CREATE TABLE meta_clock(id INTEGER PRIMARY KEY CHECK(id=1), now TEXT);
CREATE TABLE meta_flags(name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, owner TEXT, content BLOB);
"""


#: Seeds whose database a process keeps after building it (about 0.8 MB each; least recently used dropped first).
SEEDS_KEPT = 8
_built: OrderedDict[int, sqlite3.Connection] = OrderedDict()
_built_lock = threading.Lock()


def build_seed(conn: sqlite3.Connection, seed: int) -> None:
    """Create every table in the empty database ``conn`` and fill it from ``seed`` (deterministic).

    A seed's first build in a process is kept (the last :data:`SEEDS_KEPT` seeds) and later builds
    copy it page by page (``sqlite3`` backup): the same database in under a millisecond instead of
    the 50-90 ms its generation takes (``bench/arena_seed_bench.py``; task builders, servers and
    replays each ask for seeds 0 and 1 again). A seed's data depends on the seed alone (see
    :mod:`webgauge.arena.content.pools`)."""
    if conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is not None:
        raise sqlite3.OperationalError(f"build_seed({seed}) needs an empty database: this one already has tables")
    with _built_lock:
        template = _built.get(seed)
        if template is None:
            template = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            _generate(template, seed)
            _built[seed] = template
            while len(_built) > SEEDS_KEPT:
                _built.popitem(last=False)[1].close()
        _built.move_to_end(seed)
        template.backup(conn)


def _generate(conn: sqlite3.Connection, seed: int) -> None:
    """Create every table and fill it from ``seed``: the generation :func:`build_seed` keeps."""
    conn.executescript(META_SCHEMA + "".join(m.SCHEMA for m in _MODULES) + "".join(a.schema for a in ASGI_APPS))
    conn.execute("BEGIN")
    conn.execute("INSERT INTO meta_clock VALUES(1,?)", (SEED_CLOCK,))
    for m in _MODULES:  # apps whose seed() also takes the seed draw people and names from the sliced pools
        rng = random.Random(f"{seed}:{m.SITE.name}")
        m.seed(conn, rng, seed) if m.seed.__code__.co_argcount == 3 else m.seed(conn, rng)
    for a in ASGI_APPS:
        for name, value in a.flags.items():
            conn.execute("INSERT INTO meta_flags VALUES(?,?)", (name, value))
        a.seed(conn, random.Random(f"{seed}:{a.name}"), seed)
    conn.execute("COMMIT")
