"""The understand suite's typed run records (see :mod:`webgauge.records`).

- :class:`AnswerRecord`: what the runner stores for one (model, question): the raw answer,
  the parsed answer and whether it parsed, with the model, task, variant, page and seed as
  fields (never parsed out of the item id).
- :class:`ScoreRecord`: one scored answer, written by the report into ``report/scores.jsonl``:
  the answer plus the target it was scored against, where that target came from
  (``target_source``; ``no consensus (...)`` when an item had none and is excluded), the
  score (``None`` when excluded) and task-specific extras (safety recall/precision, the
  label-based text score).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..records import Record

__all__ = ["AnswerRecord", "ScoreRecord"]


@dataclass
class AnswerRecord(Record):
    """One model's answer to one question."""

    SCHEMA: ClassVar[str] = "understand.answer"
    VERSION: ClassVar[int] = 1
    model: str
    question: str
    task: str
    page: str
    variant: str
    pair: str | None
    difficulty: str
    seed: int
    raw: str
    parsed: Any
    parsed_ok: bool


@dataclass
class ScoreRecord(Record):
    """One scored answer (see module docstring)."""

    SCHEMA: ClassVar[str] = "understand.score"
    VERSION: ClassVar[int] = 1
    model: str
    question: str
    task: str
    page: str
    source: str
    difficulty: str
    variant: str
    pair: str | None
    seed: int
    target: Any
    target_source: str
    raw: str
    parsed: Any
    parsed_ok: bool
    score: float | None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return self.to_json()
