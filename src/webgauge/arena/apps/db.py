"""Per-episode SQLite state: one in-memory database per episode, reset from a seed template.

Why: the arena judges agents on the app's authoritative stored state, so that state must be
cheap to restore (milliseconds, via the sqlite3 backup API), isolated per episode, and
hashable so a reset can be proven to land exactly on the seed.

Everything that a reset restores lives in this one database: site tables, login sessions
(``acct_sessions``), feature flags (``meta_flags``), the frozen clock (``meta_clock``), stored
files (``files``) and the stand-in external services (tables prefixed ``ext_``: the payment
provider ledger and the mail relay outbox).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from typing import Any, Callable

__all__ = ["EpisodeDB", "TemplateCache", "dump_state", "state_hash"]

State = dict[str, list[dict[str, Any]]]


def _connect() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def dump_state(conn: sqlite3.Connection) -> State:
    """Every user table as a list of row dicts, ordered by rowid (stable, canonical)."""
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND (name NOT LIKE 'sqlite_%' OR name='sqlite_sequence')"
            " ORDER BY name"
        )
    ]
    out: State = {}
    for t in tables:
        cur = conn.execute(f'SELECT * FROM "{t}" ORDER BY rowid')
        cols = [d[0] for d in cur.description]
        out[t] = [dict(zip(cols, row)) for row in cur.fetchall()]
    return out


def state_hash(state: State) -> str:
    """sha256 of the canonical JSON of a state dump (bytes are hex-encoded)."""

    def enc(o: Any) -> Any:
        if isinstance(o, (bytes, bytearray, memoryview)):
            return {"__bytes__": bytes(o).hex()}
        raise TypeError(type(o))

    blob = json.dumps(state, sort_keys=True, separators=(",", ":"), default=enc).encode()
    return hashlib.sha256(blob).hexdigest()


class TemplateCache:
    """Seed templates built once per seed by ``builder(conn, seed)`` and kept in memory."""

    def __init__(self, builder: Callable[[sqlite3.Connection, int], None]) -> None:
        self._builder = builder
        self._templates: dict[int, sqlite3.Connection] = {}
        self._hashes: dict[int, str] = {}
        self._lock = threading.Lock()

    def get(self, seed: int) -> sqlite3.Connection:
        with self._lock:
            if seed not in self._templates:
                conn = _connect()
                self._builder(conn, seed)
                self._templates[seed] = conn
                self._hashes[seed] = state_hash(dump_state(conn))
            return self._templates[seed]

    def seed_hash(self, seed: int) -> str:
        self.get(seed)
        return self._hashes[seed]

    def close(self) -> None:
        with self._lock:
            for c in self._templates.values():
                c.close()
            self._templates.clear()


class EpisodeDB:
    """One episode's database. All access goes through :meth:`run` under a lock."""

    def __init__(self, templates: TemplateCache, seed: int) -> None:
        self.templates = templates
        self.seed = seed
        self.conn = _connect()
        self.lock = threading.RLock()
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Restore the seed snapshot with the sqlite3 backup API (no process restart)."""
        if seed is not None:
            self.seed = seed
        template = self.templates.get(self.seed)
        with self.lock:
            template.backup(self.conn)

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

    def dump(self) -> State:
        with self.lock:
            return dump_state(self.conn)

    def hash(self) -> str:
        return state_hash(self.dump())

    def close(self) -> None:
        with self.lock:
            self.conn.close()
