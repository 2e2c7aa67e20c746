"""Run store, spec and item checks that need no worker processes."""

from __future__ import annotations

import hashlib
import json

import click
import pytest
from click.testing import CliRunner

from webgauge.run import (
    RunSpec,
    RunStore,
    WorkerContext,
    WorkItem,
    executor_kwargs,
    executor_options,
    item_seed,
    payload_sha256,
    resolve_handler,
)
from webgauge.run.execute import execute_item
from webgauge.run.spec import font_fingerprint, spec_differences
from webgauge.run.store import StoreWriter


def test_work_item_validation():
    with pytest.raises(ValueError, match="non-empty"):
        WorkItem(id="", kind="qa")
    with pytest.raises(TypeError, match="JSON-serializable"):
        WorkItem(id="a", kind="qa", payload={"png": b"\x89PNG"})
    it = WorkItem(id="a", kind="qa", payload={"q": 1})
    assert WorkItem.from_dict(it.to_dict()) == it
    assert payload_sha256(it) == payload_sha256(WorkItem(id="b", kind="qa", payload={"q": 1}))
    assert payload_sha256(it) != payload_sha256(WorkItem(id="a", kind="qa", payload={"q": 2}))


def test_spec_document_records_environment_and_prompt_hashes():
    spec = RunSpec(suite="understand", models=["random", {"name": "openai:x", "temperature": 0}],
                   seeds=[3, 4], prompts={"qa": "Answer."}, options={"tasks": ["spatial"]})
    doc = spec.resolve()
    assert doc["spec"]["prompts"]["qa"] == {"text": "Answer.", "sha256": hashlib.sha256(b"Answer.").hexdigest()}
    env = doc["environment"]
    assert env["webgauge"] == "0.1.0"
    assert env["python"].count(".") == 2
    assert env["chromium"]  # a version, or the recorded error text
    fonts = font_fingerprint()
    assert fonts["count"] > 0 and len(fonts["sha256"]) == 64 and env["fonts"]["sha256"] == fonts["sha256"]
    assert RunSpec.from_dict(doc["spec"]) == spec
    assert spec_differences(doc, spec.resolve()) == []
    other = RunSpec(suite="understand", models=["random"], seeds=[3, 4], prompts={"qa": "Answer!"})
    diffs = spec_differences(doc, other.resolve())
    assert "spec.prompts.qa.sha256" in diffs and "spec.options.tasks" in diffs and "spec.models" in diffs
    with pytest.raises(TypeError, match="seeds"):
        RunSpec(suite="x", seeds=["0"])


def test_store_writer_and_reader_roundtrip(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a webgauge run directory"):
        RunStore(tmp_path)
    with StoreWriter(tmp_path) as w:
        common = dict(attempt=1, started=1.0, worker="local-0", payload_sha="p")
        w.write(item_id="a", kind="qa", status="ok", record={"score": 1}, blobs={"png": b"abc", "dup": b"abc"},
                error=None, finished=2.0, **common)
        w.write(item_id="b", kind="gen", status="error", record=None, blobs={},
                error={"type": "ValueError", "message": "m", "traceback": "tb"}, finished=3.0, **common)
        assert w.existing() == {"a": ("ok", "p", 1), "b": ("error", "p", 1)}
    (tmp_path / "spec.json").write_text(json.dumps({"spec": {"suite": "t"}}))
    store = RunStore(tmp_path)
    sha = hashlib.sha256(b"abc").hexdigest()
    [a] = store.records(kind="qa")
    assert a.ok and a.record == {"score": 1} and a.blobs == {"dup": sha, "png": sha} and a.duration == 1.0
    assert store.blob(sha) == b"abc"
    assert (tmp_path / "blobs" / sha[:2] / sha).is_file()
    assert not list((tmp_path / "blobs").rglob("*.tmp"))
    [b] = store.failures()
    assert b.item_id == "b" and b.error["type"] == "ValueError" and b.record is None
    assert store.counts() == {"ok": 1, "error": 1} and len(store) == 2 and store.get("zzz") is None
    assert store.spec["spec"]["suite"] == "t"
    with pytest.raises(ValueError, match="status"):
        store.records(status="done")
    store.blob_path(sha).write_bytes(b"abd")
    with pytest.raises(ValueError, match="corrupt"):
        store.blob(sha)


def test_resolve_handler_errors():
    with pytest.raises(ValueError, match="import path like"):
        resolve_handler("run_handlers.echo")
    with pytest.raises(ValueError, match="cannot import module"):
        resolve_handler("no_such_module_xyz:echo")
    with pytest.raises(ValueError, match="no attribute"):
        resolve_handler("run_handlers:nope")
    with pytest.raises(TypeError, match="async def"):
        resolve_handler("run_handlers:not_async")
    assert resolve_handler("run_handlers:echo").__name__ == "echo"


async def test_execute_item_in_process_records_results_and_failures(tmp_path):
    handler = resolve_handler("run_handlers:echo")
    async with WorkerContext(tmp_path, {"k": 1}, seed=7, worker="w") as ctx:
        ok = await execute_item(handler, {"id": "a", "kind": "qa", "payload": {"x": 21}}, ctx)
        assert ok["status"] == "ok" and ok["record"]["y"] == 42 and ok["blobs"] == {"data": b"blob-a"}
        assert ok["record"]["seed"] == item_seed(7, "a") != item_seed(7, "b")
        explicit = await execute_item(handler, {"id": "s", "kind": "qa", "payload": {"seed": 5}}, ctx)
        assert explicit["record"]["seed"] == 5
        bad = await execute_item(handler, {"id": "b", "kind": "qa", "payload": {"fail": "boom"}}, ctx)
        assert bad["status"] == "error" and bad["error"]["type"] == "ValueError"
        assert "asked to fail: boom" in bad["error"]["message"] and "run_handlers.py" in bad["error"]["traceback"]
        wrong = await execute_item(handler, {"id": "c", "kind": "qa", "payload": {"wrong_type": True}}, ctx)
        assert wrong["error"]["type"] == "TypeError" and "ItemResult" in wrong["error"]["message"]
        slow = await execute_item(handler, {"id": "d", "kind": "qa", "payload": {"sleep": 5}}, ctx, timeout=0.2)
        assert slow["error"]["type"] == "ItemTimeout" and slow["finished"] - slow["started"] < 2
        assert not ctx.has_browser


def test_executor_options_decorator():
    seen = {}

    @click.command()
    @executor_options
    def cmd(**kwargs):
        seen.update(executor_kwargs(kwargs))

    res = CliRunner().invoke(cmd, ["--executor", "ray", "--ray-address", "auto", "--workers", "3", "--retry-failed"])
    assert res.exit_code == 0, res.output
    assert seen == {"executor": "ray", "ray_address": "auto", "workers": 3, "retry_failed": True}
    res = CliRunner().invoke(cmd, ["--executor", "dask"])
    assert res.exit_code == 2 and "dask" in res.output
    help_text = CliRunner().invoke(cmd, ["--help"]).output
    for opt in ("--executor", "--ray-address", "--workers", "--retry-failed"):
        assert opt in help_text
