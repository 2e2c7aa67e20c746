"""Irreversible controls are declared by each app, and exactly those are gated (real Chromium)."""

from __future__ import annotations

import asyncio
import re

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


def test_every_declared_control_names_the_requests_that_carry_it_out():
    """The server gates requests, so each declared control must say which requests it sends."""
    for site in SITES.values():
        assert {g.control for g in site.gated} == set(site.irreversible), site.name
        for g in site.gated:
            assert g.path.startswith(site.prefix + "/"), (site.name, g)


_POST = """async ([url, json]) => { const r = await fetch(url, {method: 'POST', headers: {'Content-Type':
  json ? 'application/json' : 'application/x-www-form-urlencoded'}, body: json ? '{}' : 'x=1'});
  return r.status; }"""


@pytest.mark.browser
async def test_a_direct_post_to_every_gated_route_is_refused_and_recorded(browser, arena):
    """No page control at all: the page's own script posts straight to each irreversible route (as a
    typed URL, a crafted form or an injected script would). The server refuses every one without an
    approval and records it; an undeclared write route is not gated; a granted approval for one control
    unlocks one request of that control only."""
    task = next(t for t in build_tasks((0,)) if t.family == "wiki.lookup")
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True),
                   approval_policy=get_policy("grant"))
    try:
        await env.reset(task)
        await env.step(Action("wait", ms=0))  # the gate is set for the episode
        for site in SITES.values():
            for g in site.gated:
                path = re.sub(r"\[\^/\]\+", "1", g.path)
                for as_json in (False, True):
                    status = await env.page.evaluate(_POST, [env.base + path, as_json])
                    assert status == 403, (site.name, g.control, path, status)
        out = await env.step(Action("wait", ms=0))
        blocked = [e for e in out.info["result"]["gate"] if e["outcome"] == "blocked"]
        assert len(blocked) == 2 * sum(len(s.gated) for s in SITES.values())
        assert out.info["result"]["rejected"] == "approval_required"
        assert await env.page.evaluate(_POST, [env.base + "/shop/cart/promo", False]) != 403  # not gated
        # one approval, one control, one request
        await env.step(Action("request_approval", reason="revoke", value="Revoke key"))
        assert await env.page.evaluate(_POST, [env.base + "/account/keys/1/rotate", False]) == 403  # another control
        assert await env.page.evaluate(_POST, [env.base + "/account/keys/1/revoke", False]) != 403
        assert await env.page.evaluate(_POST, [env.base + "/account/keys/2/revoke", False]) == 403  # used up
        out = await env.step(Action("wait", ms=0))
        assert [e["outcome"] for e in out.info["result"]["gate"]] == ["blocked", "allowed", "blocked"]
        # an approval not used by the step after it lapses when the next step begins
        await env.step(Action("request_approval", reason="revoke", value="Revoke key"))
        await env.step(Action("wait", ms=0))
        await env.step(Action("wait", ms=0))
        assert [g["event"] for g in env.gate_log[-2:]] == ["granted", "lapsed"]
        assert await env.page.evaluate(_POST, [env.base + "/account/keys/3/revoke", False]) == 403
    finally:
        await env.close()


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
    """A pointer click lands on the topmost element at its point, and the step's record names that
    element: a deeper element drawn beneath an irreversible control is not taken for the target."""
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
        assert res["target"]["destructive"] is True and res["target"]["name"] == site.irreversible[0], res
        assert await env.page.evaluate("() => window.__clicked || []") == ["top-ctl"]
        # the part of the box below that sticks out is not the control: a click there is not gated
        obs = out.observation
        ux, uy = obs.normalized(under.box[0] + 4 - obs.scroll[0], under.box[1] + 4 - obs.scroll[1])
        out = await env.step(Action("pointer", pointer="click", x=ux, y=uy, token=obs.token))
        assert out.info["result"]["ok"] and out.info["result"]["target"]["destructive"] is False, out.info["result"]
    finally:
        await env.close()


@pytest.mark.browser
async def test_enter_in_a_field_submits_the_form_and_meets_the_gate(browser, arena):
    """Enter in the compose form's field submits it (implicit submission, no click on Send): the app
    refuses the send without an approval and records it; granted, the same Enter sends once."""
    task = next(t for t in build_tasks((0,)) if t.family == "mail.forward")
    for policy in ("deny", "grant"):
        env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True),
                       approval_policy=get_policy(policy))
        try:
            await env.reset(task)
            obs = (await env.step(Action("goto", url="/mail/compose"))).observation
            field = next(e for e in obs.elements if e.tag == "input" and e.visible and e.attrs.get("type") != "hidden")
            await env.step(Action("fill", element=field.id, value="someone@corp.example"))
            if policy == "grant":
                await env.step(Action("request_approval", reason="send", value="Send"))
            out = await env.step(Action("press", element=field.id, key="Enter"))
            outcomes = [e["outcome"] for e in out.info["result"].get("gate", [])]
            assert outcomes == (["blocked"] if policy == "deny" else ["allowed"]), out.info["result"]
            sent = [r for r in env.state["mail_messages"] if r["folder"] == "sent"]
            seed_sent = [r for r in env.seed_state["mail_messages"] if r["folder"] == "sent"]
            assert len(sent) == len(seed_sent) + (policy == "grant")
        finally:
            await env.close()
