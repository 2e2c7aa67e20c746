"""An Inspect log of ``webgauge/understand`` back into a webgauge run directory.

    webgauge understand import-inspect logs/2026-...-understand.eval --out runs/inspect
    webgauge understand report runs/inspect

Each sample's answer (``output.completion``) becomes the :class:`~..records.AnswerRecord`
``webgauge understand run`` would have stored for the same answer: the same work-item ids,
the same per-item seeds, parsed by the same parser. So ``understand report`` on the imported
run gives the same numbers as on a native run with the same answers, the scores that depend on
the whole run included (consensus targets, layout TF-IDF, robustness pairs, Table 3). Several
logs (several models) go into one run, so consensus targets see every model. A sample whose
generation failed in Inspect is recorded as a failed item with Inspect's error message.

Reading logs needs ``inspect_ai`` (its ``read_eval_log``); run the import where Inspect runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ...run import ItemResult, RunSpec, RunSummary, WorkItem, run_items
from ..parsers import parse_answer
from ..prompts import all_prompts
from ..records import AnswerRecord
from ..runner import _questions, model_items

__all__ = ["HANDLER", "InspectAnswers", "InspectMissing", "import_answer_item", "import_inspect_logs",
           "model_name", "read_inspect_log"]

HANDLER = "webgauge.understand.adapters.inspect_import:import_answer_item"
PROVIDER = "webgauge/"


class InspectMissing(ImportError):
    """Reading Inspect logs needs ``inspect_ai``; the message names the command that works."""


def model_name(inspect_model: str) -> str:
    """The run's model name for an Inspect model name: a webgauge model run through Inspect
    (``webgauge/scripted:a.jsonl``) keeps its webgauge spec (``scripted:a.jsonl``), the name
    ``understand run`` gives it, so the work items and their seeds are the same; any other
    (``openai/gpt-4o``, ``mockllm/model``) stays as Inspect names it."""
    return inspect_model[len(PROVIDER):] if inspect_model.startswith(PROVIDER) else inspect_model


@dataclass
class InspectAnswers:
    """What one Inspect log holds for webgauge: the model, the benchmark, and per-question
    answers (``None`` with an error when the sample failed)."""

    model: str
    bench: str | None
    tasks: list[str] | None
    split: str
    answers: dict[str, str | None]
    errors: dict[str, str]
    path: str


def _need_inspect():
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        import os
        import sys

        checkout = Path(__file__).resolve().parents[4]
        venvs = Path(os.environ.get("WEBGAUGE_HARNESS_VENVS", checkout / ".harness-venvs"))
        there = venvs / "inspect" / "bin" / "webgauge"
        args = " ".join(sys.argv[1:]) if Path(sys.argv[0]).name == "webgauge" else "understand import-inspect ..."
        how = (f"run it where Inspect is: {there} {args}" if there.is_file() else
               "run it where Inspect is installed (pip install inspect_ai; in a webgauge checkout "
               f"`python scripts/harness_venv.py inspect` makes {there.parent.parent}, then {there} {args})")
        raise InspectMissing(f"reading Inspect logs needs inspect_ai, which {sys.prefix} lacks: {how}") from None
    return read_eval_log


def read_inspect_log(path: str | Path) -> InspectAnswers:
    """The answers of one ``webgauge/understand`` Inspect log (``.eval`` or ``.json``)."""
    log = _need_inspect()(str(path))
    if not log.eval.task.endswith("understand") or log.samples is None:
        raise ValueError(f"{path} is not a log of webgauge/understand with samples (task {log.eval.task!r}); "
                         "run `inspect eval webgauge/understand -T bench=DIR --model ...`")
    args = dict(log.eval.task_args or {})
    answers: dict[str, str | None] = {}
    errors: dict[str, str] = {}
    for s in log.samples:
        qid = str(s.id)
        if s.error is not None:
            answers[qid] = None
            errors[qid] = f"inspect sample error: {s.error.message}"
        else:
            answers[qid] = s.output.completion if s.output else ""
    tasks = args.get("tasks")
    if isinstance(tasks, str):
        tasks = [t.strip() for t in tasks.split(",") if t.strip()] or None
    return InspectAnswers(model=model_name(log.eval.model), bench=args.get("bench"), tasks=tasks,
                          split=args.get("split") or "all", answers=answers, errors=errors, path=str(path))


async def import_answer_item(item: WorkItem, ctx) -> ItemResult:
    """Handler: the answer an Inspect log holds for one (model, question), as an AnswerRecord."""
    p = item.payload
    if p.get("error"):
        raise RuntimeError(p["error"])
    q = _questions(p["bench"]).get(p["question"])
    if q is None:
        raise KeyError(f"question {p['question']!r} is not in {p['bench']}; import against the benchmark the "
                       "Inspect run used")
    raw = p["raw"]
    parsed = parse_answer(q.task, raw, q)
    rec = AnswerRecord(model=p["model"], question=q.id, task=q.task, page=q.page, variant=q.variant, pair=q.pair,
                       difficulty=q.difficulty, seed=ctx.seed, raw=raw, parsed=parsed, parsed_ok=parsed is not None)
    return ItemResult(record=rec.to_json())


def import_inspect_logs(logs: list[str | Path], out: str | Path, *, names: list[str] | None = None,
                        bench: str | Path | None = None, seed: int = 0, progress: bool = False,
                        **executor) -> RunSummary:
    """Write the answers of ``logs`` (one model each) into the run directory ``out``.

    ``names`` renames the models (one per log; default: :func:`model_name` of Inspect's); ``bench``
    overrides the benchmark folder the logs name. The run spec is that of ``understand run``
    (so ``understand report`` reads it) with ``imported_from`` listing the logs.
    """
    if not logs:
        raise ValueError("give at least one Inspect log")
    if names is not None and len(names) != len(logs):
        raise ValueError(f"give one name per log: {len(logs)} log(s), {len(names)} name(s)")
    read = [read_inspect_log(p) for p in logs]
    models = list(names) if names else [r.model for r in read]
    if len(set(models)) != len(models):
        raise ValueError(f"two logs have the same model name {models}; name them with --name (one per log)")
    benches = {str(Path(bench or r.bench or "").resolve()) for r in read}
    if len(benches) != 1 or not (bench or all(r.bench for r in read)):
        raise ValueError(f"the logs name different or no benchmarks ({sorted(benches)}); pass --bench DIR")
    root = Path(benches.pop())
    manifest = root / "manifest.json"
    if not manifest.is_file():
        raise FileNotFoundError(f"{root} is not a benchmark folder (no manifest.json); pass --bench DIR")
    scopes = {(tuple(r.tasks) if r.tasks else None, r.split) for r in read}
    if len(scopes) != 1:
        raise ValueError(f"the logs ran different tasks or splits {sorted(map(str, scopes))}; import them apart")
    tasks, split = scopes.pop()
    sha = json.loads(manifest.read_text())["sha256"]
    spec = RunSpec(suite="understand", models=models, seeds=[seed], prompts=all_prompts(),
                   options={"bench": str(root), "bench_sha256": sha, "tasks": sorted(tasks) if tasks else None,
                            "limit": None, **({"split": split} if split not in (None, "all") else {}),
                            "imported_from": [{"harness": "inspect", "log": str(Path(r.path).resolve()),
                                               "model": r.model, "as": m} for r, m in zip(read, models, strict=True)]})
    items = []
    for r, name in zip(read, models, strict=True):
        missing = 0
        for it in model_items(root, [name], list(tasks) if tasks else None, None, split):
            qid = it.payload["question"]
            if qid not in r.answers:
                missing += 1
                continue
            payload = {**it.payload, "raw": r.answers[qid], "error": r.errors.get(qid)}
            items.append(WorkItem(id=it.id, kind=it.kind, payload=payload))
        if missing:
            print(f"{r.path}: {missing} question(s) of the benchmark have no sample in the log (e.g. --limit); "
                  "they are left out")
    return run_items(out, spec, items, handler=HANDLER, progress=progress, **executor)
