"""Running models on a benchmark through ``webgauge.run`` (resumable, failures per item).

One work item per (model, question). The handler loads the question from the benchmark
folder, asks the answerer, parses the answer and stores an :class:`AnswerRecord` (raw text,
parsed answer, whether it parsed, and model, task, variant, page and seed as fields). Scoring happens afterwards over
the whole run (consensus needs every model).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from ..run import ItemResult, RunSpec, RunSummary, WorkItem, run_items
from .baselines import BASELINES, RENAMED, ModelAnswerer
from .export import SPLITS, page_splits, read_questions
from .parsers import parse_answer
from .prompts import all_prompts
from .records import AnswerRecord

__all__ = ["run_benchmark", "answer_item", "model_items", "split_questions", "HANDLER"]

HANDLER = "webgauge.understand.runner:answer_item"


def _questions(bench: str) -> dict:
    """The questions of a benchmark, cached per process by folder and manifest hash."""
    sha = json.loads((Path(bench) / "manifest.json").read_text())["sha256"]
    return _read_cached(bench, sha)


@lru_cache(maxsize=4)
def _read_cached(bench: str, sha: str) -> dict:
    return {q.id: q for q in read_questions(Path(bench))}


def _answerer(name: str, options: dict, ctx):
    if name in RENAMED:
        raise ValueError(f"the baseline {name!r} is now named {RENAMED[name]}")
    if name in BASELINES:
        return BASELINES[name]()
    if name == "random":
        raise ValueError("understand's random baseline is named 'random-guess' (task-aware: relations, groups, "
                         "the task's answer pool); the 'random' model provider needs a list of choices")
    return ModelAnswerer(name, ctx.model(name, **options))


async def answer_item(item: WorkItem, ctx) -> ItemResult:
    """Handler: answer one question with one model; store raw and parsed answers."""
    p = item.payload
    q = _questions(p["bench"]).get(p["question"])
    if q is None:
        raise KeyError(f"question {p['question']!r} is not in {p['bench']}; rebuild or re-run with the same bench")
    raw = await _answerer(p["model"], p.get("model_options") or {}, ctx).answer(q, Path(p["bench"]), ctx.seed)
    parsed = parse_answer(q.task, raw, q)
    rec = AnswerRecord(model=p["model"], question=q.id, task=q.task, page=q.page, variant=q.variant, pair=q.pair,
                       difficulty=q.difficulty, seed=ctx.seed, raw=raw, parsed=parsed, parsed_ok=parsed is not None)
    return ItemResult(record=rec.to_json())


def _model_entry(m) -> tuple[str, dict]:
    if isinstance(m, str):
        return m, {}
    return m["name"], dict(m.get("options") or {})


def split_questions(bench: Path, questions: list, split: str | None) -> list:
    """The questions of one split (``train``/``validation``/``test``, the pages ``build`` exported
    to ``splits/``); ``None`` or ``"all"`` keeps every question."""
    if split in (None, "all"):
        return list(questions)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS} or 'all', got {split!r}")
    seed = json.loads((Path(bench) / "manifest.json").read_text())["seed"]
    split_of = page_splits({q.page for q in questions}, seed)
    return [q for q in questions if split_of[q.page] == split]


def model_items(bench: Path, models: list, tasks=None, limit: int | None = None,
                split: str | None = None) -> list[WorkItem]:
    """The work items of a run: every question of ``tasks`` (in ``split``) for every model."""
    qs = sorted(_questions(str(bench)).values(), key=lambda q: q.id)
    qs = split_questions(bench, qs, split)
    if tasks:
        qs = [q for q in qs if q.task in tasks]
    if limit is not None:
        qs = qs[:limit]
    items = []
    for m in models:
        name, opts = _model_entry(m)
        if name in RENAMED:
            raise ValueError(f"the baseline {name!r} is now named {RENAMED[name]}")
        applies = getattr(BASELINES.get(name), "applies", None)
        for q in qs:
            if applies is not None and not applies(q):  # n/a for this baseline: not asked
                continue
            sha = hashlib.sha256(json.dumps(q.to_dict(), sort_keys=True).encode()).hexdigest()[:16]
            items.append(WorkItem(id=f"{name}|{q.id}", kind=q.task, payload={
                "bench": str(bench), "question": q.id, "model": name, "model_options": opts, "qsha": sha}))
    return items


def run_benchmark(bench: str | Path, run_dir: str | Path, models: list, *, seed: int = 0, tasks=None,
                  limit: int | None = None, split: str | None = None, progress: bool = True,
                  **executor) -> RunSummary:
    """Run ``models`` (names, or ``{"name", "options"}`` dicts) on the benchmark at ``bench``.

    ``split`` (``train``/``validation``/``test``) runs only the questions of that split's pages,
    e.g. ``test`` to compare a base model with its fine-tuned adapter on unseen pages.
    ``executor`` takes :func:`webgauge.run.run_items` keywords (``executor``, ``workers``,
    ``retry_failed``, ``force``...). Re-running the same command resumes.
    """
    bench = Path(bench).resolve()
    manifest = bench / "manifest.json"
    if not manifest.exists():
        raise FileNotFoundError(f"{bench} is not a benchmark folder (no manifest.json); "
                                "build one with `webgauge understand build`")
    if not models:
        raise ValueError("give at least one --model (e.g. random-guess, label-oracle, dom-heuristic or openai:MODEL)")
    sha = json.loads(manifest.read_text())["sha256"]
    spec = RunSpec(suite="understand", models=list(models), seeds=[seed], prompts=all_prompts(),
                   options={"bench": str(bench), "bench_sha256": sha, "tasks": sorted(tasks) if tasks else None,
                            "limit": limit, **({"split": split} if split not in (None, "all") else {})})
    items = model_items(bench, models, tasks, limit, split)
    return run_items(run_dir, spec, items, handler=HANDLER, progress=progress, **executor)
