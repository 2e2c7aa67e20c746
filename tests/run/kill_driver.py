"""A run driver for the SIGKILL test: ``python kill_driver.py RUN_DIR N_ITEMS SLEEP``."""

from __future__ import annotations

import sys

from webgauge.run import RunSpec, WorkItem, run_items


def main() -> None:
    run_dir, n, sleep = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    spec = RunSpec(suite="kill", seeds=[1], options={"log": f"{run_dir}.log"})
    items = [WorkItem(id=f"k{i:03d}", kind="qa", payload={"x": i, "sleep": sleep}) for i in range(n)]
    summary = run_items(run_dir, spec, items, "run_handlers:echo", workers=2, progress=False)
    print(summary)


if __name__ == "__main__":
    main()
