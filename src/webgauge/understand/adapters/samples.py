"""What a harness sees of one understand question, and the score one answer gets on its own.

A :class:`HarnessSample` is the question as ``webgauge understand run`` sends it to a model:
the question's images first (in order), then its prompt text; the reference answer in the
text form :func:`~webgauge.understand.export.answer_text` gives, and the fields a report
groups by (task, page, variant, pair, difficulty). The answer pool (``choices``) is never
part of it: for free-text tasks it lists every answer of the benchmark.

:func:`per_answer_score` is the score of one answer when it depends on that answer alone, the
same function ``understand run``'s scoring applies: position, UI group, color robustness with
a known call-to-action, safety, form filling and hint text with a known target. Two kinds of
score depend on the whole run and are ``None`` here (with the reason): targets computed by
consensus of the models' answers (text robustness, unlabelled questions) and layout robustness
(its TF-IDF vectorizer is fitted on all the run's layout answers). Those come from
``webgauge understand report`` on the imported log (:mod:`.inspect_import`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..export import answer_text, read_questions
from ..parsers import parse_answer
from ..questions import Question
from ..runner import split_questions
from ..scorers import score_cta, score_position, score_safety, score_ui_group

__all__ = ["GENERATION", "RUN_LEVEL", "HarnessSample", "allowed_answers", "per_answer_score", "sample_of", "samples_of"]

GENERATION = {"temperature": 0.0, "max_tokens": 300}
"""The generation settings ``understand run`` uses for every question (see ``ModelAnswerer``)."""

RUN_LEVEL = "scored over the whole run"


@dataclass(frozen=True)
class HarnessSample:
    """One question as a harness sample (see module docstring)."""

    id: str
    task: str
    prompt: str
    images: list[str]
    reference: str | None
    page: str
    variant: str
    pair: str | None
    difficulty: str
    target_source: str
    metadata: dict = field(default_factory=dict)


def sample_of(q: Question, bench: Path) -> HarnessSample:
    """The harness sample of question ``q`` of the benchmark at ``bench`` (absolute image paths)."""
    root = Path(bench).resolve()
    meta = {"task": q.task, "page": q.page, "variant": q.variant, "pair": q.pair, "difficulty": q.difficulty,
            "target_source": q.target_source, "prompt_id": q.prompt_id}
    return HarnessSample(id=q.id, task=q.task, prompt=q.question, images=[str(root / p) for p in q.images],
                         reference=answer_text(q), page=q.page, variant=q.variant, pair=q.pair,
                         difficulty=q.difficulty, target_source=q.target_source, metadata=meta)


def allowed_answers(q: Question, bench: Path) -> list[str]:
    """Whole answers a no-network guesser may give ``q`` (what the ``random`` model provider draws
    from under a harness): the UI groups; the question's own choices, else its task's answer pool
    (``answer_pools.json``); for position questions one answer per relation, naming it for every
    pair asked about. Empty when the benchmark lists none."""
    from ..baselines import _answer_pools
    from ..labeller import UI_GROUPS
    from ..relations import RELATIONS

    if q.task == "position":
        return ["\n".join(f"{k}: {r}" for k in q.target) for r in RELATIONS] if q.target else []
    if q.task == "ui_group":
        return list(UI_GROUPS)
    return list(q.choices or _answer_pools(str(Path(bench).resolve())).get(q.task, []))


def _check_bench(bench: Path) -> Path:
    root = Path(bench).resolve()
    if not (root / "manifest.json").is_file():
        raise FileNotFoundError(f"{bench} is not an understand benchmark folder (no manifest.json); "
                                "build one with `webgauge understand build --out DIR`")
    return root


def samples_of(bench: str | Path, tasks=None, split: str | None = None) -> list[tuple[Question, HarnessSample]]:
    """Every question of the benchmark (of ``tasks``, in ``split``) with its harness sample, by id."""
    root = _check_bench(Path(bench))
    qs = sorted(read_questions(root), key=lambda q: q.id)
    qs = split_questions(root, qs, split)
    if tasks:
        unknown = sorted(set(tasks) - {q.task for q in qs})
        if unknown:
            raise ValueError(f"no questions of task(s) {unknown} in {bench}; it has {sorted({q.task for q in qs})}")
        qs = [q for q in qs if q.task in tasks]
    return [(q, sample_of(q, root)) for q in qs]


def per_answer_score(q: Question, raw: str | None, embedder=None) -> tuple[float | None, dict]:
    """``(score, details)`` of the raw answer ``raw`` to ``q`` when it depends on this answer only.

    ``score`` is ``None`` for scores computed over the whole run (``details["why"]`` says
    which); ``details`` holds the parsed answer, whether it parsed and the safety extras."""
    parsed = parse_answer(q.task, raw, q)
    details: dict = {"parsed": parsed, "parsed_ok": parsed is not None}
    t = q.task
    if t == "layout":
        return None, {**details, "why": f"layout: TF-IDF fitted on the run's answers ({RUN_LEVEL})"}
    if q.target is None or t == "text":
        return None, {**details, "why": f"target by consensus of the models' answers ({RUN_LEVEL})"}
    if t == "position":
        return score_position(parsed, q.target), details
    if t == "ui_group":
        return score_ui_group(parsed, q.target), details
    if t == "color":
        return score_cta(parsed, q.target), details
    if t == "safety":
        extra = score_safety(parsed, list(q.target or []))
        return (extra["recall"] if q.target else 1.0 - extra["false_alarm"]), {**details, **extra}
    if t in ("form_fill", "hint_text"):
        if embedder is None:
            from ..embed import get_embedder

            embedder = get_embedder()
        answer = str(parsed) if parsed else None
        return (embedder.cosine([answer], [str(q.target)])[0] if answer else 0.0), details
    raise ValueError(f"no scorer for task {t!r}")
