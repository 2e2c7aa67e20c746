"""The local executor: worker processes, each with its own asyncio loop and browser.

The driver (the process calling ``run_items``) talks to every worker over its own pipe
and sends a worker at most ``per_worker_concurrency`` items at a time, so it always knows
which items each worker holds. That makes failures attributable: a worker that dies
(segfault, OOM kill) turns its in-flight items into ``WorkerCrashed`` failures, and an item
that hangs past ``item_timeout`` plus a grace period gets its worker killed and replaced.
Workers exit on their own when the driver disappears (their pipe hits EOF), so killing
the driver with SIGKILL leaves no orphan processes or browsers behind.

With ``look_ahead`` (and one item per worker at a time) each item goes out with the worker's next
one, taken from the queue and kept for that worker (``WorkerContext.next_item``), so a handler can
prepare it while the item runs. A kept item has not started: a worker that dies or is killed gives
it back to the queue, not a failure.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from .context import WorkerContext
from .execute import error_info, execute_item, resolve_handler
from .executor_base import ExecutorBase, ExecutorSettings
from .items import Event, Outcome, WorkItemDict

__all__ = ["LocalExecutor", "HARD_TIMEOUT_GRACE"]

#: Seconds past ``item_timeout`` before the driver kills a worker whose item ignores cancellation.
HARD_TIMEOUT_GRACE = 30.0
#: Seconds a worker process may take to start (import the handler) before it counts as crashed.
WORKER_START_TIMEOUT = 300.0
#: Seconds a worker may take to close its browser after the driver vanished.
ORPHAN_EXIT_AFTER = 15.0


class WorkerStartupError(RuntimeError):
    """A worker process could not start (e.g. it cannot import the handler)."""


def _worker_main(conn: Connection, handler_path: str, run_dir: str, options: dict, base_seed: int,
                 name: str, item_timeout: float | None, browser_options: dict) -> None:
    """Entry point of a worker process."""
    # Ctrl-C reaches the whole process group; the driver decides what stops, and tells us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        asyncio.run(_worker_loop(conn, handler_path, run_dir, options, base_seed, name, item_timeout,
                                 browser_options))
    finally:
        conn.close()


async def _worker_loop(conn: Connection, handler_path: str, run_dir: str, options: dict, base_seed: int,
                       name: str, item_timeout: float | None, browser_options: dict) -> None:
    try:
        handler = resolve_handler(handler_path)
    except Exception as exc:  # noqa: BLE001 - reported to the driver, which stops the run
        conn.send({"type": "fatal", "error": error_info(exc)})
        return
    ctx = WorkerContext(run_dir, options, base_seed, worker=name, browser_options=browser_options)
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue = asyncio.Queue()

    def reader() -> None:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                msg = None  # the driver is gone
            loop.call_soon_threadsafe(inbox.put_nowait, msg)
            if msg is None or msg.get("type") == "stop":
                if msg is None:  # last resort if closing the browser hangs (daemon: a clean exit is not delayed)
                    timer = threading.Timer(ORPHAN_EXIT_AFTER, os._exit, args=(1,))
                    timer.daemon = True
                    timer.start()
                return

    threading.Thread(target=reader, name=f"{name}-reader", daemon=True).start()

    async def run_one(item: WorkItemDict) -> None:
        outcome = await execute_item(handler, item, ctx, item_timeout)
        try:
            conn.send({"type": "result", "outcome": outcome})
        except (BrokenPipeError, OSError):
            pass  # the driver is gone; the item will be redone on resume

    running: set[asyncio.Task] = set()
    try:
        conn.send({"type": "ready", "pid": os.getpid()})
        while True:
            msg = await inbox.get()
            if msg is None or msg["type"] == "stop":
                break  # the driver stops workers only when it gave up on their items (or vanished)
            if "next" in msg:  # the executor looks ahead: what this worker runs after this item
                ctx.set_next_item(msg["next"])
            task = asyncio.create_task(run_one(msg["item"]))
            running.add(task)
            task.add_done_callback(running.discard)
    finally:
        for task in list(running):
            task.cancel()
        if running:
            await asyncio.wait(set(running), timeout=5.0)
        await ctx.aclose()


@dataclass
class _Worker:
    name: str
    process: mp.process.BaseProcess
    conn: Connection
    in_flight: dict[str, tuple[WorkItemDict, float]] = field(default_factory=dict)  # item_id -> (item, sent at)
    pid: int | None = None
    spawned_at: float = field(default_factory=time.monotonic)
    ready_at: float | None = None  # item clocks start no earlier than this: startup is not the item's time
    next: WorkItemDict | None = None  # kept for this worker's next turn (look-ahead), told to it with its item


class LocalExecutor(ExecutorBase):
    """A pool of worker processes (spawn start method) driven over pipes."""

    n_workers: int

    def __init__(self, settings: ExecutorSettings, workers: int) -> None:
        super().__init__(settings, workers)
        self._ctx = mp.get_context("spawn")
        self._workers: list[_Worker | None] = []
        self._generation = 0

    # -- lifecycle -----------------------------------------------------------------
    def start(self, n_items: int) -> None:
        """Start ``min(workers, n_items)`` worker processes."""
        self._workers = [self._spawn(i) for i in range(max(1, min(self.n_workers, n_items)))]

    def _spawn(self, slot: int) -> _Worker:
        name = f"local-{slot}" if self._generation == 0 else f"local-{slot}.{self._generation}"
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(
            target=_worker_main, name=f"webgauge-{name}", daemon=False,
            args=(child, self.handler, self.run_dir, self.options, self.base_seed, name, self.item_timeout,
                  self.browser_options),
        )
        proc.start()
        child.close()  # only the worker holds its end, so the driver's death is an EOF there
        return _Worker(name=name, process=proc, conn=parent)

    def close(self) -> None:
        """Ask workers to stop (they close their browsers), then make sure they are gone."""
        for w in self._workers:
            if w is not None:
                try:
                    w.conn.send({"type": "stop"})
                except (BrokenPipeError, OSError):
                    pass
        deadline = time.monotonic() + 30.0
        for w in self._workers:
            if w is None:
                continue
            w.process.join(max(0.1, deadline - time.monotonic()))
            self._kill(w)
        self._workers = []

    def _kill(self, w: _Worker) -> None:
        if w.process.is_alive():
            w.process.terminate()
            w.process.join(5.0)
        if w.process.is_alive():
            w.process.kill()
            w.process.join(5.0)
        w.conn.close()

    # -- scheduling ------------------------------------------------------------------
    @property
    def capacity(self) -> int:
        return len(self._workers) * self.per_worker

    @property
    def in_flight(self) -> int:
        return sum(len(w.in_flight) for w in self._workers if w is not None)

    def has_capacity(self) -> bool:
        return self.in_flight < self.capacity

    @property
    def looks_ahead(self) -> bool:
        return self.settings.look_ahead and self.per_worker == 1

    @property
    def reserved(self) -> int:
        return sum(w.next is not None for w in self._workers if w is not None)

    def submit(self, item: WorkItemDict) -> None:
        """Send an item to the least busy worker (restarting a crashed one if needed)."""
        w = self._worker(min(range(len(self._workers)),
                             key=lambda i: len(w.in_flight) if (w := self._workers[i]) is not None else -1))
        if len(w.in_flight) >= self.per_worker:
            raise RuntimeError("submit() called without capacity")
        self._send(w, item)

    def dispatch(self, pending: deque) -> None:
        """Without look-ahead, as every executor. With it, each idle worker takes the item kept for it
        (else the queue's front) and keeps the next item of the queue, told to it along."""
        if not self.looks_ahead:
            return super().dispatch(pending)
        for slot, w in enumerate(list(self._workers)):
            busy = w is not None and bool(w.in_flight)
            kept = w is not None and w.next is not None
            if busy or not (kept or pending):
                continue
            w = self._worker(slot)
            item = w.next if w.next is not None else pending.popleft()
            w.next = pending.popleft() if pending else None
            self._send(w, item, look_ahead=True)

    def _worker(self, slot: int) -> _Worker:
        """The worker of ``slot``, restarted if it crashed."""
        w = self._workers[slot]
        if w is None or not w.process.is_alive():
            kept = w.next if w is not None else None  # not started: the new worker keeps it
            self._generation += 1
            w = self._workers[slot] = self._spawn(slot)
            w.next = kept
        return w

    def _send(self, w: _Worker, item: WorkItemDict, look_ahead: bool = False) -> None:
        w.in_flight[item["id"]] = (item, time.monotonic())
        msg: dict[str, Any] = {"type": "item", "item": item}
        if look_ahead:
            msg["next"] = w.next
        w.conn.send(msg)

    def _give_back(self, w: _Worker) -> list[Event]:
        """The item kept for a worker that is going away goes back to the queue (it never started)."""
        kept, w.next = w.next, None
        return [("requeue", kept)] if kept is not None else []

    def poll(self, timeout: float) -> list[Event]:
        """Wait up to ``timeout`` s; return events ``("done", outcome)`` or ``("requeue", item)``."""
        live = [w for w in self._workers if w is not None]
        if not live:
            return []
        events: list[Event] = []
        wait([w.conn for w in live] + [w.process.sentinel for w in live], timeout)
        for w in live:
            events += self._drain(w)
            if not w.process.is_alive():
                events += self._crashed(w)
        events += self._stalled_starts()
        events += self._hard_timeouts()
        return events

    def _drain(self, w: _Worker) -> list[Event]:
        events: list[Event] = []
        try:
            while w.conn.poll():
                msg = w.conn.recv()
                if msg["type"] == "result":
                    out = msg["outcome"]
                    w.in_flight.pop(out["item_id"], None)
                    events.append(("done", out))
                elif msg["type"] == "ready":
                    w.pid = msg["pid"]
                    w.ready_at = time.monotonic()
                elif msg["type"] == "fatal":
                    err = msg["error"]
                    raise WorkerStartupError(f"worker {w.name} could not start: {err['type']}: {err['message']}")
        except (EOFError, OSError):
            pass
        return events

    def _crashed(self, w: _Worker) -> list[Event]:
        """Turn a dead worker's in-flight items into failures and free its slot."""
        code = w.process.exitcode
        events: list[Event] = []
        now = time.time()
        for item, sent in w.in_flight.values():
            err = {"type": "WorkerCrashed", "traceback": "",
                   "message": f"worker {w.name} (pid {w.pid}) died with exit code {code} while running this item"}
            events.append(("done", _synthetic(item, err, now - (time.monotonic() - sent), w.name)))
        w.in_flight.clear()
        events += self._give_back(w)
        self._kill(w)
        self._workers[self._workers.index(w)] = None
        return events

    def _stalled_starts(self) -> list[Event]:
        """Workers that never reported ready: their items fail as ``WorkerCrashed``."""
        events: list[Event] = []
        now_m = time.monotonic()
        for w in [w for w in self._workers if w is not None and w.ready_at is None]:
            if now_m - w.spawned_at <= WORKER_START_TIMEOUT:
                continue
            for item, sent in w.in_flight.values():
                err = {"type": "WorkerCrashed", "traceback": "",
                       "message": f"worker {w.name} did not start within {WORKER_START_TIMEOUT:.0f}s"}
                events.append(("done", _synthetic(item, err, time.time() - (now_m - sent), w.name)))
            w.in_flight.clear()
            events += self._give_back(w)
            self._kill(w)
            self._workers[self._workers.index(w)] = None
        return events

    def _hard_timeouts(self) -> list[Event]:
        if not self.item_timeout:
            return []
        limit = self.item_timeout + HARD_TIMEOUT_GRACE
        events: list[Event] = []
        now_m, now = time.monotonic(), time.time()
        for w in self._workers:
            if w is None or w.ready_at is None:
                continue
            ready_at = w.ready_at
            hung = [iid for iid, (_, sent) in w.in_flight.items() if now_m - max(sent, ready_at) > limit]
            if not hung:
                continue
            for iid, (item, sent) in w.in_flight.items():
                if iid in hung:
                    err = {"type": "ItemTimeout", "traceback": "",
                           "message": f"item {iid!r} exceeded item_timeout={self.item_timeout}s and did not "
                                      f"stop when cancelled; worker {w.name} was killed"}
                    events.append(("done", _synthetic(item, err, now - (now_m - sent), w.name)))
                else:
                    events.append(("requeue", item))
            w.in_flight.clear()
            events += self._give_back(w)
            self._kill(w)
            self._workers[self._workers.index(w)] = None
        return events


def _synthetic(item: WorkItemDict, error: dict[str, Any], started: float, worker: str) -> Outcome:
    return {"item_id": item["id"], "kind": item["kind"], "status": "error", "record": None, "blobs": {},
            "error": error, "started": started, "finished": time.time(), "worker": worker}
