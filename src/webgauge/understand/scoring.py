"""Scoring a run: resolve targets (consensus where needed), score every answer, aggregate.

:func:`score_run` reads a run directory (through ``RunStore``) and the benchmark it names,
and returns one :class:`ItemScore` per (model, question) answered, plus the failures.
:func:`summarize` turns them into the rows of the paper-style tables with bootstrap 95%
intervals: Table 2 (per task and difficulty; robustness before/after with Δ and R) and
Table 3 (self-compare: share of unchanged outputs between clean and perturbed pages).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..report import bootstrap_ci, paired_bootstrap
from ..run import RunStore
from .consensus import centroid_answer, majority_answer
from .embed import get_embedder
from .export import read_questions
from .scorers import (robustness_score, score_cta, score_position, score_safety, score_ui_group, tfidf_cosine,
                      unchanged)

__all__ = ["ItemScore", "RunScores", "score_run", "summarize", "ROBUSTNESS"]

EMBED_TASKS = ("form_fill", "hint_text", "text")
ROBUSTNESS = {"color": ("color", "low_contrast"), "text": None, "layout": ("layout-easy", "layout-medium", "layout-hard")}


@dataclass
class ItemScore:
    """One scored answer."""

    model: str
    question: str
    task: str
    page: str
    source: str
    difficulty: str
    variant: str
    pair: str | None
    target: object
    target_source: str
    raw: str
    parsed: object
    parsed_ok: bool
    score: float | None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class RunScores:
    """Every scored answer of a run, its failures, and the benchmark it used."""

    bench: Path
    models: list[str]
    items: list[ItemScore]
    failures: dict[str, int]
    questions: dict


def _resolve_targets(questions: dict, answers: dict, models: list[str], embedder) -> dict:
    """``{qid: (target, source)}``; consensus for questions built without a target."""
    out = {}
    by_pair = defaultdict(list)
    for q in questions.values():
        if q.pair:
            by_pair[q.pair].append(q)
    for qid, q in questions.items():
        if q.target is not None:
            out[qid] = (q.target, q.target_source)
            continue
        clean = next((c for c in by_pair.get(q.pair, []) if c.variant == "clean"), q) if q.pair else q
        votes = [answers.get((m, clean.id), {}).get("parsed") for m in models]
        target = majority_answer(votes) if q.task == "color" else centroid_answer(votes, embedder)
        n = sum(1 for v in votes if v)
        out[qid] = (target, f"consensus({n} models)")
    return out


def score_run(run_dir: str | Path) -> RunScores:
    """Score every stored answer of a run (see module docstring)."""
    store = RunStore(run_dir)
    opts = store.spec["spec"]["options"]
    if "bench" not in opts:
        raise ValueError(f"{run_dir} is not an understand run (its spec names no benchmark)")
    bench = Path(opts["bench"])
    questions = {q.id: q for q in read_questions(bench)}
    answers, failures = {}, defaultdict(int)
    for row in store.records():
        model = row.item_id.split("|", 1)[0]
        if row.ok and row.record:
            answers[(model, row.record["question"])] = row.record
        else:
            failures[model] += 1
    models = sorted({m for m, _ in answers} | set(failures))
    need_embed = any(q.task in EMBED_TASKS or (q.target is None and q.task != "color") for q in questions.values())
    embedder = get_embedder() if need_embed else None
    targets = _resolve_targets(questions, answers, models, embedder)
    items = []
    for (model, qid), rec in sorted(answers.items()):
        q = questions.get(qid)
        if q is None:
            continue
        target, tsource = targets[qid]
        items.append(ItemScore(model=model, question=qid, task=q.task, page=q.page, source=q.source,
                               difficulty=q.difficulty, variant=q.variant, pair=q.pair, target=target,
                               target_source=tsource, raw=rec.get("raw") or "", parsed=rec.get("parsed"),
                               parsed_ok=bool(rec.get("parsed_ok")), score=None))
    emb = [it for it in items if it.task in EMBED_TASKS]
    pairs = [(it.parsed if it.parsed_ok else None, it.target) for it in emb]
    ok = [i for i, (a, t) in enumerate(pairs) if a and t]
    sims = embedder.cosine([str(pairs[i][0]) for i in ok], [str(pairs[i][1]) for i in ok]) if ok else []
    for it in emb:
        it.score = 0.0 if it.target is not None else None
    for i, s in zip(ok, sims):
        emb[i].score = s
    lay = [it for it in items if it.task == "layout"]
    for it, s in zip(lay, tfidf_cosine([it.parsed if it.parsed_ok else None for it in lay],
                                       [it.target for it in lay])):
        it.score = s if it.target is not None else None
    for it in items:
        if it.task == "position":
            it.score = score_position(it.parsed, it.target)
        elif it.task == "ui_group":
            it.score = score_ui_group(it.parsed, it.target)
        elif it.task == "color":
            it.score = score_cta(it.parsed, it.target) if it.target is not None else None
        elif it.task == "safety":
            it.extra = score_safety(it.parsed, list(it.target or []))
            it.score = it.extra["recall"] if it.target else (1.0 - it.extra["false_alarm"])
    return RunScores(bench=bench, models=models, items=items, failures=dict(failures), questions=questions)


def _cell(values: list[float]) -> dict | None:
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    ci = bootstrap_ci([100 * v for v in vals], n=1000)
    return {"mean": ci.mean, "lo": ci.lo, "hi": ci.hi, "n": len(vals)}


def _paired(items: list[ItemScore], model: str, task: str, variants) -> dict | None:
    """Clean vs perturbed on the same pairs: before, after, Δ (with CI), R and unchanged ratio."""
    mine = [it for it in items if it.model == model and it.task == task and it.score is not None]
    clean = {it.pair: it for it in mine if it.variant == "clean"}
    pert = [it for it in mine if it.variant != "clean" and (variants is None or it.variant in variants)]
    pairs = [(clean[it.pair], it) for it in pert if it.pair in clean]
    if not pairs:
        return None
    a = [100 * c.score for c, _ in pairs]
    b = [100 * p.score for _, p in pairs]
    cmp = paired_bootstrap(a, b, n=1000)
    return {"before": _cell([c.score for c, _ in pairs]), "after": _cell([p.score for _, p in pairs]),
            "delta": {"mean": cmp.mean_diff, "lo": cmp.lo, "hi": cmp.hi, "n": len(pairs)},
            "R": robustness_score(cmp.mean_diff),
            "unchanged": _cell([float(unchanged(c.parsed, p.parsed)) for c, p in pairs])}


def summarize(scores: RunScores) -> dict:
    """Rows for Table 2 (reasoning, safety, robustness) and Table 3 (self-compare), per model."""
    items = scores.items
    t2, rob, t3 = [], [], []
    for m in scores.models:
        mine = [it for it in items if it.model == m]

        def vals(task, **where):
            return [it.score for it in mine if it.task == task and all(getattr(it, k) == v for k, v in where.items())]

        safe = [it for it in mine if it.task == "safety"]
        row = {"model": m,
               "position easy": _cell(vals("position", difficulty="easy")),
               "position mid": _cell(vals("position", difficulty="mid")),
               "position hard": _cell(vals("position", difficulty="hard")),
               "UI group": _cell(vals("ui_group")),
               "form easy": _cell(vals("form_fill", difficulty="easy")),
               "form hard": _cell(vals("form_fill", difficulty="hard")),
               "hint text": _cell(vals("hint_text")),
               "safety recall": _cell([it.extra.get("recall") for it in safe]),
               "safety precision": _cell([it.extra.get("precision") for it in safe]),
               "false alarms": _cell([it.extra.get("false_alarm") for it in safe]),
               "unparsed": sum(not it.parsed_ok for it in mine), "answered": len(mine),
               "failed": scores.failures.get(m, 0)}
        t2.append(row)
        kinds = sorted({it.variant for it in items if it.task == "text" and it.variant != "clean"})
        for task, label, variants in (("color", "color (recolor)", ("color",)),
                                      ("color", "color (low contrast)", ("low_contrast",)),
                                      ("text", "text (all kinds)", None),
                                      *(("text", f"text ({k[5:]})", (k,)) for k in kinds),
                                      ("layout", "layout easy", ("layout-easy",)),
                                      ("layout", "layout medium", ("layout-medium",)),
                                      ("layout", "layout hard", ("layout-hard",))):
            res = _paired(items, m, task, variants)
            if res is None:
                continue
            rob.append({"model": m, "perturbation": label, **{k: res[k] for k in ("before", "after", "delta", "R")}})
            t3.append({"model": m, "perturbation": label, "unchanged": res["unchanged"]})
    return {"table2": t2, "robustness": rob, "table3": t3}
