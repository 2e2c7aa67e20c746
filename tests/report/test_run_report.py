"""The run overview page and the ``webgauge run`` / ``webgauge report`` commands, on a real run."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from PIL import Image

from webgauge.cli.report import group as report_group
from webgauge.cli.run import group as run_group
from webgauge.report.run_report import run_overview, write_run_report
from webgauge.run import RunSpec
from webgauge.run.store import StoreWriter


def _fake_run(run_dir):
    """A run directory written through the real store (as the driver writes it)."""
    run_dir.mkdir()
    doc = RunSpec(suite="understand", models=["random"], seeds=[0, 1], prompts={"qa": "Say <A> or B"}).resolve()
    (run_dir / "spec.json").write_text(json.dumps(doc))
    with StoreWriter(run_dir) as w:
        for k in range(5):
            w.write(item_id=f"q{k}", kind="qa", status="ok", record={"score": k % 2}, blobs={}, error=None,
                    attempt=1, started=100.0 + k, finished=101.5 + k, worker=f"local-{k % 2}", payload_sha="x")
        w.write(item_id="bad<1>", kind="gen", status="error", record=None, blobs={}, attempt=2, started=110.0,
                finished=112.0, worker="local-0", payload_sha="y",
                error={"type": "PageError", "message": "timeout <script>", "traceback": "Traceback ...\nPageError"})


def test_overview_counts_and_page(tmp_path):
    run_dir = tmp_path / "run"
    _fake_run(run_dir)
    ov = run_overview(run_dir)
    assert ov["totals"] == {"items": 6, "ok": 5, "error": 1, "wall_s": 12.0}
    assert ov["kinds"] == [{"kind": "gen", "ok": 0, "error": 1, "total": 1, "median_s": 2.0},
                           {"kind": "qa", "ok": 5, "error": 0, "total": 5, "median_s": 1.5}]
    assert [w["items"] for w in ov["workers"]] == [4, 2]
    page = write_run_report(run_dir).read_text()
    HTMLParser().feed(page)
    assert "bad&lt;1&gt;" in page and "timeout &lt;script&gt;" in page and "<script>" not in page
    assert "Say &lt;A&gt; or B" in page and "6 items stored: 5 ok, 1 failed" in page


@pytest.mark.browser
def test_cli_status_failures_overview_and_render(tmp_path):
    run_dir = tmp_path / "run"
    _fake_run(run_dir)
    runner = CliRunner()
    res = runner.invoke(run_group, ["status", str(run_dir)])
    assert res.exit_code == 0 and "5 ok, 1 failed" in res.output and "qa" in res.output
    res = runner.invoke(run_group, ["status", str(run_dir), "--json"])
    assert json.loads(res.output)["totals"]["error"] == 1
    res = runner.invoke(run_group, ["failures", str(run_dir), "-v"])
    assert res.exit_code == 0 and "bad<1>\tgen\tattempt 2\tPageError: timeout <script>" in res.output
    assert "--retry-failed" in res.output
    res = runner.invoke(run_group, ["overview", str(run_dir), "--out", str(tmp_path / "o.html")])
    assert res.exit_code == 0 and (tmp_path / "o.html").is_file()
    res = runner.invoke(report_group, ["render", str(tmp_path / "o.html"), str(tmp_path / "o.png"), "--width", "800"])
    assert res.exit_code == 0, res.output
    assert Image.open(tmp_path / "o.png").size[0] == 800
    res = runner.invoke(run_group, ["status", str(tmp_path)])
    assert res.exit_code == 1 and "not a webgauge run directory" in res.output
    for cmd in (["--help"], ["status", "--help"], ["failures", "--help"], ["overview", "--help"]):
        assert runner.invoke(run_group, cmd).exit_code == 0
    assert runner.invoke(report_group, ["render", "--help"]).exit_code == 0
