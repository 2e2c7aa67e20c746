"""Items per minute of an arena run on a one-node Ray cluster vs a two-node one, on this machine.

    .venv/bin/python bench/ray_nodes_bench.py [--repeats 3] [--seeds 3]

Both clusters have the same two CPUs (one node with two, or two nodes with one each, every node its own
``ray start`` on 127.0.0.1), and the same run (oracle episodes of two arena families, two actors, each
with its own Chromium) goes to each through the CLI (``--executor ray --ray-address``), so the ratio
shows what spreading over nodes costs, not a speed-up. A local run (two worker processes) is the
reference. Items per minute count from the first episode's start to the last one's end (the driver's
start and Ray connection are in the wall-clock column). Prints medians and ratios.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "run"))  # the loopback cluster of the Ray cluster tests

from loopback_cluster import LoopbackCluster  # noqa: E402

from webgauge.run import RunStore  # noqa: E402

FAMILIES = ("shop.buy_variant", "forum.count_solved")


def run_once(out: Path, seeds: int, extra: list[str], env: dict[str, str] | None) -> tuple[float, float, int]:
    """(items per minute from first start to last finish, wall seconds of the command, items)."""
    cli = shutil.which("webgauge", path=str(Path(sys.executable).parent)) or "webgauge"
    cmd = [cli, "arena", "run", "--agent", "oracle", "--no-report", "--workers", "2", "--out", str(out)]
    cmd += [a for f in FAMILIES for a in ("--family", f)] + [a for s in range(seeds) for a in ("--seeds", str(s))]
    t0 = time.perf_counter()
    done = subprocess.run(cmd + extra, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd + extra)} failed:\n{done.stderr[-3000:]}")
    rows = RunStore(out).records()
    bad = [r.item_id for r in rows if not r.ok]
    if bad:
        raise SystemExit(f"episodes failed to run: {bad}")
    span = max(r.finished for r in rows if r.finished) - min(r.started for r in rows if r.started)
    return 60.0 * len(rows) / span, wall, len(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=3, help="seeds per family (episodes = 2 x seeds)")
    args = ap.parse_args()
    per_min: dict[str, list[float]] = {"local": [], "1 node": [], "2 nodes": []}
    walls: dict[str, list[float]] = {k: [] for k in per_min}
    with LoopbackCluster(head_cpus=2) as one, LoopbackCluster(head_cpus=1) as two:
        two.add_node("w1", num_cpus=1)
        one.wait("head")
        two.wait("head", "w1")
        configs = {"local": ([], None),
                   "1 node": (["--executor", "ray", "--ray-address", one.address], one.driver_env()),
                   "2 nodes": (["--executor", "ray", "--ray-address", two.address], two.driver_env())}
        for k in range(args.repeats):  # interleaved, so a change in the machine's load hits every setting
            for label, (extra, env) in configs.items():
                with tempfile.TemporaryDirectory(prefix="wgbench-") as tmp:
                    ipm, wall, n = run_once(Path(tmp) / "run", args.seeds, extra, env)
                    used = sorted({(r.worker or "").split("@")[-1] for r in RunStore(Path(tmp) / "run").records()})
                per_min[label].append(ipm)
                walls[label].append(wall)
                print(f"  #{k + 1} {label:8s}: {n} episodes, {ipm:5.1f} items/min, {wall:5.1f} s wall, "
                      f"workers on {used}", flush=True)
    print(f"\nmedians of {args.repeats} runs, {2 * args.seeds} oracle episodes each, 2 actors / worker processes:")
    print(f"  {'':34s} {'items/min':>10s} {'wall s':>8s}")
    names = {"local": "local (2 worker processes)", "1 node": "Ray, 1 node x 2 CPUs",
             "2 nodes": "Ray, 2 nodes x 1 CPU"}
    med = {k: statistics.median(v) for k, v in per_min.items()}
    for label in per_min:
        print(f"  {names[label]:34s} {med[label]:10.1f} {statistics.median(walls[label]):8.1f}")
    print(f"  2 nodes / 1 node, items per minute: {med['2 nodes'] / med['1 node']:.2f} (1.00: spreading costs nothing)")
    print(f"  1 node / local, items per minute:   {med['1 node'] / med['local']:.2f}")


if __name__ == "__main__":
    main()
