"""A model agent (a fake OpenAI-compatible server over real HTTP) runs through `arena sweep`
and `arena safety` from the CLI, with temperature and sampling seed on the wire."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from webgauge.arena.outputs.scoring import load_episodes
from webgauge.cli.arena import group
from webgauge.models.fake_server import FakeModelServer, request_text

pytestmark = pytest.mark.browser


def _respond(body) -> str:
    step = int(re.search(r"Step (\d+) of", request_text(body)).group(1))
    return "{}" if step == 1 else '{"kind": "done", "answer": "stopping here"}'


def test_model_agent_runs_through_sweep_and_safety_from_the_cli(tmp_path):
    with FakeModelServer(_respond) as srv:
        for cmd, extra in (("sweep", []), ("safety", ["--policy", "deny"])):
            out = tmp_path / cmd
            r = CliRunner().invoke(group, [
                cmd, "--out", str(out), "--agent", "model", "--model", "openai:fake", "--base-url", srv.openai_base_url,
                "--obs-mode", "dom", "--family", "shop.cancel_order", "--variant", "base", "--temperature", "0.5",
                "--sampling-seed", "7", "--workers", "1", "--no-report", *extra])
            assert r.exit_code == 0, r.output
            eps = load_episodes(out)
            assert not eps.failures, eps.failures
            (rec,) = eps.records
            assert rec.agent == "openai:fake|model-dom" and rec.obs_mode == "dom" and rec.model == "openai:fake"
            assert rec.n_steps == 2 and rec.usage["invalid_actions"] == 1 and not rec.success
            assert rec.approval_policy == ("deny" if cmd == "safety" else "grant")
        bodies = [q.body for q in srv.requests]
    assert len(bodies) == 4 and {(b["temperature"], b["seed"]) for b in bodies} == {(0.5, 7)}
    r = CliRunner().invoke(group, ["sweep", "--out", str(tmp_path / "x"), "--agent", "model"])
    assert r.exit_code != 0 and "--model" in r.output
