"""lmms-eval's own CLI runs the exported group and reports `understand run`'s numbers.

`webgauge understand export --format lmms-eval` writes the task folder; in the lmms-eval venv,
`lmms-eval --model webgauge_scripted --model_args answers=a.jsonl --include_path DIR --tasks
webgauge_understand` (the real CLI, no network: run in a network namespace of its own) replays
answer set a through all eight tasks. Every task's value in lmms-eval's results file equals a
one-model `understand run` of the same answers: each task's mean, the Table 2 columns, layout
robustness (TF-IDF over the task) and text robustness (no consensus target with one model: no
value in either). Each per-answer score in lmms-eval's logged samples equals the native one,
and the standard errors are in points, computed over the same answers as the value.
Needs the lmms-eval venv: `python scripts/harness_venv.py lmms-eval`.
"""

from __future__ import annotations

import json
import math

import pytest
from harness_venvs import harness_python, offline, record_numbers, run_in
from replay_answers import write_answer_sets

pytestmark = pytest.mark.harness

GROUP = "webgauge_understand"
COLUMNS = (("position easy", "position"), ("position mid", "position"), ("position hard", "position"),
           ("UI group", "ui_group"), ("form easy", "form_fill"), ("form hard", "form_fill"),
           ("hint text", "hint_text"), ("safety recall", "safety"), ("safety precision", "safety"),
           ("false alarms", "safety"))


def _mean(vals):
    vals = [100 * v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


def _value(v):
    return None if isinstance(v, float) and math.isnan(v) else v


@pytest.mark.timeout(2400)
def test_lmms_eval_cli_reports_understand_run_numbers(bench, tmp_path):
    from click.testing import CliRunner

    from webgauge.cli.main import cli
    from webgauge.understand import run_benchmark, score_run, summarize

    py = harness_python("lmms-eval")
    root, manifest = bench
    sets = write_answer_sets(root, tmp_path / "answers")

    out = tmp_path / "tasks"
    res = CliRunner().invoke(cli, ["understand", "export", str(root), "--format", "lmms-eval", "--out", str(out)])
    assert res.exit_code == 0, res.output
    again = CliRunner().invoke(cli, ["understand", "export", str(root), "--format", "lmms-eval", "--out", str(out)])
    assert again.exit_code != 0 and "--force" in again.output

    native = tmp_path / "native"
    run_benchmark(root, native, [f"scripted:{sets['a'][0]}"], workers=1, progress=False)
    scores = score_run(native)
    table2 = summarize(scores)["table2"][0]

    results = tmp_path / "results"
    proc = run_in(py, *offline(), str(py.parent / "lmms-eval"), "--model", "webgauge_scripted",
                  "--model_args", f"answers={sets['a'][0]}", "--include_path", str(out), "--tasks", GROUP,
                  "--batch_size", "1", "--log_samples", "--output_path", str(results), cwd=tmp_path)
    files = sorted(results.rglob("*_results.json"))
    # lmms-eval 0.7.3 exits 0 even when a task fails: the results file is the proof
    assert len(files) == 1, f"no results file:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    got = json.loads(files[0].read_text())
    tasks = sorted(manifest["questions"])
    assert len(tasks) == 8
    assert sorted(got["group_subtasks"][GROUP]) == [f"{GROUP}_{t}" for t in tasks]
    assert GROUP in got["results"]
    by_task = {t: got["results"][f"{GROUP}_{t}"] for t in tasks}
    record_numbers("lmms-eval", {
        "tasks": {t: {"lmms_eval": _value(r["score,none"]), "stderr": r["score_stderr_clt,none"],
                      "understand_run": _mean([it.score for it in scores.items if it.task == t]),
                      "n": got["n-samples"][f"{GROUP}_{t}"]["effective"]} for t, r in by_task.items()},
        "table2": {col: {"lmms_eval": _value(by_task[t][f"{col},none"]),
                         "understand_run": (table2[col] or {}).get("mean")} for col, t in COLUMNS}})
    for task, r in by_task.items():
        mine = [it for it in scores.items if it.task == task]
        assert got["n-samples"][f"{GROUP}_{task}"]["effective"] == len(mine) == manifest["questions"][task]
        ref = _mean([it.score for it in mine])
        value = _value(r["score,none"])
        assert (value is None) == (ref is None), (task, value, ref)
        if ref is not None:  # points; float32 sentence embeddings of one pair vs. a batch differ by ~1e-7
            assert math.isclose(value, ref, abs_tol=1e-3), (task, value, ref)
        # the standard error is the CLT one over the same scored answers, in points
        pts = [100 * it.score for it in mine if it.score is not None]
        se = r["score_stderr_clt,none"]
        if task == "layout" or len(pts) < 2:  # layout's per-answer scores exist only over the whole task
            assert se == "N/A", (task, se)
        else:
            m = sum(pts) / len(pts)
            want = math.sqrt(sum((p - m) ** 2 for p in pts) / (len(pts) - 1) / len(pts))
            assert math.isclose(se, want, abs_tol=1e-3), (task, se, want)
        logged = [json.loads(line) for line in
                  next(results.rglob(f"*_samples_{GROUP}_{task}.jsonl")).read_text().splitlines() if line.strip()]
        assert len(logged) == len(mine)
        native_by_q = {it.question: it.score for it in mine}
        for s in logged:
            rec = s["score"]
            assert s["filtered_resps"] == json.loads(sets["a"][1].read_text())[rec["id"]]
            if task != "layout" and native_by_q[rec["id"]] is not None:  # one answer decides it
                assert math.isclose(rec["score"], native_by_q[rec["id"]], abs_tol=1e-6), rec["id"]
                assert math.isclose(rec["points"], 100 * native_by_q[rec["id"]], abs_tol=1e-4), rec["id"]
            else:
                assert "points" not in rec, rec["id"]
    for col, task in COLUMNS:
        cell, value = table2[col], _value(by_task[task][f"{col},none"])
        assert (cell is None) == (value is None), col
        if cell is not None:
            assert math.isclose(value, cell["mean"], abs_tol=1e-3), (col, value, cell["mean"])
    # not equal by construction: answers differ in quality, so the tasks' values spread out
    values = {t: _value(r["score,none"]) for t, r in by_task.items()}
    assert values["text"] is None and values["layout"] is not None
    assert len({round(v, 3) for v in values.values() if v is not None}) >= 4, values
