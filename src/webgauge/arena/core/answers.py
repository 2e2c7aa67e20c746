"""Judging ``done(answer)``: the agent's answer is part of the judged state.

The episode adds the agent's final answer to the state it hands the validator, as the
one-row pseudo-table :data:`ANSWER_TABLE` (``[{"text": <answer or None>}]``). A task that
asks a question reads it there with :func:`check_answer`, next to any state change it
also needs, so "state plus answer" tasks have one validator and the untouched seed (no
answer at all) always fails.

Matching is deliberately plain and documented: case and surrounding whitespace and
punctuation are ignored, numbers compare as numbers (``"173"`` = ``"173.0"`` =
``"173 days"``), and a short answer (at most :data:`MAX_ANSWER_WORDS` words) that contains
the expected value as whole words also counts (``"It is CC-1022."``). Longer answers must
match exactly, so listing every candidate does not pass.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ANSWER_TABLE", "MAX_ANSWER_WORDS", "answer_of", "answer_matches", "check_answer", "with_answer"]

ANSWER_TABLE = "agent_answer"
MAX_ANSWER_WORDS = 12
_NUM = re.compile(r"^-?\d+(?:\.\d+)?$")


def with_answer(state: dict, answer: str | None) -> dict:
    """``state`` plus the agent's answer as the :data:`ANSWER_TABLE` pseudo-table."""
    return {**state, ANSWER_TABLE: [{"text": answer}]}


def answer_of(state: dict) -> str | None:
    rows = state.get(ANSWER_TABLE) or []
    return rows[-1].get("text") if rows else None


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.casefold()).strip().strip(".,;:!?'\"` ")


def _as_number(s: str) -> float | None:
    m = re.match(r"^(-?\d+(?:\.\d+)?)\b", s.replace(",", ""))
    return float(m.group(1)) if m else None


def answer_matches(expected: Any, got: str | None) -> bool:
    if got is None:
        return False
    exp, ans = _norm(str(expected)), _norm(str(got))
    if not ans:
        return False
    if exp == ans:
        return True
    if _NUM.match(exp.replace(",", "")):
        n = _as_number(ans)
        if n is not None and n == float(exp.replace(",", "")):
            return True
    if len(ans.split()) <= MAX_ANSWER_WORDS:
        return re.search(r"(?<![\w@.-])" + re.escape(exp) + r"(?![\w@-])", ans) is not None
    return False


def check_answer(state: dict, expected: Any) -> list[str]:
    """[] when the agent's answer matches ``expected``, else one error naming what was wrong."""
    got = answer_of(state)
    if got is None:
        return [f"no answer given; expected {expected!r} via done(answer)"]
    if not answer_matches(expected, got):
        return [f"answer {str(got)[:80]!r} does not match the expected {expected!r}"]
    return []
