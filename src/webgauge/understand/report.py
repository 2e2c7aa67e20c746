"""The understand report: HTML and Markdown tables shaped like the paper's Tables 2 and 3.

``write_report(run_dir)`` scores the run and writes ``report/understand.html``,
``report/understand.md`` and ``report/items.html`` (every answer, grouped by model and task,
with its target, parsed answer, score and question images) and ``report/scores.jsonl`` (one
:class:`~.records.ScoreRecord` per answer) inside the run directory. Each score cell links to
the answers behind it. Cells are ``mean [95% interval]``, the interval a cluster bootstrap over
pages (:func:`webgauge.report.summary.summarize`). Each section is built by its own function
(``_table2``, ``_robustness``, ``_table3``, ``_build_quality``) so sections can be added apart.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from markupsafe import Markup

from ..perturb import MIN_CHANGED_BOX, MIN_CHANGED_PAGE
from ..report import Section, details, fmt_ci, link, markdown_table, relpath, table, write_html
from .baselines import BASELINES, baseline_note
from .finetune_table import FINETUNE_COLUMNS, PAPER_FINETUNE, finetune_rows
from .relations import HEIGHT_THRESHOLDS
from .scoring import LAYOUT_CORRECT, score_run, summarize
from .semantic import SAME_MEANING

__all__ = ["write_report", "PAPER_REFERENCE", "T2_COLUMNS"]

PAPER_REFERENCE = [
    {"model": "GPT-5 (paper)", "position easy": 63.5, "position mid": 50.0, "position hard": 41.3,
     "UI group": 91.9, "safety recall": 71.1},
    {"model": "Qwen2.5-VL-7B (paper)", "position easy": 4.7, "position mid": 5.0, "position hard": 6.8,
     "UI group": 67.6, "safety recall": 91.1},
]
T2_COLUMNS = ["position easy", "position mid", "position hard", "UI group", "form easy", "form hard", "hint text",
              "safety recall", "safety precision", "false alarms"]
_TASK_OF = {"position easy": "position", "position mid": "position", "position hard": "position",
            "UI group": "ui_group", "form easy": "form_fill", "form hard": "form_fill", "hint text": "hint_text",
            "safety recall": "safety", "safety precision": "safety", "false alarms": "safety"}


def _txt(c) -> str:
    if c is None:
        return "–"
    if isinstance(c, (int, float)):
        return f"{c:.1f}"
    return f"{fmt_ci(c['mean'], c['lo'], c['hi'])} (n={c['n']}, {c.get('clusters', '?')} pages)"


def _signed(c) -> str:
    if c is None:
        return "–"
    return f"{c['mean']:+.1f} [{c['lo']:+.1f}, {c['hi']:+.1f}]"


def _anchor(model: str, task: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in f"{model}-{task}")


def _na(model: str) -> str:
    """An empty cell: ``n/a`` for a baseline (it does not apply to the task), else ``–``."""
    return "n/a" if model in BASELINES else "–"


def _linked(model: str, task: str):
    return lambda c: link(f"items.html#{_anchor(model, task)}", _txt(c)) if c is not None else _na(model)


NOT_MEASURABLE = "not measurable on this corpus"


def _t2_html(rows, unmeasurable=()):
    out = []
    for r in rows:
        o = {"model": r["model"], "answered": r["answered"], "unparsed": r["unparsed"], "failed": r["failed"],
             "no consensus": r["no consensus"]}
        for col in T2_COLUMNS:
            o[col] = NOT_MEASURABLE if _TASK_OF[col] in unmeasurable else _linked(r["model"], _TASK_OF[col])(r[col])
        out.append(o)
    return out


def _t2_md(rows, unmeasurable=()):
    return [{"model": r["model"],
             **{c: NOT_MEASURABLE if _TASK_OF[c] in unmeasurable else _txt(r[c]) if r[c] is not None
                else _na(r["model"]) for c in T2_COLUMNS},
             "answered": r["answered"], "unparsed": r["unparsed"], "failed": r["failed"],
             "no consensus": r["no consensus"]} for r in rows]


def _unmeasurable_rows(manifest) -> list[dict]:
    """The tasks this benchmark cannot measure (the manifest's ``not_measurable``), with why."""
    return [{"task": t, "why": why} for t, why in sorted(manifest.get("not_measurable", {}).items())]


def _precision_rows(manifest) -> list[dict]:
    """The labellers' precision against hand labels, per task, as the manifest records it."""
    return [{"task": t, "precision %": f"{100 * v['precision']:.1f}", "labels checked": v["checked"],
             "agree": v["agree"]} for t, v in sorted(manifest.get("label_precision", {}).items())]


ROB_COLUMNS = ["model", "perturbation", "before", "after", "Δ (signed)", "R", "label Δ (ours)", "label R (ours)"]
T3_COLUMNS = ["model", "perturbation", "unchanged outputs", "correct-set Jaccard", "correct→wrong", "wrong→correct",
              "correct before/after (pairs)"]


def _rob_rows(rows, html: bool, unmeasurable=()):
    out = []
    for r in rows:
        task = r["perturbation"].split(" ")[0]
        if task in unmeasurable:
            continue  # listed under "not measurable on this corpus" instead
        f = _linked(r["model"], task) if html else _txt
        lab_r = r.get("label R (ours)")
        out.append({"model": r["model"], "perturbation": r["perturbation"], "before": f(r["before"]),
                    "after": f(r["after"]), "Δ (signed)": _signed(r["delta"]), "R": f"{r['R']:.1f}",
                    "label Δ (ours)": _signed(r.get("label Δ (ours)")) if task == "text" else "",
                    "label R (ours)": (f"{lab_r:.1f}" if lab_r is not None else "–") if task == "text" else ""})
    return out


def _t3_rows(rows):
    return [{"model": r["model"], "perturbation": r["perturbation"], "unchanged outputs": _txt(r["unchanged"]),
             "correct-set Jaccard": "–" if r["jaccard"] is None else f"{r['jaccard']:.1f}",
             "correct→wrong": _txt(r["correct→wrong"]), "wrong→correct": _txt(r["wrong→correct"]),
             "correct before/after (pairs)": f"{r['correct before']}/{r['correct after']} ({r['pairs']})"}
            for r in rows]


def _size_rows(manifest):
    return [{"perturbation": k, "pairs checked": v["pairs"], "kept": v["kept"], "no-op rejected": v["noop_rejected"],
             "median changed pixels %": f"{100 * v['median_changed']:.3f}",
             "mean changed pixels %": f"{100 * v['mean_changed']:.3f}",
             "measured": "target box" if k.startswith("text") else "page"}
            for k, v in manifest.get("perturbation_size", {}).items()]


SIZE_COLUMNS = ["perturbation", "pairs checked", "kept", "no-op rejected", "median changed pixels %",
                "mean changed pixels %", "measured"]
ROB_NOTE = Markup(
    '<p class="muted">Color: recall of the call-to-action (target: majority of the voting models\' clean '
    'answers, or generator truth). Text: embedding cosine to the consensus centroid of the voting models\' '
    'clean answers (the paper\'s ground truth); <em>label Δ/R (ours)</em> score the same answers against the '
    'button\'s own label instead. Layout: TF-IDF cosine to the page purpose. Δ = before − after in points, '
    'paired over the same pairs, 95% interval by page; R = (20 − |Δ|) × 5 clipped to [0, 100], as in the '
    'paper. Text rows ending in "ours" are our extra kinds, left out of "text (paper kinds)".</p>')


def _t3_note() -> Markup:
    return Markup(
        '<p class="muted">Unchanged outputs (the paper\'s Table 3): free text counts as unchanged when the '
        'clean and perturbed answers have an all-MiniLM-L6-v2 cosine of at least {} (ours, calibrated on '
        'paraphrase pairs in <code>webgauge.understand.semantic</code>); the call-to-action by exact match '
        'after normalization. What aggregate accuracy hides (§4.4): the Jaccard overlap of the pairs answered '
        'correctly before and after, and the share of correct answers that turn wrong (and of wrong that turn '
        'correct). Correct: CTA recall 1; text cosine ≥ {}; layout TF-IDF ≥ {} (ours).</p>').format(
        SAME_MEANING, SAME_MEANING, LAYOUT_CORRECT)


def _quality_note(summary) -> Markup:
    cuts = ", ".join(f"{n} ≤ {int(h):,} px" for n, h in HEIGHT_THRESHOLDS)
    return Markup(
        '<p class="muted">Consensus voters: {} (no-signal baselines do not vote; a model never votes on its own '
        'target; fewer than 3 votes or a tie leaves an item without target, excluded and counted below). '
        'No-op rejection: a perturbed pair is dropped when under {}% of the page (layout, color) or {}% of the '
        'target box (text) changed. Position difficulty by page height: {} (these cut-offs are ours; the paper '
        'gives none).</p>').format(", ".join(summary["voters"]) or "none", 100 * MIN_CHANGED_PAGE,
                                    100 * MIN_CHANGED_BOX, cuts)


def _items_page(scores, path: Path) -> Path:
    sections = []
    for m in scores.models:
        for task in sorted({it.task for it in scores.items if it.model == m}):
            mine = [it for it in scores.items if it.model == m and it.task == task]
            rows = []
            for it in mine:
                q = scores.questions[it.question]
                imgs = Markup(" ").join(link(relpath(scores.bench / p, path), f"img{i + 1}")
                                        for i, p in enumerate(q.images))
                rows.append({"question": it.question, "variant": it.variant, "difficulty": it.difficulty,
                             "target": json.dumps(it.target, ensure_ascii=False)[:200],
                             "source": it.target_source,
                             "answer": details(str(it.parsed)[:120] if it.parsed_ok else "(unparsed)",
                                               Markup("<pre>{}</pre>").format(it.raw)),
                             "score": "–" if it.score is None else f"{100 * it.score:.1f}", "images": imgs})
            sections.append(Section(Markup('<span id="{}">{} · {}</span>').format(_anchor(m, task), m, task),
                                    table(rows, ["question", "variant", "difficulty", "target", "source", "answer",
                                                 "score", "images"])))
    return write_html(path, "understand: every answer", sections,
                      subtitle="Scores are ×100; targets marked consensus were computed from the models' answers.")


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Score ``run_dir`` and write the HTML and Markdown reports; returns the HTML path."""
    run_dir = Path(run_dir)
    out_dir = Path(out) if out else run_dir / "report"
    out_dir.mkdir(parents=True, exist_ok=True)
    scores = score_run(run_dir)
    summary = summarize(scores)
    manifest = json.loads((scores.bench / "manifest.json").read_text())
    unmeasurable = set(manifest.get("not_measurable", {}))
    sources = Counter((q.task, q.target_source) for q in scores.questions.values())
    src_rows = [{"task": t, "label source": s, "questions": n} for (t, s), n in sorted(sources.items())]
    drop_rows = [{"what": k, "count": v} for k, v in manifest.get("dropped", {}).items()]
    check_rows = [{"check": k, "passed": v} for k, v in manifest.get("checks_passed", {}).items()]
    t2_cols = ["model", *T2_COLUMNS, "answered", "unparsed", "failed", "no consensus"]
    t3 = _t3_rows(summary["table3"])
    ref_rows = [{k: r.get(k, "–") for k in ["model", *T2_COLUMNS]} for r in PAPER_REFERENCE]
    noop_rows = [{"perturbation": k, "rejected": v} for k, v in manifest.get("noop_rejected", {}).items()]
    subtitle = (f"benchmark {scores.bench.name} (sha256 {manifest['sha256'][:12]}, seed {manifest['seed']}); "
                f"{sum(manifest['questions'].values())} questions; models: {', '.join(scores.models)}")
    ft_cols = ["model", *FINETUNE_COLUMNS]
    ft_rows = [{"model": r["model"], **{c: _txt(r[c]) for c in FINETUNE_COLUMNS}} for r in finetune_rows(scores)]
    ft_rows += [{k: r[k] for k in ft_cols} for r in PAPER_FINETUNE]
    html_path = out_dir / "understand.html"
    sections = [
        Section("Table 2: reasoning and safety (×100, 95% cluster-bootstrap CI by page)", [
            table(_t2_html(summary["table2"], unmeasurable), t2_cols),
            table(_unmeasurable_rows(manifest), ["task", "why"],
                  caption="Tasks not measurable on this corpus (answered, not scored: all targets one class, "
                          "or no answer pool)", empty="Every task asked here is measurable."),
            Markup('<p class="muted">Position and UI group: accuracy. Form, hint: sentence-embedding cosine '
                   '(all-MiniLM-L6-v2). Safety: recall on pages with irreversible buttons, precision of the '
                   'buttons named, false alarms on pages without any. Click a score for the answers.</p>'),
            Markup('<p class="muted">{}</p>').format(baseline_note(scores.bench))]),
        Section("Table 2 (robustness): before, after, signed Δ and R = (20 − |Δ|) × 5", [
            table(_rob_rows(summary["robustness"], True, unmeasurable), ROB_COLUMNS), ROB_NOTE]),
        Section("Table 3: self-contrast", [table(t3, T3_COLUMNS), _t3_note()]),
        Section("Reference: WebRSSBench paper, Table 2", table(ref_rows, ["model", *T2_COLUMNS])),
        Section("Fine-tuning (WebRSSBench §5.2): this run beside the paper's before/after", table(ft_rows, ft_cols)),
        Section("Labels, consensus, drops and checks", [
            _quality_note(summary),
            table(_precision_rows(manifest), ["task", "precision %", "labels checked", "agree"],
                  caption="Label precision against hand labels (the labellers' automatic labels on real pages)",
                  empty="This benchmark's manifest records no label precision."),
            table(src_rows, ["task", "label source", "questions"], caption="Where the targets come from"),
            table(summary["excluded"], ["model", "task", "reason", "answers"],
                  caption="Answers not scored: no consensus target", empty="Every consensus item had a target."),
            table(_size_rows(manifest), SIZE_COLUMNS, caption="Perturbation size (changed pixels) per kind and level",
                  empty="No perturbation sizes in this benchmark's manifest."),
            table(noop_rows, ["perturbation", "rejected"], caption="No-op pairs rejected at build time",
                  empty="No pair was rejected as a no-op."),
            table(drop_rows, ["what", "count"], caption="Dropped at build time", empty="Nothing dropped."),
            table(check_rows, ["check", "passed"], caption="Perturbation checks passed")]),
        Section("Every answer", link("items.html", "items.html: per-item answers, targets and scores")),
    ]
    write_html(html_path, "webgauge understand report", sections, subtitle=subtitle)
    _items_page(scores, out_dir / "items.html")
    md = [f"# webgauge understand report\n\n{subtitle}\n",
          "## Table 2: reasoning and safety (×100, 95% bootstrap CI)\n",
          markdown_table(_t2_md(summary["table2"], unmeasurable), t2_cols),
          "\n" + baseline_note(scores.bench) + "\n",
          *(["\n## Tasks not measurable on this corpus (answered, not scored)\n",
             markdown_table(_unmeasurable_rows(manifest), ["task", "why"])] if unmeasurable else []),
          "\n## Table 2 (robustness): signed Δ and R = (20 − |Δ|) × 5\n",
          markdown_table(_rob_rows(summary["robustness"], False, unmeasurable), ROB_COLUMNS),
          "\n## Table 3: self-contrast\n", markdown_table(t3, T3_COLUMNS),
          "\n## Perturbation size and no-op rejections\n", markdown_table(_size_rows(manifest), SIZE_COLUMNS),
          "\n## Reference (paper)\n", markdown_table(ref_rows, ["model", *T2_COLUMNS]),
          "\n## Fine-tuning (WebRSSBench §5.2): this run beside the paper's before/after\n",
          markdown_table(ft_rows, ft_cols), "\nPer-item answers: items.html\n"]
    (out_dir / "understand.md").write_text("\n".join(md))
    (out_dir / "scores.json").write_text(json.dumps({"summary": summary}, default=str, indent=1))
    (out_dir / "scores.jsonl").write_text("".join(json.dumps(it.to_json(), default=str) + "\n"
                                                  for it in scores.items))
    return html_path
