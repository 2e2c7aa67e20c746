"""SIGKILL the driver midway: finished items survive, are not redone, and no process is left."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from webgauge.run import RunSpec, RunStore, WorkItem, run_items

HERE = Path(__file__).resolve().parent


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _done_ids(run_dir: Path) -> set[str]:
    try:
        return {r.item_id for r in RunStore(run_dir).records()}
    except (FileNotFoundError, sqlite3.Error):
        return set()


def test_sigkill_midway_then_resume(tmp_path, child_pids):
    run_dir, n, sleep = tmp_path / "run", 16, 0.4
    proc = subprocess.Popen([sys.executable, str(HERE / "kill_driver.py"), str(run_dir), str(n), str(sleep)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        while len(_done_ids(run_dir)) < 5:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the run did not get going"
            time.sleep(0.05)
        workers = child_pids(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    finished_before = _done_ids(run_dir)
    assert 5 <= len(finished_before) < n
    # Orphaned workers notice the driver is gone and exit on their own, promptly.
    assert workers
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in workers)

    spec = RunSpec(suite="kill", seeds=[1], options={"log": f"{run_dir}.log"})
    items = [WorkItem(id=f"k{i:03d}", kind="qa", payload={"x": i, "sleep": sleep}) for i in range(n)]
    summary = run_items(run_dir, spec, items, "run_handlers:echo", workers=2, progress=False)
    assert summary.skipped_resumed == len(finished_before) and summary.done == n - len(finished_before)
    store = RunStore(run_dir)
    assert store.counts() == {"ok": n, "error": 0}
    starts: dict[str, int] = {}
    for line in Path(f"{run_dir}.log").read_text().splitlines():
        item_id, event = line.split()[:2]
        if event == "start":
            starts[item_id] = starts.get(item_id, 0) + 1
    assert all(starts[i] == 1 for i in finished_before), "a finished item was redone"
    assert set(starts) == {it.id for it in items}
    assert all(r.attempt == 1 for r in store.records())


def test_ctrl_c_stops_the_run_promptly_and_keeps_finished_items(tmp_path, child_pids):
    run_dir = tmp_path / "run"
    # Ctrl-C's default action, as a terminal's shell gives its foreground job: a test run started
    # in the background by a non-interactive shell (`make test &`) ignores SIGINT, and its children
    # would inherit that and run to the end
    proc = subprocess.Popen([sys.executable, str(HERE / "kill_driver.py"), str(run_dir), "30", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 90
        while len(_done_ids(run_dir)) < 3:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the run did not get going"
            time.sleep(0.05)
        workers = child_pids(proc.pid)
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole process group
        proc.wait(30)
        stopped_after = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0 and b"KeyboardInterrupt" in proc.stderr.read()
    assert stopped_after < 15  # and (below) before the remaining items were run
    deadline = time.monotonic() + 20
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in workers)
    done = RunStore(run_dir).counts()
    assert done["error"] == 0 and 3 <= done["ok"] < 30
