"""Running one item: resolve the handler, call it, turn the outcome into a plain message.

Shared by the local worker processes and the Ray actors, so both executors record the
same things: a record and blobs on success; the exception's type, message and traceback
on failure (including timeouts and handlers that return the wrong type).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

from .context import WorkerContext
from .items import ItemResult, WorkItem

__all__ = ["resolve_handler", "execute_item", "error_info", "Handler"]

Handler = Callable[[WorkItem, WorkerContext], Awaitable[ItemResult]]


def resolve_handler(path: str) -> Handler:
    """Import ``"package.module:function"`` and check it is an ``async def`` function."""
    if not isinstance(path, str) or path.count(":") != 1:
        raise ValueError(
            f"handler must be an import path like 'webgauge.understand.runner:answer_item', got {path!r}"
        )
    module_name, attr = path.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"handler {path!r}: cannot import module {module_name!r}: {exc}") from exc
    fn: Any = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise ValueError(f"handler {path!r}: module {module_name!r} has no attribute {attr!r}")
    if not inspect.iscoroutinefunction(fn):
        raise TypeError(
            f"handler {path!r} must be 'async def handler(item, ctx) -> ItemResult', got {type(fn).__name__}"
        )
    return fn


def error_info(exc: BaseException) -> dict:
    """``{"type", "message", "traceback"}`` for an exception."""
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    }


def _check_result(result: Any, item: WorkItem) -> ItemResult:
    if not isinstance(result, ItemResult):
        raise TypeError(
            f"handler returned {type(result).__name__} for item {item.id!r}; "
            "return webgauge.run.ItemResult(record={...}, blobs={...})"
        )
    if not isinstance(result.record, dict):
        raise TypeError(f"ItemResult.record must be a dict, got {type(result.record).__name__}")
    try:
        json.dumps(result.record)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"ItemResult.record is not JSON-serializable ({exc}); put bytes in ItemResult.blobs") from None
    for name, data in result.blobs.items():
        if not isinstance(name, str) or not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"ItemResult.blobs must map str names to bytes; {name!r} holds {type(data).__name__}")
    return result


async def execute_item(handler: Handler, item_data: dict, ctx: WorkerContext,
                       timeout: float | None = None) -> dict:
    """Run ``handler`` on one item and return an outcome message (never raises for item errors)."""
    item = WorkItem.from_dict(item_data)
    started = time.time()
    try:
        task = asyncio.ensure_future(handler(item, ctx.for_item(item)))
        try:
            done, _ = await asyncio.wait({task}, timeout=timeout)
        except asyncio.CancelledError:  # the worker is shutting down: stop the handler too
            task.cancel()
            raise
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=5.0)
            err = {"type": "ItemTimeout", "message": f"item {item.id!r} exceeded item_timeout={timeout}s",
                   "traceback": ""}
            return _outcome(item, "error", None, {}, err, started, ctx.worker)
        result = _check_result(task.result(), item)
    except Exception as exc:  # noqa: BLE001 - every handler failure is data for that item
        return _outcome(item, "error", None, {}, error_info(exc), started, ctx.worker)
    blobs = {name: bytes(data) for name, data in result.blobs.items()}
    return _outcome(item, "ok", result.record, blobs, None, started, ctx.worker)


def _outcome(item: WorkItem, status: str, record: dict | None, blobs: dict[str, bytes],
             error: dict | None, started: float, worker: str) -> dict:
    return {
        "item_id": item.id, "kind": item.kind, "status": status, "record": record, "blobs": blobs,
        "error": error, "started": started, "finished": time.time(), "worker": worker,
    }
