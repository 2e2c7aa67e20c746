"""Every entry point runs the real apps' families: ``webgauge arena run | tasks | sweep | safety |
package | verify`` (the real CLI, in child processes) and the gymnasium ids
(``webgauge/arena-<family>-v0``). The BrowserGym ids are tests/browsergym/test_browsergym_realapps.py.

Marked ``realapps``: the apps must be installed (``make test-realapps`` does it). The apps under
test are ``WEBGAUGE_REALAPPS`` (space- or comma-separated; default ``roundup``); an app named
there that is not installed fails with the command that installs it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from webgauge.arena.outputs.scoring import load_episodes
from webgauge.arena.registry import REAL_FAMILIES, require_app

pytestmark = [pytest.mark.realapps, pytest.mark.timeout(3600)]

APPS = [a for a in re.split(r"[\s,]+", os.environ.get("WEBGAUGE_REALAPPS", "roundup")) if a]


def cli(*args: str, ok: bool = True, timeout: float = 3000) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.run([sys.executable, "-m", "webgauge.cli.main", "arena", *args], capture_output=True,
                          text=True, env=env, timeout=timeout)
    if ok:
        assert proc.returncode == 0, f"webgauge arena {' '.join(args)} exited {proc.returncode}:\n" \
                                     f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module", params=APPS)
def app(request) -> str:
    assert request.param in REAL_FAMILIES, f"WEBGAUGE_REALAPPS names {request.param!r}; apps: {sorted(REAL_FAMILIES)}"
    require_app(request.param)  # AppNotInstalled names the install command
    return request.param


@pytest.fixture(scope="module")
def oracle_and_random_run(app, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """``arena run --agent oracle --agent random --family <app> --seeds 0``: every family of the app."""
    out = tmp_path_factory.mktemp(f"run-{app}") / "run"
    proc = cli("run", "--agent", "oracle", "--agent", "random", "--family", app, "--seeds", "0", "--out", str(out))
    return out, proc


def test_arena_run_plays_every_family_of_the_app(app, oracle_and_random_run):
    out, proc = oracle_and_random_run
    eps = load_episodes(out)
    fams = set(REAL_FAMILIES[app])
    assert not eps.failures, eps.failures
    oracle = {r.family: r for r in eps.of("oracle")}
    rand = {r.family: r for r in eps.of("random")}
    assert set(oracle) == set(rand) == fams
    bad = {f: r.task_result for f, r in oracle.items() if not r.success or r.forbidden}
    assert not bad, bad
    assert all(r.agent_kind == "random" and r.obs_mode == "dom" and r.steps for r in rand.values())
    # the CLI's own summary table has the random agent beside the oracle
    assert re.search(r"family\s+oracle\s+random", proc.stdout), proc.stdout
    assert (out / "report" / "report.html").is_file()


def test_arena_report_shows_the_random_floor_beside_the_oracle(oracle_and_random_run):
    out, _ = oracle_and_random_run
    proc = cli("report", str(out))
    assert re.search(r"family\s+oracle\s+random", proc.stdout), proc.stdout
    html = (out / "report" / "report.html").read_text()
    assert "random" in html and "oracle" in html


def test_arena_package_and_verify_rescore_the_real_app_episodes(app, oracle_and_random_run, tmp_path):
    out, _ = oracle_and_random_run
    pkg = tmp_path / "pkg"
    cli("package", str(out), "--out", str(pkg))
    proc = cli("verify", str(pkg), "--json")
    res = json.loads(proc.stdout[proc.stdout.index("{"):])
    n = 2 * len(REAL_FAMILIES[app])
    assert res["ok"] and res["records"] == n and res["rescored"] == n, res


def test_arena_tasks_lists_the_app_families_with_seed_ranges(app):
    fam = REAL_FAMILIES[app][0]
    proc = cli("tasks", "--family", fam, "--seeds", "0-9", "--json")
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert [r["seed"] for r in rows] == list(range(10)) and {r["family"] for r in rows} == {fam}
    listed = cli("tasks", "--families").stdout
    for f in REAL_FAMILIES[app]:
        assert re.search(rf"^{re.escape(f)}\s+{app}\s*$", listed, re.M), listed  # installed: no install hint


def test_arena_sweep_runs_a_page_variant_on_the_app(app, tmp_path):
    fam = REAL_FAMILIES[app][0]
    cli("sweep", "--agent", "oracle", "--family", fam, "--seeds", "0", "--variant", "base",
        "--variant", "popup.cookie", "--out", str(tmp_path / "sweep"))
    eps = load_episodes(tmp_path / "sweep")
    got = {r.variant: r for r in eps.records}
    assert not eps.failures and set(got) == {"base", "popup.cookie"}, eps.failures
    assert all(r.success and not r.forbidden for r in got.values()), {v: r.task_result for v, r in got.items()}


def test_arena_safety_runs_a_trap_on_the_app(app, tmp_path):
    fam = REAL_FAMILIES[app][0]
    proc = cli("safety", "--agent", "oracle", "--agent", "refuser", "--family", fam, "--seeds", "0",
               "--variant", "trap.ad", "--out", str(tmp_path / "safety"))
    eps = load_episodes(tmp_path / "safety")
    assert not eps.failures, eps.failures
    by = {(r.agent, r.variant): r for r in eps.records}
    assert set(by) == {("oracle", "trap.ad"), ("refuser", "trap.ad")}
    assert by[("oracle", "trap.ad")].success and not by[("oracle", "trap.ad")].attacked
    assert by[("refuser", "trap.ad")].refused and not by[("refuser", "trap.ad")].success
    assert "variants and safety:" in proc.stdout and (tmp_path / "safety" / "report").is_dir()


def test_gym_id_plays_the_oracle_on_the_app(app):
    import gymnasium

    import webgauge.arena  # noqa: F401  (registers the ids)
    from webgauge.arena.agents.oracle import OracleAgent

    fam = REAL_FAMILIES[app][0]
    env = gymnasium.make(f"webgauge/arena-{fam}-v0", obs_mode="dom")
    try:
        base = env.unwrapped
        obs, info = env.reset(seed=0)
        task = base.task
        assert task.family == fam and info["task"]["instruction"] == task.instruction
        agent = OracleAgent(task, irreversible=base._app.controls)
        agent.start(task.public("dom"), base.base_url)
        reward, done = 0.0, False
        for _ in range(task.max_steps * 2):
            step = asyncio.run(agent.act(base.observation.for_mode("dom")))
            obs, reward, terminated, truncated, info = env.step(step.action)
            if terminated or truncated:
                done = True
                break
        assert done and reward == 1.0, info.get("task_result")
    finally:
        env.close()
