"""The docs' `# tested` harness blocks, run as written, in the harness's venv, with no network.

Each block is read from the doc (docblocks.doc_block), written to a script and run by bash
(`set -e`: any failing line fails the test) in an empty folder, with the harness venv's bin
first on PATH (webgauge is installed there too) and in a network namespace whose only interface
is loopback. What the block makes is then checked: lmms-eval's results files (lmms-eval exits 0
when a task fails), Inspect's logs and the imported run's report.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1] / "understand")]
from docblocks import doc_block  # noqa: E402
from harness_venvs import harness_python, offline, run_in  # noqa: E402

pytestmark = [pytest.mark.harness, pytest.mark.timeout(2400)]


def _run_block(block, venv: str, cwd: Path):
    py = harness_python(venv)
    script = cwd / "block.sh"
    script.write_text("set -euo pipefail\n" + block.commands())
    return run_in(py, *offline(), "bash", str(script), cwd=cwd,
                  extra_env={"PATH": f"{py.parent}:{os.environ.get('PATH', '')}"})


def test_lmms_eval_block_runs_as_written(tmp_path):
    _run_block(doc_block("lmms-eval-no-weights"), "lmms-eval", tmp_path)
    results = sorted((tmp_path / "results").rglob("*_results.json"))
    assert len(results) == 2, results  # the dummy model's run and webgauge_scripted's
    tasks = sorted(json.loads((tmp_path / "bench" / "manifest.json").read_text())["questions"])
    for f in results:
        got = json.loads(f.read_text())
        assert sorted(got["group_subtasks"]["webgauge_understand"]) == [f"webgauge_understand_{t}" for t in tasks]
        assert all("score,none" in got["results"][f"webgauge_understand_{t}"] for t in tasks), f
    runs = [json.loads(f.read_text()) for f in results]
    ui = {r["config"]["model"]: r["results"]["webgauge_understand_ui_group"]["UI group,none"] for r in runs}
    assert ui["webgauge_scripted"] > 0 and ui["dummy"] == 0, ui  # 'main content' is right for some; 'A' for none


def test_inspect_block_runs_as_written(tmp_path):
    _run_block(doc_block("inspect-offline"), "inspect", tmp_path)
    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == 2, logs
    report = tmp_path / "runs" / "inspect" / "report"
    md = (report / "understand.md").read_text()
    assert "mockllm/model" in md and "random" in md
    rows = [json.loads(x) for x in (report / "scores.jsonl").read_text().splitlines() if x.strip()]
    n = sum(json.loads((tmp_path / "bench" / "manifest.json").read_text())["questions"].values())
    assert len(rows) == 2 * n and {r["model"] for r in rows} == {"mockllm/model", "random"}
