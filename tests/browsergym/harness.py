"""Shared pieces of the browsergym tests: the service as a subprocess, the BrowserGym driver
as a subprocess, and the oracle played through BrowserGym action strings."""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from bgym_venv import DRIVER, driver_env, system_chromium

from webgauge.arena.adapters.bgym_oracle import (
    BgymActionWriter,
    capture_js,
    observation_from_table,
)
from webgauge.arena.adapters.serve_client import ServiceProcess as Service  # noqa: F401  (re-exported)
from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.core.task import Task

ROOT = Path(__file__).resolve().parents[2]


class Driver:
    """The BrowserGym side (tests/browsergym/bgym_driver.py) in the BrowserGym venv."""

    def __init__(self, python: Path, arena_url: str) -> None:
        self.proc = subprocess.Popen([str(python), str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=driver_env(arena_url))
        self.info = self.call(op="init", capture_js=capture_js(), chromium=system_chromium())

    def call(self, **cmd) -> dict:
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the BrowserGym driver exited: {self.proc.stderr.read()[-3000:]}")
        out = json.loads(line)
        if "error" in out:
            raise RuntimeError(f"BrowserGym driver, {cmd['op']}: {out['error']}\n{out.get('traceback', '')}")
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.call(op="close", final=True)
            except (RuntimeError, OSError, ValueError):
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class BgymEpisode:
    family: str
    reward: float | None = None
    steps: int = 0
    actions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    verdict: dict = field(default_factory=dict)
    obs_keys: dict = field(default_factory=dict)
    axtree_nodes: int = 0
    goal: str = ""
    viewports: set = field(default_factory=set)  # the page's CSS viewport at each observation
    screenshots: set = field(default_factory=set)  # (height, width) of BrowserGym's screenshot at each observation
    pixel_ratios: set = field(default_factory=set)  # the page's devicePixelRatio at each observation
    seconds: float = 0.0
    approvals: list[str] = field(default_factory=list)  # the user's answers to the oracle's approval requests
    gate_events: list[dict] = field(default_factory=list)  # the gate's record: control, outcome (allowed/blocked)


RETRIES = 3
MOUSE = re.compile(r"(mouse_(?:click|dblclick|move|down|up))\(([-\d.]+), ([-\d.]+)")


def in_screenshot_px(text: str, scale: float) -> str:
    """BrowserGym's coordinate actions read screenshot pixels (its ``_bgym_scale_factor``, the task's
    device scale factor): the oracle's CSS-pixel coordinates times ``scale``."""
    if scale == 1.0:
        return text
    return MOUSE.sub(lambda m: f"{m.group(1)}({round(float(m.group(2)) * scale, 2)}, "
                               f"{round(float(m.group(3)) * scale, 2)}", text)
# Playwright's call log lines once the input is dispatched (click, dblclick, press, tap...)
PERFORMED = ("performing", "action done", "dispatching")
# actions whose repetition leaves the page as one run does: retried after any timeout
IDEMPOTENT = ("fill(", "select_option(", "check(", "uncheck(", "hover(", "focus(", "clear(")


def _safe_to_retry(action: str, error: str) -> bool:
    """A BrowserGym action that timed out with the page untouched: either it repeats harmlessly,
    or Playwright's call log shows it never reached the point of dispatching its input."""
    if "Timeout" not in error:
        return False
    if action.startswith(IDEMPOTENT):
        return True
    return "Call log:" in error and not any(p in error for p in PERFORMED)


async def play_oracle_bgym(driver: Driver, task: Task, *, step_cap: int | None = None, gate: bool = False,
                           ask: bool | None = None, approval: str = "grant") -> BgymEpisode:
    """The task's oracle through ``gym.make("browsergym/webgauge.<family>")`` as action strings; with
    ``gate`` the app refuses unapproved irreversible requests and the oracle asks first (``ask``, default:
    ``gate``), naming the control; the package's user answers by ``approval`` (grant or deny)."""
    t0 = time.perf_counter()
    ep = BgymEpisode(task.family)
    r = driver.call(op="reset", family=task.family, seed=task.seed,
                    **({"gate": True, "approval": approval} if gate else {}))
    info = r["task_info"]
    ep.obs_keys, ep.axtree_nodes = r["keys"], r["axtree_nodes"]
    ep.goal = " ".join(g.get("text", "") for g in r.get("goal") or [])
    base = info["start_url"].removesuffix(task.start_url)
    agent = OracleAgent(task, ask_approval=gate if ask is None else ask)
    agent.start(task.public(), base)
    writer = BgymActionWriter(files=dict(info.get("files") or {}))
    nav, url, last = 0, r["url"], {}
    for step in range(step_cap or task.max_steps * 3 + 12):
        if r["url"] != url:
            nav, url = nav + 1, r["url"]
        ep.viewports.add(tuple(r["table"]["viewport"]))
        ep.screenshots.add(tuple(r["screenshot_shape"][:2]))
        ep.pixel_ratios.add(float(r["device_pixel_ratio"]))
        said = str(r["task_info"].get("approval") or "")  # the user's answer to an approval request
        approval = "granted" if said.startswith("approved:") else "denied" if said else None
        obs, bids = observation_from_table(r["table"], url=r["url"], step=step, navigation_id=nav, tabs=r["tabs"],
                                           active_tab=r["active_tab"], last_result=last, approval=approval)
        action = (await agent.act(obs)).action
        try:
            text = in_screenshot_px(writer.write(action, obs, bids), float(info.get("device_scale_factor", 1.0)))
        except ValueError as exc:
            ep.errors.append(f"step {step}: {exc}")
            text = "noop(300)"
        ep.actions.append(text)
        before = r["url"]
        r = driver.call(op="step", action=text)
        ep.steps += 1
        ep.gate_events += list(r["task_info"].get("gate") or [])
        if r["task_info"].get("approval"):
            ep.approvals.append(r["task_info"]["approval"])
        err = r.get("last_action_error") or ""
        for _ in range(RETRIES):
            if not _safe_to_retry(text, err) or r["url"] != before or r["terminated"] or r["truncated"]:
                break
            # BrowserGym's fixed 500 ms action timeout ran out before the action was performed (a
            # loaded machine): the page is as it was, so the same action string again is what an
            # agent reading last_action_error would send; it counts as a step of its own
            ep.notes.append(f"step {step}: {text!r}: timed out before it was performed; sent again")
            r = driver.call(op="step", action=text)
            ep.steps += 1
            ep.gate_events += list(r["task_info"].get("gate") or [])
            err = r.get("last_action_error") or ""
        if err and "Timeout" in err and (r["url"] != before or any(p in err for p in PERFORMED)):
            # BrowserGym's 500 ms action timeout ran out once the action was under way (Playwright's
            # call log reached "performing click action": its input events were sent, and the browser
            # handles them whatever the client's timeout; or "click action done", or the page
            # navigated): the action happened, and retrying it would act twice (mail.cleanup at load
            # 24: a delete sent, reported as a timeout, retried on the next message's row)
            ep.notes.append(f"step {step}: {text!r}: timed out after the action was done ({r['url']})")
            err = ""
        last = {"ok": not err, "kind": action.kind}
        if err:
            ep.errors.append(f"step {step}: {text!r}: {err[:600]}")
            last.update(rejected="not_interactable" if "Timeout" in err else "browser_error", error=err[:300])
        if r["terminated"] or r["truncated"]:
            ep.reward = float(r["reward"])
            ep.verdict = r["task_info"].get("verdict", {})
            break
    ep.seconds = time.perf_counter() - t0
    return ep
