"""A run spread over a Ray cluster of two nodes gives the same results as a local run.

The cluster is a head and a second node, each its own ``ray start`` on 127.0.0.1 with one CPU, so the
two actors of a run land one on each node. An arena run (oracle episodes in real Chromium against the
arena's apps) and an understand run (baseline answers, scored by ``understand report``) are run on the
cluster through the CLI (``--executor ray --ray-address 127.0.0.1:PORT``) and locally; their run
directories hold the same verdicts, answers and scores, item by item (timings aside). While the arena
run goes, nothing the driver or the nodes start listens beyond loopback.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from webgauge.run import RunStore
from webgauge.understand.scoring import score_run

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from loopback_cluster import LoopbackCluster  # noqa: E402
from sockets import is_loopback, watch  # noqa: E402

pytestmark = [pytest.mark.raycluster, pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(900)]

# what the arena decides about an episode (the verdict and what it rests on); timings, reset kinds
# (a local worker prepares its next episode ahead, a Ray actor does not) and screenshot sizes left out
ARENA_VERDICT = ("task_id", "family", "seed", "variant", "agent", "success", "forbidden", "validator_errors",
                 "forbidden_violations", "error", "timed_out", "truncated", "done_answer", "final_diff", "n_steps",
                 "retries", "rejections", "grounding_errors", "writes", "unnecessary_writes",
                 "duplicate_submissions", "approvals", "approvals_granted", "refused")


def cli() -> str:
    exe = shutil.which("webgauge", path=str(Path(sys.executable).parent))
    assert exe, f"the webgauge command is not installed beside {sys.executable}; run `pip install -e .`"
    return exe


def run_cli(args: list[str], env: dict[str, str] | None = None) -> str:
    out = subprocess.run([cli(), *args], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    return out.stdout


@pytest.fixture(scope="module")
def cluster():
    with LoopbackCluster() as c:
        c.add_node("w1")
        nodes = c.wait("head", "w1")
        c.ids = {c.node_id(nodes, "head"), c.node_id(nodes, "w1")}  # type: ignore[attr-defined]
        yield c


def on_cluster(cluster: LoopbackCluster) -> list[str]:
    return ["--executor", "ray", "--ray-address", cluster.address, "--workers", "2"]


def by_item(run_dir: Path) -> dict[str, Any]:
    rows = RunStore(run_dir).records()
    assert rows and all(r.ok for r in rows), [r.error for r in rows if not r.ok]
    return {r.item_id: r for r in rows}


def nodes_used(rows: dict[str, Any]) -> set[str]:
    return {r.worker.split("@", 1)[1] for r in rows.values()}


def test_an_arena_run_on_two_nodes_equals_the_local_run(cluster, tmp_path):
    args = ["arena", "run", "--agent", "oracle", "--family", "shop.buy_variant", "--family", "forum.count_solved",
            "--seeds", "0", "--seeds", "1", "--no-report"]
    run_cli([*args, "--out", str(tmp_path / "local"), "--workers", "2"])
    # the cluster run, watching what the driver and both nodes (Ray, actors, Chromium, app servers) listen on
    proc = subprocess.Popen([cli(), *args, "--out", str(tmp_path / "ray"), *on_cluster(cluster)],
                            env=cluster.driver_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        seen, names = watch(proc, 600, also=lambda: set(cluster.pids("head")) | set(cluster.pids("w1")))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, proc.stdout.read().decode(errors="replace")[-4000:] if proc.stdout else ""
    wide = sorted(str(x) for x in seen if not is_loopback(x.ip))
    assert not wide, "listening beyond loopback:\n" + "\n".join(wide)
    assert {"gcs_server", "raylet"} <= {x.name for x in seen} and any("chrom" in n for n in names)
    local, ray = by_item(tmp_path / "local"), by_item(tmp_path / "ray")
    assert sorted(local) == sorted(ray) and len(local) == 4
    for item_id in local:
        want = {k: local[item_id].record.get(k) for k in ARENA_VERDICT}
        got = {k: ray[item_id].record.get(k) for k in ARENA_VERDICT}
        assert got == want, item_id
    assert all(r.record["success"] for r in ray.values())
    assert nodes_used(ray) == cluster.ids  # both nodes ran episodes


def test_an_understand_run_on_two_nodes_equals_the_local_run(cluster, tmp_path):
    bench = tmp_path / "bench"
    run_cli(["understand", "build", "--synthetic", "2", "--task", "position", "--task", "form_fill", "--task",
             "safety", "--out", str(bench)])
    args = ["understand", "run", str(bench), "--model", "dom-heuristic", "--model", "random-guess"]
    run_cli([*args, "--out", str(tmp_path / "local"), "--workers", "2"])
    run_cli([*args, "--out", str(tmp_path / "ray"), *on_cluster(cluster)], env=cluster.driver_env())
    local, ray = by_item(tmp_path / "local"), by_item(tmp_path / "ray")
    assert sorted(local) == sorted(ray) and len(local) >= 10
    assert {i: r.record for i, r in ray.items()} == {i: r.record for i, r in local.items()}
    assert nodes_used(ray) == cluster.ids
    # scored as `understand report` scores them (its scores.jsonl): the same score for every answer
    scores = {name: sorted(json.dumps(it.to_json(), sort_keys=True, default=str)
                           for it in score_run(tmp_path / name).items) for name in ("local", "ray")}
    assert scores["ray"] == scores["local"] and len(scores["local"]) == len(local)
