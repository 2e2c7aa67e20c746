"""Restoring a real app's SQLite database to its snapshot in time proportional to what changed.

A seed's snapshot is a SQLite file; the app serves a copy of it. Copying the whole file back on
every reset costs time in proportion to the database's size (a shop with 5,000 products, a wiki with
1,000 articles), while an episode changes a handful of rows. So the snapshot carries an **undo
log**: :func:`track` installs, once, SQLite triggers on every table that record the rowid of each
row an insert, update or delete touches (and, before an insert or update, the rows a
``REPLACE`` would delete through a unique key) into the table ``wg_undo``, and a random token in
``wg_restore_meta``. The live copy inherits both. :func:`restore_db` then attaches the snapshot
and, in one transaction, deletes the logged rows from the live database and copies the same rowids
back from the snapshot (a table without rowids is copied whole, when it was touched), copies
``sqlite_sequence`` back, and empties the log. A virtual table's shadow tables (a full-text index:
SQLite 3.40 crashes when FTS5 writes to shadow tables that carry triggers) get no triggers and are
copied back whole when anything at all was written (the apps' full-text indexes are small: Roundup
indexes with its own word tables, MediaWiki's search index holds what was edited).

Why triggers: the apps write from their own processes (PHP, a Django server, Roundup's forks), so
whatever records a change must live in the database file itself; SQLite's session extension is not
reachable from those processes, and comparing pages of the two files still reads both whole.

The fast path is taken only when the live database is provably a copy of this snapshot that has
changed only through its tables: the same token, the same schema (every ``CREATE``, ``ALTER`` and
``DROP`` shows in ``sqlite_master``) and the log present. Anything else (another seed's copy, a missing
or damaged file, a schema change) is restored whole, in place through SQLite's backup API (so a
server holding the database open sees the restored file, not a deleted one), or by copying the file
when there is none. Both leave the live database holding exactly the snapshot's rows, rowids included.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sqlite3
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Pristine", "RestoreResult", "UNDO_TABLE", "pristine", "restore_db", "track", "tracked_tables"]

UNDO_TABLE = "wg_undo"
META_TABLE = "wg_restore_meta"
_PREFIX = "wg_undo_"  # the triggers' names
TRIGGERS_VERSION = 2  # a snapshot tracked by older triggers gets these instead


@dataclass(frozen=True)
class RestoreResult:
    """What :func:`restore_db` did: ``mode`` "rows" (the undo log replayed: ``rows`` logged rowids restored,
    ``tables`` tables touched, those restored whole included) or "whole" (the file restored whole, ``reason``
    says why)."""

    mode: str
    rows: int = 0
    tables: int = 0
    reason: str = ""


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class _Table:
    name: str
    rowid: bool  # False: a WITHOUT ROWID table (restored whole when touched)
    columns: tuple[str, ...]  # stored columns, the INTEGER PRIMARY KEY (the rowid itself) left out
    unique: tuple[tuple[str, ...], ...]  # column lists of unique indexes (a REPLACE deletes through them)
    expr_unique: bool  # a unique index on an expression: which row a REPLACE deletes is not known
    shadow: bool = False  # a virtual table's shadow table (a full-text index's): no triggers, restored whole


def tracked_tables(conn: sqlite3.Connection, schema: str = "main") -> list[_Table]:
    """The ordinary tables of ``schema`` (not SQLite's own, not the undo log's, not virtual tables: their
    shadow tables hold their rows, marked ``shadow``)."""
    out = []
    rows = conn.execute(f"SELECT name, sql FROM {schema}.sqlite_master WHERE type='table' ORDER BY name").fetchall()
    virtual = tuple(f"{n}_" for n, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL"))
    for name, sql in rows:
        if name.startswith("sqlite_") or name in (UNDO_TABLE, META_TABLE) or (sql or "").upper().startswith(
                "CREATE VIRTUAL"):
            continue
        without_rowid = _without_rowid(conn, schema, name, sql or "")
        info = conn.execute(f"PRAGMA {schema}.table_xinfo({_q(name)})").fetchall()
        pks = [r for r in info if r[5]]
        ipk = (not without_rowid and len(pks) == 1 and str(pks[0][2]).upper() == "INTEGER")
        cols = tuple(r[1] for r in info if r[6] == 0 and not (ipk and r[5]))  # hidden 0: stored, not generated
        unique, expr = [], False
        for idx in conn.execute(f"PRAGMA {schema}.index_list({_q(name)})").fetchall():
            if not idx[2]:
                continue
            icols = conn.execute(f"PRAGMA {schema}.index_info({_q(idx[1])})").fetchall()
            if any(c[1] < 0 for c in icols):
                expr = True
            else:
                unique.append(tuple(c[2] for c in icols))
        out.append(_Table(name, not without_rowid, cols, tuple(unique), expr, name.startswith(virtual)))
    return out


def _without_rowid(conn: sqlite3.Connection, schema: str, name: str, sql: str) -> bool:
    """Is table ``name`` a WITHOUT ROWID table (SQLite's ``table_list``: schema, name, type, ncol, wr, strict)?"""
    if sqlite3.sqlite_version_info >= (3, 37, 0):
        for r in conn.execute(f"PRAGMA {schema}.table_list({_q(name)})"):
            if r[1] == name:
                return bool(r[4])
    return "WITHOUT ROWID" in " ".join(sql.upper().split())


def _triggers(t: _Table, n: int) -> list[str]:
    name, q = t.name, _q(t.name)
    lit = "'" + name.replace("'", "''") + "'"
    log = f"INSERT INTO {UNDO_TABLE}(t, r) VALUES ({lit}, "
    if t.shadow:  # a full-text module writes these itself: SQLite 3.40 crashed on FTS5 with triggers on them
        return []
    if not t.rowid or t.expr_unique:  # the whole table, once touched
        body = f"{log}NULL);"
        return [f"CREATE TRIGGER {_PREFIX}{n}_{ev[0]} AFTER {ev} ON {q} BEGIN {body} END"
                for ev in ("INSERT", "UPDATE", "DELETE")]

    def replaced(ref: str) -> str:  # the rows a REPLACE through a unique index would delete (NULLs never clash)
        return "".join(
            f"INSERT INTO {UNDO_TABLE}(t, r) SELECT {lit}, rowid FROM {q} WHERE "
            + " AND ".join(f"{_q(c)} = {ref}.{_q(c)}" for c in cols) + ";"
            for cols in t.unique)

    out = [f"CREATE TRIGGER {_PREFIX}{n}_i AFTER INSERT ON {q} BEGIN {log}NEW.rowid); END",
           f"CREATE TRIGGER {_PREFIX}{n}_u AFTER UPDATE ON {q} BEGIN {log}OLD.rowid); {log}NEW.rowid); END",
           f"CREATE TRIGGER {_PREFIX}{n}_d AFTER DELETE ON {q} BEGIN {log}OLD.rowid); END"]
    if t.unique:
        out += [f"CREATE TRIGGER {_PREFIX}{n}_bi BEFORE INSERT ON {q} BEGIN {replaced('NEW')} END",
                f"CREATE TRIGGER {_PREFIX}{n}_bu BEFORE UPDATE OF "
                f"{', '.join(_q(c) for c in dict.fromkeys(c for cols in t.unique for c in cols))} ON {q} "
                f"BEGIN {replaced('NEW')} END"]
    return out


def _connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
    conn = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None, check_same_thread=False)
    if not readonly:  # no fsync: a reset is not a durable write (a machine that crashes resets again)
        conn.execute("PRAGMA synchronous=OFF")
    return conn


def _token(conn: sqlite3.Connection, schema: str = "main") -> str | None:
    try:
        row = conn.execute(f"SELECT token FROM {schema}.{META_TABLE}").fetchone()
    except sqlite3.DatabaseError:
        return None
    return row[0] if row else None


_TOKENS: dict[tuple[str, int, int, int], str] = {}  # snapshot (path, inode, size, mtime) -> its token


def track(snapshot: Path) -> str:
    """Install the undo log's triggers and token in ``snapshot`` (once; the app's tables and rows are not
    touched) and return its token. Safe to call from several processes at once."""
    st = snapshot.stat()
    key = (str(snapshot), st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _TOKENS:
        return _TOKENS[key]
    with open(snapshot.with_name(snapshot.name + ".wg-lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        conn = _connect(snapshot)
        try:
            token = _token(conn)
            if token is None or not token.startswith(f"v{TRIGGERS_VERSION}-"):
                token = f"v{TRIGGERS_VERSION}-{uuid.uuid4().hex}"  # a live copy of an older one restores whole
                conn.execute("BEGIN IMMEDIATE")
                for (old,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger' AND "
                                           "substr(name, 1, ?) = ?", (len(_PREFIX), _PREFIX)).fetchall():
                    conn.execute(f"DROP TRIGGER {_q(old)}")
                for n, t in enumerate(tracked_tables(conn)):
                    for sql in _triggers(t, n):
                        conn.execute(sql)
                conn.execute(f"CREATE TABLE IF NOT EXISTS {UNDO_TABLE}(t TEXT NOT NULL, r INTEGER)")
                conn.execute(f"DELETE FROM {UNDO_TABLE}")
                conn.execute(f"DROP TABLE IF EXISTS {META_TABLE}")
                conn.execute(f"CREATE TABLE {META_TABLE}(token TEXT NOT NULL)")
                conn.execute(f"INSERT INTO {META_TABLE} VALUES (?)", (token,))
                conn.execute("COMMIT")
        finally:
            conn.close()
    st = snapshot.stat()
    _TOKENS[(str(snapshot), st.st_ino, st.st_size, st.st_mtime_ns)] = token
    return token


def _copy_whole(snapshot: Path, live: Path) -> None:
    """``live`` made a copy of ``snapshot``: in place through SQLite's backup API when it is a database
    (a connection another process holds open sees the restored rows), else by an atomic file copy."""
    if live.is_file():
        try:
            src, dst = _connect(snapshot, readonly=True), _connect(live)
            try:
                src.backup(dst)
                return
            finally:
                src.close()
                dst.close()
        except sqlite3.DatabaseError:
            pass  # not a database (damaged, truncated): replaced by a copy below
    tmp = live.with_name(live.name + ".wg-restore")
    shutil.copyfile(snapshot, tmp)
    os.replace(tmp, live)
    for extra in ("-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            live.with_name(live.name + extra).unlink()


_TABLES: dict[str, list[_Table]] = {}  # snapshot token -> its tables


@dataclass
class _Live:
    """A connection to a live database kept across restores (SQLite parses a schema with hundreds of
    triggers once per connection, not once per reset), with its snapshot attached as ``snap``; not kept
    for a database in WAL mode (:func:`restore_db`)."""

    conn: sqlite3.Connection
    inode: int
    snapshot: str  # its path and inode
    wal: bool  # in WAL mode: closed after each restore (see restore_db)
    checked_schema: int | None = None  # the live schema version last found equal to the snapshot's schema


KEEP_WAL_CONNECTIONS = True
"""Keep the connection to a WAL database too. An open connection to a WAL database holds a shared lock
on its file for as long as it is open, and POSIX drops a process's locks on a file when any of its
descriptors of that file is closed: another process would then checkpoint and delete the WAL under
this connection. So nothing in this process may open and close a live database file outside SQLite
(``base.sqlite_signature`` reads headers through descriptors it keeps open); False closes the
connection after each restore instead (a rollback-journal database's idle connection holds no lock)."""

_LIVE: dict[str, _Live] = {}
_LOCK = threading.Lock()


def _live_conn(snapshot: Path, live: Path) -> _Live:
    ino = live.stat().st_ino
    snap = f"{snapshot}@{snapshot.stat().st_ino}"  # (a snapshot built again is another file: attached anew)
    have = _LIVE.get(str(live))
    if have is not None and have.inode == ino and have.snapshot == snap:
        return have
    if have is not None:
        _drop(live)
    conn = _connect(live)
    try:
        conn.execute("ATTACH DATABASE ? AS snap", (f"file:{snapshot}?mode=ro",))
    except sqlite3.DatabaseError:
        conn.close()
        raise
    wal = conn.execute("PRAGMA main.journal_mode").fetchone()[0].lower() == "wal"
    _LIVE[str(live)] = made = _Live(conn, ino, snap, wal)
    return made


def _drop(live: Path) -> None:
    have = _LIVE.pop(str(live), None)
    if have is not None:
        with contextlib.suppress(sqlite3.Error):
            have.conn.close()


def restore_db(snapshot: Path, live: Path) -> RestoreResult:
    """Make SQLite database ``live`` hold exactly the rows of ``snapshot`` (see the module): the rows the
    undo log names when ``live`` is a tracked copy of it, else the whole file. Thread-safe."""
    token = track(snapshot)
    with _LOCK:
        if not live.is_file():
            _drop(live)
            _copy_whole(snapshot, live)
            return RestoreResult("whole", reason="no live database")
        try:
            lc = _live_conn(snapshot, live)
            reason = _restore_rows(lc, token)
            if lc.wal and not KEEP_WAL_CONNECTIONS:
                _drop(live)
        except sqlite3.DatabaseError as exc:
            have = _LIVE.get(str(live))
            if have is not None:
                with contextlib.suppress(sqlite3.Error):
                    have.conn.execute("ROLLBACK")
            reason = f"live database unreadable ({exc})"
        if isinstance(reason, RestoreResult):
            return reason
        _drop(live)
        _copy_whole(snapshot, live)
        return RestoreResult("whole", reason=reason)


@dataclass(frozen=True)
class Pristine:
    """What :func:`pristine` found: the live database is a copy of the snapshot with token ``token``
    whose schema is the snapshot's, and every table outside ``touched`` holds exactly the snapshot's
    rows (the log names every table a row was written to since the copy or the last restore).
    ``tables``: the snapshot's tables that the log covers (a virtual table's shadow tables, which it
    does not cover, are not among them)."""

    token: str
    touched: frozenset[str]
    tables: frozenset[str]


def pristine(live: Path) -> Pristine | None:
    """How far the live database ``live`` is provably still its snapshot, read through the connection
    :func:`restore_db` keeps (so it costs a few small queries, no schema parse): None when there is no
    kept connection to this very file, or its token is not the one last restored, or its schema changed
    since the last restore checked it (anything then reads the database itself)."""
    with _LOCK:
        have = _LIVE.get(str(live))
        try:
            if have is None or have.checked_schema is None or live.stat().st_ino != have.inode:
                return None
            conn = have.conn
            conn.execute("BEGIN")  # one read transaction: token, schema and log as of the same commit
            try:
                token = _token(conn)
                version = conn.execute("PRAGMA main.schema_version").fetchone()[0]
                touched = frozenset(r[0] for r in conn.execute(f"SELECT DISTINCT t FROM main.{UNDO_TABLE}"))
            finally:
                conn.execute("COMMIT")
        except (OSError, sqlite3.Error):
            return None
        tables = _TABLES.get(token or "")
        if tables is None or version != have.checked_schema:
            return None
        return Pristine(token or "", touched, frozenset(t.name for t in tables if not t.shadow))


_SCHEMA = "SELECT type, name, tbl_name, rootpage, sql FROM {}.sqlite_master ORDER BY type, name"


def _restore_rows(lc: _Live, token: str) -> RestoreResult | str:
    """The undo log replayed on ``lc`` from the attached snapshot in one transaction; a string (why)
    when the live database is not a tracked copy of this snapshot (nothing changed then)."""
    conn = lc.conn
    conn.execute("BEGIN IMMEDIATE")
    if _token(conn) != token:
        conn.execute("ROLLBACK")
        return "another snapshot's copy"
    version = conn.execute("PRAGMA main.schema_version").fetchone()[0]
    if version != lc.checked_schema:  # (a schema change raises the version: compared again then)
        if conn.execute(_SCHEMA.format("main")).fetchall() != conn.execute(_SCHEMA.format("snap")).fetchall():
            conn.execute("ROLLBACK")
            return "schema changed"
        lc.checked_schema = version
    if token not in _TABLES:
        _TABLES[token] = tracked_tables(conn, "snap")
    tables = {t.name: t for t in _TABLES[token]}
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS wg_todo(t TEXT, r INTEGER)")
    conn.execute("DELETE FROM temp.wg_todo")
    conn.execute(f"INSERT INTO temp.wg_todo SELECT DISTINCT t, r FROM main.{UNDO_TABLE}")
    touched = [r[0] for r in conn.execute("SELECT DISTINCT t FROM temp.wg_todo ORDER BY t")]
    if touched:  # the full-text indexes (no log of their own) are copied back whole once anything was written
        touched += [t.name for t in _TABLES[token] if t.shadow]
    unknown = [t for t in touched if t not in tables]
    if unknown:
        conn.execute("ROLLBACK")
        return f"undo log names unknown table {unknown[0]!r}"
    rows = 0
    for name in touched:
        t = tables[name]
        q = _q(name)
        whole = not t.rowid or t.expr_unique or t.shadow or conn.execute(
            "SELECT 1 FROM temp.wg_todo WHERE t=? AND r IS NULL LIMIT 1", (name,)).fetchone() is not None
        cols = ", ".join(_q(c) for c in t.columns)
        if whole:
            conn.execute(f"DELETE FROM main.{q}")
            conn.execute(f"INSERT INTO main.{q}({cols}) SELECT {cols} FROM snap.{q}" if not t.rowid else
                         f"INSERT INTO main.{q}(rowid{', ' if cols else ''}{cols}) "
                         f"SELECT rowid{', ' if cols else ''}{cols} FROM snap.{q}")
            continue
        ids = "SELECT r FROM temp.wg_todo WHERE t=?"
        conn.execute(f"DELETE FROM main.{q} WHERE rowid IN ({ids})", (name,))
        conn.execute(f"INSERT INTO main.{q}(rowid{', ' if cols else ''}{cols}) "
                           f"SELECT rowid{', ' if cols else ''}{cols} FROM snap.{q} WHERE rowid IN ({ids})", (name,))
        rows += conn.execute("SELECT count(*) FROM temp.wg_todo WHERE t=?", (name,)).fetchone()[0]
    has_seq = conn.execute("SELECT 1 FROM snap.sqlite_master WHERE name='sqlite_sequence'").fetchone()
    if has_seq and touched:
        conn.execute("DELETE FROM main.sqlite_sequence")
        conn.execute("INSERT INTO main.sqlite_sequence SELECT * FROM snap.sqlite_sequence")
    conn.execute(f"DELETE FROM main.{UNDO_TABLE}")
    conn.execute("COMMIT")
    return RestoreResult("rows", rows=rows, tables=len(touched))
