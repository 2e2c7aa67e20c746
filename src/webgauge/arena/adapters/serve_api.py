"""The payloads of the arena service's ``/v1`` API (``webgauge arena serve``), as typed dicts: what
:mod:`~webgauge.arena.adapters.serve` returns and :mod:`~webgauge.arena.adapters.serve_client` reads.
Described for users in ``docs/arena-serve.md``. No imports beyond typing: clients in other venvs load it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

__all__ = ["State", "Params", "FamilyRow", "LeaseReply", "ResetReply", "VerdictReply", "EffectsReply", "StateReply",
           "TraceEvent", "TraceReply", "FileReply", "VersionReply"]

State = dict[str, list[dict[str, Any]]]  # table -> rows, as the control API serves a world's stored state
Params = Mapping[str, Any]  # a request's JSON body or query (checked by each route)


class FamilyRow(TypedDict):
    """``GET /v1/families``: what a client needs of a family before a reset (``app``: the real app it
    runs on, None for the arena's own apps)."""
    family: str
    app: str | None
    pattern: str
    visual: bool
    viewport: dict[str, Any]
    max_steps: int
    files: bool


class LeaseReply(TypedDict):
    """``POST /v1/slots``: the reserved slot and the lease every slot call sends back."""
    slot: int
    lease: str


class ResetReply(TypedDict):
    """``POST /v1/slots/<i>/reset``: the episode's task as the agent may see it (no seed when held out)."""
    task_id: str
    family: str
    goal: str
    start_url: str
    base_url: str
    viewport: dict[str, Any]
    max_steps: int
    files: list[str]
    slice: str
    seed: int | None
    hash: str
    seed_hash: str
    ms: float


class VerdictReply(TypedDict):
    """``POST /v1/slots/<i>/validate``; sealed (held out): counts instead of messages; final: the
    episode is over and this verdict is the one every later validate of the lease returns."""
    reward: float
    success: bool
    errors: list[str] | int
    forbidden_violations: list[str] | int
    sealed: bool
    final: bool


class EffectsReply(TypedDict, total=False):
    """``GET /v1/slots/<i>/effects``; ``rules`` only when not sealed."""
    forbidden_violations: list[str] | int
    rules: list[str]
    sealed: bool


class StateReply(TypedDict):
    state: State
    hash: str


class TraceEvent(TypedDict, total=False):
    """One entry of a slot's trace: a reset, or a state read that saw a change (or carried an answer)."""
    t: float
    event: str
    task_id: str
    diff: dict[str, Any]
    answer: str | None


class TraceReply(TypedDict):
    trace: list[TraceEvent]
    writes: list[dict[str, Any]]


class FileReply(TypedDict):
    name: str
    base64: str


class VersionReply(TypedDict):
    """``GET /v1/version``."""
    api: str
    version: int
    webgauge: str
    app_url: str
    slots: int
    families: int
    heldout: bool
