"""The lmms-eval export loads with lmms-eval's task manager and scores as `understand run` does.

`webgauge understand export --format lmms-eval` writes the task folder; inside the lmms-eval venv
its TaskManager loads it, and each task's own hooks score replayed answers (set a of
replay_answers). The per-task aggregations equal a one-model `understand run` of the same answers:
the Table 2 columns and each task's mean, layout robustness (TF-IDF over the task) included.
Needs the lmms-eval venv: `python scripts/harness_venv.py lmms-eval`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from harness_venvs import harness_python, run_in
from replay_answers import write_answer_sets

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.harness


def _mean(vals):
    vals = [100 * v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


@pytest.mark.timeout(2400)
def test_lmms_eval_export_loads_and_scores_like_understand_run(bench, tmp_path):
    from click.testing import CliRunner

    from webgauge.cli.main import cli
    from webgauge.understand import run_benchmark, score_run, summarize

    py = harness_python("lmms-eval")
    root, manifest = bench
    sets = write_answer_sets(root, tmp_path / "answers")

    out = tmp_path / "lmms"
    res = CliRunner().invoke(cli, ["understand", "export", str(root), "--format", "lmms-eval", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "webgauge_understand" in res.output
    again = CliRunner().invoke(cli, ["understand", "export", str(root), "--format", "lmms-eval", "--out", str(out)])
    assert again.exit_code != 0 and "--force" in again.output

    name = f"scripted:{sets['a'][0]}"
    native = tmp_path / "native"
    run_benchmark(root, native, [name], workers=1, progress=False)
    scores = score_run(native)
    table2 = summarize(scores)["table2"][0]

    dumped = tmp_path / "lmms.json"
    run_in(py, str(py), str(HERE / "lmms_side.py"), str(out), str(sets["a"][1]), str(dumped))
    got = json.loads(dumped.read_text())
    tasks = sorted(manifest["questions"])
    assert got["found"] == sorted(["webgauge_understand"] + [f"webgauge_understand_{t}" for t in tasks])
    by_task = {k.removeprefix("webgauge_understand_"): v for k, v in got["tasks"].items()}
    assert sorted(by_task) == tasks
    for task, d in by_task.items():
        mine = [it for it in scores.items if it.task == task]
        assert d["docs"] == len(mine) == manifest["questions"][task]
        assert d["output_type"] == "generate_until" and d["generation_kwargs"]["max_new_tokens"] == 300
        ref = _mean([it.score for it in mine])
        assert (d["metrics"]["score"] is None) == (ref is None), task
        if ref is not None:
            # points; float32 sentence embeddings of one pair vs. a batch differ by ~1e-7
            assert math.isclose(d["metrics"]["score"], ref, abs_tol=1e-3), (task, d["metrics"]["score"], ref)
        for it in mine:  # per answer, wherever one answer decides the score
            if task != "layout" and it.score is not None:
                assert math.isclose(d["samples"][it.question], it.score, abs_tol=1e-6), it.question
    for col, task in (("position easy", "position"), ("position mid", "position"), ("position hard", "position"),
                      ("UI group", "ui_group"), ("form easy", "form_fill"), ("form hard", "form_fill"),
                      ("hint text", "hint_text"), ("safety recall", "safety"), ("safety precision", "safety"),
                      ("false alarms", "safety")):
        if task not in by_task:
            continue
        cell, value = table2[col], by_task[task]["metrics"][col]
        assert (cell is None) == (value is None), col
        if cell is not None:
            assert math.isclose(value, cell["mean"], abs_tol=1e-3), (col, value, cell["mean"])
    # layout is scored in the aggregation, over the whole task
    if "layout" in by_task:
        assert by_task["layout"]["metrics"]["score"] is not None
