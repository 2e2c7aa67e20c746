"""``webgauge/understand`` for Inspect: ``inspect eval webgauge/understand -T bench=DIR --model ...``.

Each question is one Inspect sample: a user message with the question's images (file paths
inside the benchmark folder, so the log does not inline them) and then its prompt, generated at
temperature 0 with at most 300 tokens, as ``webgauge understand run`` asks it. The scorer parses
the answer with the suite's parser and scores it with the suite's scorer
(:func:`.samples.per_answer_score`). Scores that depend on the whole run (consensus targets,
layout TF-IDF) are Inspect's "unscored" value (NaN) with the reason as explanation: import the
log (``webgauge understand import-inspect LOG --out RUN``) and ``webgauge understand report RUN``
gives every table, the same numbers as ``understand run`` on the same answers.

The metrics are the per-answer columns of the report's Table 2 (``position easy``, ``UI
group``, ``safety recall``...) in points (0-100), over the answers scored in this log; Inspect
counts the others as unscored.

Task arguments (``-T``): ``bench`` (the benchmark folder, required), ``tasks`` (comma-separated
task names, default all), ``split`` (``all``, ``train``, ``validation``, ``test``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, GenerateConfig
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from ..export import read_questions
from .samples import GENERATION, HarnessSample, allowed_answers, per_answer_score, samples_of

__all__ = ["CHOICES_KEY", "ITEM_KEY", "to_inspect_sample", "understand", "understand_scorer", "understand_tables"]

ITEM_KEY = "webgauge_item"
"""Metadata key on each sample's user message naming the question id (for webgauge providers)."""
CHOICES_KEY = "webgauge_choices"
"""Metadata key on each sample's user message listing the whole answers a guesser may give
(:func:`.samples.allowed_answers`): webgauge's ``random`` provider draws from them. Message
metadata is not sent to a model."""

# Table 2 columns that a single answer determines: (column, task, difficulty or None, score key)
COLUMNS = [("position easy", "position", "easy", "score"), ("position mid", "position", "mid", "score"),
           ("position hard", "position", "hard", "score"), ("UI group", "ui_group", None, "score"),
           ("form easy", "form_fill", "easy", "score"), ("form hard", "form_fill", "hard", "score"),
           ("hint text", "hint_text", None, "score"), ("safety recall", "safety", None, "recall"),
           ("safety precision", "safety", None, "precision"), ("false alarms", "safety", None, "false_alarm"),
           ("color (answers with a known target)", "color", None, "score")]


def to_inspect_sample(s: HarnessSample, choices: list[str] | None = None) -> Sample:
    """An Inspect :class:`Sample` for one harness sample (``choices``: see :data:`CHOICES_KEY`)."""
    content = [ContentImage(image=p) for p in s.images] + [ContentText(text=s.prompt)]
    meta = {ITEM_KEY: s.id, **({CHOICES_KEY: list(choices)} if choices else {})}
    return Sample(id=s.id, input=[ChatMessageUser(content=content, metadata=meta)],
                  target=s.reference or "", metadata=dict(s.metadata))


def _tasks_arg(tasks) -> list[str] | None:
    if tasks is None or tasks == "":
        return None
    if isinstance(tasks, str):
        return [t.strip() for t in tasks.split(",") if t.strip()]
    return list(tasks)


@metric
def understand_tables():
    """The per-answer Table 2 columns, in points (the mean over the answers scored here)."""

    def compute(scores: list[SampleScore]) -> dict:
        cells: dict[str, list[float]] = defaultdict(list)
        for ss in scores:
            md = ss.score.metadata or {}
            for col, t, diff, key in COLUMNS:
                if md.get("task") != t or (diff and md.get("difficulty") != diff):
                    continue
                v = ss.score.value if key == "score" else md.get(key)
                if v is not None and not (isinstance(v, float) and math.isnan(v)):
                    cells[col].append(100.0 * float(v))
        return {col: sum(v) / len(v) for col, v in cells.items() if v}

    return compute


@scorer(metrics=[understand_tables()])
def understand_scorer(bench: str):
    """Parse and score each answer with the understand suite's parsers and scorers."""
    questions = {q.id: q for q in read_questions(Path(bench).resolve())}

    async def score(state: TaskState, target: Target) -> Score:
        q = questions.get(str(state.sample_id))
        if q is None:
            raise KeyError(f"sample {state.sample_id!r} is not a question of {bench}")
        raw = state.output.completion if state.output else ""
        value, details = per_answer_score(q, raw)
        parsed = details["parsed"]
        md = {"task": q.task, "difficulty": q.difficulty, "variant": q.variant, "pair": q.pair, "page": q.page,
              "parsed_ok": details["parsed_ok"],
              **{k: details.get(k) for k in ("recall", "precision", "false_alarm") if k in details}}
        return Score(value=float("nan") if value is None else float(value),
                     answer=None if parsed is None else str(parsed),
                     explanation=details.get("why"), metadata=md)

    return score


@task
def understand(bench: str, tasks: str | None = None, split: str = "all") -> Task:
    """A built understand benchmark as an Inspect task (see module docstring)."""
    pairs = samples_of(bench, _tasks_arg(tasks), split)
    root = Path(bench).resolve()
    dataset = MemoryDataset([to_inspect_sample(s, allowed_answers(q, root)) for q, s in pairs],
                            name=f"webgauge-understand:{Path(bench).name}")
    return Task(dataset=dataset, solver=generate(), scorer=understand_scorer(str(Path(bench).resolve())),
                config=GenerateConfig(**GENERATION),
                metadata={"webgauge": {"suite": "understand", "bench": str(Path(bench).resolve()),
                                       "tasks": _tasks_arg(tasks), "split": split}})
