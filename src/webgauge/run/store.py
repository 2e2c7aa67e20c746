"""The run directory on disk: ``spec.json``, ``results.sqlite`` and ``blobs/``.

One process writes (the run driver, through :class:`StoreWriter`); any number read
(reports, viewers, a resumed run) through :class:`RunStore`. SQLite runs in WAL mode so
readers never block the writer, and every finished item is committed on its own, so
killing a run loses at most the items still in flight. Blobs are content-addressed files
``blobs/<sha[:2]>/<sha>`` written to a temporary name and renamed into place before the
record that references them commits.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..records import Record

R = TypeVar("R", bound=Record)

__all__ = ["RunStore", "StoreWriter", "ResultRow", "RESULTS_DB", "SPEC_FILE", "BLOBS_DIR"]

RESULTS_DB = "results.sqlite"
SPEC_FILE = "spec.json"
BLOBS_DIR = "blobs"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    item_id     TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    record      TEXT,
    blobs       TEXT NOT NULL DEFAULT '{}',
    error       TEXT,
    attempt     INTEGER NOT NULL,
    started     REAL,
    finished    REAL,
    worker      TEXT,
    payload_sha TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_kind ON results(kind, status);
"""


@dataclass(frozen=True)
class ResultRow:
    """One item's latest outcome as stored.

    ``record`` is the handler's JSON record (``None`` for failures); ``blobs`` maps blob
    names to sha256 (read them with :meth:`RunStore.blob`); ``error`` is
    ``{"type", "message", "traceback"}`` for failures.
    """

    item_id: str
    kind: str
    status: str
    record: dict | None
    blobs: dict[str, str]
    error: dict | None
    attempt: int
    started: float | None
    finished: float | None
    worker: str | None
    payload_sha: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def duration(self) -> float | None:
        """Seconds the item ran (``None`` if unknown)."""
        if self.started is None or self.finished is None:
            return None
        return self.finished - self.started


def blob_path(run_dir: Path, sha: str) -> Path:
    """Where the blob with this sha256 lives inside a run directory."""
    return Path(run_dir) / BLOBS_DIR / sha[:2] / sha


def _row(r: sqlite3.Row) -> ResultRow:
    return ResultRow(
        item_id=r["item_id"], kind=r["kind"], status=r["status"],
        record=json.loads(r["record"]) if r["record"] is not None else None,
        blobs=json.loads(r["blobs"] or "{}"),
        error=json.loads(r["error"]) if r["error"] is not None else None,
        attempt=r["attempt"], started=r["started"], finished=r["finished"],
        worker=r["worker"], payload_sha=r["payload_sha"],
    )


class RunStore:
    """Read a run directory back. Reports and viewers read only this.

    >>> store = RunStore("runs/understand-demo")
    >>> [r.record for r in store.records(kind="qa", status="ok")]
    """

    def __init__(self, run_dir: str | os.PathLike) -> None:
        self.run_dir = Path(run_dir)
        db = self.run_dir / RESULTS_DB
        if not db.is_file():
            raise FileNotFoundError(
                f"{self.run_dir} is not a webgauge run directory (no {RESULTS_DB}); "
                "pass the --out directory of a run"
            )
        self._db = db

    def _query(self, sql: str, args: Sequence = ()) -> list[sqlite3.Row]:
        conn = sqlite3.connect(f"file:{self._db}?mode=ro", uri=True, timeout=30)
        try:
            conn.row_factory = sqlite3.Row
            return conn.execute(sql, tuple(args)).fetchall()
        finally:
            conn.close()

    @property
    def spec(self) -> dict:
        """The ``spec.json`` document (``{"format", "spec", "environment"}``)."""
        return json.loads((self.run_dir / SPEC_FILE).read_text(encoding="utf-8"))

    def records(self, kind: str | None = None, status: str | None = None) -> list[ResultRow]:
        """Stored outcomes, optionally filtered by kind and status (``ok`` | ``error``), in finish order."""
        if status not in (None, "ok", "error"):
            raise ValueError(f"status must be 'ok', 'error' or None, got {status!r}")
        sql, args = "SELECT * FROM results WHERE 1=1", []
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        sql += " ORDER BY finished, item_id"
        return [_row(r) for r in self._query(sql, args)]

    def typed(self, cls: type[R], kind: str | None = None) -> list[R]:
        """Every successful record of type ``cls`` (optionally only items of ``kind``), in finish order.

        Only rows whose ``schema`` names ``cls`` are read; a row of the same kind written by another
        version of the record type raises :class:`~webgauge.records.RecordSchemaError` naming both
        versions, so a report never silently drops or misreads results.
        """
        out: list[R] = []
        name = cls.SCHEMA
        for row in self.records(kind=kind, status="ok"):
            rec = row.record
            if not isinstance(rec, dict):
                continue
            tag = str(rec.get("schema", ""))
            if tag.rpartition("/")[0] == name or (kind is not None and tag != cls.schema_tag()):
                out.append(cls.from_json(rec))
        return out

    def __iter__(self) -> Iterator[ResultRow]:
        return iter(self.records())

    def __len__(self) -> int:
        return self._query("SELECT COUNT(*) FROM results")[0][0]

    def get(self, item_id: str) -> ResultRow | None:
        """The outcome of one item, or ``None`` if it has not finished."""
        rows = self._query("SELECT * FROM results WHERE item_id = ?", (item_id,))
        return _row(rows[0]) if rows else None

    def failures(self) -> list[ResultRow]:
        """Items whose latest attempt failed."""
        return self.records(status="error")

    def counts(self) -> dict[str, int]:
        """``{"ok": n, "error": m}``."""
        rows = self._query("SELECT status, COUNT(*) FROM results GROUP BY status")
        out = {"ok": 0, "error": 0}
        out.update({s: n for s, n in rows})
        return out

    def blob(self, sha: str) -> bytes:
        """The bytes of a stored blob, checked against its hash."""
        path = self.blob_path(sha)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise FileNotFoundError(f"blob {sha} is not in {self.run_dir / BLOBS_DIR}") from None
        if hashlib.sha256(data).hexdigest() != sha:
            raise ValueError(f"blob {path} is corrupt: its content does not hash to {sha}")
        return data

    def blob_path(self, sha: str) -> Path:
        """Path of a blob (for relative links from reports)."""
        if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
            raise ValueError(f"not a sha256 hex digest: {sha!r}")
        return blob_path(self.run_dir, sha)


class StoreWriter:
    """The single writer of a run directory (the driver process)."""

    def __init__(self, run_dir: str | os.PathLike) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.run_dir / RESULTS_DB, timeout=30, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL survives process kills
        self._conn.executescript(_SCHEMA)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def existing(self) -> dict[str, tuple[str, str, int]]:
        """``item_id -> (status, payload_sha, attempt)`` for every stored item."""
        rows = self._conn.execute("SELECT item_id, status, payload_sha, attempt FROM results")
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def put_blob(self, data: bytes) -> str:
        """Store bytes once under their sha256 (atomically: temp file, then rename)."""
        sha = hashlib.sha256(data).hexdigest()
        path = blob_path(self.run_dir, sha)
        if path.exists():
            return sha
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{sha}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        return sha

    def write(self, *, item_id: str, kind: str, status: str, record: dict | None, blobs: dict[str, bytes],
              error: dict | None, attempt: int, started: float | None, finished: float | None,
              worker: str | None, payload_sha: str) -> None:
        """Save blobs, then commit the item's row (replacing an earlier attempt)."""
        refs = {name: self.put_blob(data) for name, data in sorted(blobs.items())}
        self._conn.execute(
            "INSERT OR REPLACE INTO results (item_id, kind, status, record, blobs, error, attempt, started,"
            " finished, worker, payload_sha) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (item_id, kind, status, json.dumps(record) if record is not None else None,
             json.dumps(refs, sort_keys=True), json.dumps(error) if error is not None else None,
             attempt, started, finished, worker, payload_sha),
        )
