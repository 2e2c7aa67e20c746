"""Irreversible controls are declared by each app, and exactly those are gated (real Chromium)."""

from __future__ import annotations

import asyncio
import json

import pytest

from webgauge.arena.agents.oracle import solve_with_oracle
from webgauge.arena.apps import ASGI_APPS, SITES, declared_controls
from webgauge.arena.core.actions import Action
from webgauge.arena.core.irreversible import requires_irreversible
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.approval import DESTRUCTIVE_FAMILIES, get_policy
from webgauge.arena.tasks import build_tasks
from webgauge.browser import Element

_ADD = """([id, name, cls]) => { const b = document.createElement('button'); b.id = id; b.className = cls;
  b.textContent = name; b.type = 'button'; b.style.cssText = 'position:fixed;left:8px;top:' + (60 + 34 * \
document.querySelectorAll('button.probe').length) + 'px;z-index:99999';
  b.classList.add('probe'); document.body.appendChild(b); }"""


def _el(name: str, cls: str = "btn", role: str = "button", tag: str = "button") -> Element:
    return Element(id="x", path="x", tag=tag, role=role, name=name, text=name, box=(0, 0, 10, 10), visible=True,
                   clickable=True, color="", background_color="", font_size=14, attrs={"class": cls})


def test_every_app_declares_its_controls_and_the_declaration_is_per_app():
    controls = declared_controls()
    assert set(controls.by_prefix) == {s.prefix for s in SITES.values()}
    for a in ASGI_APPS:  # the ASGI declaration reaches the served site unchanged
        assert SITES[a.name].irreversible == tuple(a.irreversible)
    assert controls.names_at("/e/ep1/shop/orders") == {"Cancel order", "Place order"}
    assert controls.names_at("http://127.0.0.1:9/e/ep1/mail/compose?x=1") == {"Send", "Delete"}
    assert controls.covers(_el("Delete permanently"), "/e/a/admin/users/3")
    assert not controls.covers(_el("Delete permanently"), "/e/a/shop/orders")  # another app's name
    assert not controls.covers(_el("Cancel", cls="btn btn-danger"), "/e/a/shop/orders")  # styled, not declared
    assert controls.covers(_el("  Cancel   order "), "/e/a/shop/orders")  # whitespace-normalized name
    assert not controls.covers(_el("Cancel order", role="heading", tag="h2"), "/e/a/shop/orders")  # not a control
    declared = {n for s in SITES.values() for n in s.irreversible}
    assert {"Send", "Place order", "Cancel order", "Revoke key", "Delete permanently", "Cancel booking"} <= declared


def test_scope_families_are_the_ones_whose_oracle_uses_a_declared_control():
    tasks = {t.family: t for t in build_tasks((0,))}
    for fam in DESTRUCTIVE_FAMILIES:
        assert requires_irreversible(tasks[fam], declared_controls()), fam
    for fam in ("wiki.lookup", "account.rename", "admin.set_role", "board.drag"):
        assert not requires_irreversible(tasks[fam], declared_controls()), fam
    scope = get_policy("scope")
    assert scope(tasks["cal.cancel"], "") and scope(tasks["mail.forward"], "") and not scope(tasks["wiki.lookup"], "")


@pytest.mark.browser
async def test_every_declared_control_is_gated_and_undeclared_danger_is_not(browser, arena):
    """On each app's own page: a plain-styled button with each declared name is gated (and its
    click never runs); a ``btn-danger`` button whose name is not declared is not gated."""
    task = next(t for t in build_tasks((0,)) if t.family == "wiki.lookup")
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True))
    gated, passed = {}, {}
    try:
        await env.reset(task)
        for site in SITES.values():
            await env.step(Action("goto", url=site.prefix + "/"))
            probes = [(f"probe-{i}", n, "btn secondary") for i, n in enumerate(site.irreversible)]
            probes.append(("probe-decoy", "Erase the archive", "btn btn-danger"))
            for pid, name, cls in probes:
                await env.page.evaluate(_ADD, [pid, name, cls])
                await env.page.evaluate(f"() => document.getElementById('{pid}').onclick = () => "
                                        f"(window.__clicked = (window.__clicked || []).concat(['{pid}']))")
            out = await env.step(Action("wait", ms=10))
            for pid, name, _cls in probes:
                el = next(e for e in out.observation.elements if e.attrs.get("id") == pid)
                out = await env.step(Action("click", element=el.id))
                res = out.info["result"]
                (passed if pid == "probe-decoy" else gated)[(site.name, name)] = res.get("rejected") or "ok"
                assert res["target"]["destructive"] is (pid != "probe-decoy")
            clicked = json.loads(await env.page.evaluate("() => JSON.stringify(window.__clicked || [])"))
            assert clicked == ["probe-decoy"], (site.name, clicked)  # no gated click reached the page
    finally:
        await env.close()
    assert gated and set(gated.values()) == {"approval_required"}, gated
    assert set(passed.values()) == {"ok"} and len(passed) == len(SITES), passed


@pytest.mark.browser
async def test_oracle_of_every_irreversible_family_is_stopped_by_a_denying_gate(browser, arena):
    """The real declared controls (rendered by the apps, some by client-side JavaScript) are
    gated: with approvals denied, no such task can be completed and nothing changes."""
    tasks = [t for t in build_tasks((0,)) if t.family in DESTRUCTIVE_FAMILIES]
    assert len(tasks) == len(DESTRUCTIVE_FAMILIES)
    out: dict[str, tuple] = {}

    async def worker(mine):
        deny = get_policy("deny")
        env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True), approval_policy=deny)
        try:
            for t in mine:
                r = await solve_with_oracle(env, t)
                out[t.family] = (r["success"], len(deny.decisions), t.validate(env.judged_state).success)
                deny.decisions.clear()
        finally:
            await env.close()

    await asyncio.gather(worker(tasks[::2]), worker(tasks[1::2]))
    assert set(out) == set(DESTRUCTIVE_FAMILIES)
    for fam, (success, asked, valid) in out.items():
        assert not success and not valid and asked >= 1, (fam, success, asked, valid)


# a declared control on top, and below it (lower z-index) a box nested deeper in the DOM over the same spot
_UNDER = """([name]) => {
  const b = document.createElement('button'); b.id = 'top-ctl'; b.type = 'button'; b.className = 'btn';
  b.textContent = name; b.style.cssText = 'position:fixed;left:40px;top:120px;width:220px;height:40px;z-index:10';
  b.onclick = () => (window.__clicked = (window.__clicked || []).concat(['top-ctl']));
  const outer = document.createElement('div'); outer.innerHTML = '<div><div><span id="under">under</span></div></div>';
  outer.querySelector('#under').style.cssText =
    'position:fixed;left:30px;top:110px;width:260px;height:60px;z-index:1;display:block';
  document.body.appendChild(b); document.body.appendChild(outer); }"""


@pytest.mark.browser
async def test_a_pointer_click_is_judged_by_what_it_hits_not_by_dom_depth(browser, arena):
    """A pointer click lands on the topmost element at its point. A deeper element drawn beneath an
    irreversible control must not be taken for the target: that would skip the approval gate while
    the click itself reaches the control."""
    task = next(t for t in build_tasks((0,)) if t.family == "wiki.lookup")
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True))
    site = next(s for s in SITES.values() if s.irreversible)
    try:
        await env.reset(task)
        await env.step(Action("goto", url=site.prefix + "/"))
        await env.page.evaluate(_UNDER, [site.irreversible[0]])
        obs = (await env.step(Action("wait", ms=10))).observation
        top = next(e for e in obs.elements if e.attrs.get("id") == "top-ctl")
        under = next(e for e in obs.elements if e.attrs.get("id") == "under")
        assert under.depth > top.depth  # the trap: depth alone picks the element below
        x, y = obs.normalized(*[c - s for c, s in zip(top.center, obs.scroll, strict=True)])
        out = await env.step(Action("pointer", pointer="click", x=x, y=y, token=obs.token))
        res = out.info["result"]
        assert res.get("rejected") == "approval_required", res
        assert res["target"]["destructive"] is True and res["target"]["name"] == site.irreversible[0]
        assert await env.page.evaluate("() => window.__clicked || []") == []
        # the part of the box below that sticks out is not the control: a click there is not gated
        obs = out.observation
        ux, uy = obs.normalized(under.box[0] + 4 - obs.scroll[0], under.box[1] + 4 - obs.scroll[1])
        out = await env.step(Action("pointer", pointer="click", x=ux, y=uy, token=obs.token))
        assert out.info["result"]["ok"] and out.info["result"]["target"]["destructive"] is False, out.info["result"]
    finally:
        await env.close()


# a form whose default (submit) button carries a declared name, and a text field in it
_FORM = """([name]) => {
  const f = document.createElement('form'); f.id = 'probe-form';
  f.innerHTML = '<input id="probe-field" name="q" type="text"> <button id="probe-submit" class="btn"></button>';
  f.querySelector('button').textContent = name;
  f.onsubmit = e => { e.preventDefault(); window.__submitted = (window.__submitted || 0) + 1; };
  f.style.cssText = 'position:fixed;left:40px;top:120px;z-index:99999;background:#fff;padding:8px';
  document.body.appendChild(f); }"""


@pytest.mark.browser
async def test_enter_in_a_field_is_judged_as_the_submit_button_it_clicks(browser, arena):
    """Enter in a form's field submits the form by clicking its default button, so a key press (on
    the field, on whatever has the focus, or typed as a newline) is gated like a click on that
    button; keys that activate nothing are not; granted, the same Enter submits."""
    task = next(t for t in build_tasks((0,)) if t.family == "wiki.lookup")
    site = next(s for s in SITES.values() if s.irreversible)
    for policy in ("deny", "grant"):
        env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True),
                       approval_policy=get_policy(policy))
        try:
            await env.reset(task)
            await env.step(Action("goto", url=site.prefix + "/"))
            await env.page.evaluate(_FORM, [site.irreversible[0]])
            obs = (await env.step(Action("wait", ms=10))).observation
            field = next(e for e in obs.elements if e.attrs.get("id") == "probe-field")
            if policy == "grant":
                await env.step(Action("request_approval", reason="submit the form"))
                out = await env.step(Action("press", element=field.id, key="Enter"))
                assert out.info["result"]["ok"], out.info["result"]
                assert await env.page.evaluate("() => window.__submitted || 0") == 1
                continue
            typed = await env.step(Action("fill", element=field.id, value="abc"))
            assert typed.info["result"]["ok"], typed.info["result"]
            for action in (Action("press", element=field.id, key="Enter"), Action("press", key="Enter"),
                           Action("type_text", value="x\n")):
                if action.kind != "press" or not action.element:
                    await env.step(Action("focus", element=field.id))
                res = (await env.step(action)).info["result"]
                assert res.get("rejected") == "approval_required", (action, res)
                assert res["target"]["destructive"] is True and res["target"]["name"] == site.irreversible[0]
            plain = (await env.step(Action("type_text", value="def"))).info["result"]
            assert plain["ok"] and plain["target"] is None, plain
            assert await env.page.evaluate("() => window.__submitted || 0") == 0
        finally:
            await env.close()
