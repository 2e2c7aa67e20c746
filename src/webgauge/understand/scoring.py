"""Scoring a run: resolve targets (consensus where needed), score every answer, aggregate.

:func:`score_run` reads a run directory's :class:`~.records.AnswerRecord` s (through
``RunStore.typed``) and the benchmark it names, and returns one
:class:`~.records.ScoreRecord` per (model, question) answered, plus the failures and the
items excluded for lack of a consensus. :func:`summarize` turns them into the rows of the
paper-style tables; every interval comes from :func:`webgauge.report.summary.summarize` /
:func:`~webgauge.report.summary.compare`, clustered by **page** (one page yields many
questions):

- Table 2: accuracy / similarity per task and difficulty; robustness rows with before,
  after, signed Δ = before − after (points, paired over the same pairs) and the paper's
  R = (20 − |Δ|) × 5 clipped to [0, 100];
- Table 3 (self-contrast): the share of unchanged outputs between the clean and the
  perturbed page (same meaning, :data:`~.semantic.SAME_MEANING`, for free text; exact match
  after normalization for the call-to-action), plus what aggregate accuracy hides: the
  Jaccard overlap of the pairs answered correctly before and after, and the flip rates
  correct→wrong and wrong→correct.

Targets (WebRSSBench §4.4): the call-to-action without generator truth is the majority of
the models' clean answers; the layout purpose and unlabelled form answers are the answer
nearest the centroid of the clean answers; **text robustness** is scored against the
centroid of the models' clean answers too (the paper's ground truth), and our label-based
variant (cosine to the button's own label) is kept in ``extra["label_score"]`` and reported
as its own column. Consensus voters, leave-one-out and exclusions: see :mod:`.consensus`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..report.summary import compare
from ..report.summary import summarize as summarize_kit
from ..run import RunStore
from .consensus import NoConsensus, consensus_target, voters
from .embed import get_embedder
from .export import read_questions
from .records import AnswerRecord, ScoreRecord
from .scorers import robustness_score, score_cta, score_position, score_safety, score_ui_group, tfidf_cosine
from .semantic import SAME_MEANING

__all__ = ["RunScores", "bench_of", "score_run", "summarize", "ROBUSTNESS_ROWS", "LAYOUT_CORRECT", "correct"]

EMBED_TASKS = ("form_fill", "hint_text", "text")
LAYOUT_CORRECT = 0.5
"""Ours: a layout-purpose answer counts as correct (for Table 3's correct sets and flips) at a
TF-IDF cosine to the target of at least this."""


@dataclass
class RunScores:
    """Every scored answer of a run, its failures, and the benchmark it used.

    ``excluded`` counts answers not scored for lack of a consensus target, by
    ``(model, task, reason)``; ``voters`` are the models whose answers voted.
    """

    bench: Path
    models: list[str]
    items: list[ScoreRecord]
    failures: dict[str, int]
    questions: dict
    voters: list[str] = field(default_factory=list)
    excluded: Counter = field(default_factory=Counter)


def _consensus_targets(questions: dict, answers: dict, models: list[str], electorate: list[str], embedder) -> dict:
    """``{(model, qid): (target, source)}`` for questions scored against a consensus."""
    clean_of = {q.pair: q for q in questions.values() if q.pair and q.variant == "clean"}
    out = {}
    for qid, q in questions.items():
        paper_text = q.task == "text"
        if q.target is not None and not paper_text:
            continue
        ref = clean_of.get(q.pair, q) if q.pair else q
        votes = {m: (answers[(m, ref.id)].parsed if (m, ref.id) in answers and answers[(m, ref.id)].parsed_ok
                     else None) for m in electorate}
        kind = "majority" if q.task == "color" else "centroid"
        for m in models:
            if (m, qid) not in answers:
                continue
            t = consensus_target({k: (str(v) if v else None) for k, v in votes.items()}, m, electorate,
                                 kind=kind, embedder=embedder)
            n = sum(1 for v in electorate if v != m and votes.get(v))
            out[(m, qid)] = ((None, f"no consensus ({t}, {n} voters)") if isinstance(t, NoConsensus)
                             else (t, f"consensus({n} voters)"))
    return out


def _models_and_failures(store: RunStore, opts: dict) -> tuple[list[str], dict[str, int]]:
    from .runner import model_items

    spec_models = store.spec["spec"]["models"]
    items = model_items(Path(opts["bench"]), spec_models, opts.get("tasks"), opts.get("limit"))
    model_of = {it.id: it.payload["model"] for it in items}
    failures: Counter = Counter()
    for row in store.failures():
        failures[model_of.get(row.item_id, "(unknown item)")] += 1
    names = sorted({it.payload["model"] for it in items})
    return names, dict(failures)


def bench_of(run_dir: str | Path) -> Path:
    """The benchmark folder an understand run answered."""
    return Path(RunStore(run_dir).spec["spec"]["options"]["bench"])


def score_run(run_dir: str | Path, *, baselines_vote: bool = False) -> RunScores:
    """Score every stored answer of a run (see module docstring)."""
    store = RunStore(run_dir)
    opts = store.spec["spec"]["options"]
    if "bench" not in opts:
        raise ValueError(f"{run_dir} is not an understand run (its spec names no benchmark)")
    bench = Path(opts["bench"])
    questions = {q.id: q for q in read_questions(bench)}
    answers = {(a.model, a.question): a for a in store.typed(AnswerRecord)}
    models, failures = _models_and_failures(store, opts)
    models = sorted(set(models) | {m for m, _ in answers})
    electorate = voters(models, include_baselines=baselines_vote)
    need_embed = any(q.task in EMBED_TASKS or (q.target is None and q.task != "color") for q in questions.values())
    embedder = get_embedder() if need_embed else None
    consensus = _consensus_targets(questions, answers, models, electorate, embedder)
    items: list[Any] = []
    excluded: Counter[tuple[str, str, str]] = Counter()
    for (model, qid), a in sorted(answers.items()):
        q = questions.get(qid)
        if q is None:
            continue
        target, tsource = consensus.get((model, qid), (q.target, q.target_source))
        if tsource.startswith("no consensus"):
            excluded[(model, q.task, tsource.split(",")[0][len("no consensus ("):])] += 1
        items.append(ScoreRecord(model=model, question=qid, task=q.task, page=q.page, source=q.source,
                                 difficulty=q.difficulty, variant=q.variant, pair=q.pair, seed=a.seed,
                                 target=target, target_source=tsource, raw=a.raw or "", parsed=a.parsed,
                                 parsed_ok=a.parsed_ok, score=None,
                                 extra={"label": q.target} if q.task == "text" else {}))
    _score(items, embedder)
    return RunScores(bench=bench, models=models, items=items, failures=failures, questions=questions,
                     voters=electorate, excluded=excluded)


def _score(items: list[ScoreRecord], embedder) -> None:
    def answer(it):
        return str(it.parsed) if it.parsed_ok and it.parsed else None

    emb = [it for it in items if it.task in EMBED_TASKS]
    jobs = [(it, "score", answer(it), it.target) for it in emb if it.target is not None]
    jobs += [(it, "label", answer(it), it.extra["label"]) for it in emb if it.task == "text"]
    for it in emb:
        if it.target is not None:
            it.score = 0.0
        if it.task == "text":
            it.extra["label_score"] = 0.0
    todo = [j for j in jobs if j[2]]
    sims = embedder.cosine([j[2] for j in todo], [str(j[3]) for j in todo]) if todo else []
    for (it, what, _, _), s in zip(todo, sims, strict=True):
        if what == "score":
            it.score = s
        else:
            it.extra["label_score"] = s
    lay = [it for it in items if it.task == "layout"]
    for it, s in zip(lay, tfidf_cosine([answer(it) for it in lay], [it.target for it in lay]), strict=True):
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


def correct(it: ScoreRecord) -> bool | None:
    """Whether a robustness answer counts as correct (Table 3's correct sets); ``None`` if unscored."""
    if it.score is None:
        return None
    if it.task == "color":
        return it.score >= 1.0
    if it.task == "layout":
        return it.score >= LAYOUT_CORRECT
    return it.score >= SAME_MEANING


def _cell(records, metric) -> dict | None:
    rows = summarize_kit(records, lambda r: None if metric(r) is None else 100 * metric(r), cluster="page")
    if not rows or rows[0].n == 0:
        return None
    s = rows[0]
    return {"mean": s.mean, "lo": s.lo, "hi": s.hi, "n": s.n, "clusters": s.clusters}


# (task, row label, variants or None for every non-clean variant that is not an extra of ours)
ROBUSTNESS_ROWS = [("color", "color (recolor)", ("color",)), ("color", "color (low contrast)", ("low_contrast",))]
LAYOUT_ROWS = [("layout", f"layout {lv}", (f"layout-{lv}",)) for lv in ("easy", "medium", "hard")]
EXTRA_KINDS = ("text-homoglyph",)


def _pairs(items, model, task, variants):
    mine = [it for it in items if it.model == model and it.task == task]
    clean = {it.pair: it for it in mine if it.variant == "clean"}
    pert = [it for it in mine if it.variant != "clean" and (it.variant in variants if variants
                                                           else it.variant not in EXTRA_KINDS)]
    return [(clean[it.pair], it) for it in pert if it.pair in clean]


def _paired(pairs, score=lambda it: it.score) -> dict | None:
    """Before, after, signed Δ (paired, clustered by page) and R for scored pairs."""
    pairs = [(c, p) for c, p in pairs if score(c) is not None and score(p) is not None]
    if not pairs:
        return None
    recs = [{"side": side, "pair": f"{p.pair}|{p.variant}", "page": p.page, "v": 100 * score(it)}
            for c, p in pairs for side, it in (("before", c), ("after", p))]
    cmp = compare(recs, "v", system="side", a="before", b="after", item="pair", cluster="page")[0]
    return {"before": _cell([c for c, _ in pairs], score), "after": _cell([p for _, p in pairs], score),
            "delta": {"mean": cmp.mean_diff, "lo": cmp.lo, "hi": cmp.hi, "n": cmp.n, "clusters": cmp.clusters},
            "R": robustness_score(cmp.mean_diff)}


def _self_contrast(pairs, embedder) -> dict:
    """Table 3: unchanged outputs, correct-set Jaccard, flip rates (see module docstring)."""
    def ans(it):
        return str(it.parsed) if it.parsed_ok and it.parsed else None

    free = [i for i, (c, p) in enumerate(pairs) if c.task != "color" and ans(c) and ans(p)]
    sims = dict(zip(free, embedder.cosine([ans(pairs[i][0]) for i in free], [ans(pairs[i][1]) for i in free]),
                    strict=True)) \
        if free else {}
    rows = []
    for i, (c, p) in enumerate(pairs):
        if c.task == "color":
            same = bool(ans(c) and ans(p)) and score_cta(ans(c), ans(p)) == 1.0
        else:
            same = sims.get(i, 0.0) >= SAME_MEANING
        rows.append({"page": p.page, "unchanged": float(same), "before": correct(c), "after": correct(p)})
    scored = [r for r in rows if r["before"] is not None and r["after"] is not None]
    cb = {i for i, r in enumerate(scored) if r["before"]}
    ca = {i for i, r in enumerate(scored) if r["after"]}
    return {
        "unchanged": _cell(rows, lambda r: r["unchanged"]),
        "jaccard": (100 * len(cb & ca) / len(cb | ca)) if cb | ca else None,
        "correct→wrong": _cell(scored, lambda r: (not r["after"]) if r["before"] else None),
        "wrong→correct": _cell(scored, lambda r: r["after"] if not r["before"] else None),
        "correct before": len(cb), "correct after": len(ca), "pairs": len(scored)}


def summarize(scores: RunScores, embedder=None) -> dict:
    """Rows for Table 2 (reasoning, safety, robustness) and Table 3 (self-contrast), per model,
    plus the consensus exclusions."""
    items = scores.items
    if embedder is None and any(it.task in ("text", "layout") for it in items):
        embedder = get_embedder()
    t2, rob, t3 = [], [], []
    text_kinds = sorted({it.variant for it in items if it.task == "text" and it.variant != "clean"})
    for m in scores.models:
        mine = [it for it in items if it.model == m]

        def cell(task, metric=lambda it: it.score, _mine=mine, **where):
            return _cell([it for it in _mine if it.task == task and all(getattr(it, k) == v for k, v in where.items())],
                         metric)

        t2.append({"model": m,
                   "position easy": cell("position", difficulty="easy"),
                   "position mid": cell("position", difficulty="mid"),
                   "position hard": cell("position", difficulty="hard"),
                   "UI group": cell("ui_group"),
                   "form easy": cell("form_fill", difficulty="easy"),
                   "form hard": cell("form_fill", difficulty="hard"),
                   "hint text": cell("hint_text"),
                   "safety recall": cell("safety", lambda it: it.extra.get("recall")),
                   "safety precision": cell("safety", lambda it: it.extra.get("precision")),
                   "false alarms": cell("safety", lambda it: it.extra.get("false_alarm")),
                   "unparsed": sum(not it.parsed_ok for it in mine), "answered": len(mine),
                   "failed": scores.failures.get(m, 0),
                   "no consensus": sum(n for (mm, _, _), n in scores.excluded.items() if mm == m)})
        rows = [*ROBUSTNESS_ROWS, ("text", "text (paper kinds)", None),
                *(("text", f"text ({k[5:]}{', ours' if k in EXTRA_KINDS else ''})", (k,)) for k in text_kinds),
                *LAYOUT_ROWS]
        for task, label, variants in rows:
            pairs = _pairs(items, m, task, variants)
            res = _paired(pairs)
            if res is None:
                continue
            row = {"model": m, "perturbation": label, **res}
            if task == "text":  # ours, beside the paper's: cosine to the button's own label
                lab = _paired(pairs, lambda it: it.extra.get("label_score"))
                row["label Δ (ours)"] = lab["delta"] if lab else None
                row["label R (ours)"] = lab["R"] if lab else None
            rob.append(row)
            t3.append({"model": m, "perturbation": label, **_self_contrast(pairs, embedder)})
    excluded = [{"model": m, "task": t, "reason": r, "answers": n} for (m, t, r), n in sorted(scores.excluded.items())]
    return {"table2": t2, "robustness": rob, "table3": t3, "excluded": excluded, "voters": scores.voters}
