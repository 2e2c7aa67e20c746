"""What every executor is given: the handler, the run, the seeds and the per-worker limits."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ExecutorSettings", "ExecutorBase"]


@dataclass(frozen=True)
class ExecutorSettings:
    handler: str  # "module:function" of the async item handler
    run_dir: str
    options: dict[str, Any]
    base_seed: int
    per_worker_concurrency: int = 1
    item_timeout: float | None = None
    browser_options: dict[str, Any] = field(default_factory=dict)
    # each worker is told the item it runs next (WorkerContext.next_item), which is kept for it
    # (the local executor with one item per worker at a time; others ignore it)
    look_ahead: bool = False


class ExecutorBase:
    """The settings both executors keep, under the names their workers are started with."""

    def __init__(self, settings: ExecutorSettings, workers: int | None) -> None:
        self.settings = settings
        self.handler = settings.handler
        self.run_dir = str(settings.run_dir)
        self.options = settings.options
        self.base_seed = settings.base_seed
        self.n_workers = workers
        self.per_worker = settings.per_worker_concurrency
        self.item_timeout = settings.item_timeout
        self.browser_options = dict(settings.browser_options)

    @property
    def reserved(self) -> int:
        """Items taken from the queue and kept for a worker's next turn (none unless looking ahead)."""
        return 0

    def dispatch(self, pending: deque) -> None:
        """Send items from the front of ``pending`` while there is capacity."""
        while pending and self.has_capacity():
            self.submit(pending.popleft())

    # what each executor provides
    def has_capacity(self) -> bool:
        raise NotImplementedError

    def submit(self, item: Any) -> None:
        raise NotImplementedError
