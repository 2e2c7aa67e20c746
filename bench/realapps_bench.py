"""Real-app bench: install time, reset and step medians per real app, beside the arena's own apps.

    .venv/bin/python bench/realapps_bench.py [--resets 100] [--seeds 0] [--fresh-install]

Every installed real app in one invocation, with the own apps' look-ahead beside them (measured: 9 minutes at
a load average of 15 on 2 cores, 3.5 minutes at a load average of 3-11; ``--apps NAME`` for one app):

    .venv/bin/python bench/realapps_bench.py --resets 10 --seeds 0 --own-tasks 19 --preload

For each installed real app: the install command's time (``--fresh-install`` installs again
into a temporary apps home, from PyPI, and times it from scratch; otherwise the idempotent
re-run is timed), the snapshot restore alone (database file + stored files, after a write),
the adapter's reset (restore, state read and hash check), and the oracle's episodes in real
Chromium (env reset: restore + page + first capture; step: action to next observation). The
arena's own apps get the same episode medians on the same machine with the same browser.
Prints the load average too: the machine may be shared. For each real app it also times the
snapshot restore after an episode-sized write at 1x and 10x content (the seed's snapshot inflated
with its own tables' rows), copying the whole file against replaying the undo log. Ends with the
ratios of each real app's env reset and step medians to the own apps' in the same run (the own
apps timed as the real apps are, one env without look-ahead; ``--preload`` also times them as runs
use them, double-buffered with the next episode prepared in the background, and prints those ratios too).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import tempfile
import time

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.episode import play
from webgauge.arena.realapps import specs
from webgauge.arena.realapps.base import restore_file
from webgauge.arena.realapps.undo import META_TABLE, UNDO_TABLE, restore_db, tracked_tables
from webgauge.arena.tasks import build_tasks as own_tasks
from webgauge.browser import Browser


def med(xs) -> str:
    return f"{statistics.median(xs):9.1f}" if xs else "      n/a"


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


async def run_episodes(env, tasks, make_agent, preload: bool = False):
    resets, steps, solved = [], [], 0
    for k, t in enumerate(tasks):
        nxt = tasks[k + 1] if preload and k + 1 < len(tasks) else None
        rec, _ = await play(env, make_agent(t), t, keep_dom=False, time_limit_s=300, next_task=nxt)
        for lap, ms in (env.reset_timings_ms or {}).items():
            LAPS.setdefault(getattr(env, "bench_label", "?"), {}).setdefault(lap, []).append(ms)
        resets.append(rec.env_reset_ms)
        steps.extend(s.latency_ms for s in rec.steps)
        for s in rec.steps:
            for part, ms in (s.timings_ms or {}).items():
                STEP_PARTS.setdefault(getattr(env, "bench_label", "?"), {}).setdefault(part, []).append(ms)
        solved += bool(rec.success and not rec.forbidden_violations)
    return resets, steps, solved


MEDIANS: dict[str, tuple[float, float]] = {}  # who -> (env reset median, step median), in ms
LAPS: dict[str, dict[str, list[float]]] = {}  # who -> the env reset's parts (close, database, load, observe...)
STEP_PARTS: dict[str, dict[str, list[float]]] = {}  # who -> a step's parts (guard, action, settle, observe, state)


def keep(who: str, resets: list[float], steps: list[float]) -> None:
    if resets and steps:
        MEDIANS[who] = (statistics.median(resets), statistics.median(steps))


async def app_row(browser, args, name: str) -> list[tuple[str, str]]:
    import importlib

    roundup = importlib.import_module(f"webgauge.arena.realapps.{name}.app")  # the app module (install, reset, ...)
    build_tasks = importlib.import_module(f"webgauge.arena.realapps.{name}.tasks").build_tasks
    server_cls = {"roundup": "RoundupServer", "mediawiki": "MediaWikiServer", "oscar": "OscarServer",
                  "trac": "TracServer", "spirit": "SpiritServer"}[name]
    server_cls = getattr(roundup, server_cls)
    rows = []
    if args.fresh_install:
        with tempfile.TemporaryDirectory() as d:
            old = os.environ.get("WEBGAUGE_APPS_HOME")
            os.environ["WEBGAUGE_APPS_HOME"] = d
            try:
                rep = roundup.install(say=lambda s: None)
            finally:
                if old is None:
                    os.environ.pop("WEBGAUGE_APPS_HOME")
                else:
                    os.environ["WEBGAUGE_APPS_HOME"] = old
        rows.append(("install from PyPI + seed 0 (s)", f"{rep.seconds:9.1f}"))
    else:
        rep = roundup.install(say=lambda s: None)
        rows.append(("install, already installed (s)", f"{rep.seconds:9.1f}"))
    for s in args.seeds:
        roundup.build_seed(s)
    db, table, col, key = {
        "roundup": lambda: (roundup.home() / "tracker" / "db" / "db", "_issue", "_title", "id"),
        "mediawiki": lambda: (roundup.home() / "data" / "wiki.sqlite", "page", "page_title", "page_id"),
        "oscar": lambda: (roundup.home() / "data" / "db.sqlite3", "catalogue_product", "title", "id"),
        "trac": lambda: (roundup.home() / "env" / "db" / "trac.db", "ticket", "summary", "id"),
        "spirit": lambda: (roundup.home() / "data" / "db.sqlite3", "spirit_topic_topic", "title", "id"),
    }[name]()
    restore, full = [], []
    with server_cls() as srv:
        app = roundup.app(srv)
        ctl = app.control()
        for i in range(args.resets):
            conn = sqlite3.connect(db)
            conn.execute(f"UPDATE {table} SET {col}={col} || '.' WHERE {key}=?", (2 + i % 50,))
            conn.commit()
            conn.close()
            t0 = time.perf_counter()
            roundup.reset(args.seeds[0])
            restore.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            ctl.reset("bench", args.seeds[0])
            full.append((time.perf_counter() - t0) * 1000)
        rows.append(("snapshot restore after a write (ms)", med(restore)))
        rows.append(("adapter reset: restore + state read + hash (ms)", med(full)))
        env = app.env(browser)
        env.bench_label = name
        try:
            resets, steps, solved = await run_episodes(env, build_tasks(tuple(args.seeds)),
                                                       lambda t: app.oracle(t, env))
        finally:
            await env.close()
    keep(name, resets, steps)
    rows.append(("env reset: restore + page + first capture (ms)", med(resets)))
    rows.append(("step: action to next observation (ms)", med(steps)))
    rows.append(("oracle solved", f"{solved}/{len(resets)}"))
    return rows


async def own_row(browser, args, preload: bool = False) -> list[tuple[str, str]]:
    tasks = own_tasks(tuple(args.seeds))[: args.own_tasks]
    with ArenaServer() as srv:
        env = ArenaEnv(browser, srv.app_url, srv.client(), EnvOptions(double_buffer=preload))
        env.bench_label = "own apps, look-ahead" if preload else "own apps"  # type: ignore[attr-defined]
        try:
            resets, steps, solved = await run_episodes(env, tasks, OracleAgent, preload=preload)
        finally:
            await env.close()
    keep("own apps, look-ahead" if preload else "own apps", resets, steps)
    return [("env reset: restore + page + first capture (ms)", med(resets)),
            ("step: action to next observation (ms)", med(steps)), ("oracle solved", f"{solved}/{len(tasks)}")]


def inflate(snap, out, factor: int) -> None:
    """A copy of snapshot database ``snap`` at ``out`` with each of the app's own tables' rows repeated
    ``factor`` times (new rowids; the columns of unique keys made distinct: text with a suffix, numbers
    with an offset), tracked anew."""
    import shutil

    shutil.copyfile(snap, out)
    conn = sqlite3.connect(out, isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("BEGIN")
    for t in tracked_tables(conn):
        if t.shadow or not t.rowid:
            continue
        cols = ", ".join(f'"{c}"' for c in t.columns)
        top = conn.execute(f'SELECT max(rowid) FROM "{t.name}"').fetchone()[0]
        if not cols or top is None:
            continue
        types = {r[1]: str(r[2]).upper() for r in conn.execute(f'PRAGMA table_info("{t.name}")')}
        keyed = {c for key in t.unique for c in key}
        for k in range(1, factor):
            exprs = ", ".join(
                (f'"{c}" + {k * 100_000_000}' if any(x in types.get(c, "") for x in ("INT", "REAL", "NUM", "DEC"))
                 else f"CAST(\"{c}\" AS TEXT) || '~{k}'") if c in keyed else f'"{c}"' for c in t.columns)
            conn.execute(f'INSERT OR IGNORE INTO "{t.name}"({cols}) SELECT {exprs} FROM "{t.name}" WHERE rowid <= ?',
                         (top,))
    conn.execute(f"DELETE FROM {UNDO_TABLE}")
    conn.execute(f"DELETE FROM {META_TABLE}")  # no token: tracked anew (another snapshot)
    conn.execute("COMMIT")
    conn.close()


def volume_rows(args, name: str) -> list[tuple[str, str]]:
    """Snapshot restore after an episode-sized write (three rows of the app's main table changed, one
    deleted), at 1x and 10x content: the whole-file copy against the undo log."""
    import importlib

    mod = importlib.import_module(f"webgauge.arena.realapps.{name}.app")
    snap, table, col = {
        "roundup": lambda: (mod.build_seed(args.seeds[0]) / "db", "_issue", "_title"),
        "mediawiki": lambda: (mod.build_seed(args.seeds[0]) / "wiki.sqlite", "page", "page_touched"),
        "oscar": lambda: (mod.build_seed(args.seeds[0]) / "db.sqlite3", "catalogue_product", "title"),
        "trac": lambda: (mod.build_seed(args.seeds[0]) / "trac.db", "ticket", "summary"),
        "spirit": lambda: (mod.build_seed(args.seeds[0]) / "db.sqlite3", "spirit_topic_topic", "title"),
    }[name]()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for factor in (1, 10):
            src = os.path.join(d, f"snap{factor}.sqlite")
            inflate(snap, src, factor)
            live, whole_live = os.path.join(d, f"live{factor}.sqlite"), os.path.join(d, f"whole{factor}.sqlite")
            from pathlib import Path

            restore_db(Path(src), Path(live))
            restore_file(Path(src), Path(whole_live))
            n = sqlite3.connect(src).execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            mb = os.path.getsize(src) / 1e6
            whole, rows_ms, modes = [], [], set()
            for _ in range(args.resets):
                for target in (live, whole_live):
                    conn = sqlite3.connect(target)
                    conn.execute(f"UPDATE {table} SET {col} = {col} || '' WHERE rowid IN (2, 3, 5)")
                    conn.execute(f"DELETE FROM {table} WHERE rowid = 7")
                    conn.commit()
                    conn.close()
                t0 = time.perf_counter()
                modes.add(restore_db(Path(src), Path(live)).mode)
                rows_ms.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                restore_file(Path(src), Path(whole_live))
                whole.append((time.perf_counter() - t0) * 1000)
            rows.append((f"restore at {factor}x ({n} {table} rows, {mb:.1f} MB): whole file (ms)", med(whole)))
            rows.append((f"restore at {factor}x: undo log, {'/'.join(sorted(modes))} (ms)", med(rows_ms)))
    return rows


RESET_TARGET, STEP_TARGET = 1.5, 1.3  # real app / own apps, same run


def ratios() -> list[str]:
    """A table: each real app's env reset and step medians over the own apps' (same run), against the
    targets (env reset <= 1.5x, step <= 1.3x)."""
    out = []
    for base in ("own apps", "own apps, look-ahead"):
        if base not in MEDIANS:
            continue
        r0, s0 = MEDIANS[base]
        out.append(f"vs {base} (env reset {r0:.1f} ms, step {s0:.1f} ms):")
        out.append(f"  {'app':10s} {'env reset ms':>12s} {'ratio':>7s} {'<=1.5x':>6s}   {'step ms':>8s} {'ratio':>7s} "
                   f"{'<=1.3x':>6s}")
        for who, (r, s) in MEDIANS.items():
            if not who.startswith("own apps"):
                out.append(f"  {who:10s} {r:12.1f} {r / r0:6.2f}x {'yes' if r / r0 <= RESET_TARGET else 'NO':>6s}   "
                           f"{s:8.1f} {s / s0:6.2f}x {'yes' if s / s0 <= STEP_TARGET else 'NO':>6s}")
    return out


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resets", type=int, default=100)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--own-tasks", type=int, default=24, help="How many of the arena's own tasks to time.")
    ap.add_argument("--fresh-install", action="store_true")
    ap.add_argument("--apps", nargs="+", default=None, help="Only these real apps (default: every installed one).")
    ap.add_argument("--preload", action="store_true",
                    help="Also time the own apps double-buffered with look-ahead, as runs use them.")
    args = ap.parse_args()
    print(load(), flush=True)
    async with Browser.launch(headless_shell=True) as browser:
        for k, v in await own_row(browser, args):  # first, then the real apps, then the own apps again
            print(f"{'own apps':10s} {k:52s}{v}", flush=True)
        for name, spec in specs().items():
            if args.apps and name not in args.apps:
                continue
            if spec.version() is None:
                print(f"{name}: not installed (webgauge arena apps install {name})", flush=True)
                continue
            for k, v in await app_row(browser, args, name):
                print(f"{name:10s} {k:52s}{v}", flush=True)
            for k, v in volume_rows(args, name):
                print(f"{name:10s} {k:60s}{v}", flush=True)
        first = MEDIANS.pop("own apps")
        for k, v in await own_row(browser, args):
            print(f"{'own apps':10s} {k:52s}{v}", flush=True)
        # the own apps' medians: of both passes (before and after the real apps: the load may change)
        MEDIANS["own apps"] = tuple((a + b) / 2 for a, b in zip(first, MEDIANS["own apps"], strict=True))
        if args.preload:
            for k, v in await own_row(browser, args, preload=True):
                print(f"{'own, ahead':10s} {k:52s}{v}", flush=True)
    print(load(), flush=True)
    for line in ratios():
        print(line, flush=True)
    print("env reset parts (medians, ms):")
    for who, laps in LAPS.items():
        print(f"  {who:21s} " + "  ".join(f"{k} {statistics.median(v):.0f}" for k, v in laps.items()), flush=True)
    print("step parts (medians, ms):")
    for who, parts in STEP_PARTS.items():
        print(f"  {who:21s} " + "  ".join(f"{k} {statistics.median(v):.0f}" for k, v in parts.items()), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
