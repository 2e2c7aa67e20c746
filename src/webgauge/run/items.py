"""Work items and item results: the unit a run executes and what a handler returns.

A :class:`WorkItem` is plain JSON (id, kind, payload) so it can cross process and
machine boundaries (local worker processes, Ray actors) and be hashed for resume checks.
A handler turns one item into an :class:`ItemResult` — a JSON record plus optional
binary blobs (screenshots, generated HTML) that the run store saves once by sha256.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

__all__ = ["WorkItem", "ItemResult", "payload_sha256", "canonical_json", "WorkItemDict", "Outcome", "Event"]


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class WorkItemDict(TypedDict):
    """A work item as it crosses to a worker (:meth:`WorkItem.to_dict`)."""
    id: str
    kind: str
    payload: dict[str, Any]


class Outcome(TypedDict):
    """What a worker reports for one item: its record and blobs, or the error, with timings."""
    item_id: str
    kind: str
    status: str  # "ok" or "error"
    record: dict[str, Any] | None
    blobs: dict[str, bytes]
    error: dict[str, Any] | None
    started: float
    finished: float
    worker: str


# an executor's report: ("done", the item's outcome) or ("requeue", an item to send again)
Event = tuple[str, "Outcome | WorkItemDict"]


@dataclass(frozen=True)
class WorkItem:
    """One unit of work: a question, a generation, an episode.

    ``id`` is unique within a run and is the resume key; ``kind`` groups items for
    reports (``store.records(kind=...)``); ``payload`` is JSON-serializable input for the
    handler.
    """

    id: str
    kind: str
    payload: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"WorkItem.id must be a non-empty string, got {self.id!r}")
        if not isinstance(self.kind, str) or not self.kind:
            raise ValueError(f"WorkItem.kind must be a non-empty string (item {self.id!r}), got {self.kind!r}")
        if not isinstance(self.payload, dict):
            raise TypeError(f"WorkItem.payload must be a dict (item {self.id!r}), got {type(self.payload).__name__}")
        try:
            canonical_json(self.payload)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"WorkItem {self.id!r}: payload is not JSON-serializable ({exc}); "
                "pass plain dicts/lists/str/numbers and store bytes as blobs"
            ) from None

    def to_dict(self) -> WorkItemDict:
        """Plain dict form (what crosses process boundaries)."""
        return {"id": self.id, "kind": self.kind, "payload": self.payload}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkItem:
        """Inverse of :meth:`to_dict`."""
        return cls(id=data["id"], kind=data["kind"], payload=data.get("payload") or {})


def payload_sha256(item: WorkItem) -> str:
    """Hash of an item's kind and payload; resume refuses to reuse a result whose input changed."""
    return hashlib.sha256(canonical_json({"kind": item.kind, "payload": item.payload}).encode()).hexdigest()


@dataclass
class ItemResult:
    """What a handler returns for one item.

    ``record`` is JSON (scores, answers, parsed outputs); ``blobs`` maps a name (e.g.
    ``"screenshot"``) to bytes. The store writes each blob once under its sha256 and keeps
    the ``name -> sha256`` references next to the record.
    """

    record: dict
    blobs: dict[str, bytes] = field(default_factory=dict)
