"""Drivers for the loopback-cluster tests, run as their own processes (with the cluster's environment).

``python ray_driver.py wait ADDRESS NAME...`` -- wait until the named nodes (resource ``wg_node_NAME``) are
alive; prints the alive nodes' ids, addresses and resources.
``python ray_driver.py run RUN_DIR ADDRESS N_ITEMS SLEEP [--retry-failed] [--no-node-retry]`` -- run the echo
items there (``--no-node-retry``: an item whose node is lost is recorded as failed at once).
"""

from __future__ import annotations

import json
import sys
import time

from webgauge.run import RunSpec, WorkItem, ray_executor, run_items
from webgauge.run.ray_executor import import_ray
from webgauge.run.ray_loopback import init_ray


def wait(address: str, names: list[str], timeout: float = 300.0) -> None:
    ray = import_ray()
    init_ray(ray, address, log_to_driver=False)
    deadline = time.monotonic() + timeout
    while True:
        alive = [node for node in ray.nodes() if node["Alive"]]
        missing = [n for n in names if not any(f"wg_node_{n}" in node["Resources"] for node in alive)]
        if not missing:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"nodes {missing} did not come up within {timeout:.0f}s")
        time.sleep(0.5)
    print(json.dumps([{"id": node["NodeID"], "ip": node["NodeManagerAddress"], "resources": node["Resources"]}
                      for node in alive]))
    ray.shutdown()


def items(n: int, sleep: float) -> list[WorkItem]:
    return [WorkItem(id=f"n{i:03d}", kind="qa", payload={"x": i, "sleep": sleep}) for i in range(n)]


def run(run_dir: str, address: str, n: int, sleep: float, retry_failed: bool) -> None:
    spec = RunSpec(suite="nodes", seeds=[1], options={"log": f"{run_dir}.log"})
    summary = run_items(run_dir, spec, items(n, sleep), "run_handlers:echo", executor="ray", ray_address=address,
                        workers=2, progress=False, retry_failed=retry_failed)
    print(json.dumps({"done": summary.done, "failed": summary.failed, "skipped": summary.skipped_resumed}))


if __name__ == "__main__":
    if sys.argv[1] == "wait":
        wait(sys.argv[2], sys.argv[3:])
    else:
        if "--no-node-retry" in sys.argv:
            ray_executor.NODE_LOSS_RETRIES = 0
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), "--retry-failed" in sys.argv)
