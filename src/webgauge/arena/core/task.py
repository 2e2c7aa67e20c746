"""The arena task contract: a plain value, judged on stored state.

A :class:`Task` carries what the agent is told (instruction, start URL, viewport, step
budget) and what only the harness sees (validator, forbidden effects, scripted oracle
solution). :meth:`Task.public` is the only view an agent ever receives.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .answers import AnswerType
from .effects import Effect, describe_sealed

__all__ = ["Task", "TaskResult", "Viewport", "PATTERNS"]

PATTERNS = (
    "small_targets", "responsive", "scroll_sticky", "menus_dialogs", "canvas", "similar_options",
    "states", "drag_spatial", "popups_tabs", "pixels_vs_dom", "resize", "transient", "image_match", "map",
)
"""The visual difficulty strata a task family belongs to (its UI pattern)."""

State = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Viewport:
    width: int = 1280
    height: int = 800
    device_scale_factor: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "device_scale_factor": self.device_scale_factor}


@dataclass
class TaskResult:
    """Exact success (no partial credit) and the reasons for failure."""

    success: bool
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"success": self.success, "errors": list(self.errors)}


@dataclass(frozen=True)
class Task:
    id: str
    instruction: str
    seed: int
    start_url: str  # path inside the episode, e.g. "/shop/"
    viewport: Viewport
    validate: Callable[[State], TaskResult] = field(repr=False)
    forbidden_effects: tuple[Effect, ...] = ()
    max_steps: int = 15
    family: str = ""
    variant: str = "base"
    pattern: str = ""
    visual: bool = False  # success depends on pixels or spatial relations absent from DOM and aria
    params: dict[str, Any] = field(default_factory=dict)  # variant parameters (viewport cohort, perturbation, ...)
    oracle: Callable[[], list[Any]] | None = field(default=None, repr=False)  # scripted solution (harness only)
    answer: str | None = None  # expected done(answer) when the task asks for one
    answer_type: AnswerType | None = field(default=None, repr=False)  # what the answer must commit to (answers.py)
    transient_tables: tuple[str, ...] = ()  # working tables (a cart) whose churn on the way is not "unnecessary"
    files: tuple[tuple[str, bytes], ...] = ()  # (name, content) the agent may upload; the env writes them under the run
    # step budgets of observation modes that need more steps than ``max_steps`` (screenshot mode acts by
    # pointer and keyboard only: a fill is a click and typing, a select a click on the control and one on
    # its option); set from the pointer-only oracle with a margin (see core/budgets.py)
    max_steps_by_mode: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"task {self.id}: pattern {self.pattern!r} is not one of {', '.join(PATTERNS)}")
        if self.answer is not None and self.answer_type is None:
            raise ValueError(f"task {self.id}: an answer-judged task declares its answer_type (core.answers)")
        if not self.start_url.startswith("/"):
            raise ValueError(f"task {self.id}: start_url {self.start_url!r} must be a path starting with '/'")

    def budget(self, mode: str | None = None) -> int:
        """The step budget of an agent in observation ``mode``: ``max_steps``, except where
        ``max_steps_by_mode`` names the mode, and in ``screenshot`` mode (pointer and keyboard only) the
        extra actions the scripted solution takes there (:attr:`pointer_extra_steps`) on top."""
        own = dict(self.max_steps_by_mode)
        if mode in own:
            return own[mode]
        return self.max_steps + (self.pointer_extra_steps if mode == "screenshot" else 0)

    @cached_property
    def pointer_extra_steps(self) -> int:
        """How many more actions the scripted solution needs in screenshot mode than with element ids
        (the pointer-only oracle's translation of each step, ``Step.pointer_actions``), plus one scroll
        per five steps on an element to bring targets into view: the same slack over the solution as
        ``max_steps`` gives element-id modes. 0 for a task without a scripted solution."""
        if self.oracle is None:
            return 0
        steps = list(self.oracle())
        extra = sum(getattr(s, "pointer_actions", 1) - 1 for s in steps)
        return extra + sum(bool(getattr(s, "on_element", False)) for s in steps) // 5

    def public(self, mode: str | None = None) -> dict[str, Any]:
        """What the agent may see: no validator, no effects, no oracle, no expected answer. With the
        agent's observation ``mode``, ``max_steps`` is that mode's budget (and the mode is named)."""
        pub = {"id": self.id, "instruction": self.instruction, "start_url": self.start_url,
               "viewport": self.viewport.to_dict(), "max_steps": self.budget(mode)}
        if mode:
            pub["obs_mode"] = mode
        if self.files:  # only tasks that offer files say so (the upload action names one of them)
            pub["files"] = [name for name, _ in self.files]
        return pub

    def describe(self) -> dict[str, Any]:
        """Everything a report or an audit needs, with the validator pinned by a source hash."""
        src = inspect.getsource(self.validate) if hasattr(self.validate, "__code__") else repr(self.validate)
        return {**self.public(), "seed": self.seed, "family": self.family, "variant": self.variant,
                "pattern": self.pattern, "visual": self.visual, "params": self.params,
                "max_steps_by_mode": {m: self.budget(m) for m in ("dom", "screenshot", "screenshot+tree")},
                "forbidden_effects": [e.describe() for e in self.forbidden_effects],
                "forbidden_effects_public": [describe_sealed(e) for e in self.forbidden_effects],
                "validator_sha256": hashlib.sha256(src.encode()).hexdigest(),
                "fingerprint": self.fingerprint}

    @property
    def fingerprint(self) -> str:
        blob = json.dumps({**self.public(), "seed": self.seed, "variant": self.variant, "params": self.params,
                           "effects": [repr(e) for e in self.forbidden_effects]}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]
