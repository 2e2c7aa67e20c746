"""Running baselines and a fake remote model, scoring and the report."""

import json

import pytest

from webgauge.models.fake_server import FakeModelServer, request_images, request_text
from webgauge.run import RunStore
from webgauge.understand import (
    UI_GROUPS,
    AnswerRecord,
    ScoreRecord,
    robustness_score,
    run_benchmark,
    score_run,
    summarize,
    write_report,
)


@pytest.mark.browser
def test_dom_heuristic_on_generator_truth_and_baselines_excluded_from_consensus(baseline_run):
    # position labels are checked against a fresh rendering in test_labels_exact.py; here the heuristic,
    # which reads the DOM, meets labels the page generator wrote (not the same snapshot)
    run, summary = baseline_run
    assert summary.failed == 0 and summary.ok > 0
    scores = score_run(run)
    # dom-heuristic's UI group is where the element sits (position alone), not the labeller again: an
    # honest baseline, answered on every item, that the generator's truth does not always agree with
    heur = [it for it in scores.items if it.model == "dom-heuristic" and it.task == "ui_group"]
    rand = [it.score for it in scores.items if it.model == "random-guess" and it.task == "ui_group"]
    assert heur and all(it.parsed in UI_GROUPS for it in heur)
    assert rand and sum(rand) / len(rand) < 0.6
    safety = [it for it in scores.items
              if it.model == "dom-heuristic" and it.task == "safety" and it.source == "synthetic"]
    assert safety and all(it.score == 1.0 for it in safety)
    # baselines never vote: real-page items without a known target have no consensus and are not scored
    assert scores.voters == []
    nocons = [it for it in scores.items if it.target_source.startswith("no consensus")]
    assert nocons and all(it.score is None for it in nocons) and "text" in {it.task for it in nocons}
    assert sum(scores.excluded.values()) == len(nocons)
    # typed records carry the fields; nothing is parsed out of item ids
    answers = RunStore(run).typed(AnswerRecord)
    assert {a.model for a in answers} == {"random-guess", "label-oracle", "dom-heuristic"}
    assert all(a.page for a in answers)


@pytest.mark.browser
def test_label_oracle_is_an_upper_bound_or_not_asked(baseline_run, bench):
    from collections import defaultdict

    from webgauge.understand import read_questions

    run, _ = baseline_run
    root, _ = bench
    scores = score_run(run)
    oracle = [it for it in scores.items if it.model == "label-oracle"]
    # every answer it gives scores full marks (the scorer's ceiling is reachable)...
    assert oracle and all(it.score > 1 - 1e-6 for it in oracle), [(it.question, it.score) for it in oracle
                                                                   if it.score <= 1 - 1e-6][:5]
    # ...and it is not asked where there is no build-time label: text robustness, consensus targets
    asked = {it.question for it in oracle}
    qs = read_questions(root)
    assert not any(q.id in asked for q in qs if q.task == "text" or q.target is None)
    assert {q.id for q in qs if q.task != "text" and q.target is not None} == asked
    # no oracle below random-guess on any task
    mean = defaultdict(list)
    for it in scores.items:
        if it.score is not None:
            mean[(it.model, it.task)].append(it.score)
    for (model, task), v in mean.items():
        if model == "random-guess" and ("label-oracle", task) in mean:
            assert sum(mean[("label-oracle", task)]) / len(mean[("label-oracle", task)]) >= sum(v) / len(v), task


@pytest.mark.browser
def test_report_tables_and_per_item_answers(baseline_run):
    run, _ = baseline_run
    html = write_report(run)
    text = html.read_text()
    assert "Table 2" in text and "Table 3" in text and "items.html#dom-heuristic-position" in text
    items = (html.parent / "items.html").read_text()
    assert 'id="dom-heuristic-position"' in items and "../../" in items
    md = (html.parent / "understand.md").read_text()
    assert "| dom-heuristic | 100.0" in md and "| label-oracle | 100.0" in md
    # the baselines are explained, and a baseline's cell for a task it does not answer says n/a
    assert "answer pool" in md and "upper bound" in md and "answer pool" in text
    assert not any(r["model"] == "label-oracle" and r["perturbation"].startswith("text")
                   for r in summarize(score_run(run))["robustness"])  # n/a: text has no build-time label
    summary = summarize(score_run(run))
    assert {r["model"] for r in summary["table2"]} == {"random-guess", "label-oracle", "dom-heuristic"}
    rob = summary["robustness"]
    assert rob and all(r["R"] == robustness_score(r["delta"]["mean"]) for r in rob)
    assert "R = (20 − |Δ|) × 5" in text and "correct-set Jaccard" in text and "wrong→correct" in text
    assert "Perturbation size" in text and "the paper gives none" in text
    lines = (html.parent / "scores.jsonl").read_text().splitlines()
    assert len(lines) == len(score_run(run).items) and ScoreRecord.from_json(json.loads(lines[0])).model


@pytest.mark.browser
def test_resume_and_a_remote_model_over_http(bench, tmp_path):
    root, _ = bench
    seen = []

    def respond(body):
        seen.append((request_text(body), len(request_images(body))))
        return "**Main content**"

    with FakeModelServer(respond) as srv:
        model = {"name": "openai:fake-vl", "options": {"base_url": srv.openai_base_url}}
        s1 = run_benchmark(root, tmp_path / "r", [model], tasks=["ui_group"], limit=3, workers=1, progress=False)
        s2 = run_benchmark(root, tmp_path / "r", [model], tasks=["ui_group"], limit=3, workers=1, progress=False)
    assert (s1.ok, s2.skipped_resumed) == (3, 3)
    assert len(seen) == 3 and all(n == 1 and "red box" in t for t, n in seen)
    rec = RunStore(tmp_path / "r").typed(AnswerRecord)[0]
    assert rec.parsed == "main content" and rec.model == "openai:fake-vl" and rec.task == "ui_group"


@pytest.mark.browser
def test_headline_rows_for_the_landing_page(baseline_run):
    from webgauge.understand.headline import headline_rows

    run, _ = baseline_run
    models, rows, triples = headline_rows(run)
    assert models == ["dom-heuristic", "label-oracle", "random-guess"] and len(triples) == sum(len(r) - 1 for r in rows)
    ui = next(r for r in rows if r["task"] == "ui_group")
    assert ui["dom-heuristic"][0] > ui["random-guess"][0] and ui["label-oracle"][0] > 1 - 1e-6
    assert all(lo <= m <= hi for m, lo, hi in (ui["dom-heuristic"], ui["random-guess"]))
    assert not any("label-oracle" in r for r in rows if r["task"] == "text")  # n/a: no build-time label
