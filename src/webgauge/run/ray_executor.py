"""The Ray executor: one actor per worker, each owning one browser.

Ray is imported only when this executor is chosen. Actors are async (their methods run
on the actor's event loop), accept up to ``per_worker_concurrency`` items at once, and
close their browser when the run ends. An actor that dies turns its in-flight items into
``WorkerCrashed`` failures and is replaced; the driver stays the only writer of the run
directory, so results come back to it as plain messages.
"""

from __future__ import annotations

import time
from typing import Any

from .context import WorkerContext
from .execute import execute_item, resolve_handler
from .executor_base import ExecutorBase, ExecutorSettings
from .local import HARD_TIMEOUT_GRACE, WorkerStartupError, _synthetic

__all__ = ["RayExecutor", "import_ray"]


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
        self.handler = resolve_handler(handler)
        self.ctx = WorkerContext(run_dir, options, base_seed, worker=name, browser_options=browser_options)
        self.item_timeout = item_timeout

    async def run(self, item: dict) -> dict:
        return await execute_item(self.handler, item, self.ctx, self.item_timeout)

    async def ping(self) -> str:
        return self.ctx.worker

    async def close(self) -> bool:
        await self.ctx.aclose()
        return True


class RayExecutor(ExecutorBase):
    """Runs items on Ray actors; same driver-facing interface as :class:`LocalExecutor`."""

    def __init__(self, settings: ExecutorSettings, workers: int | None, ray_address: str | None = None) -> None:
        super().__init__(settings, workers)
        self.ray = import_ray()
        self.ray_address = ray_address
        self._actors: list[Any] = []
        self._names: list[str] = []
        self._futures: dict[Any, tuple[int, dict, float, Any]] = {}  # ref -> (slot, item, submitted, actor)
        self._started_ray = False
        self._actor_cls: Any = None
        self._generation = 0

    def start(self, n_items: int) -> None:
        ray = self.ray
        if not ray.is_initialized():
            try:
                ray.init(address=self.ray_address, include_dashboard=False, log_to_driver=True)
            except Exception:
                ray.shutdown()  # do not leave half-started Ray processes behind
                raise
            self._started_ray = True
        n = self.n_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._actor_cls = ray.remote(num_cpus=1, max_concurrency=self.per_worker)(_ItemActor)
        self._actors = [None] * max(1, min(n, n_items))
        self._names = [""] * len(self._actors)
        for slot in range(len(self._actors)):
            self._spawn(slot)
        try:  # surface constructor errors (e.g. the handler cannot be imported there) once, clearly
            ray.get([a.ping.remote() for a in self._actors], timeout=300)
        except ray.exceptions.RayError as exc:
            self.close()
            raise WorkerStartupError(f"Ray actors could not start: {exc}") from None

    def _spawn(self, slot: int) -> None:
        name = f"ray-{slot}" if self._generation == 0 else f"ray-{slot}.{self._generation}"
        self._actors[slot] = self._actor_cls.remote(
            self.handler, self.run_dir, self.options, self.base_seed, name, self.item_timeout, self.browser_options
        )
        self._names[slot] = name

    def close(self) -> None:
        ray = self.ray
        closing = [a.close.remote() for a in self._actors if a is not None]
        if closing:
            try:
                ray.get(closing, timeout=30)
            except Exception:  # noqa: BLE001 - actors are killed below either way
                pass
        for a in self._actors:
            if a is not None:
                ray.kill(a)
        self._actors = []
        if self._started_ray:
            ray.shutdown()

    @property
    def in_flight(self) -> int:
        return len(self._futures)

    def _load(self, slot: int) -> int:
        return sum(1 for s, _, _, _ in self._futures.values() if s == slot)

    def has_capacity(self) -> bool:
        return self.in_flight < len(self._actors) * self.per_worker

    def submit(self, item: dict) -> None:
        slot = min(range(len(self._actors)), key=self._load)
        if self._actors[slot] is None:  # replace a dead actor only when there is work for it
            self._generation += 1
            self._spawn(slot)
            # Wait until it is up, so its start-up time does not count against the item's timeout.
            try:
                self.ray.get(self._actors[slot].ping.remote(), timeout=300)
            except self.ray.exceptions.RayError as exc:
                raise WorkerStartupError(f"a replacement Ray actor could not start: {exc}") from None
        actor = self._actors[slot]
        ref = actor.run.remote(item)
        self._futures[ref] = (slot, item, time.monotonic(), actor)

    def poll(self, timeout: float) -> list[tuple[str, dict]]:
        ray = self.ray
        if not self._futures:
            return []
        ready, _ = ray.wait(list(self._futures), num_returns=len(self._futures), timeout=timeout)
        events: list[tuple[str, dict]] = []
        dead: set[int] = set()
        for ref in ready:
            slot, item, sent, actor = self._futures.pop(ref)
            try:
                events.append(("done", ray.get(ref)))
            except ray.exceptions.RayActorError as exc:
                if self._actors[slot] is actor:  # not an actor that was already replaced
                    dead.add(slot)
                err = {"type": "WorkerCrashed", "traceback": "",
                       "message": f"Ray actor {self._names[slot]} died while running this item: {exc}"}
                events.append(("done",
                               _synthetic(item, err, time.time() - (time.monotonic() - sent), self._names[slot])))
            except ray.exceptions.RayError as exc:
                err = {"type": type(exc).__name__, "message": str(exc), "traceback": ""}
                events.append(("done",
                               _synthetic(item, err, time.time() - (time.monotonic() - sent), self._names[slot])))
        events += self._hard_timeouts(dead)
        for slot in dead:
            self._actors[slot] = None
        return events

    def _hard_timeouts(self, dead: set[int]) -> list[tuple[str, dict]]:
        if not self.item_timeout:
            return []
        limit = self.item_timeout + HARD_TIMEOUT_GRACE
        now_m = time.monotonic()
        hung_slots = {s for s, _, sent, _ in self._futures.values() if now_m - sent > limit}
        events = []
        for ref, (slot, item, sent, _) in list(self._futures.items()):
            if slot not in hung_slots:
                continue
            del self._futures[ref]
            if now_m - sent > limit:
                err = {"type": "ItemTimeout", "traceback": "",
                       "message": f"item {item['id']!r} exceeded item_timeout={self.item_timeout}s and did not "
                                  f"stop when cancelled; actor {self._names[slot]} was killed"}
                events.append(("done", _synthetic(item, err, time.time() - (now_m - sent), self._names[slot])))
            else:
                events.append(("requeue", item))
        for slot in hung_slots:
            if self._actors[slot] is not None:
                self.ray.kill(self._actors[slot])
            dead.add(slot)
        return events
