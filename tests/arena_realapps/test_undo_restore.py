"""A real app's database restored through its undo log holds exactly the snapshot's rows.

:func:`webgauge.arena.realapps.undo.restore_db` replays the rows the snapshot's triggers logged
instead of copying the file. Property: after any sequence of inserts, updates, deletes and
``REPLACE``s (through an INTEGER PRIMARY KEY, a hidden rowid, unique keys, an AUTOINCREMENT
table, a WITHOUT ROWID table, a unique index on an expression), in rollback-journal or WAL mode,
with restores and switches to another snapshot in between, every table of the live database
(rowids included) and ``sqlite_sequence`` equal the snapshot's, the next row the app inserts gets
the id it gets in a fresh copy, and a restore touches no more rows than the writes since the
last one named (the same writes on a database ten times larger restore the same rows). No
installed app needed: real SQLite files in a temporary folder.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from webgauge.arena.realapps.undo import UNDO_TABLE, restore_db

SCHEMA = (
    "CREATE TABLE ipk (id INTEGER PRIMARY KEY, name TEXT UNIQUE, v INTEGER)",
    "CREATE TABLE hidden (k TEXT, v INTEGER, UNIQUE (k))",  # a rowid table with no INTEGER PRIMARY KEY
    "CREATE TABLE auto (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)",
    "CREATE TABLE wr (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID",
    "CREATE TABLE expr (id INTEGER PRIMARY KEY, s TEXT)",
    "CREATE UNIQUE INDEX expr_lower ON expr (lower(s))",
    "CREATE VIRTUAL TABLE fts USING fts5(body)",  # a full-text index: its shadow tables hold its rows
)
TABLES = ("ipk", "hidden", "auto", "wr", "expr")


def _build(path: Path, n: int, flavour: str) -> None:
    conn = sqlite3.connect(path)
    for sql in SCHEMA:
        conn.execute(sql)
    conn.executemany("INSERT INTO ipk VALUES (?, ?, ?)", [(i, f"{flavour}n{i}", i) for i in range(1, n + 1)])
    conn.executemany("INSERT INTO hidden VALUES (?, ?)", [(f"{flavour}k{i}", i) for i in range(n)])
    conn.executemany("INSERT INTO auto(v) VALUES (?)", [(f"{flavour}{i}",) for i in range(n)])
    conn.execute("DELETE FROM auto WHERE id = 2")  # the sequence is above the largest id
    conn.executemany("INSERT INTO wr VALUES (?, ?)", [(f"{flavour}w{i}", i) for i in range(n)])
    conn.executemany("INSERT INTO expr VALUES (?, ?)", [(i, f"{flavour}S{i}") for i in range(1, n + 1)])
    conn.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", [(i, f"word{i % 5} {flavour}") for i in range(n)])
    conn.commit()
    conn.close()


def _dump(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out = {t: conn.execute(f"SELECT {'' if t == 'wr' else 'rowid, '}* FROM {t} ORDER BY 1, 2").fetchall()
               for t in TABLES}
        out["fts"] = conn.execute("SELECT rowid, body FROM fts ORDER BY rowid").fetchall()
        match = "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid"
        out["fts match"] = [conn.execute(match, (f"word{i}",)).fetchall() for i in range(6)]
        out["sqlite_sequence"] = conn.execute("SELECT * FROM sqlite_sequence ORDER BY 1").fetchall()
        return out
    finally:
        conn.close()


def _next_ids(path: Path) -> tuple[int, ...]:
    """The ids the app's next inserts get (rolled back: the file is left as it was)."""
    conn = sqlite3.connect(path)
    try:
        ids = (conn.execute("INSERT INTO ipk(name, v) VALUES ('zz-next', 0)").lastrowid,
               conn.execute("INSERT INTO hidden VALUES ('zz-next', 0)").lastrowid,
               conn.execute("INSERT INTO auto(v) VALUES ('zz-next')").lastrowid)
        conn.rollback()
        return tuple(int(i or 0) for i in ids)
    finally:
        conn.close()


KEYS = st.integers(0, 12)
WRITE = st.one_of(
    st.tuples(st.just("insert"), KEYS, st.integers(0, 99)),
    st.tuples(st.just("replace"), KEYS, st.integers(0, 99)),  # INSERT OR REPLACE through the unique keys
    st.tuples(st.just("update"), KEYS, st.integers(0, 99)),
    st.tuples(st.just("move"), KEYS, st.integers(0, 99)),  # a row's key (or rowid) changes
    st.tuples(st.just("delete"), KEYS, st.just(0)),
)
OPS = st.lists(st.one_of(WRITE, st.tuples(st.sampled_from(["restore", "other"]), st.just(0), st.just(0))),
               min_size=1, max_size=25)


def _write(conn: sqlite3.Connection, op: str, k: int, v: int) -> None:
    sqls = {
        "insert": [("INSERT OR IGNORE INTO ipk(name, v) VALUES (?, ?)", (f"an{k}", v)),
                   ("INSERT OR IGNORE INTO hidden VALUES (?, ?)", (f"new{k}", v)),
                   ("INSERT INTO auto(v) VALUES (?)", (f"x{v}",)),
                   ("INSERT OR IGNORE INTO wr VALUES (?, ?)", (f"new{k}", v)),
                   ("INSERT OR IGNORE INTO expr(s) VALUES (?)", (f"new{k}",)),
                   ("INSERT INTO fts(body) VALUES (?)", (f"word{v % 6} new",))],
        "replace": [("INSERT OR REPLACE INTO ipk(name, v) VALUES (?, ?)", (f"an{k}", v)),
                    ("REPLACE INTO hidden VALUES (?, ?)", (f"ak{k}", v)),
                    ("REPLACE INTO auto(id, v) VALUES (?, ?)", (k, f"r{v}")),
                    ("REPLACE INTO wr VALUES (?, ?)", (f"aw{k}", v)),
                    ("REPLACE INTO expr(s) VALUES (?)", (f"AS{k}",))],
        "update": [("UPDATE ipk SET v = ? WHERE id = ?", (v, k)),
                   ("UPDATE hidden SET v = ? WHERE k = ?", (v, f"ak{k}")),
                   ("UPDATE auto SET v = ? WHERE id = ?", (f"u{v}", k)),
                   ("UPDATE wr SET v = ? WHERE k = ?", (v, f"aw{k}")),
                   ("UPDATE OR REPLACE expr SET s = ? WHERE id = ?", (f"as{v % 13}", k))],
        "move": [("UPDATE OR REPLACE ipk SET id = ? WHERE id = ?", (k + v, k)),
                 ("UPDATE OR REPLACE hidden SET k = ? WHERE k = ?", (f"ak{v % 13}", f"ak{k}")),
                 ("UPDATE OR REPLACE hidden SET rowid = ? WHERE rowid = ?", (k + v, k)),
                 ("UPDATE OR REPLACE wr SET k = ? WHERE k = ?", (f"aw{v % 13}", f"aw{k}"))],
        "delete": [("DELETE FROM ipk WHERE id = ?", (k,)), ("DELETE FROM hidden WHERE k = ?", (f"ak{k}",)),
                   ("DELETE FROM auto WHERE id = ?", (k,)), ("DELETE FROM wr WHERE k = ?", (f"aw{k}",)),
                   ("DELETE FROM expr WHERE id = ?", (k,)), ("DELETE FROM fts WHERE rowid = ?", (k,))],
    }[op]
    for sql, args in sqls:
        conn.execute(sql, args)


@settings(max_examples=80, deadline=None)
@given(ops=OPS, wal=st.booleans())
def test_a_restore_gives_back_exactly_the_snapshot(tmp_path_factory, ops, wal):
    tmp = tmp_path_factory.mktemp("undo")
    snaps = {"a": tmp / "a.sqlite", "b": tmp / "b.sqlite"}
    for flavour, p in snaps.items():
        _build(p, 12, flavour)
    fresh = {k: (_dump(p), _next_ids(p)) for k, p in snaps.items()}
    live = tmp / "live.sqlite"
    current = "a"
    assert restore_db(snaps[current], live).mode == "whole"  # no live database yet: a copy
    if wal:
        conn = sqlite3.connect(live)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.close()
    writes = 0
    for op, k, v in ops:
        if op in ("restore", "other"):
            target = current if op == "restore" else ("b" if current == "a" else "a")
            res = restore_db(snaps[target], live)
            assert res.mode == ("rows" if target == current else "whole"), res
            if res.mode == "rows":  # no more rows than the writes named (5 tables, a REPLACE: 2 rows each)
                assert res.rows <= writes * 5 * 3 + 3 * 13, (res, writes)
            current, writes = target, 0
            assert _dump(live) == fresh[current][0]
            assert _next_ids(live) == fresh[current][1]
            continue
        conn = sqlite3.connect(live)
        _write(conn, op, k, v)
        conn.commit()
        conn.close()
        writes += 1
    restore_db(snaps[current], live)
    assert _dump(live) == fresh[current][0]
    assert _next_ids(live) == fresh[current][1]
    conn = sqlite3.connect(live)
    assert conn.execute(f"SELECT count(*) FROM {UNDO_TABLE}").fetchone()[0] == 0
    conn.close()


def test_a_restore_scales_with_the_writes_not_the_database(tmp_path):
    """The same writes on a database 1x and 10x as large restore the same rows, through the log (15 rowids:
    3 updated, 3 replaced (the old row and the new), 3 inserted, 3 deleted)."""
    restored = []
    for n in (40, 400):
        snap, live = tmp_path / f"snap{n}.sqlite", tmp_path / f"live{n}.sqlite"
        _build(snap, n, "a")
        restore_db(snap, live)
        conn = sqlite3.connect(live)
        for k in (1, 3, 5):  # the rowid tables (a WITHOUT ROWID table, or one with a unique expression, goes whole)
            conn.execute("UPDATE ipk SET v = v + 1 WHERE id = ?", (k,))
            conn.execute("REPLACE INTO hidden VALUES (?, ?)", (f"ak{k}", 7))
            conn.execute("INSERT INTO auto(v) VALUES ('new')")
            conn.execute("DELETE FROM auto WHERE id = ?", (k,))
        conn.commit()
        conn.close()
        res = restore_db(snap, live)
        assert res.mode == "rows"
        assert _dump(live) == _dump(snap)
        restored.append(res.rows)
    assert restored == [15, 15]


def test_a_schema_change_or_a_damaged_file_restores_whole(tmp_path):
    snap, live = tmp_path / "snap.sqlite", tmp_path / "live.sqlite"
    _build(snap, 5, "a")
    restore_db(snap, live)
    conn = sqlite3.connect(live)
    conn.execute("CREATE TABLE extra (x)")
    conn.execute("INSERT INTO ipk(name, v) VALUES ('q', 1)")
    conn.commit()
    conn.close()
    res = restore_db(snap, live)
    assert (res.mode, res.reason) == ("whole", "schema changed")
    assert _dump(live) == _dump(snap)
    conn = sqlite3.connect(live)
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name='extra'").fetchone()[0] == 0
    conn.close()
    live.write_bytes(b"not a database at all" * 100)
    assert restore_db(snap, live).mode == "whole"
    assert _dump(live) == _dump(snap)
    assert restore_db(snap, live).mode == "rows"
