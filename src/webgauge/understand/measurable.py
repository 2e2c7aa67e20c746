"""Which tasks a benchmark can measure, and what ``random-guess`` draws from.

A task is **not measurable on a corpus** when its targets there are all one class (every
safety target ``NONE`` on real pages: an answerer that always says NONE scores perfectly, and
one that looks scores no better) or when the random baseline has nothing to draw from. Such
tasks are listed in the manifest's ``not_measurable`` with the reason and reported as such,
never scored as if they measured something. Classes: a UI group, a position relation, safety's
"NONE" or "irreversible buttons named"; free-text and consensus tasks have no classes.

:func:`answer_pools`: per free-text task, every distinct target of the task in the benchmark,
or, where the targets are consensus (not known at build time), the task's generic answers
(:data:`~webgauge.understand.vocabulary.GENERIC_ANSWERS`); ``pool_sources`` says which.
"""

from __future__ import annotations

from collections.abc import Iterable

from .vocabulary import GENERIC_ANSWERS

__all__ = ["answer_pools", "not_measurable", "target_classes", "FREE_TEXT"]

FREE_TEXT = ("form_fill", "hint_text", "text", "layout")


def target_classes(q) -> list[str]:
    """The classes a question's target falls in (empty for a free-text or consensus target)."""
    if q.target is None:
        return []
    if q.task == "ui_group":
        return [str(q.target)]
    if q.task == "position":
        return [str(v) for v in q.target.values()]
    if q.task == "safety":
        return ["irreversible" if q.target else "NONE"]
    return []


def answer_pools(questions: Iterable) -> tuple[dict[str, list[str]], dict[str, str]]:
    """``(pools, pool_sources)`` for the free-text tasks (see module docstring)."""
    qs = list(questions)
    pools, sources = {}, {}
    for t in FREE_TEXT:
        targets = sorted({str(q.target) for q in qs if q.task == t and q.target})
        asked = any(q.task == t for q in qs)
        if targets:
            pools[t], sources[t] = targets, "targets"
        elif asked:
            pools[t], sources[t] = sorted(GENERIC_ANSWERS[t]), "generic answers (no target known at build time)"
        else:
            pools[t] = []
    return pools, sources


def not_measurable(questions: Iterable, pools: dict[str, list[str]]) -> dict[str, str]:
    """``{task: reason}`` for the tasks this benchmark cannot measure (see module docstring)."""
    by_task: dict[str, list] = {}
    for q in questions:
        by_task.setdefault(q.task, []).append(q)
    out = {}
    for task, qs in sorted(by_task.items()):
        classes = {c for q in qs if q.variant == "clean" for c in target_classes(q)}
        if len(classes) == 1:
            out[task] = f"every target of its {len(qs)} question(s) is {next(iter(classes))!r}"
        elif task in FREE_TEXT and not pools.get(task):
            out[task] = "the random baseline's answer pool is empty"
    return out
