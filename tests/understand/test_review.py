"""`understand review` end to end in Chromium: a correction made on the page round-trips into a rebuild."""

import json

import pytest
from aiohttp import web

from webgauge.understand import build_benchmark_async, read_questions
from webgauge.understand.review import read_rejected, review_app

pytestmark = pytest.mark.browser


async def _serve(app):
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    return runner, f"http://127.0.0.1:{port}"


async def test_review_correction_round_trips_into_a_rebuild(browser, tmp_path):
    kw = dict(seed=5, synthetic=1, tasks=["ui_group"], progress=False)
    await build_benchmark_async(tmp_path / "b1", **kw)
    q = sorted(read_questions(tmp_path / "b1", "ui_group"), key=lambda q: q.id)[0]
    fix = "left sidebar" if q.target != "left sidebar" else "top bar"
    labels = tmp_path / "labels.jsonl"
    runner, base = await _serve(review_app(tmp_path / "b1", labels, annotator="tester"))
    try:
        async with browser.open(f"{base}/q/{q.id}") as live:
            assert await live.evaluate("() => document.querySelector('#label').textContent") == q.target
            # the screenshot with the target boxed loads
            assert await live.evaluate("() => new Promise((ok) => { const i = document.querySelector('img'); "
                                       "i.complete ? ok(i.naturalWidth) : i.onload = () => ok(i.naturalWidth); })") > 0
            await live.fill("css=#answer", fix)
            await live.click("css=#correct")
            await live.wait_for("text=decided: correct", timeout=15)
            text = await live.evaluate("() => document.querySelector('#decision').textContent")
            assert text == f"decided: correct → {fix}"
    finally:
        await runner.cleanup()
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    snap = json.loads((tmp_path / "b1" / "snapshots" / f"{q.snapshot}.json").read_text())
    box = next(e["box"] for e in snap["elements"] if e["path"] == q.elements[0])
    assert rows == [{"question_id": q.id, "page": q.page, "task": q.task, "element": q.elements[0], "box": box,
                     "answer": fix, "annotator": "tester", "action": "correct"}]
    manifest = await build_benchmark_async(tmp_path / "b2", labels=labels, **kw)
    again = {x.id: x for x in read_questions(tmp_path / "b2", "ui_group")}[q.id]
    assert (again.target, again.target_source) == (fix, "human") and manifest["human_labels"]["applied"] == 1
    assert again.meta["replaced_label"]["target"] == q.target


async def test_review_index_shows_rejected_no_op_pairs(browser, bench, tmp_path):
    root, manifest = bench
    rejected = read_rejected(root)
    assert rejected and sum(manifest["noop_rejected"].values()) == len(rejected)
    runner, base = await _serve(review_app(root, tmp_path / "labels.jsonl", rejected_sample=4))
    try:
        async with browser.open(base + "/") as live:
            shown = await live.evaluate("() => Array.from(document.querySelectorAll('.pair img'))"
                                        ".map((i) => i.getAttribute('src'))")
            heading = await live.evaluate("() => document.querySelector('h2').textContent")
            links = await live.evaluate("() => document.querySelectorAll('#questions a').length")
    finally:
        await runner.cleanup()
    n = min(4, len(rejected))
    assert shown == [f"/{p}" for r in rejected[:n] for p in (r["clean"], r["perturbed"])]
    assert heading == f"No-op pairs rejected at build time (sample of {n} of {len(rejected)})" and links > 3
