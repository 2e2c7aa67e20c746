"""Response cache: a SQLite file holding the answers of deterministic calls only.

**Which calls are cached** (:func:`is_deterministic`): a call whose ``temperature`` is 0,
or a call with a fixed ``seed`` sent to a provider that honors seeds (the provider's
``honors_seed`` flag: true for OpenAI-compatible servers and Gemini, false for Anthropic,
whose API has no seed). Every other call goes to the provider every time.

**The key** (:func:`cache_key`) is the sha256 of a canonical JSON of everything that can
change the answer: provider name, model name, endpoint (base URL), provider request options
that reach the request (the provider's ``cache_identity()``), every answer-changing
generation setting (temperature, top_p, max_tokens, seed, stop, choices, extra) and the
full conversation with images named by sha256 and mime. Changing any one byte of an image,
any setting, or the endpoint misses the cache.

The file is opened in WAL mode with a busy timeout so several worker processes can share it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from webgauge.models.config import GenerateConfig, Response
from webgauge.models.messages import Message, messages_to_jsonable
from webgauge.models.usage import Usage

__all__ = ["ResponseCache", "cache_key", "is_deterministic", "default_cache_path", "CACHE_SCHEMA"]

CACHE_SCHEMA = 1

_DDL = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    finish_reason TEXT NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    raw TEXT,
    created_at REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """``$WEBGAUGE_CACHE_DIR/responses.sqlite``, else ``~/.cache/webgauge/responses.sqlite``."""
    base = os.environ.get("WEBGAUGE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "webgauge")
    return Path(base) / "responses.sqlite"


def is_deterministic(config: GenerateConfig, honors_seed: bool) -> bool:
    """True when the call's answer is fixed by its inputs: temperature 0, or a seed the provider honors."""
    if config.temperature == 0:
        return True
    return config.seed is not None and honors_seed


def cache_key(*, provider: str, model: str, endpoint: str, messages: Sequence[Message],
              config: GenerateConfig, identity: dict[str, Any] | None = None) -> str:
    """sha256 hex of everything that can change the answer (see module docstring)."""
    doc = {
        "schema": CACHE_SCHEMA,
        "provider": provider,
        "model": model,
        "endpoint": endpoint,
        "identity": identity or {},
        "settings": config.answer_settings(),
        "messages": messages_to_jsonable(messages),
    }
    blob = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """A SQLite file of cached answers, keyed by :func:`cache_key`.

    Safe to share between threads of one process (one connection behind a lock) and between
    processes (WAL). ``hits``/``misses``/``writes`` count this object's traffic.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False,
                                         isolation_level=None)
            self._conn.execute("PRAGMA busy_timeout=30000")
            # switching a new file to WAL (and creating the table) while another process does the same
            # can fail with "database is locked" at once: SQLite does not wait on the busy timeout there
            deadline, pause = time.monotonic() + 30.0, 0.01
            while True:
                try:
                    self._conn.execute("PRAGMA journal_mode=WAL")
                    self._conn.execute(_DDL)
                    break
                except sqlite3.OperationalError as e:
                    if "locked" not in str(e) or time.monotonic() > deadline:
                        raise
                    time.sleep(pause)
                    pause = min(0.5, pause * 2)
        except sqlite3.DatabaseError as e:
            raise sqlite3.DatabaseError(f"cannot open the response cache {self.path}: {e}; "
                                        f"delete the file or pass another cache path") from e
        self.hits = self.misses = self.writes = 0

    def get(self, key: str) -> Response | None:
        """The cached answer for ``key`` (``cached=True``), or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT model, text, finish_reason, input_tokens, output_tokens, raw "
                "FROM responses WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        model, text, finish, tin, tout, raw = row
        usage = Usage(input_tokens=tin, output_tokens=tout, cached=True)
        return Response(text=text, usage=usage, finish_reason=finish,
                        raw=json.loads(raw) if raw else None, cached=True, model=model)

    def put(self, key: str, provider: str, response: Response) -> None:
        """Store an answer (replacing any previous one under the same key)."""
        raw = json.dumps(response.raw, default=str) if response.raw is not None else None
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, provider, response.model, response.text, response.finish_reason,
                 response.usage.input_tokens, response.usage.output_tokens, raw, time.time()))
            self.writes += 1

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close the SQLite connection."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r}, hits={self.hits}, misses={self.misses})"
