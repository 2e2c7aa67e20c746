"""Running baselines and a fake remote model, scoring and the report."""

import json

from webgauge.models.fake_server import FakeModelServer, request_images, request_text
from webgauge.run import RunStore
from webgauge.understand import run_benchmark, score_run, summarize, write_report


def test_dom_oracle_is_perfect_on_synthetic_position_and_ui_group(baseline_run):
    run, summary = baseline_run
    assert summary.failed == 0 and summary.ok > 0
    scores = score_run(run)
    for task in ("position", "ui_group"):
        oracle = [it.score for it in scores.items if it.model == "dom-oracle" and it.task == task
                  and it.source == "synthetic"]
        rand = [it.score for it in scores.items if it.model == "random" and it.task == task]
        assert oracle and min(oracle) == 1.0, task
        assert sum(rand) / len(rand) < 0.6
    safety = [it for it in scores.items if it.model == "dom-oracle" and it.task == "safety" and it.source == "synthetic"]
    assert all(it.score == 1.0 for it in safety)
    # real pages without a known target get a consensus target
    assert any(it.target_source.startswith("consensus") for it in scores.items)


def test_report_tables_and_per_item_answers(baseline_run):
    run, _ = baseline_run
    html = write_report(run)
    text = html.read_text()
    assert "Table 2" in text and "Table 3" in text and "items.html#dom-oracle-position" in text
    items = (html.parent / "items.html").read_text()
    assert 'id="dom-oracle-position"' in items and "../../" in items
    md = (html.parent / "understand.md").read_text()
    assert "| dom-oracle | 100.0" in md
    summary = summarize(score_run(run))
    assert {r["model"] for r in summary["table2"]} == {"random", "dom-oracle"}
    assert all(0 <= r["R"] <= 100 for r in summary["robustness"])


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
    rec = RunStore(tmp_path / "r").records()[0].record
    assert rec["parsed"] == "main content" and json.dumps(rec)
