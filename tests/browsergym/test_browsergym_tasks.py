"""Every arena family through BrowserGym 0.14.3: ``gym.make("browsergym/webgauge.<family>")`` in
BrowserGym's own venv (its pinned Playwright, the system Chromium), the world served by
``webgauge arena serve``, the oracle played as BrowserGym action strings; each episode's
reward must equal webgauge's own verdict on the same task and seed.

Long (58 families in Chromium): marked ``browsergym``. Run it alone with
``pytest -m browsergym tests/browsergym``. The venv is built on first use and cached under
``.harness-venvs/browsergym`` (git-ignored); when it cannot be built the test fails and says how to fix it.
``WEBGAUGE_BGYM_FAMILIES=board.triage,shop.buy_variant`` plays only those families (a quick re-check).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "understand"))

from bgym_venv import VenvError, ensure_venv
from harness import Driver, Service, play_oracle_bgym
from harness_venvs import record_numbers

from webgauge.arena.adapters.serve import family_table
from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.approval import DESTRUCTIVE_FAMILIES
from webgauge.arena.env.episode import play
from webgauge.arena.registry import all_family_names
from webgauge.arena.tasks import build_tasks

pytestmark = [pytest.mark.browsergym, pytest.mark.timeout(3600)]

SEED = 0


def _python() -> Path:
    try:
        return ensure_venv()
    except VenvError as exc:
        pytest.fail(f"the BrowserGym venv could not be built: {exc}", pytrace=False)


async def test_every_family_through_browsergym_agrees_with_webgauge(browser):
    """Family by family: webgauge's own verdict (the oracle in-process, as `arena run --gate-destructive`
    plays it), then the same task through BrowserGym with the package's gate on (``gate=True``): the
    oracle asks the user in BrowserGym's chat before each irreversible control, naming it. Progress
    goes to .cache/browsergym-agreement.jsonl."""
    py = _python()
    only = [f for f in os.environ.get("WEBGAUGE_BGYM_FAMILIES", "").split(",") if f]
    tasks = build_tasks((SEED,), families=only or None)
    assert tasks, f"no family named {only}"
    progress = Path(__file__).resolve().parents[2] / ".cache" / "browsergym-agreement.jsonl"
    progress.parent.mkdir(parents=True, exist_ok=True)
    progress.write_text("")
    ours, episodes, t_ours, t_bgym = {}, {}, 0.0, 0.0
    gated: dict[str, list[str]] = {}  # family -> the irreversible controls webgauge's own episode used, approved
    with ArenaServer() as srv, Service(slots=2) as svc:
        env = ArenaEnv(browser, srv.app_url, srv.client(), EnvOptions(gate_destructive=True))
        driver = Driver(py, svc.url)
        try:
            assert driver.info["browsergym_core"] == "0.14.3"
            assert driver.info["registered"] == len(all_family_names())
            for t in tasks:
                t0 = time.perf_counter()
                rec, _ = await play(env, OracleAgent(t), t, keep_dom=False)
                ours[t.family] = 1.0 if rec.success and not rec.forbidden else 0.0
                t1 = time.perf_counter()
                try:
                    episodes[t.family] = ep = await play_oracle_bgym(driver, t, gate=True)
                    row = {"family": t.family, "webgauge": ours[t.family], "browsergym": ep.reward, "steps": ep.steps,
                           "errors": ep.errors[:3], "verdict": ep.verdict, "approvals": ep.approvals,
                           "gate": ep.gate_events}
                    gated[t.family] = [g["control"] for g in env.gate_log if g.get("event") == "allowed"]
                except RuntimeError as exc:  # recorded per family; the run goes on
                    episodes[t.family] = exc
                    row = {"family": t.family, "webgauge": ours[t.family], "raised": str(exc)[:500]}
                t_ours, t_bgym = t_ours + (t1 - t0), t_bgym + (time.perf_counter() - t1)
                row.update(webgauge_s=round(t1 - t0, 1), browsergym_s=round(time.perf_counter() - t1, 1))
                with progress.open("a") as f:
                    f.write(json.dumps(row) + "\n")
        finally:
            driver.close()
            await env.close()
    failed = {f: str(e)[:500] for f, e in episodes.items() if isinstance(e, Exception)}
    eps = {f: e for f, e in episodes.items() if not isinstance(e, Exception)}
    disagree = {f: {"webgauge": ours[f], "browsergym": e.reward, "verdict": e.verdict, "errors": e.errors[:4],
                    "actions": e.actions} for f, e in eps.items() if e.reward != ours[f]}
    agree = len(eps) - len(disagree)
    summary = (f"agreement {agree}/{len(tasks)}; webgauge oracle solved {sum(ours.values()):.0f}/{len(tasks)} "
               f"in {t_ours:.0f} s; BrowserGym episodes {len(eps)} in {t_bgym:.0f} s "
               f"(median {sorted(e.seconds for e in eps.values())[len(eps) // 2]:.1f} s)")
    print(summary)
    record_numbers("browsergym", {"summary": summary, "agree": agree, "families": len(tasks),
                                  "raised": sorted(failed), "disagree": sorted(disagree),
                                  "approvals": {f: e.approvals for f, e in eps.items() if e.approvals}})
    assert not failed, f"{summary}; episodes that raised: {json.dumps(failed, indent=1)[:4000]}"
    assert not disagree, f"{summary}; disagreements: {json.dumps(disagree, indent=1)[:6000]}"
    # the agreement is not all zeros: the oracle really solves the tasks in BrowserGym's page
    assert sum(e.reward for e in eps.values()) >= len(tasks) - 2, summary
    # the gate: every irreversible control the oracle used in webgauge's own env it used through BrowserGym
    # too, each unlocked by an approval it asked for by the control's name; none refused
    for f, e in eps.items():
        allowed = [g["control"] for g in e.gate_events if g["outcome"] == "allowed"]
        assert allowed == gated[f], (f, allowed, gated[f], e.gate_events)
        assert not [g for g in e.gate_events if g["outcome"] == "blocked"], (f, e.gate_events)
        assert e.approvals == [f"approved: {c}" for c in allowed], (f, e.approvals, allowed)
    assert set(DESTRUCTIVE_FAMILIES) & set(eps) <= {f for f, c in gated.items() if c}, gated
    viewports = {r["family"]: (r["viewport"]["width"], r["viewport"]["height"]) for r in family_table()}
    scales = {r["family"]: float(r["viewport"].get("device_scale_factor", 1.0)) for r in family_table()}
    for f, e in eps.items():  # the observation is BrowserGym's own, with the objects AgentLab reads
        assert e.obs_keys["axtree_object"] and e.obs_keys["dom_object"] and e.axtree_nodes > 10, f
        assert e.goal, f
        # the page keeps the task's viewport through every step (see browsergym/webgauge/page_watch.py)
        assert e.viewports == {viewports[f]}, (f, e.viewports)
        # and its device scale factor: the screenshot has that many pixels per CSS pixel, as webgauge's
        w, h = viewports[f]
        assert e.screenshots == {(round(h * scales[f]), round(w * scales[f]))}, (f, e.screenshots, scales[f])
        assert e.pixel_ratios == {scales[f]}, (f, e.pixel_ratios)


def test_the_gate_through_browsergym_refuses_what_no_approval_unlocks():
    """``gate=True`` is enforced where the request lands: the oracle that does not ask is refused (its
    delete never happens, reward 0.0), and one that asks but is denied gets "denied: <control>" and no
    request through; neither leaves the user deleted. With the gate off nothing is asked or refused."""
    task = build_tasks((SEED,), families=["admin.delete_user"])[0]
    py = _python()
    with Service(slots=1) as svc:
        driver = Driver(py, svc.url)
        try:
            silent = asyncio.run(play_oracle_bgym(driver, task, gate=True, ask=False))
            denied = asyncio.run(play_oracle_bgym(driver, task, gate=True, approval="deny", step_cap=6))
            off = asyncio.run(play_oracle_bgym(driver, task))
        finally:
            driver.close()
    assert silent.reward == 0.0, (silent.verdict, silent.actions)
    assert [g["outcome"] for g in silent.gate_events] == ["blocked"], silent.gate_events
    assert silent.gate_events[0]["control"] == "Delete permanently" and not silent.approvals
    assert denied.approvals and set(denied.approvals) == {"denied: Delete permanently"}, denied.approvals
    assert all(g["outcome"] == "blocked" for g in denied.gate_events), denied.gate_events
    assert "send_msg_to_user('request_approval: Delete permanently')" in denied.actions, denied.actions
    assert denied.reward == 0.0, (denied.verdict, denied.actions)
    assert off.reward == 1.0 and not off.approvals and not off.gate_events, (off.verdict, off.approvals)


def test_the_first_answer_is_final_through_browsergym():
    """The package's verdict is sealed by the first message to the user: a right answer sent after a
    wrong one gets the wrong one's verdict back (0.0), and an approval request is no answer at all."""
    task = build_tasks((SEED,), families=["wiki.lookup"])[0]
    wrong = "7 days"
    assert task.answer is not None and wrong not in str(task.answer)
    with Service(slots=1) as svc:
        driver = Driver(_python(), svc.url)
        try:
            driver.call(op="reset", family=task.family, seed=task.seed, gate=True)
            asked = driver.call(op="step", action="send_msg_to_user('request_approval: Save')")
            first = driver.call(op="step", action=f"send_msg_to_user({wrong!r})")
            second = driver.call(op="step", action=f"send_msg_to_user({str(task.answer)!r})")
            driver.call(op="reset", family=task.family, seed=task.seed)
            right = driver.call(op="step", action=f"send_msg_to_user({str(task.answer)!r})")
        finally:
            driver.close()
    assert not asked["terminated"] and asked["task_info"]["approval"] == "approved: Save", asked["task_info"]
    assert (first["terminated"], first["reward"], second["terminated"], second["reward"]) == (True, 0.0, True, 0.0)
    assert second["task_info"]["verdict"] == first["task_info"]["verdict"], (first["task_info"], second["task_info"])
    assert second["task_info"]["answer"] == str(task.answer)  # read, and not judged again
    assert right["terminated"] and right["reward"] == 1.0, right["task_info"]  # the right answer, first: 1.0


#: The test's own probe in BrowserGym's page: every resize, and the viewport at every pointer press.
PROBE_JS = """(() => {
  if (window.__probe) return;
  const p = window.__probe = {resizes: [], downs: []};
  addEventListener('resize', () => p.resizes.push([innerWidth, innerHeight]));
  document.addEventListener('pointerdown', (e) => p.downs.push([innerWidth, innerHeight]), true);
})()"""

#: What a page script could check for a tampered page: its fetch/XHR functions and its globals.
NATIVE_JS = """() => ({
  fetch: Function.prototype.toString.call(window.fetch),
  send: Function.prototype.toString.call(XMLHttpRequest.prototype.send),
  open: Function.prototype.toString.call(XMLHttpRequest.prototype.open),
  globals: Object.getOwnPropertyNames(window).filter((n) => /^__(wg|webgauge)/i.test(n)),
})"""


def test_page_sees_nothing_of_the_package_and_keeps_its_viewport_through_a_drag():
    """The package's settle wait and screenshot leave the page as the browser made it: fetch and
    XMLHttpRequest are native and no global is added; and the page never changes size. BrowserGym's
    own screenshot detached a CDP session after each observation, which dropped the viewport
    emulation for a moment (two resize events an observation): a drag's mouse_down/mouse_up steps
    on a loaded machine then landed in the window's 780x493 layout, and board.triage got 0.0."""
    py = _python()
    task = build_tasks((SEED,), families=["board.triage"])[0]
    with Service(slots=1) as svc:
        driver = Driver(py, svc.url)
        try:
            driver.call(op="reset", family=task.family, seed=task.seed)
            seen = driver.call(op="page_eval", js=NATIVE_JS)["value"]
            for fn in ("fetch", "send", "open"):
                assert "[native code]" in seen[fn], (fn, seen[fn][:300])
            assert seen["globals"] == [], seen["globals"]
            driver.call(op="probe", js=PROBE_JS)
            ep = asyncio.run(play_oracle_bgym(driver, task))
            probe = driver.call(op="page_eval", js="() => window.__probe")["value"]
        finally:
            driver.close()
    assert ep.reward == 1.0, (ep.verdict, ep.errors, ep.actions)
    size = [task.viewport.width, task.viewport.height]
    assert probe["resizes"] == [], f"the page changed size during the episode: {probe['resizes'][:6]}"
    drags = sum(a.startswith("mouse_down") for a in ep.actions)
    assert drags >= 2 and len(probe["downs"]) >= drags, (drags, probe)
    assert all(d == size for d in probe["downs"]), (size, probe["downs"])
