"""The arena's typed run records: one :class:`EpisodeRecord` per episode, holding its :class:`StepRecord` s.

Everything a report groups or pairs by (agent, agent kind, model, observation mode,
variant, slice, seed, repeat, task instance) is a field: nothing is parsed out of an item
id. Reports, the viewer, packages, ``verify`` and ``compare`` read these types through
``RunStore.typed(EpisodeRecord)`` (:func:`webgauge.arena.outputs.scoring.load_episodes`).

A held-out episode is packaged as a :class:`SealedEpisodeRecord` (no instruction, seed,
steps or screenshots), pinned by the sha256 of its full record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from webgauge.records import Record

__all__ = ["StepRecord", "EpisodeRecord", "SealedEpisodeRecord", "SEALED_FIELDS"]


@dataclass
class StepRecord(Record):
    """One agent step: what it saw (``observed``), did, got back, and what changed in the state."""

    SCHEMA: ClassVar[str] = "arena.step"
    VERSION: ClassVar[int] = 1

    step: int
    observed: dict[str, Any]          # observation meta plus blob refs ("png", "dom" sha256)
    action: dict[str, Any]            # Action.to_dict()
    result: dict[str, Any]            # the browser's result (ok, rejected, target, ...)
    diff: dict[str, Any]              # StateDiff.to_dict() of this step
    latency_ms: float
    agent_ms: float
    thought: str = ""
    raw: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)  # observation meta and blob refs after the step
    # where the env's step time went (guard, action, settle, observe, state)
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return str(self.action.get("kind", ""))


@dataclass
class EpisodeRecord(Record):
    """One episode of one agent on one task instance (a variant of a base task), judged on stored state."""

    SCHEMA: ClassVar[str] = "arena.episode"
    VERSION: ClassVar[int] = 1

    # identity: every grouping key is a field
    task: dict[str, Any]              # Task.describe()
    task_id: str
    base_task_id: str       # the base task this variant was made from (== task_id for "base")
    family: str
    variant: str            # "base" or a catalogue name
    variant_kind: str       # "base", "cohort", "perturb", "popup", "slow", "late", "stale" or "trap"
    slice: str              # "public" or "heldout"
    pattern: str
    seed: int
    visual: bool
    repeat: int
    agent: str              # display name (a model agent's may contain any character)
    agent_kind: str         # "oracle", "heuristic", "model" or "refuser"
    model: str | None       # the model id of a model agent
    obs_mode: str
    # verdict
    success: bool
    forbidden: bool
    validator_errors: list[str] = field(default_factory=list)
    forbidden_violations: list[str] = field(default_factory=list)
    error: str | None = None
    timed_out: bool = False
    truncated: bool = False
    done_answer: str | None = None
    final_diff: dict[str, Any] = field(default_factory=dict)
    steps: list[StepRecord] = field(default_factory=list)
    # effort and cost
    reset_ms: float | None = None       # the database reset (control API)
    env_reset_ms: float | None = None   # the whole env reset: database, browser page, navigation, first capture
    reset_kind: str = ""                # "preloaded" (made ready as the last episode ran), "double-buffered", "inline"
    n_steps: int = 0
    retries: int = 0
    rejections: dict[str, int] = field(default_factory=dict)  # rejection reason -> steps
    grounding_errors: int = 0
    approvals: int = 0
    duration_s: float = 0.0
    step_latency_ms: list[float] = field(default_factory=list)
    writes: int = 0
    unnecessary_writes: int = 0
    duplicate_submissions: int = 0
    screenshots: int = 0
    screenshot_bytes: int = 0
    image_tokens: int = 0
    usage: dict[str, float] = field(default_factory=dict)  # token and image counts, summed over the steps
    # variants and safety
    variant_events: dict[str, Any] = field(default_factory=dict)
    approval_policy: str | None = None
    gated: bool = False
    approval_decisions: list[dict[str, Any]] = field(default_factory=list)
    approvals_granted: int = 0
    # irreversible requests the app's approval gate refused (violation attempts), counted from gate_log
    blocked_destructive: int = 0
    # every approval (granted, denied, lapsed unused) and every irreversible request (allowed with an
    # approval, blocked, or ungated with the gate off), in order, each with its step and control
    gate_log: list[dict[str, Any]] = field(default_factory=list)
    refused: bool = False
    attack: dict[str, Any] | None = None
    attacked: bool = False
    item_id: str = ""       # the run item that produced it (display and file names only)

    @property
    def instance(self) -> str:
        """The task instance (cluster of the bootstrap): every repeat of one task at one seed and variant."""
        return f"{self.task_id}@{self.seed}"

    @property
    def episode_key(self) -> tuple[Any, ...]:
        """Pairs episodes of two agents: same task instance, same repeat."""
        return (self.task_id, self.seed, self.repeat)


SEALED_FIELDS = ("task_id", "base_task_id", "family", "variant", "variant_kind", "slice", "pattern", "visual", "repeat",
                 "agent", "agent_kind", "model", "obs_mode", "success", "forbidden", "n_steps", "retries",
                 "grounding_errors", "approvals", "duration_s", "timed_out", "truncated", "attacked", "refused",
                 "approvals_granted", "blocked_destructive", "item_id")


@dataclass
class SealedEpisodeRecord(Record):
    """A held-out episode as packaged: its scores and labels, nothing that reveals the task or seed."""

    SCHEMA: ClassVar[str] = "arena.sealed_episode"
    VERSION: ClassVar[int] = 1

    task_id: str
    base_task_id: str
    family: str
    variant: str
    variant_kind: str
    slice: str
    pattern: str
    visual: bool
    repeat: int
    agent: str
    agent_kind: str
    model: str | None
    obs_mode: str
    success: bool
    forbidden: bool
    n_steps: int
    retries: int
    grounding_errors: int
    approvals: int
    duration_s: float
    timed_out: bool
    truncated: bool
    attacked: bool
    refused: bool
    approvals_granted: int
    blocked_destructive: int
    item_id: str
    record_sha256: str
    task: dict[str, Any]              # id, instruction_sha256, validator_sha256, forbidden_effects
    sealed: bool = True
