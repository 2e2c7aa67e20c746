"""A real app's state is read again whenever what it reads may have changed, and only then.

The control answers a state read from its last one while the app's database files are unchanged
(:func:`webgauge.arena.realapps.base.sqlite_signature`), and from the read it kept for a snapshot while
the undo log shows none of the tables that read depended on written since the database was last that
snapshot. Property: after any sequence of writes (to a table the state reads, and to one it does not),
restores and reads -- in rollback-journal and WAL mode, writes close together in time, rows of the
same size, a restore of the snapshot file or of the rows written since (the undo log, a writer kept
open) -- the state the control gives is the state a fresh SQL
read gives. No installed app needed: a real SQLite database in a temporary folder.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from webgauge.arena.realapps.base import RealApp, open_state_db, restore_db, restore_file


def _read(db: Path) -> dict[str, list[dict]]:  # reads table t only (u is the app's cache, say)
    conn = open_state_db(db)
    try:
        return {"t": [{"id": i, "v": v} for i, v in conn.execute("SELECT id, v FROM t ORDER BY id")]}
    finally:
        conn.close()


def _make(tmp: Path, wal: bool) -> tuple[Path, Path]:
    db, snap = tmp / "live.sqlite", tmp / "snap.sqlite"
    for p in (db, snap, *tmp.glob("live.sqlite*")):
        p.unlink(missing_ok=True)
    conn = sqlite3.connect(snap)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    conn.execute("CREATE TABLE u (k TEXT PRIMARY KEY, v TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, "a") for i in range(5)])
    conn.commit()
    conn.close()
    restore_file(snap, db)
    if wal:
        conn = sqlite3.connect(db)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.close()
    return db, snap


def _app(db: Path) -> RealApp:
    return RealApp("memo", "http://127.0.0.1:9/", ["true"], lambda: _read(db), state_files=lambda: (db,))


OPS = st.lists(st.one_of(
    st.tuples(st.just("write"), st.integers(0, 6), st.sampled_from("abc")),  # one letter: the size stays the same
    st.tuples(st.just("cache"), st.integers(0, 6), st.sampled_from("abc")),  # a table the state does not read
    st.tuples(st.just("restore"), st.just(0), st.just("")),
    st.tuples(st.just("undo"), st.just(0), st.just("")),  # the rows restored in place, the writer kept open
    st.tuples(st.just("read"), st.just(0), st.just("")),
), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(ops=OPS, wal=st.booleans())
def test_the_state_given_is_always_the_fresh_one(tmp_path_factory, ops, wal):
    tmp = tmp_path_factory.mktemp("memo")
    db, snap = _make(tmp, wal)
    ctl = _app(db).control()
    writer = sqlite3.connect(db, isolation_level=None)  # an open connection, as an app's server keeps
    try:
        for op, key, value in ops:
            if op == "write":
                writer.execute("INSERT OR REPLACE INTO t VALUES (?, ?)", (key, value))
            elif op == "cache":
                writer.execute("INSERT OR REPLACE INTO u VALUES (?, ?)", (str(key), value))
            elif op == "restore":
                writer.close()
                restore_file(snap, db)
                writer = sqlite3.connect(db, isolation_level=None)
            elif op == "undo":
                restore_db(snap, db)
            state, _ = ctl.state("e")
            assert state == _read(db), (op, key, value)
    finally:
        writer.close()


def test_an_unchanged_database_is_read_once(tmp_path):
    db, snap = _make(tmp_path, wal=False)
    ctl = _app(db).control()
    first = ctl.state("e")
    assert ctl.state("e") == first and ctl.state("e") == first
    assert ctl.state_reads == 1
    conn = sqlite3.connect(db)
    conn.execute("UPDATE t SET v = 'b' WHERE id = 1")
    conn.commit()
    conn.close()
    assert ctl.state("e")[0]["t"][1]["v"] == "b"
    assert ctl.state_reads == 2
    restore_file(snap, db)
    assert ctl.state("e") == first
    assert ctl.state_reads == 3


def test_a_reset_reads_the_state_once_for_its_check_and_the_seed_state(tmp_path):
    """The env's reset asks for the state three times (the hash check, the seed state, after the
    start page); with nothing written in between, the database is read once."""
    db, snap = _make(tmp_path, wal=False)
    app = RealApp("memo", "http://127.0.0.1:9/", ["true"], lambda: _read(db), state_files=lambda: (db,),
                  reset_fn=lambda seed: restore_file(snap, db))
    ctl = app.control()
    r = ctl.reset("e", 0)
    assert r["hash"] == r["seed_hash"]
    seed_state, h = ctl.state("e")
    assert h == r["hash"] and seed_state == _read(db)
    ctl.state("e")
    assert ctl.state_reads == 1
    ctl.reset("e", 0)  # a restore puts another file in place: read again
    assert ctl.state_reads == 2


def test_a_restored_snapshot_is_not_read_again_while_what_the_state_reads_is_untouched(tmp_path):
    """After the first read of a restored snapshot, every later restore of it is answered from that
    read, also after a write to a table the state does not read; a write to one it reads is read."""
    db, snap = _make(tmp_path, wal=False)
    ctl = _app(db).control()
    restore_db(snap, db)  # (the first restore of a copy restores it whole; the next ones replay the log)
    restore_db(snap, db)
    first = ctl.state("e")
    assert ctl.state_reads == 1
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        for _ in range(3):
            writer.execute("INSERT OR REPLACE INTO u VALUES ('k', 'v')")  # the start page fills the cache
            assert ctl.state("e") == first
            writer.execute("UPDATE t SET v = 'z' WHERE id = 2")  # the episode's change
            assert ctl.state("e")[0]["t"][2]["v"] == "z"
            restore_db(snap, db)
            assert ctl.state("e") == first
        assert ctl.state_reads == 4  # the first read and one per change to t
        assert ctl.fresh_state("e") == first and ctl.state_reads == 5
    finally:
        writer.close()


def test_a_state_that_reads_a_table_the_log_does_not_cover_is_never_kept(tmp_path):
    """A state query reading a table outside the undo log (here one made after the snapshot) is read
    every time the database changed: nothing shows that table unchanged."""
    db, snap = _make(tmp_path, wal=False)
    restore_db(snap, db)
    restore_db(snap, db)

    def read() -> dict[str, list]:
        conn = open_state_db(db)
        try:
            return {"t": [dict(r) for r in conn.execute("SELECT id, v FROM t ORDER BY id")],
                    "w": [dict(r) for r in conn.execute("SELECT name, sql FROM sqlite_master ORDER BY name")]}
        finally:
            conn.close()

    ctl = RealApp("memo", "http://127.0.0.1:9/", ["true"], read, state_files=lambda: (db,)).control()
    first = ctl.state("e")
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute("INSERT OR REPLACE INTO u VALUES ('k', 'v')")
        assert ctl.state("e") == first
        assert ctl.state_reads == 2
    finally:
        writer.close()
