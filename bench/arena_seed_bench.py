"""How long seeding the arena's apps takes: the shop, the inbox and the whole ``build_seed``.

    .venv/bin/python bench/arena_seed_bench.py [--seeds 20]

Prints the median CPU time (``time.process_time``, so other processes on a shared machine
do not inflate it) and the median wall time per app over fresh in-memory databases, one
per seed, and the whole seed beside the shop + inbox share.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import time

from webgauge.arena.apps import ASGI_APPS, build_seed


def _one(seed: int) -> dict[str, tuple[float, float]]:
    apps = {a.name: a for a in ASGI_APPS}
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(apps["shop"].schema + apps["inbox"].schema)
    conn.execute("BEGIN")
    out = {}
    for name in ("shop", "inbox"):  # the inbox reads the shop's products, so the shop goes first
        c0, w0 = time.process_time(), time.perf_counter()
        apps[name].seed(conn, random.Random(f"{seed}:{name}"), seed)
        out[name] = ((time.process_time() - c0) * 1000, (time.perf_counter() - w0) * 1000)
    conn.close()
    conn = sqlite3.connect(":memory:", isolation_level=None)
    c0, w0 = time.process_time(), time.perf_counter()
    build_seed(conn, seed)
    out["whole build_seed"] = ((time.process_time() - c0) * 1000, (time.perf_counter() - w0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args()
    runs = [_one(s) for s in range(1000, 1000 + args.seeds)]  # seeds not cached by any warm-up
    med = {k: (statistics.median(r[k][0] for r in runs), statistics.median(r[k][1] for r in runs)) for k in runs[0]}
    print(f"{'part':20s} {'cpu ms (median)':>16s} {'wall ms (median)':>17s}")
    for k, (cpu, wall) in med.items():
        print(f"{k:20s} {cpu:16.1f} {wall:17.1f}")
    both = med["shop"][0] + med["inbox"][0]
    print(f"shop + inbox: {both:.1f} ms CPU = {both / med['whole build_seed'][0]:.0%} of the whole seed")


if __name__ == "__main__":
    main()
