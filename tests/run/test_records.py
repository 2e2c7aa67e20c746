"""Typed records: JSON round-trip, nested records, and clear errors for other schema versions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from webgauge.run import Record, RecordSchemaError, RunStore, record_type
from webgauge.run.store import StoreWriter


@dataclass
class Step(Record):
    SCHEMA: ClassVar[str] = "test.step"
    VERSION: ClassVar[int] = 1
    index: int
    action: dict


@dataclass
class Episode(Record):
    SCHEMA: ClassVar[str] = "test.episode"
    VERSION: ClassVar[int] = 2
    agent: str
    seed: int
    steps: list[Step] = field(default_factory=list)
    first: Step | None = None


def test_round_trip_with_nested_records():
    ep = Episode("model:openai:x|y", 3, [Step(0, {"kind": "click"}), Step(1, {})], Step(0, {"kind": "click"}))
    data = json.loads(json.dumps(ep.to_json()))
    assert data["schema"] == "test.episode/2" and data["steps"][0]["schema"] == "test.step/1"
    back = Episode.from_json(data)
    assert back == ep and isinstance(back.steps[1], Step) and isinstance(back.first, Step)
    assert record_type("test.episode/2") is Episode


def test_other_versions_and_untyped_rows_fail_clearly():
    with pytest.raises(RecordSchemaError, match=r"test.episode/1.*reads test.episode/2"):
        Episode.from_json({"schema": "test.episode/1", "agent": "a", "seed": 0})
    with pytest.raises(RecordSchemaError, match="before typed records"):
        Episode.from_json({"agent": "a", "seed": 0})
    with pytest.raises(RecordSchemaError, match="required field 'seed'"):
        Episode.from_json({"schema": "test.episode/2", "agent": "a"})
    with pytest.raises(RecordSchemaError, match="does not know"):
        Episode.from_json({"schema": "test.episode/2", "agent": "a", "seed": 0, "extra": 1})


def test_run_store_reads_typed_records(tmp_path):
    with StoreWriter(tmp_path) as w:
        for i, rec in enumerate([Episode("a", 0).to_json(), Step(0, {}).to_json()]):
            w.write(item_id=f"i{i}", kind="ep", status="ok", record=rec, blobs={}, error=None, attempt=1,
                    started=0.0, finished=float(i), worker=None, payload_sha="x")
        w.write(item_id="old", kind="old", status="ok", record={"agent": "a", "seed": 1}, blobs={}, error=None,
                attempt=1, started=0.0, finished=9.0, worker=None, payload_sha="x")
    store = RunStore(tmp_path)
    assert store.typed(Episode) == [Episode("a", 0)]
    assert store.typed(Step) == [Step(0, {})]
    with pytest.raises(RecordSchemaError, match="before typed records"):
        store.typed(Episode, kind="old")
