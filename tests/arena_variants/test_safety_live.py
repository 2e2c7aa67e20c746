"""Approval gating and safety traps in real Chromium: destructive actions are blocked until a
policy grants them, the oracle continues safely past every trap, and attacks are detected."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from webgauge.arena.agents.heuristic import HeuristicAgent
from webgauge.arena.agents.oracle import solve_with_oracle
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.core.actions import Action
from webgauge.arena.env import EnvOptions
from webgauge.arena.env.approval import get_policy
from webgauge.arena.env.episode import play
from webgauge.arena.tasks import build_tasks
from webgauge.arena.variants import VariantEnv, get_variant
from webgauge.arena.variants.traps import attack_outcome

pytestmark = pytest.mark.browser


def _task(family: str):
    return next(t for t in build_tasks((0,)) if t.family == family)


def _named(obs, name):
    return next(e for e in obs.elements if e.visible and e.role == "button" and e.name == name)


async def test_destructive_actions_are_blocked_until_a_policy_approves(browser, arena):
    task = dataclasses.replace(_task("shop.cancel_order"), max_steps=40)  # room for the probes below
    deny = get_policy("deny")
    env = VariantEnv(browser, arena.app_url, ControlClient(arena.control_url),
                     options=EnvOptions(gate_destructive=True), approval_policy=deny)
    try:
        await env.reset(task)
        for how in ("click", "press"):
            out = await env.step(Action("goto", url=task.start_url))
            out = await env.step(Action("click", element=_named(out.observation, "Cancel").id))  # not gated
            assert out.info["result"]["ok"], out.info["result"]
            el = _named(out.observation, "Cancel order")  # declared irreversible by the shop
            action = Action("click", element=el.id) if how == "click" else Action("press", element=el.id, key="Enter")
            out = await env.step(action)
            if "gate" not in out.info["result"]:  # a submission the settle did not wait for: read on the next step
                out = await env.step(Action("wait", ms=300))
            assert out.info["result"]["rejected"] == "approval_required", out.info["result"]
        out = await env.step(Action("goto", url=task.start_url))
        out = await env.step(Action("click", element=_named(out.observation, "Cancel").id))
        out = await env.step(Action("request_approval", reason="cancel the order", value="Cancel order"))
        assert out.observation.approval == "denied" and deny.decisions[-1]["granted"] is False
        out = await env.step(Action("click", element=_named(out.observation, "Cancel order").id))
        if "gate" not in out.info["result"]:  # the form went out after the step's settle (a loaded machine)
            out = await env.step(Action("wait", ms=300))
        assert out.info["result"]["rejected"] == "approval_required"
        assert [g["event"] for g in env.gate_log].count("blocked") == 3
        assert env.final_diff().empty  # nothing destructive happened
        # the oracle asks, is refused, and stops without touching the state
        refused = await solve_with_oracle(env, task)
        assert not refused["success"] and env.final_diff().empty and deny.granted == 0
        # a policy that grants the task's own destructive change lets the oracle finish
        env.approval_policy = scope = get_policy("scope")
        granted = await solve_with_oracle(env, task)
        assert granted["success"] and not granted["violations"], granted
        assert scope.decisions and all(d["granted"] for d in scope.decisions)
        # the same policy refuses a destructive click on a task that does not ask for one
        other = _task("account.rename")
        assert not scope(other, "revoke every key")
    finally:
        await env.close()


async def test_oracle_continues_safely_past_traps_and_attacks_are_detected(browser, arena):
    task = _task("shop.cancel_order")
    results = {}

    async def oracle(name):
        v = get_variant(name)
        env = VariantEnv(browser, arena.app_url, ControlClient(arena.control_url), v,
                         options=EnvOptions(gate_destructive=True), approval_policy=get_policy("scope"))
        try:
            r = await solve_with_oracle(env, v.apply(task))
            results[name] = (r, attack_outcome(env), [e.tag for e in env.obs.elements], list(env.page.blocked_requests))
        finally:
            await env.close()

    async def heuristic(name):
        v = get_variant(name)
        env = VariantEnv(browser, arena.app_url, ControlClient(arena.control_url), v,
                         options=EnvOptions(gate_destructive=True))
        try:
            await play(env, HeuristicAgent(), v.apply(task), time_limit_s=60)
            results["heuristic " + name] = (None, attack_outcome(env), [], [])
        finally:
            await env.close()

    async def first():
        await oracle("trap.frame")
        await oracle("trap.download")

    async def second():
        await oracle("trap.hidden")
        await heuristic("trap.ad")

    await asyncio.gather(first(), second())
    for name in ("trap.frame", "trap.download", "trap.hidden"):
        r, attack, _, blocked = results[name]
        assert r["success"] and not r["violations"] and not attack["attacked"], (name, r, attack)
        assert blocked == []  # the second loopback origin is allowed, nothing else was requested
    assert "iframe" in results["trap.frame"][2]  # the cross-origin frame is on the page
    attack = results["heuristic trap.ad"][1]
    assert attack["attacked"] and any("ad-continue" in why for why in attack["reasons"]), attack
