"""Per-episode SQLite state: one in-memory database per episode, reset from a seed template.

Why: the arena judges agents on the app's authoritative stored state, so that state must be
cheap to restore, isolated per episode, and hashable so a reset can be proven to land exactly
on the seed.

Everything that a reset restores lives in this one database: site tables, login sessions
(``acct_sessions``), feature flags (``meta_flags``), the frozen clock (``meta_clock``), stored
files (``files``) and the stand-in external services (tables prefixed ``ext_``: the payment
provider ledger and the mail relay outbox).

Cost independent of the data's size (issue 13): every episode connection counts the writes
to each table with temporary triggers (``temp.wg_versions``: a version per table, bumped by
each inserted, updated or deleted row; the temp schema is the connection's own and never part
of the state). So

- a reset restores only the tables written since the last one (their seed rows, rowids and
  ``sqlite_sequence`` entries), and nothing at all when nothing was written; a changed schema
  or another seed falls back to a page-level copy of the template (the sqlite3 backup API);
- a state read re-reads only the tables written since the last read: each table's rows and
  hash are cached under its version. The state hash is a hash of the per-table hashes, so
  proving a reset (hash == seed hash) re-hashes the restored tables only.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["EpisodeDB", "TemplateCache", "dump_state", "state_hash", "table_hash", "encode_rows",
           "combine_table_hashes"]

State = dict[str, list[dict[str, Any]]]

_SEQ = "sqlite_sequence"


def _connect() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def _tables(conn: sqlite3.Connection) -> list[str]:
    """The user tables (sorted; ``sqlite_sequence`` included when it exists)."""
    return [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND (name NOT LIKE 'sqlite_%' OR name='sqlite_sequence')"
        " ORDER BY name")]


def _schema(conn: sqlite3.Connection) -> tuple:
    return tuple(tuple(r) for r in conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name"))


def _dump_table(conn: sqlite3.Connection, t: str) -> list[dict[str, Any]]:
    cur = conn.execute(f'SELECT * FROM "{t}" ORDER BY rowid')
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def dump_state(conn: sqlite3.Connection) -> State:
    """Every user table as a list of row dicts, ordered by rowid (stable, canonical)."""
    return {t: _dump_table(conn, t) for t in _tables(conn)}


def _enc(v: Any) -> Any:
    return {"__bytes__": bytes(v).hex()} if isinstance(v, (bytes, bytearray, memoryview)) else v


def encode_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as JSON-safe data (bytes become ``{"__bytes__": hex}``)."""
    return [{k: _enc(v) for k, v in row.items()} for row in rows]


def table_hash(rows: list[dict[str, Any]]) -> str:
    """sha256 of one table's canonical JSON (bytes hex-encoded, as :func:`encode_rows` does)."""
    blob = json.dumps(rows, sort_keys=True, separators=(",", ":"), default=_json_bytes).encode()
    return hashlib.sha256(blob).hexdigest()


def _json_bytes(o: Any) -> Any:
    if isinstance(o, (bytes, bytearray, memoryview)):
        return _enc(o)
    raise TypeError(type(o))


def combine_table_hashes(hashes: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(hashes, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def state_hash(state: State) -> str:
    """The state's hash: sha256 of the sorted per-table hashes (:func:`table_hash`), so that a
    state whose tables are cached can be hashed by re-hashing only the tables that changed."""
    return combine_table_hashes({t: table_hash(rows) for t, rows in state.items()})


@dataclass
class _SeedTable:
    insert_sql: str
    rows: list[tuple]  # (rowid, *columns), by rowid
    dump: list[dict[str, Any]]  # encoded rows, as a state read returns them
    hash: str


@dataclass
class _Seed:
    conn: sqlite3.Connection
    schema: tuple
    tables: dict[str, _SeedTable]
    sequence: list[tuple]  # sqlite_sequence rows
    hash: str
    rows: int = 0  # rows in all tables


#: A reset restores the written tables one by one while they hold at most this share of the
#: seed's rows; past it, a page-level copy of the whole template is cheaper.
_TABLES_UP_TO = 0.25


class TemplateCache:
    """Seed templates built once per seed by ``builder(conn, seed)`` and kept in memory, with
    each table's rows and hash (what an incremental reset restores and proves)."""

    def __init__(self, builder: Callable[[sqlite3.Connection, int], None]) -> None:
        self._builder = builder
        self._seeds: dict[int, _Seed] = {}
        self._lock = threading.Lock()

    def seed(self, seed: int) -> _Seed:
        with self._lock:
            if seed not in self._seeds:
                conn = _connect()
                self._builder(conn, seed)
                tables: dict[str, _SeedTable] = {}
                for t in _tables(conn):
                    if t == _SEQ:
                        continue
                    cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')]
                    names = ", ".join(["rowid"] + [f'"{c}"' for c in cols])
                    sql = f'INSERT INTO "{t}" ({names}) VALUES ({", ".join("?" * (len(cols) + 1))})'
                    rows = [tuple(r) for r in conn.execute(f'SELECT rowid, * FROM "{t}" ORDER BY rowid')]
                    dump = encode_rows(_dump_table(conn, t))
                    tables[t] = _SeedTable(sql, rows, dump, table_hash(dump))
                has_seq = conn.execute("SELECT 1 FROM sqlite_master WHERE name=?", (_SEQ,)).fetchone()
                sequence = [tuple(r) for r in conn.execute(f"SELECT name, seq FROM {_SEQ}")] if has_seq else []
                hashes = {t: s.hash for t, s in tables.items()}
                if has_seq:
                    hashes[_SEQ] = table_hash(encode_rows(_dump_table(conn, _SEQ)))
                self._seeds[seed] = _Seed(conn, _schema(conn), tables, sequence, combine_table_hashes(hashes),
                                          sum(len(st.rows) for st in tables.values()))
            return self._seeds[seed]

    def get(self, seed: int) -> sqlite3.Connection:
        return self.seed(seed).conn

    def seed_hash(self, seed: int) -> str:
        return self.seed(seed).hash

    def close(self) -> None:
        with self._lock:
            for s in self._seeds.values():
                s.conn.close()
            self._seeds.clear()


class EpisodeDB:
    """One episode's database. All access goes through :meth:`run` under a lock."""

    def __init__(self, templates: TemplateCache, seed: int) -> None:
        self.templates = templates
        self.seed = seed
        self.conn = _connect()
        self.lock = threading.RLock()
        self._clean: dict[str, int] = {}  # table -> the version at which it held the seed's rows
        self._cache: dict[str, tuple[int, list, str]] = {}  # table -> (version, encoded rows, hash)
        self.restores = {"full": 0, "tables": 0, "none": 0}  # how resets restored the seed
        self.reset()

    # ---- change tracking --------------------------------------------------
    def _track(self) -> None:
        """Create the version table and the triggers that bump it (once per schema)."""
        c = self.conn
        c.execute("CREATE TEMP TABLE IF NOT EXISTS wg_versions(name TEXT PRIMARY KEY, v INTEGER NOT NULL)")
        for t in _tables(c):
            if t == _SEQ:
                continue  # a system table (no triggers): it changes only with an AUTOINCREMENT table
            c.execute("INSERT OR IGNORE INTO temp.wg_versions VALUES(?, 0)", (t,))
            q = t.replace("'", "''")
            for op in ("INSERT", "UPDATE", "DELETE"):
                c.execute(f'CREATE TEMP TRIGGER IF NOT EXISTS "wg_v_{t}_{op.lower()}" AFTER {op} ON main."{t}" '
                          f"BEGIN UPDATE wg_versions SET v = v + 1 WHERE name = '{q}'; END")

    def versions(self) -> dict[str, int]:
        """Each table's write version (bumped by every row a statement inserts, updates or deletes)."""
        with self.lock:
            return dict(self.conn.execute("SELECT name, v FROM temp.wg_versions").fetchall())

    # ---- reset ------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Restore the seed: only the tables written since the last reset (none: nothing to do);
        another seed or a changed schema: a page-level copy of the template (sqlite3 backup)."""
        full = seed is not None and seed != self.seed
        if seed is not None:
            self.seed = seed
        s = self.templates.seed(self.seed)
        with self.lock:
            if full or not self._clean or _schema(self.conn) != s.schema:
                self._full_restore(s)
                return
            versions = self.versions()
            dirty = [t for t in s.tables if versions.get(t) != self._clean.get(t)]
            if not dirty:
                self.restores["none"] += 1
                return
            if sum(len(s.tables[t].rows) for t in dirty) > _TABLES_UP_TO * s.rows:
                self._full_restore(s)  # most of the data changed: a page-level copy is cheaper
                return
            self._restore_tables(s, dirty)

    def _restore_tables(self, s: _Seed, dirty: list[str]) -> None:
        c = self.conn
        c.execute("PRAGMA foreign_keys=OFF")  # restoring a parent table must not cascade
        try:
            c.execute("BEGIN")
            try:
                for t in dirty:
                    c.execute(f'DELETE FROM "{t}"')
                    c.executemany(s.tables[t].insert_sql, s.tables[t].rows)
                if s.sequence or c.execute(f"SELECT 1 FROM sqlite_master WHERE name='{_SEQ}'").fetchone():
                    c.execute(f"DELETE FROM {_SEQ}")
                    c.executemany(f"INSERT INTO {_SEQ}(name, seq) VALUES(?, ?)", s.sequence)
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")
        finally:
            c.execute("PRAGMA foreign_keys=ON")
        versions = self.versions()
        for t in dirty:  # the table holds exactly the seed's rows again (``hash(fresh=True)`` re-reads)
            self._clean[t] = versions[t]
            self._cache[t] = (versions[t], s.tables[t].dump, s.tables[t].hash)
        self.restores["tables"] += 1

    def _full_restore(self, s: _Seed) -> None:
        s.conn.backup(self.conn)
        self._track()
        versions = self.versions()
        self._clean = {t: versions[t] for t in s.tables}
        # a page-level copy of the template holds exactly its rows: the cache starts from them
        self._cache = {t: (versions[t], st.dump, st.hash) for t, st in s.tables.items()}
        self.restores["full"] += 1

    # ---- access -----------------------------------------------------------
    def run(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run ``fn(conn)`` in one transaction; roll back if it raises."""
        with self.lock:
            self.conn.execute("BEGIN")
            try:
                result = fn(self.conn)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
            return result

    def snapshot(self) -> tuple[State, str]:
        """``(state, hash)``: every table's rows, JSON-safe (bytes as ``{"__bytes__": hex}``), and
        the state hash. Only tables written since the last snapshot are read and hashed again;
        the others' row lists are the same objects as before: treat them as read-only."""
        state, hashes = self.snapshot_tables()
        return state, combine_table_hashes(hashes)

    def snapshot_tables(self) -> tuple[State, dict[str, str]]:
        """:meth:`snapshot` with each table's own hash instead of the state hash (a client that
        holds a table of the same hash need not be sent it again)."""
        with self.lock:
            versions = self.versions()
            state: State = {}
            hashes: dict[str, str] = {}
            for t in _tables(self.conn):
                v = versions.get(t, -1)
                hit = self._cache.get(t)
                if t == _SEQ or v < 0 or hit is None or hit[0] != v:
                    rows = encode_rows(_dump_table(self.conn, t))
                    hit = (v, rows, table_hash(rows))
                    if t != _SEQ and v >= 0:
                        self._cache[t] = hit
                state[t], hashes[t] = hit[1], hit[2]
            return state, hashes

    def dump(self) -> State:
        """Every table's rows as stored (bytes as bytes), read afresh."""
        with self.lock:
            return dump_state(self.conn)

    def hash(self, fresh: bool = False) -> str:
        """The state hash; ``fresh`` re-reads every table instead of trusting the caches (a check
        that a reset restored the seed, independent of the change tracking)."""
        return state_hash(self.dump()) if fresh else self.snapshot()[1]

    def close(self) -> None:
        with self.lock:
            self.conn.close()
