"""A reset leaves nothing of an episode behind, in the stored state or in what the app serves.

A reset restores the rows written since the snapshot (the undo log) while the app's server keeps
running with its caches (OPcache/APCu for MediaWiki, kept database connections for the shop, Django's
cache and MediaWiki's parser cache as rows of the database). For each app: serve the seed's pages,
change the content those pages show (the database written, then the pages served again so that
every cache the app has fills with the changed content), reset, and the pages and the state hash
must equal those of a fresh seed (the database copied whole from the snapshot), byte for byte but
for the per-request tokens a page carries.
"""

from __future__ import annotations

import re
import sqlite3
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

# what differs between two fetches of one unchanged page: anti-forgery tokens and per-request ids
_VOLATILE = re.compile(rb'(name="(?:csrfmiddlewaretoken|@csrf|wpEditToken)"[^>]*value=")[^"]*|'
                       rb'(value=")[0-9a-f]{20,}|("wgRequestId":")[^"]*|("wgBackendResponseTime":)\d+|'
                       rb'(<!-- Served by [^>]* in )[0-9.]+|("cputime":")[^"]*|("walltime":")[^"]*|'
                       rb'(Cached time: )\d+|(CPU time usage: )[0-9.]+|(Real time usage: )[0-9.]+|'
                       rb'("timestamp":")\d+|(csrfmiddlewaretoken" value=")[^"]*|'
                       rb'(<meta name="created" content=")[^"]*|(parser cache with key [^ ]* and timestamp )\d+|'
                       rb'(Cached time: )\d+|(Dynamic content: )\w+|( nonce=")[^"]*|'
                       # the parser's timing profile of a page parsed anew ("100.00%    1.855      1 -total")
                       rb'([0-9.]+%\s+)[0-9.]+')


def _page(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as r:
        body = r.read()
    return _VOLATILE.sub(lambda m: next(g for g in m.groups() if g is not None) + b"~", body)


def _write(db: Path, sqls: list[str]) -> None:
    conn = sqlite3.connect(db)
    for sql in sqls:
        assert conn.execute(sql).rowcount > 0, f"the write changed nothing: {sql}"
    conn.commit()
    conn.close()


def _fresh(snapshot: Path, live: Path) -> None:
    """The live database made a fresh copy of its snapshot, whole (SQLite's backup API, in place: the
    server's open connections read the copy), no undo log replayed."""
    src, dst = sqlite3.connect(f"file:{snapshot}?mode=ro", uri=True), sqlite3.connect(live)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def _check(mod, server, db: Path, paths: list[str], sqls: list[str], marker: bytes,
           dbs: Callable[[], list[tuple[Path, Path]]]) -> None:
    base = server.base_url.rstrip("/")
    ctl = mod.app(server).control()
    mod.reset(0)  # the files (uploads) as the seed has them
    for snapshot, live in dbs():
        _fresh(snapshot, live)
    fresh = [_page(base + p) for p in paths]
    fresh_hash = ctl.fresh_state("x")[1]
    again = [_page(base + p) for p in paths]
    for p, a, f in zip(paths, again, fresh, strict=True):
        diff = [(x, y) for x, y in zip(a.splitlines(), f.splitlines(), strict=False) if x != y][:3]
        assert a == f, f"{p} differs between two fetches (normalise what varies): {diff}"
    for _ in range(2):
        _write(db, sqls)
        changed = [_page(base + p) for p in paths]
        assert any(marker in c for c in changed), "the pages do not show the write: the check below tests nothing"
        assert ctl.fresh_state("x")[1] != fresh_hash
        mod.reset(0)
        assert ctl.fresh_state("x")[1] == fresh_hash
        after = [_page(base + p) for p in paths]
        for p, a, f in zip(paths, after, fresh, strict=True):
            diff = [(x, y) for x, y in zip(a.splitlines(), f.splitlines(), strict=False) if x != y][:3]
            assert a == f, f"{p} after a reset differs from the fresh seed's: {diff}"


@pytest.mark.realapps
def test_roundup_pages_after_a_reset_are_the_fresh_seeds(roundup_server):
    from webgauge.arena.realapps.roundup import app as roundup

    db = roundup.home() / "tracker" / "db" / "db"
    _check(roundup, roundup_server, db, ["/", "/issue1", "/issue?@columns=title,status&@sort=-activity"],
           ["UPDATE _issue SET _title = 'Zebra quokka platypus' WHERE id = 1"], b"Zebra quokka platypus",
           lambda: [(roundup.build_seed(0) / "db", db)])


@pytest.mark.realapps
def test_shop_pages_after_a_reset_are_the_fresh_seeds(oscar_server):
    from webgauge.arena.realapps.oscar import app as oscar

    db = oscar.home() / "data" / "db.sqlite3"
    conn = sqlite3.connect(f"file:{oscar.build_seed(0) / 'db.sqlite3'}?mode=ro", uri=True)
    pid, slug = conn.execute("SELECT id, slug FROM catalogue_product WHERE structure != 'child' "
                             "ORDER BY id LIMIT 1").fetchone()
    conn.close()
    _check(oscar, oscar_server, db, ["/catalogue/", f"/catalogue/{slug}_{pid}/"],
           [f"UPDATE catalogue_product SET title = 'Zebra quokka platypus' WHERE id = {pid}"],
           b"Zebra quokka platypus", lambda: [(oscar.build_seed(0) / "db.sqlite3", db)])


@pytest.mark.realapps
def test_wiki_pages_after_a_reset_are_the_fresh_seeds(mediawiki_server):
    from webgauge.arena.realapps.mediawiki import app as mediawiki

    data = mediawiki.home() / "data"
    db = data / "wiki.sqlite"
    conn = sqlite3.connect(f"file:{mediawiki.build_seed(0) / 'wiki.sqlite'}?mode=ro", uri=True)
    title, old_id = conn.execute(
        "SELECT p.page_title, t.old_id FROM page p JOIN slots s ON s.slot_revision_id = p.page_latest "
        "JOIN content c ON c.content_id = s.slot_content_id JOIN text t ON c.content_address = 'tt:' || t.old_id "
        "WHERE p.page_namespace = 0 AND p.page_title != 'Main_Page' ORDER BY p.page_id LIMIT 1").fetchone()
    conn.close()
    title = title.decode() if isinstance(title, bytes) else title
    _check(mediawiki, mediawiki_server, db, ["/index.php?title=Main_Page", f"/index.php?title={title}"],
           [f"UPDATE text SET old_text = 'Zebra quokka platypus' WHERE old_id = {old_id}",
            f"UPDATE page SET page_touched = '20300101000000' WHERE page_title = '{title}' AND page_namespace = 0"],
           b"Zebra quokka platypus", lambda: [(mediawiki.build_seed(0) / f, data / f) for f in mediawiki.DB_FILES])

