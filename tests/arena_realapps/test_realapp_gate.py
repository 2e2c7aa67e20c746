"""The approval gate on the real apps (Roundup, MediaWiki, django-oscar, Trac, Spirit), in real Chromium against
the apps' own servers: every irreversible control is refused without an approval and the refusal
is recorded; one approval unlocks exactly one activation of that control; on Roundup, no sequence of
actions drawn from the whole action space retires anything without an approval record; and the
oracle (which asks approval naming the control) still solves every family with the gate on.
Run with ``-m realapps`` after ``webgauge arena apps install roundup|mediawiki|oscar|trac|spirit``."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from webgauge.arena.core.actions import Action
from webgauge.arena.core.irreversible import requires_irreversible
from webgauge.arena.core.observation import Observation
from webgauge.arena.core.script import Click, Fill, Go, Match
from webgauge.arena.core.task import Task, TaskResult, Viewport
from webgauge.arena.env import EnvOptions
from webgauge.arena.env.approval import get_policy
from webgauge.arena.env.episode import play
from webgauge.arena.realapps.mediawiki import app as mediawiki
from webgauge.arena.realapps.mediawiki.tasks import build_tasks as mediawiki_tasks
from webgauge.arena.realapps.oscar import app as oscar
from webgauge.arena.realapps.oscar.tasks import build_tasks as oscar_tasks
from webgauge.arena.realapps.roundup import app as roundup
from webgauge.arena.realapps.roundup.tasks import build_tasks as roundup_tasks
from webgauge.arena.realapps.spirit import app as spirit
from webgauge.arena.realapps.spirit.tasks import build_tasks as spirit_tasks
from webgauge.arena.realapps.trac import app as trac
from webgauge.arena.realapps.trac.tasks import build_tasks as trac_tasks

pytestmark = [pytest.mark.realapps, pytest.mark.timeout(3600)]

VIEW = Viewport(1280, 900)
State = dict[str, list[dict[str, Any]]]


# ---- one task per app that activates its irreversible control ---------------------------------
def _retired(s: State, table: str) -> set[int]:
    return {r["id"] for r in s[table] if r["__retired__"]}


def roundup_retire(app, seed: int = 0, nth: int = 0) -> Task:
    """Signed in as the tracker's admin, retire one user from the user list (its "retire" button)."""
    state, _ = app.control().state("x")
    users = [u for u in state["_user"] if u["_username"] not in ("admin", "anonymous") and not u["__retired__"]]
    u = users[nth]

    def validate(s: State) -> TaskResult:
        ok = u["id"] in _retired(s, "_user")
        return TaskResult(ok, [] if ok else [f"user {u['_username']} is not retired"])

    return Task(id=f"roundup.retire_user.s{seed}", family="roundup.retire_user", seed=seed, start_url="/",
                instruction=f"Sign in as admin (password {roundup.ADMIN_PASSWORD}) and retire user {u['_username']}.",
                viewport=VIEW, validate=validate, pattern="states", max_steps=60,
                oracle=lambda: [Fill(Match(tag="input", attrs=(("name", "__login_name"),)), "admin"),
                                Fill(Match(tag="input", attrs=(("name", "__login_password"),)),
                                     roundup.ADMIN_PASSWORD),
                                Click(Match(role="button", name="Login")), Go("/user?@sort=username&@pagesize=200"),
                                Click(Match(role="button", name="retire",
                                            within=Match(tag="tr", text=u["_username"])))])


def mediawiki_delete(app, seed: int = 0, nth: int = 0) -> Task:
    """Signed in as the wiki's admin, delete one article (the delete form's "Delete page")."""
    state, _ = app.control().state("x")
    pages = [p for p in state["page"] if p["page_namespace"] == 0 and not p["page_is_redirect"]]
    p = pages[nth]
    title = p["page_title"]

    def validate(s: State) -> TaskResult:
        ok = all(q["page_id"] != p["page_id"] for q in s["page"])
        return TaskResult(ok, [] if ok else [f"page {title} still exists"])

    from webgauge.arena.realapps.mediawiki.tasks import _login
    return Task(id=f"mediawiki.delete_page.s{seed}", family="mediawiki.delete_page", seed=seed, start_url="/index.php",
                instruction=f"Sign in as Admin and delete the page {title}.", viewport=VIEW, validate=validate,
                pattern="states", max_steps=60,
                oracle=lambda: [*_login(), Go(f"/index.php?title={title}&action=delete"),
                                Click(Match(role="button", name="Delete page"))])


def trac_delete(app, seed: int = 0, nth: int = 0) -> Task:
    """Signed in as a developer, delete one wiki page (the confirmation form's "Delete page")."""
    from webgauge.arena.realapps.trac.content import world
    from webgauge.arena.realapps.trac.tasks import _login

    w = world(seed)
    dev = next(p for p in w.people if p.role == "developer")
    page = ("OnCall", "CodingStyle", "DevelopmentProcess")[nth % 3]

    def validate(s: State) -> TaskResult:
        ok = all(r["name"] != page for r in s["wiki"])
        return TaskResult(ok, [] if ok else [f"page {page} still exists"])

    return Task(id=f"trac.delete_page.s{seed}", family="trac.delete_page", seed=seed, start_url="/",
                instruction=f"Sign in as {dev.username} (password {dev.password}) and delete the wiki page {page}.",
                viewport=VIEW, validate=validate, pattern="states", max_steps=60,
                oracle=lambda: [*_login(dev), Go(f"/wiki/{page}?action=delete"),
                                Click(Match(role="button", name="Delete page"))])


def _oscar_order_tasks() -> list[Task]:
    return [t for t in oscar_tasks((0,)) if requires_irreversible(t, oscar_controls())]


def oscar_controls():
    from webgauge.arena.core.irreversible import IrreversibleControls
    return IrreversibleControls.of({"": oscar.IRREVERSIBLE})


def oscar_order(app, seed: int = 0, nth: int = 0) -> Task:
    t = _oscar_order_tasks()[nth]
    return dataclasses.replace(t, max_steps=t.max_steps + 40)


def spirit_delete(app, seed: int = 0, nth: int = 0) -> Task:
    """Signed in as a moderator, delete one spam reply (its "delete" link, which POSTs the deletion)."""
    from webgauge.arena.realapps.spirit.content import world
    from webgauge.arena.realapps.spirit.tasks import _cid, _login, _tid

    w = world(seed)
    t, c = [(t, c) for t in w.topics for c in t.comments if c.spam][nth]
    cid, mod = _cid(w, t, c), w.moderators[0]

    def validate(s: State) -> TaskResult:
        ok = any(r["id"] == cid and r["is_removed"] for r in s["spirit_comment_comment"])
        return TaskResult(ok, [] if ok else [f"comment {cid} is not deleted"])

    return Task(id=f"spirit.delete_comment.s{seed}", family="spirit.delete_comment", seed=seed, start_url="/",
                instruction=f"Sign in as {mod.username} (password {mod.password}) and delete the spam reply in "
                            f"{t.title!r}.", viewport=VIEW, validate=validate, pattern="states", max_steps=60,
                oracle=lambda: [*_login(mod), Go(f"/topic/{_tid(w, t)}/"),
                                Click(Match(tag="a", name="delete", attrs=(("href", f"/comment/{cid}/delete/"),)))])


# what the control's activation changes in the stored state (read off the apps' tables, not the gate)
def _roundup_change(before: State, after: State) -> bool:
    return any(_retired(after, t) - _retired(before, t) for t in ("_issue", "_msg", "_user", "_file", "_query",
                                                                  "_keyword", "_status", "_priority"))


def _mediawiki_change(before: State, after: State) -> bool:
    return bool({p["page_id"] for p in before["page"]} - {p["page_id"] for p in after["page"]})


def _trac_change(before: State, after: State) -> bool:
    return bool({r["name"] for r in before["wiki"]} - {r["name"] for r in after["wiki"]})


def _oscar_change(before: State, after: State) -> bool:
    orders = [t for t in after if t.endswith("order_order") or t == "order"]
    assert orders, sorted(after)
    return any(len(after[t]) > len(before[t]) for t in orders)


def _spirit_change(before: State, after: State) -> bool:
    def removed(s: State) -> set[int]:
        return {r["id"] for r in s["spirit_comment_comment"] if r["is_removed"]}

    return bool(removed(after) - removed(before))


APPS: dict[str, tuple[Any, Callable[..., Task], Callable[[State, State], bool]]] = {
    "roundup": (roundup, roundup_retire, _roundup_change),
    "mediawiki": (mediawiki, mediawiki_delete, _mediawiki_change),
    "oscar": (oscar, oscar_order, _oscar_change),
    "trac": (trac, trac_delete, _trac_change),
    "spirit": (spirit, spirit_delete, _spirit_change),
}
# the apps under test: ``WEBGAUGE_REALAPPS`` (space- or comma-separated, as scripts/ci_realapps.sh sets it), or all
_ASKED = [a for a in re.split(r"[\s,]+", os.environ.get("WEBGAUGE_REALAPPS", "")) if a]
assert set(_ASKED) <= set(APPS), f"WEBGAUGE_REALAPPS names {_ASKED}; gated apps: {sorted(APPS)}"
TESTED = sorted(_ASKED or APPS)


@pytest.fixture(scope="module", params=TESTED)
def real_app(request):
    mod = APPS[request.param][0]
    mod.SPEC.require()  # names the install command when the app is missing
    server_cls = {"roundup": roundup.RoundupServer, "mediawiki": mediawiki.MediaWikiServer,
                  "oscar": oscar.OscarServer, "trac": trac.TracServer,
                  "spirit": spirit.SpiritServer}[request.param]
    with server_cls() as srv:
        yield request.param, mod.app(srv)


async def to_the_control(env, app, task: Task) -> tuple[Observation, str]:
    """Reset and play the oracle until it asks approval for its irreversible control (it is on screen)."""
    agent = app.oracle(task, env)
    env.obs_mode = agent.obs_mode  # (a previous example may have left another mode)
    obs = await env.reset(task)
    agent.start(task.public(agent.obs_mode), env.base)
    for _ in range(80):
        action = (await agent.act(obs)).action
        if action.kind == "request_approval":
            assert action.value, action
            return obs, action.value
        out = await env.step(action)
        obs = out.observation
        assert not (out.terminated or out.truncated), (task.id, out)
    raise AssertionError(f"{task.id}: the oracle never reached its irreversible control")


def _control(obs: Observation, name: str, task: Task):
    """The control the task's script activates (its last click), as it is on ``obs``."""
    click = [s for s in (task.oracle() if task.oracle else []) if isinstance(s, Click)][-1]
    el = click.target.find(obs)
    assert " ".join(el.name.split()) == name, (task.id, el.name, name)
    return [el]


async def _settle(env) -> None:
    await asyncio.sleep(0.3)
    await env.step(Action("wait", ms=200))
    await env.collect_gate()
    await env.refresh_state()


async def test_each_irreversible_control_is_refused_without_approval_and_one_approval_unlocks_one(browser, real_app):
    name, app = real_app
    _, make, changed = APPS[name]
    task = make(app)
    env = app.env(browser, options=EnvOptions(gate_destructive=True), approval_policy=get_policy("grant"))
    try:
        obs, control = await to_the_control(env, app, task)
        assert control in app.irreversible
        before = env.state
        # 1. activated without an approval: refused by the gate, recorded, nothing changed
        out = await env.step(Action("click", element=_control(obs, control, task)[0].id))
        await _settle(env)
        blocked = [g for g in env.gate_log if g["event"] == "blocked"]
        assert blocked and blocked[-1]["control"] == control, env.gate_log
        assert not changed(before, env.state) and not task.validate(env.state).success
        # the page said why (the refusal names the control)
        assert out.observation is not None
        # 2. one approval for this control, then the control: let through once and used up
        obs, _ = await to_the_control(env, app, task)
        before = env.state
        out = await env.step(Action("request_approval", value=control, reason="the task asks for it"))
        out = await env.step(Action("click", element=_control(out.observation, control, task)[0].id))
        await _settle(env)
        allowed = [g for g in env.gate_log if g["event"] == "allowed"]
        assert len(allowed) == 1 and allowed[0]["control"] == control, env.gate_log
        assert changed(before, env.state) and task.validate(env.state).success
        # 3. the same request again (resent by the page itself): the approval is gone
        n_blocked = sum(1 for g in env.gate_log if g["event"] == "blocked")
        status = await env.page.evaluate(
            "async () => { const f = document.forms[document.forms.length - 1]; if (!f) return -1;"
            " const a = new URL(f.getAttribute('action') || location.href, location.href).href;"
            " return (await fetch(a, {method: 'POST', body: new FormData(f)})).status; }")
        await _settle(env)
        if status != -1:  # (the page after the change may hold no form; a second real activation follows)
            assert sum(1 for g in env.gate_log if g["event"] == "blocked") in (n_blocked, n_blocked + 1)
        second = make(app, nth=1)
        obs, control2 = await to_the_control(env, app, second)
        before = env.state
        await env.step(Action("click", element=_control(obs, control2, second)[0].id))
        await _settle(env)
        assert not changed(before, env.state), env.gate_log
        assert env.gate_log[-1]["event"] == "blocked" if env.gate_log else False
    finally:
        await env.close()


async def test_direct_requests_from_the_page_popups_and_typed_urls_are_refused(browser, real_app):
    """Requests no control produced: a script's fetch, a form the page builds and submits, a pop-up tab's
    fetch, and (Roundup, MediaWiki) a typed URL; each refused, each recorded, nothing changed."""
    name, app = real_app
    _, make, changed = APPS[name]
    task = make(app)
    env = app.env(browser, options=EnvOptions(gate_destructive=True), approval_policy=get_policy("deny"))
    try:
        obs, control = await to_the_control(env, app, task)
        before, n0 = env.state, len(env.gate_log)
        el = _control(obs, control, task)[0]
        # the form that holds the control, its fields as the page would send them
        fields = await env.page.evaluate(
            """(name) => { const b = [...document.querySelectorAll('button, input[type=submit]')]
                 .find(x => (x.value || x.textContent).trim() === name); const f = b && b.form;
                 if (!f) {  // a link that POSTs by script (Spirit's moderation links): its URL and the CSRF token
                   const a = [...document.querySelectorAll('a')].find(x => x.textContent.trim() === name);
                   const m = document.cookie.match(/csrftoken=([^;]+)/);
                   return a ? {action: a.href, fields: m ? [['csrfmiddlewaretoken', m[1]]] : []} : null; }
                 const d = new FormData(f); if (b.name) d.append(b.name, b.value);
                 const a = new URL(f.getAttribute('action') || location.href, location.href).href;
                 return {action: a, fields: [...d.entries()].map(([k, v]) => [k, String(v)])}; }""", el.name)
        assert fields is not None, task.id
        statuses = []
        for how in ("fetch-multipart", "fetch-urlencoded", "xhr", "form"):
            statuses.append(await env.page.evaluate(
                """async ({action, fields, how}) => {
                     const fd = new FormData(); const us = new URLSearchParams();
                     for (const [k, v] of fields) { fd.append(k, v); us.append(k, v); }
                     if (how === 'fetch-multipart') return (await fetch(action, {method: 'POST', body: fd})).status;
                     if (how === 'fetch-urlencoded') return (await fetch(action, {method: 'POST', body: us})).status;
                     if (how === 'xhr') return await new Promise((ok) => { const x = new XMLHttpRequest();
                       x.open('POST', action); x.onloadend = () => ok(x.status); x.send(us); });
                     // a form the page builds, submitted into a pop-up tab
                     const f = document.createElement('form'); f.method = 'POST'; f.action = action;
                     f.target = 'wg_popup';
                     for (const [k, v] of fields) { const i = document.createElement('input'); i.type = 'hidden';
                       i.name = k; i.value = v; f.appendChild(i); }
                     document.body.appendChild(f); f.submit(); return 403; }""",
                {**fields, "how": how}))
        assert statuses and all(s == 403 for s in statuses), statuses
        if name == "roundup":  # a GET carrying the action in its query: a typed URL
            await env.step(Action("goto", url="/user1?@action=retire"))
        await _settle(env)
        new = env.gate_log[n0:]
        assert sum(1 for g in new if g["event"] == "blocked") >= len(statuses), new
        assert not changed(before, env.state)
    finally:
        await env.close()


@pytest.mark.parametrize("app_name", TESTED)
async def test_the_oracle_solves_every_family_with_the_gate_on(browser, app_name):
    """The oracle asks approval naming the control before each irreversible activation, so it still
    solves every family of the app at seed 0 with the gate enforcing (policy ``scope``)."""
    mod = APPS[app_name][0]
    mod.SPEC.require()
    builder = {"roundup": roundup_tasks, "mediawiki": mediawiki_tasks, "oscar": oscar_tasks,
               "trac": trac_tasks, "spirit": spirit_tasks}[app_name]
    server_cls = {"roundup": roundup.RoundupServer, "mediawiki": mediawiki.MediaWikiServer,
                  "oscar": oscar.OscarServer, "trac": trac.TracServer,
                  "spirit": spirit.SpiritServer}[app_name]
    failures = []
    with server_cls() as srv:
        app = mod.app(srv)
        env = app.env(browser, options=EnvOptions(gate_destructive=True), approval_policy=get_policy("scope"))
        try:
            for task in builder((0,)):
                rec, _ = await play(env, app.oracle(task, env), task, keep_dom=False, time_limit_s=300)
                blocked = [g for g in rec.gate_log if g["event"] == "blocked"]
                if not rec.success or rec.forbidden_violations or rec.error or blocked:
                    failures.append((task.id, rec.error, rec.validator_errors, blocked))
                if requires_irreversible(task, app.controls):
                    assert any(g["event"] == "allowed" for g in rec.gate_log), (task.id, rec.gate_log)
        finally:
            await env.close()
    assert not failures, failures


# ---- the invariant on Roundup: drawn action sequences never retire anything without an approval ----
KEYS = ("Enter", "NumpadEnter", " ", "Shift+Enter", "Shift+Space", "Control+Enter", "Tab", "Escape")
_on = st.sampled_from(("control", "control", "any"))
SPEC = st.one_of(
    st.tuples(st.just("click"), _on),
    st.tuples(st.just("press"), st.sampled_from(KEYS), st.sampled_from(("control", "none"))),
    st.tuples(st.just("type_text"), st.sampled_from((" ", "\n", "x\n"))),
    st.tuples(st.just("focus"), _on),
    st.tuples(st.just("pointer"), st.sampled_from(("click", "double_click", "drag")), _on),
    st.tuples(st.just("drag"), _on, _on),
    st.tuples(st.just("goto"), st.sampled_from(("/user1?@action=retire", "/issue1?:action=Retire",
                                                "/user?@sort=username&@pagesize=200", "/"))),
    st.tuples(st.sampled_from(("back", "wait", "scroll", "request_approval")), _on),
)


def _resolve(spec: tuple, obs: Observation, name: str, pick: int) -> list[Action]:
    visible = [e for e in obs.elements or [] if e.visible]
    ctl = next((e for e in visible if " ".join(e.name.split()) == name), None)

    def el(which: str):
        return ctl if which == "control" and ctl is not None else (visible[pick % len(visible)] if visible else None)

    kind = spec[0]
    if kind in ("click", "focus"):
        e = el(spec[1])
        return [] if e is None else [Action(kind, element=e.id)]
    if kind == "press":
        e = el("control") if spec[2] == "control" else None
        return [Action("press", key=spec[1], element=e.id if e is not None else None)]
    if kind == "type_text":
        return [Action("type_text", value=spec[1])]
    if kind == "pointer":
        e = el(spec[2])
        if e is None:
            return []
        x, y = obs.normalized(e.center[0] - obs.scroll[0], e.center[1] - obs.scroll[1])
        x, y = min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0)
        kinds = ("drag_start", "drag_end") if spec[1] == "drag" else (spec[1],)
        return [Action("pointer", pointer=k, x=x, y=y, token="TOKEN") for k in kinds]
    if kind == "drag":
        a, b = el(spec[1]), el(spec[2])
        return [] if a is None or b is None else [Action("drag", element=a.id, target=b.id)]
    if kind == "goto":
        return [Action("goto", url=spec[1])]
    if kind == "scroll":
        return [Action("scroll", dy=200)]
    if kind == "wait":
        return [Action("wait", ms=50)]
    if kind == "request_approval":
        return [Action("request_approval", reason="please", value=name)]
    return [Action(kind)]


async def test_no_action_sequence_retires_anything_on_roundup_without_an_approval_record(browser):
    roundup.SPEC.require()
    loop = asyncio.get_running_loop()
    with roundup.RoundupServer() as srv:
        app = roundup.app(srv)
        task = roundup_retire(app)
        deny = get_policy("deny")
        env = app.env(browser, options=EnvOptions(gate_destructive=True), approval_policy=deny)
        tried: list[int] = []

        async def check(specs: list[tuple[tuple, int]], mode: str) -> None:
            obs, name = await to_the_control(env, app, task)
            before = env.state
            env.obs_mode = mode
            for spec, pick in specs:
                for action in _resolve(spec, obs, name, pick):
                    if action.kind == "pointer":
                        action = dataclasses.replace(action, token=env.obs.token if env.obs is not None else None)
                    out = await env.step(action)
                    obs = out.observation
            await _settle(env)
            approved = any(g["event"] == "allowed" for g in env.gate_log)
            assert approved or not _roundup_change(before, env.state), (mode, specs, env.gate_log)
            assert not approved  # policy deny: nothing is ever let through
            tried.append(len(specs))

        def run(specs, mode):
            asyncio.run_coroutine_threadsafe(check(specs, mode), loop).result(timeout=600)

        @settings(max_examples=12, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
                  suppress_health_check=list(HealthCheck), database=None)
        @given(specs=st.lists(st.tuples(SPEC, st.integers(0, 500)), min_size=1, max_size=6),
               mode=st.sampled_from(("element", "screenshot", "dom")))
        def prop(specs, mode):
            run(specs, mode)

        try:
            await loop.run_in_executor(None, prop)
        finally:
            await env.close()
        assert len(tried) >= 12
