"""What a handler gets besides its item: the worker's browser, models, seed and options.

One :class:`WorkerContext` lives in each worker process (or Ray actor). It launches the
worker's Chromium on first use and closes it when the worker exits, and caches model
instances so a worker reuses connections and response caches across items. A handler may keep
its own per-worker objects in :attr:`WorkerContext.state` (closed with the worker through
:meth:`WorkerContext.on_close`); with look-ahead it learns the item it runs next
(:attr:`WorkerContext.next_item`). Each item
sees a per-item view (:meth:`WorkerContext.for_item`) whose ``seed`` depends only on the
run's seed and the item id, so results do not depend on which worker ran the item.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from .items import WorkItem

__all__ = ["WorkerContext", "item_seed"]


def item_seed(base_seed: int, item_id: str) -> int:
    """A 63-bit seed derived from the run seed and the item id (stable across machines)."""
    digest = hashlib.sha256(f"{base_seed}:{item_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class WorkerContext:
    """Per-worker resources for handlers.

    Use it directly in tests or scripts as ``async with WorkerContext(run_dir) as ctx``;
    the executors create one per worker.
    """

    def __init__(self, run_dir: str | Path, options: dict | None = None, seed: int = 0,
                 worker: str = "main", browser_options: dict | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.options: dict = dict(options or {})
        self.seed = seed
        self.base_seed = seed
        self.worker = worker
        self._browser_options = dict(browser_options or {})
        self._shared = _Shared()

    def for_item(self, item: WorkItem) -> WorkerContext:
        """A view sharing this worker's browser and models, with ``seed`` set for ``item``.

        ``seed`` is ``item.payload["seed"]`` when the item carries one, otherwise
        :func:`item_seed` of the run seed and the item id.
        """
        view = object.__new__(WorkerContext)
        view.__dict__.update(self.__dict__)
        explicit = item.payload.get("seed")
        view.seed = explicit if isinstance(explicit, int) else item_seed(self.base_seed, item.id)
        return view

    async def browser(self):
        """The worker's :class:`webgauge.browser.Browser`, launched on first call.

        If the browser has disconnected (Chromium crashed), a new one is launched.
        """
        shared = self._shared
        async with shared.lock:
            if shared.browser is not None and not getattr(shared.browser, "connected", True):
                # Chromium died (or a handler closed it): the item that saw it failed; later items get a new one.
                cm, shared.browser, shared.browser_cm = shared.browser_cm, None, None
                try:
                    await cm.__aexit__(None, None, None)
                except Exception as exc:  # noqa: BLE001 - the old browser is gone either way
                    warnings.warn(f"closing a disconnected browser failed: {exc}", RuntimeWarning, stacklevel=2)
                shared.relaunches += 1
            if shared.browser is None:
                from webgauge.browser import Browser  # lazy: executors do not need a browser

                cm = Browser.launch(**self._browser_options)
                shared.browser = await cm.__aenter__()
                shared.browser_cm = cm
        return shared.browser

    @property
    def next_item(self) -> WorkItem | None:
        """The item this worker runs after the current one, when the executor looks ahead (the local
        executor with ``look_ahead``, one item at a time; it keeps that item for this worker). None
        otherwise, or when the queue had nothing more. A hint for preparing it in the background:
        the item itself comes as usual."""
        return self._shared.next_item

    def set_next_item(self, data: dict | None) -> None:
        """Set by the worker loop from the executor's message (a work item dict, or None)."""
        self._shared.next_item = WorkItem.from_dict(data) if data is not None else None

    @property
    def state(self) -> dict[str, Any]:
        """Objects a handler keeps across this worker's items (an env, a server): see :meth:`on_close`."""
        return self._shared.state

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Have :meth:`aclose` await ``closer()`` first (before the browser closes), once."""
        if closer not in self._shared.closers:
            self._shared.closers.append(closer)

    @property
    def browser_relaunches(self) -> int:
        """How often this worker replaced a disconnected browser."""
        return self._shared.relaunches

    @property
    def has_browser(self) -> bool:
        """Whether this worker has launched its browser."""
        return self._shared.browser is not None

    def model(self, name: str, **opts: Any):
        """A cached model instance from :func:`webgauge.models.get_model`."""
        # Non-JSON options (a RetryPolicy, a shared meter) key by their repr: same object, same model.
        key = json.dumps([name, opts], sort_keys=True, default=repr)
        cache = self._shared.models
        if key not in cache:
            from webgauge.models import get_model  # lazy: models/ is optional for executors

            cache[key] = get_model(name, **opts)
        return cache[key]

    async def aclose(self) -> None:
        """Run the :meth:`on_close` closers, then close the browser and any model that has an
        ``aclose``/``close`` method."""
        shared = self._shared
        closers, shared.closers = shared.closers, []
        for close_first in closers:
            try:
                await close_first()
            except Exception as exc:  # noqa: BLE001 - closing must not hide the run's results
                warnings.warn(f"closing {close_first!r} failed: {type(exc).__name__}: {exc}", RuntimeWarning,
                              stacklevel=2)
        shared.state.clear()
        models, shared.models = list(shared.models.values()), {}
        for m in models:
            closer = getattr(m, "aclose", None) or getattr(m, "close", None)
            if closer is not None:
                try:
                    res = closer()
                    if asyncio.iscoroutine(res):
                        await res
                except Exception as exc:  # noqa: BLE001 - closing must not hide the run's results
                    warnings.warn(f"closing model {m!r} failed: {type(exc).__name__}: {exc}", RuntimeWarning,
                                  stacklevel=2)
        cm, shared.browser_cm, shared.browser = shared.browser_cm, None, None
        if cm is not None:
            await cm.__aexit__(None, None, None)

    async def __aenter__(self) -> WorkerContext:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()


class _Shared:
    """State shared between a worker context and its per-item views."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.browser = None
        self.browser_cm = None
        self.models: dict[str, Any] = {}
        self.relaunches = 0
        self.next_item: WorkItem | None = None
        self.state: dict[str, Any] = {}
        self.closers: list[Callable[[], Awaitable[None]]] = []
