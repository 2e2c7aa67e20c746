"""The offline demo: build, baseline generation (sc and zs), scoring, report and its PNG."""

import json

import pytest

from webgauge.design2code.demo import run_demo
from webgauge.design2code.iqa import read_scores_csv
from webgauge.design2code.runs import collect_scores

pytestmark = pytest.mark.browser


def test_quick_demo_writes_a_scored_report(tmp_path):
    report = run_demo(tmp_path, quick=True)
    assert report.is_file() and report.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    html = report.read_text()
    assert "Complexity" in html and "CLIP is n/a" in html
    records, failures = collect_scores(tmp_path / "score")
    assert failures == []
    by = {(r.strategy, r.kind): r.summary for r in records}
    syn_zs, syn_sc = by[("zs", "synthetic")], by[("sc", "synthetic")]
    assert syn_zs["rer"] == 1.0 and syn_zs["navigation"] == 1.0 and syn_zs["backend"] == 1.0
    assert syn_sc["rer"] == 0.0 and syn_sc["mae"] > syn_zs["mae"]
    assert json.loads((tmp_path / "generate" / "spec.json").read_text())["spec"]["models"] == ["baseline"]
    # the report's per-pair CSV is what `design2code iqa --scores` reads
    scores = read_scores_csv(report.parent / "scores.csv")
    assert set(scores["mae"]) == {f"{r.item_id}/{p.page}" for r in records for p in r.pages}
    assert all(r.pages[0].model == "baseline" and r.pages[0].instance == r.instance for r in records)
