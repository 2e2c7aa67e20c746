"""A seed's database is generated once per process and copied afterwards: every copy must be the
database the generation writes (schema, rows, rowids, AUTOINCREMENT counters), independent of
the others, and the kept seeds bounded."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from webgauge.arena import apps
from webgauge.arena.apps import build_seed
from webgauge.arena.apps.db import dump_state


def _whole(conn: sqlite3.Connection) -> tuple[list[tuple], dict, list[tuple]]:
    """Schema, every table's rows (rowid order) and the AUTOINCREMENT counters."""
    schema = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()
    counters = conn.execute("SELECT name, seq FROM sqlite_sequence ORDER BY name").fetchall()
    return schema, dump_state(conn), counters


def _generated(seed: int) -> tuple[list[tuple], dict, list[tuple]]:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    apps._generate(conn, seed)  # the generation itself, no copy
    return _whole(conn)


def _built(seed: int) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    build_seed(conn, seed)
    return conn


def test_a_copied_seed_is_the_generated_database():
    first, second = _built(3), _built(3)  # the second is a copy of the kept build
    want = _generated(3)
    assert want[0] and want[2], "the generation wrote no schema or no AUTOINCREMENT counter: nothing compared"
    assert sum(len(rows) for rows in want[1].values()) > 1000
    assert _whole(first) == want
    assert _whole(second) == want
    assert _whole(_built(4)) != want  # another seed is another world


def test_a_write_to_one_copy_reaches_no_later_copy():
    conn = _built(0)
    table = next(t for t, rows in dump_state(conn).items() if rows and t != "sqlite_sequence")
    conn.execute(f'DELETE FROM "{table}"')
    conn.execute("UPDATE meta_clock SET now='1999-01-01T00:00:00Z'")
    later = _built(0)
    assert later.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] > 0
    assert later.execute("SELECT now FROM meta_clock").fetchone()[0] == apps.SEED_CLOCK
    assert _whole(later) == _generated(0)


def test_a_database_with_tables_is_refused():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE mine(x)")
    with pytest.raises(sqlite3.OperationalError, match="needs an empty database"):
        build_seed(conn, 0)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["mine"]


def test_the_kept_seeds_are_bounded_and_a_dropped_seed_is_generated_again():
    for seed in range(100, 100 + apps.SEEDS_KEPT + 3):
        _built(seed)
    assert len(apps._built) == apps.SEEDS_KEPT
    assert 100 not in apps._built
    assert _whole(_built(100)) == _generated(100)


def test_builds_from_threads_at_once_are_the_same_database():
    out: list[tuple] = [()] * 6
    errors: list[BaseException] = []

    def build(i: int) -> None:
        try:
            out[i] = _whole(_built(7 + i % 2))
        except BaseException as exc:  # reported below: a thread's error would otherwise be lost
            errors.append(exc)

    threads = [threading.Thread(target=build, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert out[0] == out[2] == out[4] == _generated(7)
    assert out[1] == out[3] == out[5] == _generated(8)
