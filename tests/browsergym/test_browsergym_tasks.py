"""Every arena family through BrowserGym 0.14.3: ``gym.make("browsergym/webgauge.<family>")`` in
BrowserGym's own venv (its pinned Playwright, the system Chromium), the world served by
``webgauge arena serve``, the oracle played as BrowserGym action strings; each episode's
reward must equal webgauge's own verdict on the same task and seed.

Long (58 families in Chromium): marked ``browsergym``. Run it alone with
``pytest -m browsergym tests/browsergym``. The venv is built on first use and cached under
``.cache/browsergym-venv`` (git-ignored); when it cannot be built the test fails and says how to fix it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bgym_venv import PACKAGE, VenvError, ensure_venv
from harness import Driver, Service, play_oracle_bgym

from webgauge.arena.adapters.serve import family_table
from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.core.env import ArenaEnv
from webgauge.arena.core.episode import play
from webgauge.arena.tasks import build_tasks

pytestmark = [pytest.mark.browsergym, pytest.mark.timeout(3600)]

SEED = 0


def _python() -> Path:
    try:
        return ensure_venv()
    except VenvError as exc:
        pytest.fail(f"the BrowserGym venv could not be built: {exc}", pytrace=False)


def test_shipped_family_list_is_current():
    """The package registers the families it ships in families.json: it must be webgauge's list."""
    shipped = json.loads((PACKAGE / "src" / "browsergym" / "webgauge" / "families.json").read_text())
    assert shipped == family_table(), ("integrations/browsergym's families.json is stale: run `webgauge arena serve "
                                       "--write-families integrations/browsergym/src/browsergym/webgauge/families.json`")
    assert len(shipped) == len(build_tasks((SEED,)))


async def _webgauge_verdicts(browser, tasks) -> dict[str, float]:
    """webgauge's own verdict per family: the oracle played in-process (as `arena run` does)."""
    out = {}
    with ArenaServer() as srv:
        env = ArenaEnv(browser, srv.app_url, srv.client())
        try:
            for t in tasks:
                rec, _ = await play(env, OracleAgent(t), t, keep_dom=False)
                out[t.family] = 1.0 if rec.success and not rec.forbidden else 0.0
        finally:
            await env.close()
    return out


async def test_every_family_through_browsergym_agrees_with_webgauge(browser):
    py = _python()
    tasks = build_tasks((SEED,))
    t0 = time.perf_counter()
    ours = await _webgauge_verdicts(browser, tasks)
    t_ours = time.perf_counter() - t0
    svc = Service(slots=2)
    episodes = {}
    try:
        driver = Driver(py, svc.url)
        try:
            assert driver.info["browsergym_core"] == "0.14.3"
            assert driver.info["registered"] == len(tasks)
            t0 = time.perf_counter()
            for t in tasks:
                try:
                    episodes[t.family] = await play_oracle_bgym(driver, t)
                except RuntimeError as exc:  # recorded per family; the run goes on
                    episodes[t.family] = exc
            t_bgym = time.perf_counter() - t0
        finally:
            driver.close()
    finally:
        svc.close()
    failed = {f: str(e)[:500] for f, e in episodes.items() if isinstance(e, Exception)}
    eps = {f: e for f, e in episodes.items() if not isinstance(e, Exception)}
    disagree = {f: {"webgauge": ours[f], "browsergym": e.reward, "verdict": e.verdict, "errors": e.errors[:4],
                    "actions": e.actions} for f, e in eps.items() if e.reward != ours[f]}
    agree = len(eps) - len(disagree)
    summary = (f"agreement {agree}/{len(tasks)}; webgauge oracle solved {sum(ours.values()):.0f}/{len(tasks)} "
               f"in {t_ours:.0f} s; BrowserGym episodes {len(eps)} in {t_bgym:.0f} s "
               f"(median {sorted(e.seconds for e in eps.values())[len(eps) // 2]:.1f} s)")
    print(summary)
    Path(__file__).resolve().parents[2].joinpath(".cache", "browsergym-agreement.json").write_text(json.dumps(
        {"summary": summary, "failed": failed, "disagree": disagree,
         "episodes": {f: {"reward": e.reward, "steps": e.steps, "seconds": round(e.seconds, 1)} for f, e in eps.items()}},
        indent=1))
    assert not failed, f"{summary}; episodes that raised: {json.dumps(failed, indent=1)[:4000]}"
    assert not disagree, f"{summary}; disagreements: {json.dumps(disagree, indent=1)[:6000]}"
    # the agreement is not all zeros: the oracle really solves the tasks in BrowserGym's page
    assert sum(e.reward for e in eps.values()) >= len(tasks) - 2, summary
    viewports = {r["family"]: (r["viewport"]["width"], r["viewport"]["height"]) for r in family_table()}
    for f, e in eps.items():  # the observation is BrowserGym's own, with the objects AgentLab reads
        assert e.obs_keys["axtree_object"] and e.obs_keys["dom_object"] and e.axtree_nodes > 10, f
        assert e.goal, f
        # the page keeps the task's viewport through every step (see browsergym/webgauge/viewport_fix.py)
        assert e.viewports == {viewports[f]}, (f, e.viewports)
