"""Handlers reach a (fake, real-protocol) remote model through the worker's model cache."""

from __future__ import annotations

from webgauge.models.fake_server import FakeModelServer, request_text
from webgauge.run import RunSpec, RunStore, WorkItem, run_items


def test_workers_call_an_openai_compatible_endpoint(tmp_path):
    with FakeModelServer(lambda req: "answer to " + request_text(req).split()[-1]) as srv:
        spec = RunSpec(suite="t", models=["openai:fake"], options={"base_url": srv.openai_base_url})
        items = [WorkItem(id=f"q{k}", kind="qa", payload={"question": f"what is item{k}"}) for k in range(6)]
        s = run_items(tmp_path, spec, items, "run_handlers:ask", workers=2, per_worker_concurrency=2,
                      progress=False)
        served = srv.request_count
    store = RunStore(tmp_path)
    assert (s.done, s.failed) == (6, 0), [r.error for r in store.failures()]
    assert served == 6
    rows = store.records()
    assert {r.item_id: r.record["answer"] for r in rows} == {f"q{k}": f"answer to item{k}" for k in range(6)}
    # One model instance per worker process, reused for all its items.
    per_pid: dict[int, set] = {}
    for r in rows:
        per_pid.setdefault(r.record["pid"], set()).add(r.record["model_id"])
    assert all(len(ids) == 1 for ids in per_pid.values())
