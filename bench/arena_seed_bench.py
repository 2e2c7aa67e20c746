"""Arena seed bench: how long each app's ``seed`` takes, and the whole ``build_seed``.

    .venv/bin/python bench/arena_seed_bench.py [--seeds 40]

Prints, per app, the median and the minimum time of filling its tables for one seed (inside
one transaction, as ``build_seed`` does), the share of the ported apps (account, dashboard,
floor plan, kanban) against their ~15 ms budget, and the whole ``build_seed`` (schema
included) against its ~60 ms budget, and ``build_seed`` of the same seed again (the process keeps
its last seeds and copies them), with the ratio of the two. The minimum is the better estimate of the cost on a
loaded machine; the load average is printed first.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import time

from webgauge.arena.apps import _MODULES, ASGI_APPS, META_SCHEMA, build_seed

PORTED = ("account", "dashboard", "floorplan", "kanban")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    def call(fn):  # older apps' seed() takes no seed number
        return fn if fn.__code__.co_argcount == 3 else (lambda conn, rng, s: fn(conn, rng))

    seeders = [(m.SITE.name, m.SCHEMA, call(m.seed)) for m in _MODULES] + [(a.name, a.schema, a.seed)
                                                                           for a in ASGI_APPS]
    per: dict[str, list[float]] = {name: [] for name, _, _ in seeders}
    whole: list[float] = []
    again: list[float] = []
    for s in range(args.seeds):
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.executescript(META_SCHEMA + "".join(schema for _, schema, _ in seeders))
        conn.execute("BEGIN")
        for name, _, seed in seeders:
            t = time.perf_counter()
            seed(conn, random.Random(f"{s}:{name}"), s)
            per[name].append(time.perf_counter() - t)
        conn.execute("ROLLBACK")
        conn.close()
        conn = sqlite3.connect(":memory:", isolation_level=None)
        t = time.perf_counter()
        build_seed(conn, s)
        whole.append(time.perf_counter() - t)
        conn.close()
        conn = sqlite3.connect(":memory:", isolation_level=None)
        t = time.perf_counter()
        build_seed(conn, s)  # kept from the build above: copied
        again.append(time.perf_counter() - t)
        conn.close()
    print(f"{'app':12s} {'median ms':>10s} {'min ms':>8s}")
    for name, ts in per.items():
        print(f"{name:12s} {statistics.median(ts) * 1e3:10.2f} {min(ts) * 1e3:8.2f}")
    ported = [sum(per[n][i] for n in PORTED) for i in range(args.seeds)]
    print(f"ported apps  median {statistics.median(ported) * 1e3:.2f} ms, min {min(ported) * 1e3:.2f} ms "
          f"(budget 15 ms: ratio {statistics.median(ported) * 1e3 / 15:.2f})")
    print(f"build_seed   median {statistics.median(whole) * 1e3:.2f} ms, min {min(whole) * 1e3:.2f} ms "
          f"(budget 60 ms: ratio {statistics.median(whole) * 1e3 / 60:.2f})")
    print(f"build_seed of a kept seed (copied) median {statistics.median(again) * 1e3:.2f} ms, "
          f"min {min(again) * 1e3:.2f} ms: {statistics.median(whole) / statistics.median(again):.0f}x faster")


if __name__ == "__main__":
    main()
