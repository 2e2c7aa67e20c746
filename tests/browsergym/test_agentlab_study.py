"""An AgentLab Study of a scripted agent on three webgauge families, through BrowserGym ids.

In the AgentLab venv (``python scripts/harness_venv.py agentlab``: AgentLab 0.4.2 on Python >=
3.12), against ``webgauge arena serve``: ``integrations/browsergym/examples/agentlab_study.py``
runs ``Study([ScriptedAgentArgs()], webgauge_benchmark([...]))`` sequentially, with no model and
nothing downloaded (tiktoken's encodings and the Chromium link come from the venv's build). Its
output is AgentLab's own summary table and result rows; the study folder then loads as AgentXray
loads it, each experiment with its steps, screenshots and webgauge's verdict, and every reward is
that verdict: 1.0 where the scripted plan solves the task, 0.0 where it gives up.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(ROOT / "tests" / "understand")]
sys.path.insert(0, str(ROOT / "tests" / "docs"))
from docblocks import doc_block  # noqa: E402
from harness import Service  # noqa: E402
from harness_venvs import harness_python, record_numbers, run_in  # noqa: E402

pytestmark = [pytest.mark.browsergym, pytest.mark.timeout(2400)]

EXPECTED = {"webgauge.account.rename": 1.0, "webgauge.wiki.lookup": 1.0, "webgauge.account.revoke_key": 0.0}


def test_agentlab_study_of_a_scripted_agent(tmp_path):
    py = harness_python("agentlab")
    browsers = str(py.parent.parent / "ms-playwright")  # linked to the system Chromium when the venv was built
    # the doc's block as written, in a folder where its relative paths name the venv and this checkout
    (tmp_path / "agentlab-venv").symlink_to(py.parent.parent)
    (tmp_path / "integrations").symlink_to(ROOT / "integrations")
    (tmp_path / "block.sh").write_text("set -euo pipefail\n" + doc_block("agentlab-study").commands())
    with Service(slots=2) as svc:
        proc = run_in(py, "bash", str(tmp_path / "block.sh"), cwd=tmp_path,
                      extra_env={"PLAYWRIGHT_BROWSERS_PATH": browsers, "WEBGAUGE_ARENA_URL": svc.url})
    lines = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    record_numbers("agentlab", {"stdout": proc.stdout[-4000:], "expected (webgauge's verdicts)": EXPECTED,
                                "rewards": {r["task"]: r["cum_reward"] for r in lines}})
    # AgentLab's own summary table
    assert "avg_reward" in proc.stdout and "n_completed" in proc.stdout, proc.stdout[-2000:]
    assert {r["task"]: r["cum_reward"] for r in lines} == EXPECTED, lines
    assert all(r["err_msg"] is None for r in lines), lines
    study = {r["study"] for r in lines}
    assert len(study) == 1
    found = tmp_path / "xray.json"
    run_in(py, str(py), str(HERE / "agentlab_side.py"), str(tmp_path / study.pop()), str(found), cwd=tmp_path)
    rows = {r["task"]: r for r in json.loads(found.read_text())["rows"]}
    assert set(rows) == set(EXPECTED)
    for task, r in rows.items():
        assert r["agent"] == "webgauge-scripted"
        assert r["summary_reward"] == r["cum_reward"] == EXPECTED[task]
        assert r["steps"] == r["n_steps"] + 1 == len(r["actions"]) + 1  # the last observation has no action
        assert r["screenshots"] == r["steps"]
        assert all(r["thinks"]), r  # the agent's reasons, as AgentXray shows them
        assert r["verdict"] is not None and float(r["verdict"]["reward"]) == EXPECTED[task], r["verdict"]
    assert rows["webgauge.account.rename"]["actions"][-1] == "send_msg_to_user('done')"
    assert rows["webgauge.account.revoke_key"]["actions"][-1].startswith("report_infeasible(")
