"""The arena report and `arena report` CLI: success per family for every agent (the heuristic
included), public and held-out slices apart and never pooled, and the variety section."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from webgauge.arena.outputs.report import family_success, split_slices
from webgauge.arena.outputs.scoring import agent_summary, load_episodes
from webgauge.arena.runner import run_arena
from webgauge.arena.tasks.heldout import make_slices
from webgauge.cli.main import cli

pytestmark = pytest.mark.browser

SECRET = b"report-test-secret-0123456789abcdef"


def test_report_shows_family_success_per_slice_and_variety(tmp_path):
    run_dir = tmp_path / "run"
    sl = make_slices(SECRET, public_seeds=(0, 1), n_heldout=1, families=["wiki.lookup"])
    summary = run_arena(run_dir, sl.tasks, [{"kind": "oracle"}, {"kind": "heuristic"}], slices=sl.slice_of,
                        workers=1, progress=False, time_limit_s=120.0)
    assert summary.done == 6 and summary.failed == 0
    eps = load_episodes(run_dir)
    public, held = split_slices(eps)
    assert len(public.records) == 4 and len(held.records) == 2
    # never pooled: the public rows count public episodes only, the held-out rows held-out ones only
    assert {r["agent"]: r["episodes"] for r in agent_summary(public)} == {"oracle": 2, "heuristic": 2}
    assert {r["agent"]: r["episodes"] for r in agent_summary(held)} == {"oracle": 1, "heuristic": 1}
    rows = family_success(public)
    assert [r["family"] for r in rows] == ["wiki.lookup"] and rows[0]["oracle"][0] == 1.0
    assert rows[0]["heuristic"] is not None and rows[0]["episodes"] == 4

    res = CliRunner().invoke(cli, ["arena", "report", str(run_dir), "--variety", "--heldout-sample", "3",
                                   "--worlds", "20", "--public-worlds", "40"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "public slice: success per family" in out and "held-out slice: success per family" in out
    pub_part, held_part = out.split("held-out slice")
    assert "heuristic" in pub_part and "wiki.lookup" in pub_part and "wiki.lookup" in held_part
    assert pub_part.count("100%") >= 1  # the oracle's public success on the family
    variety = [json.loads(line) for line in (run_dir / "variety.jsonl").read_text().splitlines()]
    assert [v["family"] for v in variety] == ["wiki.lookup"] and variety[0]["distinct"] >= 20
    assert variety[0]["heldout_tasks"] == 3 and variety[0]["public_tasks"] == 40  # --public-worlds 40
    assert "held-out leakage: targets reproduced by 20 secret-less worlds" in out
    leak = [json.loads(line) for line in (run_dir / "heldout_leakage.jsonl").read_text().splitlines()]
    got = [(r["family"], r["heldout_tasks"], r["with_target"], r["worlds"]) for r in leak]
    assert got == [("wiki.lookup", 3, 3, 20)]
    assert leak[0]["reproduced"] == 0 and leak[0]["template_public"] == 0
    html = (run_dir / "report" / "report.html").read_text()
    assert "Held-out slice (apart from the public slice, never pooled)" in html
    assert "Held-out success per family" in html and "Task variety" in html and "held-out novelty" in html
    assert "Success by family (public slice" in html
    assert "Held-out secrecy" in html and "held-out targets" in html
