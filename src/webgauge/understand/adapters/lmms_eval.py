"""``webgauge understand export --format lmms-eval OUT``: a task folder lmms-eval loads.

    webgauge understand export BENCH --format lmms-eval --out OUT
    lmms-eval --model qwen2_5_vl --model_args pretrained=Qwen/Qwen2.5-VL-7B-Instruct \\
        --include_path OUT --tasks webgauge_understand --log_samples --output_path results/

Layout of ``OUT``::

    webgauge_understand.yaml            the group: every task below
    webgauge_understand_<task>.yaml     one task per understand task (``generate_until``)
    utils.py                            lmms-eval's hooks, each a call into this module
    data/<task>.jsonl                   the questions, read by ``datasets`` (``dataset_path: json``)
    images/<sha256>.png                 the screenshots and crops the questions show

Each document is a question (:class:`~..questions.Question` as JSON, ``meta`` and ``target`` as
JSON strings); ``doc_to_visual`` opens its images in order, ``doc_to_text`` is its prompt (the
images come first, as ``understand run`` sends them), generation at temperature 0 with at most
300 new tokens. ``process_results`` parses the answer with the suite's parser and scores it with
the suite's scorer (:func:`.samples.per_answer_score`); the aggregations are the report's Table 2
columns in points (``position easy``, ``UI group``, ``safety recall``...) and ``score``, the
mean over the task's scored answers. Layout robustness is scored in the aggregation, where its
TF-IDF vectorizer sees every layout answer and target, as in a one-model ``understand run``.
Targets computed by consensus of several models' answers (text robustness, unlabelled
questions) have no value in a one-model harness and are left out of every mean, as
``understand run`` leaves them out with a single model.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

from ..export import read_questions
from ..questions import Question
from .samples import GENERATION, per_answer_score

__all__ = [
    "GROUP",
    "POINTS",
    "TASK_COLUMNS",
    "aggregate",
    "doc_to_target",
    "doc_to_text",
    "doc_to_visual",
    "export_lmms_eval",
    "process_results",
]

GROUP = "webgauge_understand"
POINTS = "points"
"""The key of a per-answer record holding its value in points (the tasks' ``score_key``)."""

# per task: (metric name, difficulty or None, value key of the per-answer record)
TASK_COLUMNS: dict[str, list[tuple[str, str | None, str]]] = {
    "position": [("score", None, "score"), ("position easy", "easy", "score"), ("position mid", "mid", "score"),
                 ("position hard", "hard", "score")],
    "ui_group": [("score", None, "score"), ("UI group", None, "score")],
    "form_fill": [("score", None, "score"), ("form easy", "easy", "score"), ("form hard", "hard", "score")],
    "hint_text": [("score", None, "score"), ("hint text", None, "score")],
    "color": [("score", None, "score")],
    "text": [("score", None, "score")],
    "layout": [("score", None, "score")],
    "safety": [("score", None, "score"), ("safety recall", None, "recall"), ("safety precision", None, "precision"),
               ("false alarms", None, "false_alarm")],
}


def _func(metric: str) -> str:
    return "agg_" + "".join(c if c.isalnum() else "_" for c in metric.lower())


UTILS = '''"""lmms-eval hooks for the webgauge understand benchmark (written by `webgauge understand export`).

Every hook calls webgauge's own parsers and scorers: install webgauge[understand] in the
environment that runs lmms-eval.
"""

from pathlib import Path

from webgauge.understand.adapters import lmms_eval as _wg

HERE = Path(__file__).resolve().parent


def doc_to_visual(doc):
    return _wg.doc_to_visual(doc, HERE)


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    return _wg.doc_to_text(doc, lmms_eval_specific_kwargs)


def doc_to_target(doc):
    return _wg.doc_to_target(doc)


def process_results(doc, results):
    return _wg.process_results(doc, results)


'''


def _yaml_str(s: str) -> str:
    return json.dumps(s)  # a JSON string is a valid YAML double-quoted scalar


def export_lmms_eval(bench: str | Path, out: str | Path, *, force: bool = False) -> dict:
    """Write the lmms-eval task folder for the benchmark at ``bench`` into ``out``; returns
    ``{"group", "tasks": {task: questions}, "out"}``."""
    root = Path(bench).resolve()
    if not (root / "manifest.json").is_file():
        raise FileNotFoundError(f"{bench} is not an understand benchmark folder (no manifest.json); "
                                "build one with `webgauge understand build --out DIR`")
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        if not force:
            raise FileExistsError(f"{out} is not empty; pass --force to overwrite it")
        shutil.rmtree(out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    (out / "images").mkdir(exist_ok=True)
    questions = sorted(read_questions(root), key=lambda q: q.id)
    tasks = sorted({q.task for q in questions})
    counts = {}
    for task in tasks:
        rows = []
        for q in questions:
            if q.task != task:
                continue
            for img in q.images:
                dest = out / img
                if not dest.exists():
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(root / img, dest)
            row = q.to_dict()
            row["meta"] = json.dumps(row["meta"], sort_keys=True)
            row["target"] = json.dumps(row["target"], sort_keys=True)
            rows.append(row)
        (out / "data" / f"{task}.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
        counts[task] = len(rows)
        (out / f"{GROUP}_{task}.yaml").write_text(_task_yaml(task, out))
    (out / f"{GROUP}.yaml").write_text("\n".join([f"group: {GROUP}", "task:",
                                                   *(f"  - {GROUP}_{t}" for t in tasks), ""]))
    aggs = sorted({m for cols in TASK_COLUMNS.values() for m, _, _ in cols})
    (out / "utils.py").write_text(UTILS + "".join(
        f"def {_func(m)}(items):\n    return _wg.aggregate(items, {m!r})\n\n\n" for m in aggs).rstrip() + "\n")
    return {"group": GROUP, "tasks": counts, "out": str(out)}


def _task_yaml(task: str, out: Path) -> str:
    lines = [f"task: {GROUP}_{task}", "dataset_path: json", "dataset_kwargs:", "  data_files:",
             f"    test: {_yaml_str(str(out / 'data' / f'{task}.jsonl'))}", "test_split: test",
             "output_type: generate_until", "doc_to_visual: !function utils.doc_to_visual",
             "doc_to_text: !function utils.doc_to_text", "doc_to_target: !function utils.doc_to_target",
             "process_results: !function utils.process_results", "generation_kwargs:",
             f"  max_new_tokens: {GENERATION['max_tokens']}", f"  temperature: {GENERATION['temperature']}",
             "  do_sample: false", f"score_key: {POINTS}", "cluster_key: page", "metric_list:"]
    for metric, _, _ in TASK_COLUMNS[task]:
        lines += [f"  - metric: {_yaml_str(metric)}", f"    aggregation: !function utils.{_func(metric)}",
                  "    higher_is_better: " + ("false" if metric == "false alarms" else "true")]
    lines += ["metadata:", "  version: 1", ""]
    return "\n".join(lines)


def question_of(doc: dict) -> Question:
    """The :class:`Question` an exported document holds."""
    d = dict(doc)
    d["meta"] = json.loads(d["meta"]) if isinstance(d.get("meta"), str) else d.get("meta") or {}
    d["target"] = json.loads(d["target"]) if isinstance(d.get("target"), str) else d.get("target")
    fields = Question.__dataclass_fields__
    return Question(**{k: v for k, v in d.items() if k in fields})


def doc_to_visual(doc: dict, folder: str | Path) -> list:
    """The question's images, in order, as RGB PIL images."""
    from PIL import Image

    return [Image.open(Path(folder) / p).convert("RGB") for p in doc["images"]]


def doc_to_text(doc: dict, kwargs: dict | None = None) -> str:
    """The question's prompt, with lmms-eval's ``pre_prompt``/``post_prompt`` when a model config sets them."""
    kwargs = kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['question']}{kwargs.get('post_prompt', '')}"


def doc_to_target(doc: dict) -> str:
    from ..export import answer_text

    return answer_text(question_of(doc)) or ""


def process_results(doc: dict, results: list) -> dict:
    """One record per metric of the task: the parsed answer and its per-answer score."""
    q = question_of(doc)
    raw = results[0] if results else ""
    score, details = per_answer_score(q, raw)
    parsed = details["parsed"]
    rec = {"id": q.id, "task": q.task, "page": q.page, "difficulty": q.difficulty, "score": score,
           "parsed_ok": details["parsed_ok"], "answer": str(parsed) if details["parsed_ok"] and parsed else None,
           "target": q.target if isinstance(q.target, str) else None,
           **{k: details.get(k) for k in ("recall", "precision", "false_alarm")}}
    out = {}
    for metric, diff, key in TASK_COLUMNS[q.task]:
        value = rec[key] if diff is None or q.difficulty == diff else None
        # POINTS: this answer's value for this metric in points, only where it counts (lmms-eval's
        # standard errors read it: the same units and the same answers as the metric's mean)
        out[metric] = {**rec, POINTS: 100.0 * value} if value is not None else dict(rec)
    return out


def aggregate(items: list[dict], metric: str) -> float:
    """The mean in points of ``metric`` over the task's scored answers (NaN when none is scored)."""
    from ..scorers import tfidf_cosine

    items = list(items)
    if items and items[0]["task"] == "layout":  # fitted on every layout answer and target, as the run's scoring
        sims = tfidf_cosine([it["answer"] for it in items], [it["target"] for it in items])
        items = [{**it, "score": s if it["target"] is not None else None} for it, s in zip(items, sims, strict=True)]
    task = items[0]["task"] if items else None
    col = next(((d, k) for m, d, k in TASK_COLUMNS.get(task or "", []) if m == metric), (None, "score"))
    diff, key = col
    vals = [100.0 * it[key] for it in items if it[key] is not None and (diff is None or it["difficulty"] == diff)]
    return sum(vals) / len(vals) if vals else math.nan
