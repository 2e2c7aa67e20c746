"""The Ray executor on a local two-CPU Ray: actors run items, the driver stores them."""

from __future__ import annotations

import sys

import pytest

from webgauge.run import RunSpec, RunStore, WorkItem, item_seed, run_items
from webgauge.run.ray_executor import import_ray


def test_missing_ray_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # what an environment without Ray looks like to import
    with pytest.raises(ImportError, match=r"pip install webgauge\[ray\]"):
        import_ray()
    with pytest.raises(ImportError, match=r"pip install webgauge\[ray\]"):
        run_items(tmp_path, RunSpec(suite="t"), [WorkItem(id="a", kind="qa")], "run_handlers:echo",
                  executor="ray", progress=False)


@pytest.mark.slow
def test_ray_actors_run_items_and_resume(tmp_path):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        spec = RunSpec(suite="t", seeds=[3])
        items = [WorkItem(id=f"r{k}", kind="qa", payload={"x": k, "sleep": 0.2}) for k in range(6)]
        items.append(WorkItem(id="bad", kind="qa", payload={"fail": "in an actor"}))
        s = run_items(tmp_path, spec, items, "run_handlers:echo", executor="ray", workers=2,
                      per_worker_concurrency=2, progress=False)
        assert (s.done, s.failed) == (7, 1)
        store = RunStore(tmp_path)
        ok = store.records(status="ok")
        assert {r.record["y"] for r in ok} == {2 * k for k in range(6)}
        assert all(r.record["seed"] == item_seed(3, r.item_id) for r in ok)
        assert {r.worker for r in ok} <= {"ray-0", "ray-1"}
        assert store.blob(ok[0].blobs["data"]).startswith(b"blob-r")
        [bad] = store.failures()
        assert bad.error["type"] == "ValueError" and "in an actor" in bad.error["message"]
        again = run_items(tmp_path, spec, items, "run_handlers:echo", executor="ray", workers=2, progress=False)
        assert again.skipped_resumed == 7 and again.done == 0
        assert ray.is_initialized()  # a Ray the caller started is left running for the caller
    finally:
        ray.shutdown()
