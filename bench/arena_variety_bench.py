"""measure_variety before and after the issue-12 speed-up, side by side.

"before" is the old path reproduced here: every family's tasks built for every seed through
``build_tasks`` (also for a family filter) and the admin families' pairwise name scan
(quadratic in the 400 users); "after" is :func:`webgauge.arena.tasks.variety.measure_variety`
(each seed's state built once, only the wanted families, the linear name scan, cached per
seed). Both produce the same numbers (checked). Prints medians of CPU seconds (the machine is
shared, so wall time is printed too but CPU time is the comparable one).

    PYTHONPATH=src python bench/arena_variety_bench.py [--seeds 40] [--heldout 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from unittest import mock


def _old_unique(state):
    names = [u["name"] for u in state["admin_users"]]
    return [u for u in state["admin_users"] if sum(u["name"].lower() in n.lower() for n in names) == 1]


def before(families, seeds, n_heldout):
    from webgauge.arena.tasks import build_tasks
    from webgauge.arena.tasks.heldout import heldout_seeds
    from webgauge.arena.tasks.variety import MEASUREMENT_KEY

    with mock.patch("webgauge.arena.tasks.admin._unique", _old_unique):
        seen, n_pub, new = defaultdict(set), defaultdict(int), defaultdict(int)
        for t in build_tasks(tuple(seeds), families=families):
            seen[t.family].add(t.instruction)
            n_pub[t.family] += 1
            len(t.oracle())
        for t in build_tasks(tuple(heldout_seeds(MEASUREMENT_KEY, n_heldout)), families=families):
            new[t.family] += t.instruction not in seen[t.family]
    return {f: (len(seen[f]), new[f]) for f in n_pub}


def after(families, seeds, n_heldout):
    from webgauge.arena.tasks.variety import measure_variety

    return {r.family: (r.distinct, r.heldout_new) for r in measure_variety(families, seeds, n_heldout)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--heldout", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from webgauge.arena.tasks import FAMILIES

    cases = {"all families": None, "3 admin families": ["admin.set_role", "admin.delete_user", "admin.flag_email"]}
    print(f"{len(FAMILIES)} families, {args.seeds} public seeds, {args.heldout} held-out seeds, "
          f"median of {args.repeats}")
    for label, fams in cases.items():
        times = {}
        for name, fn in (("before", before), ("after", after)):
            cpu, wall = [], []
            for _ in range(args.repeats):
                c0, w0 = time.process_time(), time.perf_counter()
                out = fn(fams, range(args.seeds), args.heldout)
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            times[name] = (statistics.median(cpu), statistics.median(wall), out)
        assert times["before"][2] == times["after"][2], "the two paths disagree"
        b, a = times["before"], times["after"]
        print(
            f"{label:18s} before {b[0]:7.2f} s CPU ({b[1]:6.2f} s wall)   after {a[0]:7.2f} s CPU ({a[1]:6.2f} s wall)"
              f"   ratio {b[0] / a[0]:5.1f}x")


if __name__ == "__main__":
    main()
