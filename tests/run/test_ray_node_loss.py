"""A node of a Ray cluster is killed (SIGKILL to all its processes) while it runs an item: the run
finishes, the item runs again on the surviving node, and ``results.sqlite`` holds every item once.
With no retries on node loss, the item is recorded as failed with the reason, and ``--retry-failed``
completes it. The cluster is a head and worker nodes, each its own ``ray start`` on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webgauge.run import RunStore

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from loopback_cluster import LoopbackCluster  # noqa: E402

pytestmark = [pytest.mark.raycluster, pytest.mark.slow, pytest.mark.timeout(600)]
N, SLEEP = 10, 1.0


def log_lines(run_dir: Path) -> list[list[str]]:
    path = Path(f"{run_dir}.log")
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def running_on(run_dir: Path, node: str) -> set[str]:
    """Items that started on ``node`` (its id's first 8 hex digits) and have not ended."""
    started, ended = set(), set()
    for item, event, worker, *_ in log_lines(run_dir):
        if worker.endswith("@" + node):
            (started if event == "start" else ended).add(item)
    return started - ended


def run_and_kill(cluster: LoopbackCluster, run_dir: Path, victim: str, node: str, *flags: str) -> tuple[dict, set]:
    """Run the items; SIGKILL the victim node's processes while an item runs there. Returns the driver's
    summary and the items that were running on the victim when it died."""
    proc = subprocess.Popen([sys.executable, str(HERE / "ray_driver.py"), "run", str(run_dir), cluster.address,
                             str(N), str(SLEEP), *flags], env=cluster.driver_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while True:  # wait until the victim has finished one item and is running another
            assert proc.poll() is None, proc.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the victim node never ran an item"
            done_there = [x for x in log_lines(run_dir) if x[1] == "end" and x[2].endswith("@" + node)]
            hit = running_on(run_dir, node)
            if done_there and hit:
                break
            time.sleep(0.05)
        cluster.kill_node(victim)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1]), hit


def test_a_killed_node_loses_nothing_and_duplicates_nothing(tmp_path):
    with LoopbackCluster() as cluster:
        cluster.add_node("w1")
        w1 = cluster.node_id(cluster.wait("head", "w1"), "w1")

        # 1. retried elsewhere: the run finishes with every item done once
        run1 = tmp_path / "retried"
        summary, hit = run_and_kill(cluster, run1, "w1", w1)
        store = RunStore(run1)
        rows = store.records()
        assert summary == {"done": N, "failed": 0, "skipped": 0}
        assert sorted(r.item_id for r in rows) == [f"n{i:03d}" for i in range(N)]  # none lost, none twice
        assert all(r.ok and r.attempt == 1 and r.record["y"] == 2 * int(r.item_id[1:]) for r in rows)
        for item in hit:  # what ran on the lost node was run again, and stored from the surviving node
            assert not store.get(item).worker.endswith("@" + w1)
        assert {r.worker.split("@")[1] for r in rows} >= {w1}  # the lost node's finished items were kept

        # 2. no retry on node loss: recorded as failed, with the reason; --retry-failed completes it
        cluster.add_node("w2")
        w2 = cluster.node_id(cluster.wait("head", "w2"), "w2")
        run2 = tmp_path / "failed-then-retried"
        summary, hit = run_and_kill(cluster, run2, "w2", w2, "--no-node-retry")
        failed = RunStore(run2).failures()
        assert summary == {"done": N, "failed": len(hit), "skipped": 0} and len(failed) == len(hit) >= 1
        assert {r.item_id for r in failed} == hit
        assert all(r.error["type"] == "NodeLost" and w2 in r.error["message"] for r in failed)

        again = subprocess.run([sys.executable, str(HERE / "ray_driver.py"), "run", str(run2), cluster.address,
                                str(N), str(SLEEP), "--retry-failed"], env=cluster.driver_env(),
                               capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr[-3000:]
        assert json.loads(again.stdout.strip().splitlines()[-1]) == {"done": len(hit), "failed": 0,
                                                                      "skipped": N - len(hit)}
        rows = RunStore(run2).records()
        assert sorted(r.item_id for r in rows) == [f"n{i:03d}" for i in range(N)]
        assert all(r.ok for r in rows)
        assert {r.item_id: r.attempt for r in rows} == {f"n{i:03d}": 2 if f"n{i:03d}" in hit else 1
                                                       for i in range(N)}
