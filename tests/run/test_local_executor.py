"""The local executor end to end: real worker processes, real SQLite, resume rules."""

from __future__ import annotations

import hashlib

import pytest

from webgauge.run import ItemsChanged, RunDirBusy, RunSpec, RunStore, SpecMismatch, WorkItem, item_seed, run_items


def _log_lines(path):
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def test_run_resume_retry_and_failures(tmp_path):
    log, flag = tmp_path / "log.txt", tmp_path / "flag"
    spec = RunSpec(suite="t", seeds=[7], prompts={"qa": "Answer."}, options={"log": str(log)})
    items = [WorkItem(id=f"i{k}", kind="qa" if k % 2 else "gen", payload={"x": k}) for k in range(6)]
    items += [
        WorkItem(id="boom", kind="qa", payload={"fail": "on purpose"}),
        WorkItem(id="later", kind="qa", payload={"fail_unless_exists": str(flag), "x": 5}),
        WorkItem(id="crash", kind="qa", payload={"crash": True}),
        WorkItem(id="wrong", kind="qa", payload={"wrong_type": True}),
        WorkItem(id="slow", kind="qa", payload={"sleep": 30}),
    ]
    run_dir = tmp_path / "run"
    s1 = run_items(run_dir, spec, items, "run_handlers:echo", workers=2, progress=False, item_timeout=3)
    assert (s1.total, s1.done, s1.failed, s1.skipped_resumed) == (11, 11, 5, 0)

    store = RunStore(run_dir)
    ok = {r.item_id: r for r in store.records(status="ok")}
    assert sorted(ok) == [f"i{k}" for k in range(6)]
    for k in range(6):
        r = ok[f"i{k}"]
        assert r.record["y"] == 2 * k and r.record["seed"] == item_seed(7, f"i{k}") and r.attempt == 1
        assert r.worker.startswith("local-") and r.started <= r.finished
        assert store.blob(r.blobs["data"]) == f"blob-i{k}".encode()
        assert r.blobs["data"] == hashlib.sha256(f"blob-i{k}".encode()).hexdigest()
    assert {r.record["pid"] for r in ok.values()} and len({r.worker for r in ok.values()}) <= 3
    assert len(store.records(kind="gen")) == 3
    errors = {r.item_id: r.error for r in store.failures()}
    assert errors["boom"]["type"] == "ValueError" and "on purpose" in errors["boom"]["message"]
    assert errors["later"]["type"] == "FileNotFoundError"
    assert errors["crash"]["type"] == "WorkerCrashed" and "exit code 3" in errors["crash"]["message"]
    assert errors["wrong"]["type"] == "TypeError" and "ItemResult" in errors["wrong"]["message"]
    assert errors["slow"]["type"] == "ItemTimeout"
    assert store.spec["spec"]["prompts"]["qa"]["sha256"] == hashlib.sha256(b"Answer.").hexdigest()

    # Resume: nothing is redone (failed items stay failed without retry_failed).
    n_starts = len(_log_lines(log))
    s2 = run_items(run_dir, spec, items, "run_handlers:echo", workers=2, progress=False, item_timeout=3)
    assert (s2.done, s2.failed, s2.skipped_resumed) == (0, 0, 11) and len(_log_lines(log)) == n_starts

    # Retry failed items: the one whose cause is fixed now succeeds on attempt 2.
    flag.write_text("ok")
    s3 = run_items(run_dir, spec, items, "run_handlers:echo", workers=2, progress=False, item_timeout=3,
                   retry_failed=True)
    assert (s3.done, s3.skipped_resumed, s3.failed) == (5, 6, 4)
    later = store.get("later")
    assert later.ok and later.attempt == 2 and later.record["y"] == 10
    assert store.get("boom").attempt == 2 and store.counts() == {"ok": 7, "error": 4}


def test_spec_and_item_changes_are_refused(tmp_path):
    spec = RunSpec(suite="t", prompts={"qa": "A"})
    items = [WorkItem(id="a", kind="qa", payload={"x": 1})]
    run_items(tmp_path, spec, items, "run_handlers:echo", workers=1, progress=False)
    with pytest.raises(SpecMismatch, match=r"--out NEW_DIR.*--force") as info:
        run_items(tmp_path, RunSpec(suite="t", prompts={"qa": "B"}), items, "run_handlers:echo", progress=False)
    assert "spec.prompts.qa" in str(info.value)
    with pytest.raises(ItemsChanged, match="item 'a'.*different"):
        run_items(tmp_path, spec, [WorkItem(id="a", kind="qa", payload={"x": 2})], "run_handlers:echo",
                  progress=False)
    with pytest.raises(ValueError, match="duplicate WorkItem id 'a'"):
        run_items(tmp_path, spec, items + items, "run_handlers:echo", progress=False)
    with pytest.raises(ValueError, match="executor must be"):
        run_items(tmp_path, spec, items, "run_handlers:echo", executor="dask", progress=False)
    # One driver per directory: a second one is refused while the first holds the lock.
    import fcntl

    with open(tmp_path / "run.lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(RunDirBusy, match="another webgauge run .* --out NEW_DIR"):
            run_items(tmp_path, spec, items, "run_handlers:echo", progress=False)
    # --force starts over with the new spec.
    new = RunSpec(suite="t", prompts={"qa": "B"})
    s = run_items(tmp_path, new, [WorkItem(id="a", kind="qa", payload={"x": 2})], "run_handlers:echo",
                  workers=1, progress=False, force=True)
    assert s.done == 1 and RunStore(tmp_path).get("a").record["y"] == 4
    assert RunStore(tmp_path).spec["spec"]["prompts"]["qa"]["text"] == "B"


def test_per_worker_concurrency_overlaps_items(tmp_path, capsys):
    log = tmp_path / "log.txt"
    spec = RunSpec(suite="conc", options={"log": str(log)})
    items = [WorkItem(id=f"c{k}", kind="qa", payload={"sleep": 0.8}) for k in range(4)]
    items.append(WorkItem(id="f", kind="qa", payload={"fail": "x"}))
    s = run_items(tmp_path / "run", spec, items, "run_handlers:echo", workers=1, per_worker_concurrency=4)
    assert s.done == 5 and s.failed == 1
    bar = capsys.readouterr().err  # the tqdm bar: suite, count and ok/failed apart
    assert "conc [local]" in bar and "5/5" in bar and "ok=4, failed=1" in bar
    rows = RunStore(tmp_path / "run").records(status="ok")
    assert len({r.worker for r in rows}) == 1
    # All four ran at the same time in one worker: every start precedes every end.
    assert max(r.started for r in rows) < min(r.finished for r in rows)


def test_hung_item_gets_its_worker_killed(tmp_path, monkeypatch):
    import webgauge.run.local as local

    monkeypatch.setattr(local, "HARD_TIMEOUT_GRACE", 1.0)
    spec = RunSpec(suite="t")
    items = [WorkItem(id="hang", kind="qa", payload={"block": 60}), WorkItem(id="after", kind="qa", payload={"x": 1})]
    s = run_items(tmp_path, spec, items, "run_handlers:echo", workers=1, progress=False, item_timeout=1)
    assert s.done == 2 and s.failed == 1 and s.elapsed < 40
    store = RunStore(tmp_path)
    hang = store.get("hang")
    assert hang.error["type"] == "ItemTimeout" and "was killed" in hang.error["message"]
    after = store.get("after")
    assert after.ok and after.worker != hang.worker  # ran on the replacement worker


def test_a_worker_that_never_starts_fails_its_items(tmp_path, monkeypatch):
    import webgauge.run.local as local

    monkeypatch.setattr(local, "WORKER_START_TIMEOUT", 3.0)  # the worker's import takes 60 s
    s = run_items(tmp_path, RunSpec(suite="t"), [WorkItem(id="a", kind="qa")], "slow_start_handlers:echo",
                  workers=1, progress=False)
    assert (s.done, s.failed) == (1, 1)
    err = RunStore(tmp_path).get("a").error
    assert err["type"] == "WorkerCrashed" and "did not start" in err["message"]


def _runs_in_order(store):
    """Each worker process's items in the order it started them."""
    by_pid: dict[int, list] = {}
    for r in sorted(store.records(), key=lambda r: r.started):
        if r.record:
            by_pid.setdefault(r.record["pid"], []).append(r)
    return by_pid


def test_look_ahead_tells_each_worker_the_item_it_runs_next(tmp_path, spec):
    items = [WorkItem(id=f"i{k}", kind="qa", payload={"sleep": 0.05 * (k % 3)}) for k in range(7)]
    s = run_items(tmp_path / "run", spec, items, "run_handlers:peek", workers=2, progress=False, look_ahead=True)
    assert (s.done, s.failed) == (7, 0)
    store = RunStore(tmp_path / "run")
    by_pid = _runs_in_order(store)
    assert len(by_pid) == 2, by_pid
    for runs in by_pid.values():
        # what a worker was told it runs next is what it ran next; its last item had nothing after it
        assert [r.record["next"] for r in runs] == [r.item_id for r in runs[1:]] + [None]
        assert [r.record["said_before"] for r in runs[1:]] == [r.item_id for r in runs[1:]]
    # without look-ahead nothing is said
    s = run_items(tmp_path / "plain", spec, items, "run_handlers:peek", workers=2, progress=False)
    assert {r.record["next"] for r in RunStore(tmp_path / "plain").records()} == {None}


def test_an_item_kept_for_a_worker_that_crashes_is_run_by_its_replacement(tmp_path, spec):
    log = tmp_path / "log.txt"
    spec = RunSpec(suite="t", seeds=[7], prompts={}, options={"log": str(log)})
    items = [WorkItem(id="a", kind="qa", payload={"crash": True}), WorkItem(id="b", kind="qa", payload={}),
             WorkItem(id="c", kind="qa", payload={})]
    s = run_items(tmp_path / "run", spec, items, "run_handlers:peek", workers=1, progress=False, look_ahead=True)
    assert (s.total, s.done, s.failed) == (3, 3, 1)
    store = RunStore(tmp_path / "run")
    assert store.get("a").error["type"] == "WorkerCrashed"
    # b was kept for the worker that died with a: it went back to the queue, not lost or failed
    assert store.get("b").ok and store.get("c").ok
    starts = [line[0] for line in _log_lines(log) if line[1] == "start"]
    assert sorted(starts) == ["a", "b", "c"], starts
    assert store.get("b").record["worker"] != store.get("a").worker
