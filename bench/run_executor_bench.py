"""Side-by-side costs of the run layer: per-item overhead, concurrency, store writes.

    .venv/bin/python bench/run_executor_bench.py

Prints ratios, not verdicts. Everything runs on this machine (no browser needed).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # workers import the handlers below by path

from webgauge.run import ItemResult, RunSpec, WorkerContext, WorkItem, run_items  # noqa: E402
from webgauge.run.execute import execute_item, resolve_handler  # noqa: E402
from webgauge.run.store import StoreWriter  # noqa: E402


async def noop(item: WorkItem, ctx: WorkerContext) -> ItemResult:
    """Does nothing: measures the executor's own cost per item."""
    return ItemResult(record={"i": item.payload["i"]}, blobs={"b": os.urandom(1024)})


async def sleepy(item: WorkItem, ctx: WorkerContext) -> ItemResult:
    """Waits like a model call would."""
    await asyncio.sleep(item.payload["sleep"])
    return ItemResult(record={})


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    spec = RunSpec(suite="bench")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        n = 300
        items = [WorkItem(id=f"n{i}", kind="noop", payload={"i": i}) for i in range(n)]

        async def inline():
            handler = resolve_handler("run_executor_bench:noop")
            async with WorkerContext(tmp) as ctx:
                for it in items:
                    await execute_item(handler, it.to_dict(), ctx)
        t_inline = _timed(lambda: asyncio.run(inline()))
        t1 = _timed(lambda: run_items(tmp / "w1", spec, items, "run_executor_bench:noop", workers=1, progress=False))
        t2 = _timed(lambda: run_items(tmp / "w2", spec, items, "run_executor_bench:noop", workers=2, progress=False))
        t_resume = _timed(lambda: run_items(tmp / "w2", spec, items, "run_executor_bench:noop", progress=False))
        print(f"no-op items (n={n}, 1 KiB blob each)")
        print(f"  in-process loop        {t_inline:6.2f} s  ({n / t_inline:7.0f} items/s)")
        print(f"  local, 1 worker        {t1:6.2f} s  ({n / t1:7.0f} items/s)  x{t1 / t_inline:.1f} of in-process")
        print(f"  local, 2 workers       {t2:6.2f} s  ({n / t2:7.0f} items/s)  x{t2 / t_inline:.1f} of in-process")
        print(f"  resume, all finished   {t_resume:6.2f} s")

        m, sleep = 40, 0.2
        waits = [WorkItem(id=f"s{i}", kind="wait", payload={"sleep": sleep}) for i in range(m)]
        tc1 = _timed(lambda: run_items(tmp / "c1", spec, waits, "run_executor_bench:sleepy", workers=2, progress=False))
        tc4 = _timed(lambda: run_items(tmp / "c4", spec, waits, "run_executor_bench:sleepy", workers=2,
                                       per_worker_concurrency=4, progress=False))
        print(f"waiting items (n={m}, {sleep} s each, 2 workers)")
        print(f"  per_worker_concurrency=1  {tc1:6.2f} s")
        print(f"  per_worker_concurrency=4  {tc4:6.2f} s  ratio {tc1 / tc4:.1f}x faster")

        k = 2000
        with StoreWriter(tmp / "store") as w:
            def writes():
                for i in range(k):
                    w.write(item_id=f"x{i}", kind="k", status="ok", record={"i": i}, blobs={"png": os.urandom(10240)},
                            error=None, attempt=1, started=0.0, finished=1.0, worker="w", payload_sha="p")
            tw = _timed(writes)
        print(f"store: {k} committed records with a 10 KiB blob each in {tw:.2f} s ({k / tw:.0f} records/s)")


if __name__ == "__main__":
    main()
