"""What every executor is given: the handler, the run, the seeds and the per-worker limits."""

from __future__ import annotations

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
