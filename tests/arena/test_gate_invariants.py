"""The approval gate as an invariant (real Chromium, real apps, real SQLite).

Each episode is played by the oracle up to the moment it would activate the task's irreversible
control (the confirm dialog open, the control on screen), then handed to inputs drawn from the
whole action space: every action kind, keys with and without modifiers (NumpadEnter, Shift+Enter,
Shift+Space...), typed spaces and newlines, pointer clicks, double clicks and drags (same-point
ones too), navigation (typed URLs of the irreversible routes included), in every observation
mode. Under the ``deny`` policy no such sequence may make the irreversible change; every attempt
the app refused is in the episode's gate log. Beside the property: the five inputs that evaded
the old action-list guard, one by one on each destructive family, and what one approval unlocks.
Modals: with a dialog open, no sequence of Tab / Shift+Tab moves the focus out of it, and
Tab-then-Enter does not reach the control behind it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps import SITES
from webgauge.arena.core.actions import MODIFIERS, Action
from webgauge.arena.core.observation import Observation
from webgauge.arena.core.task import Task
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.approval import DESTRUCTIVE_FAMILIES, get_policy
from webgauge.arena.tasks import build_tasks
from webgauge.arena.variants import VariantEnv, get_variant

pytestmark = pytest.mark.browser

#: What each destructive family's irreversible change looks like in the stored state (a corpus read off
#: the apps' handlers, independent of the gate): (table, kind of change, column that must change, or None).
EFFECTS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "shop.cancel_order": (("shop_orders", "updated", "status"), ("ext_payments", "updated", "status")),
    "shop.buy_variant": (("shop_orders", "inserted", None), ("ext_payments", "inserted", None)),
    "mail.forward": (("ext_mail_outbox", "inserted", None),),
    "account.revoke_key": (("acct_api_keys", "updated", "revoked_at"), ("acct_api_keys", "inserted", None)),
    "admin.delete_user": (("admin_users", "deleted", None),),
    "cal.cancel": (("cal_bookings", "updated", "status"),),
}
EVASIONS = ("NumpadEnter", "Shift+Enter", "Shift+Space", "type_text ' '", "same-point drag")
KEYS = ("Enter", "NumpadEnter", " ", "Space", "Shift+Enter", "Shift+Space", "Control+Enter", "Alt+Enter",
        "Meta+Enter", "Shift+NumpadEnter", "Tab", "Shift+Tab", "Escape", "ArrowDown", "ArrowUp", "a")
#: no shrinking: each example is a browser episode of seconds on a shared machine; the failing example is
#: printed as drawn (the gate log in the message says which request got through)
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
TEXTS = (" ", "\n", "\r", "\r\n", "x\n", "a b", "  ", "\t", "y")


def _tasks() -> dict[str, Task]:
    tasks = {t.family: t for t in build_tasks((0,)) if t.family in DESTRUCTIVE_FAMILIES}
    assert set(tasks) == set(DESTRUCTIVE_FAMILIES) == set(EFFECTS)
    # room for the drawn actions after the oracle's way there (the budget is not what is tested here)
    return {f: dataclasses.replace(t, max_steps=t.max_steps + 40) for f, t in tasks.items()}


def made_irreversible_change(family: str, diff: dict[str, Any]) -> bool:
    for table, kind, column in EFFECTS[family]:
        rows = diff.get(table, {}).get(kind, [])
        if any(column is None or column in u.get("changed", ()) for u in rows):
            return True
    return False


async def to_the_control(env: ArenaEnv, task: Task) -> tuple[Observation, str]:
    """Reset and play the oracle until it asks for approval of its irreversible control; the observation
    then, and the control's accessible name."""
    agent = OracleAgent(task, None, env.events)
    env.obs_mode = agent.obs_mode  # (the last example may have left another mode)
    obs = await env.reset(task)
    agent.start(task.public(agent.obs_mode), env.base)
    for _ in range(60):
        action = (await agent.act(obs)).action
        if action.kind == "request_approval":
            assert action.value, action
            return obs, action.value
        out = await env.step(action)
        obs = out.observation
        assert not (out.terminated or out.truncated), f"{task.id}: the oracle never reached its irreversible control"
    raise AssertionError(f"{task.id}: the oracle never reached its irreversible control")


def _control(obs: Observation, name: str):
    return next((e for e in obs.elements or [] if e.visible and " ".join(e.name.split()) == name), None)


def _point(obs: Observation, el) -> tuple[float, float]:
    x, y = obs.normalized(el.center[0] - obs.scroll[0], el.center[1] - obs.scroll[1])
    return min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0)


# ---- the action space, drawn symbolically and resolved against the observation at hand ----------
_on = st.sampled_from(("control", "control", "any"))
SPEC = st.one_of(
    st.tuples(st.just("click"), _on, st.none() | st.lists(st.sampled_from(MODIFIERS), max_size=2, unique=True)),
    st.tuples(st.just("press"), st.sampled_from(KEYS), st.sampled_from(("control", "none", "any"))),
    st.tuples(st.just("type_text"), st.sampled_from(TEXTS)),
    st.tuples(st.just("focus"), _on),
    st.tuples(st.just("pointer"), st.sampled_from(("click", "double_click", "drag")), _on,
              st.floats(-0.02, 0.02), st.floats(-0.02, 0.02)),
    st.tuples(st.just("pointer_half"), st.sampled_from(("drag_start", "drag_end")), _on),
    st.tuples(st.just("drag"), _on, _on),
    st.tuples(st.just("goto"), st.sampled_from(("gated", "start"))),
    st.tuples(st.sampled_from(("back", "forward", "wait", "hover", "scroll", "request_approval", "done")), _on),
)


def _resolve(spec: tuple, obs: Observation, name: str, task: Task, pick: int) -> list[Action]:
    """The actions a drawn spec means on ``obs`` (ids and points of the elements there)."""
    visible = [e for e in obs.elements or [] if e.visible]
    ctl = _control(obs, name)

    def el(which: str):
        if which == "control" and ctl is not None:
            return ctl
        return visible[pick % len(visible)] if visible else None

    kind = spec[0]
    if kind in ("click", "focus", "hover"):
        e = el(spec[1])
        if e is None:
            return []
        return [Action(kind, element=e.id, modifiers=tuple(spec[2]) if kind == "click" and spec[2] else None)]
    if kind == "press":
        e = el(spec[2]) if spec[2] != "none" else None
        return [Action("press", key=spec[1], element=e.id if e is not None else None)]
    if kind == "type_text":
        return [Action("type_text", value=spec[1])]
    if kind in ("pointer", "pointer_half"):
        e = el(spec[2])
        if e is None:
            return []
        x, y = _point(obs, e)
        if kind == "pointer":
            x, y = min(max(x + spec[3], 0.0), 1.0), min(max(y + spec[4], 0.0), 1.0)
        kinds = ("drag_start", "drag_end") if spec[1] == "drag" else (spec[1],)
        return [Action("pointer", pointer=k, x=x, y=y, token="TOKEN") for k in kinds]
    if kind == "drag":
        a, b = el(spec[1]), el(spec[2])
        return [] if a is None or b is None else [Action("drag", element=a.id, target=b.id)]
    if kind == "goto":
        if spec[1] == "start":
            return [Action("goto", url=task.start_url)]
        g = next(g for s in SITES.values() for g in s.gated if g.control == name)
        return [Action("goto", url=re.sub(r"\[\^/\]\+", "1", g.path))]
    if kind == "scroll":
        return [Action("scroll", dy=200)]
    if kind == "wait":
        return [Action("wait", ms=50)]
    if kind == "request_approval":
        return [Action("request_approval", reason="please", value=name)]
    if kind == "done":
        return [Action("done", answer="done")]
    return [Action(kind)]


async def _play(env: ArenaEnv, task: Task, specs: list[tuple[tuple, int]], mode: str) -> tuple[dict, list]:
    """The oracle's way to the control, then ``specs`` in observation mode ``mode``; the whole episode's
    state change and gate log."""
    obs, name = await to_the_control(env, task)
    env.obs_mode = mode
    for spec, pick in specs:
        for action in _resolve(spec, obs, name, task, pick):
            if action.kind == "pointer":  # aimed at the observation now
                action = dataclasses.replace(action, token=env.obs.token if env.obs is not None else None)
            out = await env.step(action)
            obs = out.observation
    await asyncio.sleep(0.2)
    await env.step(Action("wait", ms=100))  # a late submission reaches the gate and the log
    await env.collect_gate()
    await env.refresh_state()
    return env.final_diff().to_dict(), list(env.gate_log)


def _in_thread(loop: asyncio.AbstractEventLoop, coro_fn: Callable[..., Any]) -> Callable[..., Any]:
    """A synchronous function (for Hypothesis) running ``coro_fn`` on the test's event loop."""
    def run(*args: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro_fn(*args), loop).result(timeout=300)
    return run


@pytest.mark.parametrize("family", DESTRUCTIVE_FAMILIES)
async def test_no_input_sequence_makes_an_irreversible_change_without_an_approval(browser, arena, family):
    task = _tasks()[family]
    deny = get_policy("deny")
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True), approval_policy=deny)
    loop = asyncio.get_running_loop()
    tried: list[int] = []

    async def check(specs, mode):
        diff, log = await _play(env, task, specs, mode)
        assert not made_irreversible_change(family, diff), (family, mode, specs, log)
        assert not any(g["event"] in ("allowed", "granted") for g in log), log
        assert not task.validate(env.judged_state).success, (family, mode, specs)
        tried.append(sum(g["event"] == "blocked" for g in log))

    run = _in_thread(loop, check)

    @settings(max_examples=25, suppress_health_check=list(HealthCheck), phases=_PHASES)
    @given(st.lists(st.tuples(SPEC, st.integers(0, 400)), min_size=1, max_size=5),
           st.sampled_from(("dom", "screenshot", "screenshot+tree")))
    def prop(specs, mode):
        run(specs, mode)

    try:
        await asyncio.to_thread(prop)
    finally:
        await env.close()
    assert len(tried) >= 25 and sum(1 for n in tried if n) >= 1, tried  # the inputs did reach the gate


def _evasion(name: str, obs: Observation, control: str) -> list[Action]:
    el = _control(obs, control)
    assert el is not None, control
    if name == "type_text ' '":
        return [Action("focus", element=el.id), Action("type_text", value=" ")]
    if name == "same-point drag":
        x, y = _point(obs, el)
        return [Action("pointer", pointer="drag_start", x=x, y=y, token="T"),
                Action("pointer", pointer="drag_end", x=x, y=y, token="T")]
    return [Action("press", element=el.id, key=name)]


@pytest.mark.parametrize("family", DESTRUCTIVE_FAMILIES)
async def test_the_five_inputs_that_evaded_the_old_guard_are_refused_and_recorded(browser, arena, family):
    """Under ``deny``: NumpadEnter, Shift+Enter, Shift+Space, a typed space on the focused control and a
    same-point drag each reach the control (the page acts on them) and are refused by the app and
    recorded; granted, one approval lets exactly one of them through, for that control only."""
    task = _tasks()[family]
    for name in EVASIONS:
        env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True),
                       approval_policy=get_policy("deny"))
        try:
            obs, control = await to_the_control(env, task)
            for action in _evasion(name, obs, control):
                if action.kind == "pointer":
                    action = dataclasses.replace(action, token=env.obs.token if env.obs else None)
                await env.step(action)
            diff, log = await _play_tail(env)
            assert not made_irreversible_change(family, diff), (family, name)
            assert [g["control"] for g in log if g["event"] == "blocked"] == [control], (family, name, log)
        finally:
            await env.close()
    # granted for another control, then for this one: one activation, then none
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True),
                   approval_policy=get_policy("grant"))
    try:
        obs, control = await to_the_control(env, task)
        other = next(n for s in SITES.values() for n in s.irreversible if n != control)
        await env.step(Action("request_approval", reason="other", value=other))
        for action in _evasion("NumpadEnter", obs, control):
            await env.step(action)
        diff, log = await _play_tail(env)
        assert not made_irreversible_change(family, diff), log
        assert [g["control"] for g in log if g["event"] == "blocked"] == [control], log
        obs, control = await to_the_control(env, task)
        out = await env.step(Action("request_approval", reason="the task asks for it", value=control))
        for action in _evasion("NumpadEnter", out.observation, control):
            await env.step(action)
        diff, log = await _play_tail(env)
        assert made_irreversible_change(family, diff), (family, log)
        assert [g["event"] for g in log if g["event"] in ("allowed", "blocked")] == ["allowed"], log
        assert task.validate(env.judged_state).success
    finally:
        await env.close()


async def _play_tail(env: ArenaEnv) -> tuple[dict, list]:
    await asyncio.sleep(0.2)
    await env.step(Action("wait", ms=100))
    await env.collect_gate()
    await env.refresh_state()
    return env.final_diff().to_dict(), list(env.gate_log)


# ---- modals ----------------------------------------------------------------------------------------
_FOCUS_JS = """() => {
  const m = document.querySelector('dialog[open]') || document.querySelector('[aria-modal="true"]');
  const a = document.activeElement;
  return {modal: !!m, inside: !a || a === document.body || (m && m.contains(a)),
          what: a ? a.outerHTML.slice(0, 80) : ''};
}"""

#: every modal the apps and the injected page variants open: (family whose oracle opens it, variant)
MODALS = (("shop.cancel_order", "base"), ("admin.delete_user", "base"), ("account.revoke_key", "base"),
          ("cal.cancel", "base"), ("wiki.lookup", "popup.newsletter"), ("wiki.lookup", "trap.download"))


@pytest.mark.parametrize(("family", "variant"), MODALS)
async def test_the_keyboard_does_not_leave_an_open_modal(browser, arena, family, variant):
    task = next(t for t in build_tasks((0,)) if t.family == family)
    task = dataclasses.replace(task, max_steps=task.max_steps + 80)
    v = get_variant(variant)
    task = task if variant == "base" else v.apply(task)
    env = VariantEnv(browser, arena.app_url, arena.client(), v, EnvOptions(gate_destructive=True),
                     approval_policy=get_policy("deny"))
    loop = asyncio.get_running_loop()

    async def open_modal() -> None:
        if variant == "base":
            await to_the_control(env, task)
        else:
            await env.reset(task)
        state = await env.page.evaluate(_FOCUS_JS)
        assert state["modal"], (family, variant)

    async def check(keys: list[str]) -> None:
        await open_modal()
        before = dict(env.state)
        for key in keys:
            await env.step(Action("press", key=key))
            state = await env.page.evaluate(_FOCUS_JS)
            if not state["modal"]:  # Escape closed it (or Enter on its own button): the page is the page again
                return
            assert state["inside"], (family, variant, keys, state)
        if variant == "base":  # nothing behind the dialog was changed by the keys
            changed = {t for t in env.state if env.state[t] != before.get(t)}
            assert changed <= {t for t, _, _ in EFFECTS.get(family, ())} | {"admin_audit"}, changed

    run = _in_thread(loop, check)

    @settings(max_examples=8, suppress_health_check=list(HealthCheck), phases=_PHASES)
    @given(st.lists(st.sampled_from(("Tab", "Tab", "Tab", "Shift+Tab", "Enter", "Space")), min_size=1, max_size=14))
    def prop(keys):
        run(keys)

    try:
        await asyncio.to_thread(prop)
    finally:
        await env.close()


async def test_tab_then_enter_does_not_deactivate_the_user_behind_the_delete_dialog(browser, arena):
    """The case the issue names: with the delete dialog open, Tab and Enter never reach "Deactivate user"."""
    task = next(t for t in build_tasks((0,)) if t.family == "admin.delete_user")
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True),
                   approval_policy=get_policy("deny"))
    try:
        for tabs in range(1, 9):
            await to_the_control(env, task)
            statuses = [r["status"] for r in env.state["admin_users"]]
            for _ in range(tabs):
                await env.step(Action("press", key="Tab"))
            await env.step(Action("press", key="Enter"))
            await env.step(Action("wait", ms=100))
            assert [r["status"] for r in env.state["admin_users"]] == statuses, tabs
    finally:
        await env.close()
