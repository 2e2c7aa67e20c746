"""Handlers used by the run tests (imported by spawned workers and Ray actors by path)."""

from __future__ import annotations

import asyncio
import os
import time

from webgauge.run import ItemResult, WorkerContext, WorkItem


def _log(ctx: WorkerContext, item: WorkItem, event: str) -> None:
    path = ctx.options.get("log")
    if path:
        with open(path, "a", encoding="utf-8") as fh:  # O_APPEND: one short line per write is atomic
            fh.write(f"{item.id} {event} {ctx.worker} {os.getpid()} {time.time():.4f}\n")


async def echo(item: WorkItem, ctx: WorkerContext) -> ItemResult:
    """Doubles payload['x']; fails on payload['fail']; hangs or crashes on request."""
    p = item.payload
    _log(ctx, item, "start")
    if p.get("sleep"):
        await asyncio.sleep(p["sleep"])
    if p.get("fail"):
        raise ValueError(f"asked to fail: {p['fail']}")
    if p.get("fail_unless_exists") and not os.path.exists(p["fail_unless_exists"]):
        raise FileNotFoundError(p["fail_unless_exists"])
    if p.get("crash"):
        os._exit(3)
    if p.get("block"):
        time.sleep(p["block"])  # ignores cancellation on purpose
    if p.get("wrong_type"):
        return {"x": 1}  # type: ignore[return-value]
    _log(ctx, item, "end")
    blobs = {"data": f"blob-{p.get('blob', item.id)}".encode()}
    return ItemResult(record={"y": p.get("x", 0) * 2, "seed": ctx.seed, "worker": ctx.worker, "pid": os.getpid()},
                      blobs=blobs)


async def capture(item: WorkItem, ctx: WorkerContext) -> ItemResult:
    """Captures payload['url'] in the worker's browser; reports which browser did it."""
    from webgauge.browser import RenderProfile

    browser = await ctx.browser()
    again = await ctx.browser()
    snap = await browser.capture_url(item.payload["url"], RenderProfile(width=640, height=400), full_page=False)
    if item.payload.get("close_browser"):  # as if Chromium had crashed after this capture
        await browser.close()
    return ItemResult(
        record={"title": snap.title, "png_sha256": snap.png_sha256, "worker": ctx.worker, "pid": os.getpid(),
                "browser_id": id(browser), "same_browser": again is browser, "relaunches": ctx.browser_relaunches,
                "n_elements": len(snap.elements)},
        blobs={"screenshot": snap.png},
    )


def not_async(item, ctx):  # for the handler validation test
    return None


async def ask(item: WorkItem, ctx: WorkerContext) -> ItemResult:
    """Asks the run's model (an OpenAI-compatible endpoint) one question."""
    from webgauge.models import GenerateConfig, user

    model = ctx.model("openai:fake", base_url=ctx.options["base_url"], api_key="test")
    assert ctx.model("openai:fake", base_url=ctx.options["base_url"], api_key="test") is model
    r = await model.generate([user(item.payload["question"])], GenerateConfig(max_tokens=16, temperature=0))
    return ItemResult(record={"answer": r.text, "model_id": id(model), "pid": os.getpid()})


async def peek(item: WorkItem, ctx: WorkerContext) -> ItemResult:
    """Reports the item the executor said this worker runs next, and the one said before (kept in
    ``ctx.state``); crashes on payload['crash'] (only in the first worker process: a replacement runs it)."""
    _log(ctx, item, "start")
    said_before = ctx.state.get("said next")
    ctx.state["said next"] = ctx.next_item.id if ctx.next_item is not None else None
    if item.payload.get("crash") and not ctx.worker.count("."):
        os._exit(3)
    await asyncio.sleep(item.payload.get("sleep", 0.05))
    return ItemResult(record={"next": ctx.state["said next"], "said_before": said_before, "worker": ctx.worker,
                              "pid": os.getpid()})
