"""webgauge.run: execute work items concurrently, store results, resume.

>>> from webgauge.run import RunSpec, WorkItem, run_items, RunStore
>>> spec = RunSpec(suite="understand", models=["random"], seeds=[0], prompts={"qa": "..."})
>>> items = [WorkItem(id="q1", kind="qa", payload={"question": "..."})]
>>> summary = run_items("runs/demo", spec, items, handler="mypkg.mod:answer_item")
>>> RunStore("runs/demo").records(status="ok")

A handler is ``async def handler(item: WorkItem, ctx: WorkerContext) -> ItemResult``
referenced by import path. Each worker process (or Ray actor with ``executor="ray"``)
owns one browser (``await ctx.browser()``) and a model cache (``ctx.model(name)``).
The run directory holds ``spec.json``, ``results.sqlite`` (WAL; the driver is the only
writer) and ``blobs/<sha[:2]>/<sha>``. Re-running resumes; a different spec is an error.
"""

from ..records import Record, RecordSchemaError, record_type, record_types
from .context import WorkerContext, item_seed
from .execute import resolve_handler
from .items import ItemResult, WorkItem, payload_sha256
from .local import WorkerStartupError
from .options import executor_kwargs, executor_options
from .runner import ItemsChanged, RunDirBusy, RunSummary, default_workers, run_items
from .spec import RunSpec, SpecMismatch, collect_environment, font_fingerprint
from .store import ResultRow, RunStore

__all__ = [
    "WorkItem", "ItemResult", "WorkerContext", "RunSpec", "RunSummary", "RunStore", "ResultRow",
    "run_items", "resolve_handler", "executor_options", "executor_kwargs", "default_workers", "item_seed",
    "payload_sha256", "collect_environment", "font_fingerprint", "SpecMismatch", "ItemsChanged", "RunDirBusy",
    "WorkerStartupError", "Record", "RecordSchemaError", "record_type", "record_types",
]
