"""The Ray executor: one actor per worker, each owning one browser.

Ray is imported only when this executor is chosen. Actors are async (their methods run
on the actor's event loop), accept up to ``per_worker_concurrency`` items at once, and
close their browser when the run ends. The driver stays the only writer of the run
directory, so results come back to it as plain messages.

An actor that dies is replaced without holding up the others (its replacement runs once
Ray has placed it). What happens to the items it was running depends on why it died:
its node left the cluster (``NodeLost``) -- the items go back to the queue and run on
another actor, up to :data:`NODE_LOSS_RETRIES` times each -- or the actor itself died
(``WorkerCrashed``): the items are recorded as failed, since the item may be the cause.
"""

from __future__ import annotations

import time
from typing import Any

from .context import WorkerContext
from .execute import execute_item, resolve_handler
from .executor_base import ExecutorBase, ExecutorSettings
from .items import Event, Outcome, WorkItemDict
from .local import HARD_TIMEOUT_GRACE, WORKER_START_TIMEOUT, WorkerStartupError, _synthetic
from .ray_loopback import RayHandle, init_ray

__all__ = ["RayExecutor", "import_ray", "NODE_LOSS_RETRIES", "MAX_START_FAILURES"]

#: How many times an item whose actor's node was lost is run again on another actor before it is
#: recorded as failed (``NodeLost``; ``--retry-failed`` runs it again).
NODE_LOSS_RETRIES = 2
#: An actor whose constructor fails this many times in a row on one slot stops the run (the handler
#: cannot be imported on some node, say) instead of being replaced forever.
MAX_START_FAILURES = 3


def import_ray():
    """Import ray or fail with the install command."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError(
            f"executor='ray' needs Ray, which is not installed ({exc}); install it with `pip install webgauge[ray]`"
        ) from None
    return ray


class _ItemActor:
    """Body of the Ray actor (wrapped with ``ray.remote`` at run time)."""

    def __init__(self, handler: str, run_dir: str, options: dict, base_seed: int, name: str,
                 item_timeout: float | None, browser_options: dict) -> None:
        import ray

        self.node = ray.get_runtime_context().get_node_id()
        self.handler = resolve_handler(handler)
        # the worker name says which node ran an item (loopback nodes share one IP; node ids differ)
        self.ctx = WorkerContext(run_dir, options, base_seed, worker=f"{name}@{self.node[:8]}",
                                 browser_options=browser_options)
        self.item_timeout = item_timeout

    async def run(self, item: WorkItemDict) -> Outcome:
        return await execute_item(self.handler, item, self.ctx, self.item_timeout)

    async def ping(self) -> tuple[str, str]:
        return self.ctx.worker, self.node

    async def close(self) -> bool:
        await self.ctx.aclose()
        return True


class _Slot:
    """One actor's place: the actor, whether it answered its ping, and on which node it runs."""

    def __init__(self, actor: Any, name: str, ping: Any) -> None:
        self.actor = actor
        self.name = name
        self.ping: Any = ping  # pending ObjectRef of the first ping; None once answered
        self.node = ""

    @property
    def ready(self) -> bool:
        return self.ping is None


class RayExecutor(ExecutorBase):
    """Runs items on Ray actors; same driver-facing interface as :class:`LocalExecutor`."""

    def __init__(self, settings: ExecutorSettings, workers: int | None, ray_address: str | None = None) -> None:
        super().__init__(settings, workers)
        self.ray = import_ray()
        self.ray_address = ray_address
        self._slots: list[_Slot | None] = []
        self._futures: dict[Any, tuple[int, WorkItemDict, float, _Slot]] = {}  # ref -> (slot, item, sent, _Slot)
        self._handle: RayHandle | None = None
        self._actor_cls: Any = None
        self._generation = 0
        self._node_losses: dict[str, int] = {}  # item id -> times its node was lost under it
        self._short_since: float | None = None  # since when no actor is ready although work is queued
        self._start_failures: dict[int, int] = {}  # slot -> replacements in a row that could not start

    # -- lifecycle -----------------------------------------------------------------
    def start(self, n_items: int) -> None:
        """Start the actors; return once those the cluster has free CPUs for are up (the others join
        when Ray places them: a cluster that lost nodes may have room for fewer actors than asked for)."""
        ray = self.ray
        if not ray.is_initialized():
            self._handle = init_ray(ray, self.ray_address, log_to_driver=True)
        n = self.n_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        free = int(ray.available_resources().get("CPU", 0))
        self._actor_cls = ray.remote(num_cpus=1, max_concurrency=self.per_worker)(_ItemActor)
        self._slots = [self._spawn(slot) for slot in range(max(1, min(n, n_items)))]
        pings = {s.ping: s for s in self._slots if s is not None}
        placeable = max(1, min(len(pings), free))
        ready, _ = ray.wait(list(pings), num_returns=placeable, timeout=WORKER_START_TIMEOUT)
        if not ready:
            self.close()
            raise WorkerStartupError(f"no Ray actor could be placed within {WORKER_START_TIMEOUT:.0f}s (does the "
                                     "cluster have a free CPU?)")
        ready, _ = ray.wait(list(pings), num_returns=len(pings), timeout=0)
        try:  # surface constructor errors (e.g. the handler cannot be imported there) once, clearly
            for ref in ready:
                s = pings[ref]
                s.name, s.node = ray.get(ref)
                s.ping = None
        except ray.exceptions.RayError as exc:
            self.close()
            raise WorkerStartupError(f"Ray actors could not start: {exc}") from None

    def _spawn(self, slot: int) -> _Slot:
        name = f"ray-{slot}" if self._generation == 0 else f"ray-{slot}.{self._generation}"
        actor = self._actor_cls.remote(self.handler, self.run_dir, self.options, self.base_seed, name,
                                       self.item_timeout, self.browser_options)
        return _Slot(actor, name, actor.ping.remote())

    def close(self) -> None:
        ray = self.ray
        live = [s for s in self._slots if s is not None]
        closing = [s.actor.close.remote() for s in live if s.ready]
        if closing:
            try:
                ray.get(closing, timeout=30)
            except Exception:  # noqa: BLE001 - actors are killed below either way
                pass
        for s in live:
            ray.kill(s.actor)
        self._slots = []
        if self._handle is not None:
            self._handle.shutdown(ray)
            self._handle = None

    # -- scheduling ------------------------------------------------------------------
    @property
    def in_flight(self) -> int:
        return len(self._futures)

    def _load(self, slot: int) -> int:
        return sum(1 for s, _, _, _ in self._futures.values() if s == slot)

    def _ready(self) -> list[int]:
        return [i for i, s in enumerate(self._slots) if s is not None and s.ready]

    def has_capacity(self) -> bool:
        return any(self._load(i) < self.per_worker for i in self._ready())

    def submit(self, item: WorkItemDict) -> None:
        ready = self._ready()
        if not ready:
            raise RuntimeError("submit() called without capacity")
        slot = min(ready, key=self._load)
        s = self._slots[slot]
        assert s is not None
        ref = s.actor.run.remote(item)
        self._futures[ref] = (slot, item, time.monotonic(), s)

    def dispatch(self, pending) -> None:
        super().dispatch(pending)
        self._check_short_of_actors(bool(pending))

    def _check_short_of_actors(self, work_waiting: bool) -> None:
        """Fail the run (not hang) if work waits and no actor has been up for ``WORKER_START_TIMEOUT``."""
        if not work_waiting or self._ready() or self.in_flight:
            self._short_since = None
            return
        now = time.monotonic()
        if self._short_since is None:
            self._short_since = now
        if now - self._short_since > WORKER_START_TIMEOUT:
            raise WorkerStartupError(f"no Ray actor could be placed for {WORKER_START_TIMEOUT:.0f}s (does the "
                                     "cluster still have free CPUs?)")

    def poll(self, timeout: float) -> list[Event]:
        ray = self.ray
        starting = {s.ping: (i, s) for i, s in enumerate(self._slots) if s is not None and s.ping is not None}
        waiting = list(self._futures) + list(starting)
        if not waiting:
            return []
        ready, _ = ray.wait(waiting, num_returns=1, timeout=timeout)  # back as soon as one is ready
        if ready:
            ready, _ = ray.wait(waiting, num_returns=len(waiting), timeout=0)
        events: list[Event] = []
        dead: dict[int, _Slot] = {}
        for ref in ready:
            if ref in starting:
                slot, s = starting[ref]
                try:
                    s.name, s.node = ray.get(ref)
                    s.ping = None
                    self._start_failures.pop(slot, None)
                except ray.exceptions.RayError as exc:
                    failures = self._start_failures[slot] = self._start_failures.get(slot, 0) + 1
                    if failures >= MAX_START_FAILURES:
                        raise WorkerStartupError(f"Ray actor {s.name} could not start ({failures} times in a "
                                                 f"row): {exc}") from None
                    dead[slot] = s  # tried again below
                continue
            slot, item, sent, s = self._futures.pop(ref)
            started = time.time() - (time.monotonic() - sent)
            try:
                events.append(("done", ray.get(ref)))
            except ray.exceptions.RayActorError as exc:
                dead[slot] = s
                events.append(self._actor_died(item, s, exc, started))
            except ray.exceptions.RayError as exc:
                err = {"type": type(exc).__name__, "message": str(exc), "traceback": ""}
                events.append(("done", _synthetic(item, err, started, s.name)))
        events += self._hard_timeouts(dead)
        for slot, s in dead.items():
            if self._slots[slot] is s:  # not one that was already replaced
                self._generation += 1
                self._slots[slot] = self._spawn(slot)
        return events

    def _actor_died(self, item: WorkItemDict, s: _Slot, exc: Exception, started: float) -> Event:
        """An item whose actor died or became unreachable: back to the queue if its node is gone or the
        actor cannot be reached (the item is not to blame), else (the actor process died) a failure."""
        unreachable = isinstance(exc, self.ray.exceptions.ActorUnavailableError)
        if unreachable or (s.node and not self._node_alive(s.node)):
            self.ray.kill(s.actor)  # an unreachable actor is given up on, and replaced
            lost = self._node_losses[item["id"]] = self._node_losses.get(item["id"], 0) + 1
            if lost <= NODE_LOSS_RETRIES:
                return ("requeue", item)
            err = {"type": "NodeLost", "traceback": "",
                   "message": f"actor {s.name} on Ray node {s.node} could not be reached or its node left the "
                              f"cluster while running this item ({lost} times; run again with --retry-failed): "
                              f"{exc}"}
            return ("done", _synthetic(item, err, started, s.name))
        err = {"type": "WorkerCrashed", "traceback": "",
               "message": f"Ray actor {s.name} died while running this item: {exc}"}
        return ("done", _synthetic(item, err, started, s.name))

    def _node_alive(self, node_id: str) -> bool:
        """Whether Ray still counts the node as alive."""
        return bool({n["NodeID"]: n["Alive"] for n in self.ray.nodes()}.get(node_id, False))

    def _hard_timeouts(self, dead: dict[int, _Slot]) -> list[Event]:
        if not self.item_timeout:
            return []
        limit = self.item_timeout + HARD_TIMEOUT_GRACE
        now_m = time.monotonic()
        hung_slots = {slot for slot, _, sent, _ in self._futures.values() if now_m - sent > limit}
        events: list[Event] = []
        for ref, (slot, item, sent, s) in list(self._futures.items()):
            if slot not in hung_slots:
                continue
            del self._futures[ref]
            if now_m - sent > limit:
                err = {"type": "ItemTimeout", "traceback": "",
                       "message": f"item {item['id']!r} exceeded item_timeout={self.item_timeout}s and did not "
                                  f"stop when cancelled; actor {s.name} was killed"}
                events.append(("done", _synthetic(item, err, time.time() - (now_m - sent), s.name)))
            else:
                events.append(("requeue", item))
        for slot in hung_slots:
            hung = self._slots[slot]
            if hung is not None:
                self.ray.kill(hung.actor)
                dead[slot] = hung
        return events
