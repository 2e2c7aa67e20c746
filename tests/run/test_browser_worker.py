"""Each worker launches one real Chromium lazily and reuses it for all its items."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from webgauge.pages import StaticServer
from webgauge.run import RunSpec, RunStore, WorkItem, run_items

pytestmark = pytest.mark.browser


def test_one_browser_per_worker_captures_loopback_pages(tmp_path):
    pages = {f"/p{k}.html": f"<html><head><title>Page {k}</title></head><body><h1>Item {k}</h1>"
                            f"<button>Go {k}</button></body></html>" for k in range(4)}
    with StaticServer(files=pages) as srv:
        items = [WorkItem(id=f"p{k}", kind="capture", payload={"url": srv.url(f"p{k}.html")}) for k in range(4)]
        s = run_items(tmp_path, RunSpec(suite="t"), items, "run_handlers:capture", workers=2, progress=False,
                      item_timeout=60)
    store = RunStore(tmp_path)
    assert (s.done, s.failed) == (4, 0), [r.error for r in store.failures()]
    rows = store.records()
    by_worker: dict[str, set] = {}
    for r in rows:
        assert r.record["title"] == f"Page {r.item_id[1:]}" and r.record["same_browser"]
        by_worker.setdefault(r.worker, set()).add((r.record["pid"], r.record["browser_id"]))
        png = store.blob(r.blobs["screenshot"])
        assert r.blobs["screenshot"] == r.record["png_sha256"]
        assert Image.open(io.BytesIO(png)).size == (640, 400)
    # One (process, browser) pair per worker, and the browser was reused across its items.
    assert all(len(v) == 1 for v in by_worker.values())
    assert len(by_worker) <= 2 and sum(1 for r in rows) == 4


def test_a_disconnected_browser_is_replaced_for_later_items(tmp_path):
    pages = {f"/p{k}.html": f"<title>P{k}</title><p>{k}</p>" for k in range(3)}
    with StaticServer(files=pages) as srv:
        items = [WorkItem(id="p0", kind="capture", payload={"url": srv.url("p0.html"), "close_browser": True}),
                 WorkItem(id="p1", kind="capture", payload={"url": srv.url("p1.html")}),
                 WorkItem(id="p2", kind="capture", payload={"url": srv.url("p2.html")})]
        s = run_items(tmp_path, RunSpec(suite="t"), items, "run_handlers:capture", workers=1, progress=False)
    store = RunStore(tmp_path)
    assert (s.done, s.failed) == (3, 0), [r.error for r in store.failures()]
    assert [store.get(f"p{k}").record["relaunches"] for k in range(3)] == [0, 1, 1]
    assert store.get("p1").record["browser_id"] == store.get("p2").record["browser_id"]
