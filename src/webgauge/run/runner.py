"""``run_items``: execute work items with resume, one writer and a progress bar.

The driver owns the run directory: it writes ``spec.json`` on the first run, checks it on
every later run (a different spec is an error, not a silent mix), skips items that
finished before, hands the rest to an executor and commits each outcome as it arrives.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from .execute import resolve_handler
from .executor_base import ExecutorSettings
from .items import WorkItem, payload_sha256
from .spec import RunSpec, SpecMismatch, read_spec, spec_differences
from .store import BLOBS_DIR, RESULTS_DB, SPEC_FILE, StoreWriter

__all__ = ["run_items", "RunSummary", "default_workers", "ItemsChanged", "RunDirBusy", "LOCK_FILE"]

LOCK_FILE = "run.lock"

_FIX = "use --out NEW_DIR for a separate run, or --force to discard this directory's results and start over"


class ItemsChanged(SpecMismatch):
    """A finished item's input differs from the item passed now."""


@dataclass(frozen=True)
class RunSummary:
    """What a call to :func:`run_items` did (``done`` and ``failed`` count this call's items)."""

    total: int
    done: int
    failed: int
    skipped_resumed: int
    elapsed: float

    @property
    def ok(self) -> int:
        return self.done - self.failed


def default_workers() -> int:
    """``min(2, cpu count)``: browsers are heavy, and machines are shared."""
    return max(1, min(2, os.cpu_count() or 1))


def _prepare_dir(run_dir: Path, doc: dict, force: bool) -> None:
    spec_path = run_dir / SPEC_FILE
    if force:
        for name in (SPEC_FILE, RESULTS_DB, RESULTS_DB + "-wal", RESULTS_DB + "-shm"):
            (run_dir / name).unlink(missing_ok=True)
        shutil.rmtree(run_dir / BLOBS_DIR, ignore_errors=True)
    if spec_path.exists():
        old = read_spec(spec_path)
        diffs = spec_differences(old, doc)
        if diffs:
            shown = ", ".join(diffs[:8]) + (f" and {len(diffs) - 8} more" if len(diffs) > 8 else "")
            raise SpecMismatch(f"{run_dir} holds a run with a different spec (differs in: {shown}); {_FIX}")
        return
    if (run_dir / RESULTS_DB).exists():
        raise SpecMismatch(f"{run_dir} has results but no {SPEC_FILE}; {_FIX}")
    run_dir.mkdir(parents=True, exist_ok=True)
    tmp = spec_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, spec_path)


class RunDirBusy(RuntimeError):
    """Another process is running in the same run directory."""


@contextlib.contextmanager
def _exclusive(run_dir: Path):
    """Hold ``run_dir/run.lock`` for the whole run, so only one driver writes a directory.

    The lock is an ``flock``: the kernel drops it when the holder exits, even on SIGKILL,
    so a killed run never blocks its own resume.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / LOCK_FILE, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "unknown"
            raise RunDirBusy(f"another webgauge run (pid {holder}) is writing {run_dir}; wait for it to finish "
                             "or use --out NEW_DIR") from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _select(items: list[WorkItem], existing: dict, retry_failed: bool) -> tuple[list[WorkItem], int]:
    seen: set[str] = set()
    todo, skipped = [], 0
    for item in items:
        if item.id in seen:
            raise ValueError(f"duplicate WorkItem id {item.id!r}; item ids must be unique within a run")
        seen.add(item.id)
        prev = existing.get(item.id)
        if prev is None:
            todo.append(item)
            continue
        status, sha, _ = prev
        if sha != payload_sha256(item):
            raise ItemsChanged(f"item {item.id!r} finished earlier with a different kind or payload; {_FIX}")
        if status == "ok" or not retry_failed:
            skipped += 1
        else:
            todo.append(item)
    return todo, skipped


def _make_executor(executor: str, handler: str, run_dir: Path, spec: RunSpec, workers: int | None,
                   per_worker_concurrency: int, item_timeout: float | None, ray_address: str | None,
                   browser_options: dict | None, look_ahead: bool = False):
    settings = ExecutorSettings(handler=handler, run_dir=str(run_dir), options=spec.options, base_seed=spec.base_seed,
                                per_worker_concurrency=per_worker_concurrency, item_timeout=item_timeout,
                                browser_options=dict(browser_options or {}), look_ahead=look_ahead)
    if executor == "local":
        from .local import LocalExecutor

        return LocalExecutor(settings, workers=workers or default_workers())
    if executor == "ray":
        from .ray_executor import RayExecutor

        return RayExecutor(settings, workers=workers, ray_address=ray_address)
    raise ValueError(f"executor must be 'local' or 'ray', got {executor!r}")


def run_items(run_dir: str | os.PathLike, spec: RunSpec, items: Iterable[WorkItem], handler: str,
              executor: str = "local", workers: int | None = None, ray_address: str | None = None,
              per_worker_concurrency: int = 1, retry_failed: bool = False, progress: bool = True,
              item_timeout: float | None = None, force: bool = False,
              browser_options: dict | None = None, look_ahead: bool = False) -> RunSummary:
    """Run ``handler`` on every item, storing outcomes in ``run_dir`` as they finish.

    Re-running with the same spec resumes: finished items are skipped (failed ones are
    re-tried only with ``retry_failed=True``). A different spec raises
    :class:`SpecMismatch`; ``force=True`` deletes the directory's spec, results and blobs
    first. ``handler`` is an import path (``"pkg.module:function"``) of
    ``async def handler(item, ctx) -> ItemResult``. ``browser_options`` are passed to
    ``Browser.launch`` in each worker. With ``look_ahead`` (local executor, one item per worker at
    a time) each worker is sent, with its item, the item it will run next, and that item is kept
    for it: a handler can prepare it in the background (``ctx.next_item``). Call this under
    ``if __name__ == "__main__":`` in scripts: local workers are spawned processes that re-import the
    main module.
    """
    t0 = time.monotonic()
    if executor not in ("local", "ray"):
        raise ValueError(f"executor must be 'local' or 'ray', got {executor!r}")
    if per_worker_concurrency < 1:
        raise ValueError(f"per_worker_concurrency must be >= 1, got {per_worker_concurrency}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if item_timeout is not None and item_timeout <= 0:
        raise ValueError(f"item_timeout must be a positive number of seconds, got {item_timeout}")
    resolve_handler(handler)  # fail fast, in the driver, with a clear message
    items = list(items)
    for it in items:
        if not isinstance(it, WorkItem):
            raise TypeError(f"items must be WorkItem instances, got {type(it).__name__}")
    run_dir = Path(run_dir)
    with _exclusive(run_dir):
        _prepare_dir(run_dir, spec.resolve(), force)
        with StoreWriter(run_dir) as writer:
            existing = writer.existing()
            todo, skipped = _select(items, existing, retry_failed)
            done = failed = 0
            if todo:
                ex = _make_executor(executor, handler, run_dir, spec, workers, per_worker_concurrency,
                                    item_timeout, ray_address, browser_options, look_ahead)
                bar = tqdm(total=len(items), initial=skipped, disable=not progress, unit="item",
                           desc=f"{spec.suite} [{executor}]", dynamic_ncols=True)
                try:
                    done, failed = _drive(ex, todo, writer, existing, bar)
                finally:
                    bar.close()
    return RunSummary(total=len(items), done=done, failed=failed, skipped_resumed=skipped,
                      elapsed=time.monotonic() - t0)


def _drive(ex, todo: list[WorkItem], writer: StoreWriter, existing: dict, bar) -> tuple[int, int]:
    """Feed the executor, commit each outcome as it arrives; returns (done, failed)."""
    shas = {it.id: payload_sha256(it) for it in todo}
    pending = deque(it.to_dict() for it in todo)
    done = failed = 0
    try:
        ex.start(len(todo))
        while pending or ex.in_flight or ex.reserved:
            ex.dispatch(pending)
            for kind, data in ex.poll(timeout=0.5):
                if kind == "requeue":
                    pending.appendleft(data)
                    continue
                prev = existing.get(data["item_id"])
                writer.write(attempt=(prev[2] if prev else 0) + 1, payload_sha=shas[data["item_id"]], **data)
                done += 1
                failed += data["status"] == "error"
                bar.update(1)
                bar.set_postfix({"ok": done - failed, "failed": failed}, refresh=False)
    finally:
        ex.close()
    return done, failed
