"""Run inside the lmms-eval venv by test_harness_lmms_eval.py (not collected by pytest).

    python lmms_side.py TASK_DIR ANSWERS.json OUT.json

Loads the exported folder with lmms-eval's own TaskManager (``include_path``), builds the group's
tasks with ``get_task_dict``, and for every document calls the task's own ``doc_to_text``,
``doc_to_visual`` and ``process_results`` (with the replayed answer) and then its aggregations.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def main(task_dir: str, answers_path: str, out: str) -> None:
    from lmms_eval.tasks import TaskManager, get_task_dict

    answers = json.loads(Path(answers_path).read_text())
    tm = TaskManager(include_path=task_dir, include_defaults=False)
    found = sorted(n for n in tm.all_tasks if n.startswith("webgauge_understand"))
    tasks = {}

    def leaves(d):
        for k, v in d.items():
            if isinstance(v, dict):
                yield from leaves(v)
            else:
                yield getattr(k, "group_name", k) if not isinstance(k, str) else k, v

    for name, task in leaves(get_task_dict(["webgauge_understand"], tm)):
        docs = list(task.test_docs())
        per_metric: dict[str, list] = {}
        samples = {}
        for doc in docs:
            text = task.doc_to_text(doc)
            visuals = task.doc_to_visual(doc)
            assert text == doc["question"], doc["id"]
            assert len(visuals) == len(doc["images"]) and all(v.size[0] > 0 for v in visuals), doc["id"]
            res = task.process_results(doc, [answers[doc["id"]]])
            for m, v in res.items():
                per_metric.setdefault(m, []).append(v)
            samples[doc["id"]] = res["score"]["score"]
        aggs = task.aggregation()
        values = {m: aggs[m](vals) for m, vals in per_metric.items()}
        tasks[name] = {"metrics": {m: (None if isinstance(v, float) and math.isnan(v) else v) for m,
                                   v in values.items()},
                       "samples": samples, "docs": len(docs), "target": task.doc_to_target(docs[0]) if docs else None,
                       "generation_kwargs": task.config.generation_kwargs, "output_type": task.config.output_type}
    Path(out).write_text(json.dumps({"found": found, "tasks": tasks}))


if __name__ == "__main__":
    main(*sys.argv[1:])
