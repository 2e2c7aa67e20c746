"""A real app's state is read again whenever its database changed, and only then.

The control answers a state read from its last one while the app's database files are unchanged
(:func:`webgauge.arena.realapps.base.sqlite_signature`). Property: after any sequence of writes,
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

from webgauge.arena.realapps.base import RealApp, restore_db, restore_file


def _read(db: Path) -> dict[str, list[dict]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
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
