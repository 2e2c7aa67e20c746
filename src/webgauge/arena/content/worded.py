"""A task built in its seed's phrasing: the one place that decides which wording a seed gets.

Public seeds get the families' templates as they stand (:func:`~webgauge.arena.content.pools.phrase`
picks one of at least three per family). A held-out seed's world rewrites every chosen template
with its own key and frames the instruction with an opening and a closing that no public
instruction has (:mod:`webgauge.arena.content.phrasing`). The arena's own families
(:func:`webgauge.arena.tasks.worded`) and the real apps' families go through :func:`worded_build`
alike.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from .phrasing import frame, phrasing_for
from .pools import content_key, slice_of_seed

__all__ = ["worded_build", "worded_family"]

T = TypeVar("T")
W = TypeVar("W")


def worded_build(seed: int, build: Callable[[], T]) -> T:
    """``build()`` (a task: a dataclass with ``family`` and ``instruction``) in ``seed``'s phrasing."""
    with phrasing_for(content_key(seed) if slice_of_seed(seed) == "heldout" else None):
        task: Any = build()
        text = frame(task.family, task.instruction)
    return task if text == task.instruction else dataclasses.replace(task, instruction=text)


def worded_family(make: Callable[[W, int], T]) -> Callable[[W, int], T]:
    """A real app's family ``make(world, seed)`` building its tasks in their seed's phrasing."""

    @functools.wraps(make)
    def build(world: W, seed: int) -> T:
        return worded_build(seed, lambda: make(world, seed))

    return build
