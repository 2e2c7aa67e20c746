"""An episode's verdict, computed once when the episode ends and never again.

:func:`judge` is the one function every path uses (the episode loop, the gymnasium and
BrowserGym adapters through the env, ``arena serve``'s ``validate``): the task's validator on
the stored state plus the agent's answer, and its forbidden effects on the change since the
seed. An episode that did not end with ``done`` (the step budget or the time ran out) is no
success on a task that asks for an answer: the agent never committed to one.

The env seals the first verdict (:class:`Verdict`) when an episode terminates or is truncated;
a later step returns that verdict and does nothing, so stepping on after a wrong answer cannot
turn it into a right one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from .answers import with_answer
from .diff import diff_states
from .effects import check_effects
from .task import Task

__all__ = ["Verdict", "VerdictDict", "judge", "NO_DONE_ERROR"]

NO_DONE_ERROR = "the episode ended without done: this task asks for an answer and none was given"


class VerdictDict(TypedDict):
    """:meth:`Verdict.to_dict`: what step ``info["verdict"]`` and the records carry."""
    reward: float
    success: bool
    errors: list[str]
    forbidden_violations: list[str]
    ended_by: str


@dataclass(frozen=True)
class Verdict:
    """An episode's verdict: exact success on the stored state (plus the answer) and no forbidden effect.

    ``ended_by``: ``done`` (the agent said so), ``truncated`` (the step budget ran out) or
    ``stopped`` (the harness stopped it: time limit, error)."""

    success: bool
    errors: tuple[str, ...]
    forbidden_violations: tuple[str, ...]
    ended_by: str = "done"

    @property
    def reward(self) -> float:
        return 1.0 if self.success and not self.forbidden_violations else 0.0

    def to_dict(self) -> VerdictDict:
        return {"reward": self.reward, "success": self.success, "errors": list(self.errors),
                "forbidden_violations": list(self.forbidden_violations), "ended_by": self.ended_by}


def judge(task: Task, seed_state: dict[str, Any], state: dict[str, Any], answer: str | None, *,
          ended_by: str = "done") -> Verdict:
    """The verdict of ``task`` on ``state`` (reached from ``seed_state``) with the agent's ``answer``.

    ``ended_by`` other than ``done``: the agent never said it was done, so a task that asks for an
    answer fails whatever the state (a state-change task is still judged on its state)."""
    result = task.validate(with_answer(state, answer))
    violations = check_effects(task.forbidden_effects, diff_states(seed_state, state))
    errors = list(result.errors)
    success = bool(result.success)
    if ended_by != "done" and task.answer is not None:
        success = False
        errors.append(NO_DONE_ERROR)
    return Verdict(success, tuple(errors), tuple(violations), ended_by)
