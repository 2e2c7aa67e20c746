"""Reset guarantees in real Chromium: a log-in (session cookie), a feature flag that changes
what renders, and an uploaded file the app reads back are all undone by ``env.reset`` — in
the stored state and in what the browser is shown, even when the browser presents the old
session cookie again."""

from __future__ import annotations

import dataclasses

import pytest

from webgauge.arena.core.actions import Action
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.tasks import build_tasks

pytestmark = pytest.mark.browser

CSV = b"name,email,team,role\nQuill Resetson,q.resetson@up.example,Ops,Viewer\n"


def _el(obs, **want):
    for e in obs.elements:
        if e.visible and all((e.attrs.get(k[5:]) if k.startswith("attr_") else getattr(e, k)) == v
                             for k, v in want.items()):
            return e
    raise AssertionError(f"no element {want} at {obs.url}")


def _text(obs) -> str:
    return " ".join(e.text or "" for e in obs.elements if e.visible and e.tag in ("th", "li", "h1", "button"))


async def _login(env, obs, acct):
    obs = (await env.step(Action("fill", element=_el(obs, role="textbox", name="Username").id,
                                 value=acct["username"]))).observation
    obs = (await env.step(Action("fill", element=_el(obs, tag="input", attr_name="password").id,
                                 value=acct["password"]))).observation
    return (await env.step(Action("click", element=_el(obs, role="button", name="Sign in").id))).observation


async def test_login_flag_and_upload_are_undone_by_reset_in_the_browser(browser, arena, tmp_path):
    task = next(t for t in build_tasks((3,)) if t.family == "admin.flag_email")
    task = dataclasses.replace(task, start_url="/admin/")  # not its sign-in link: this starts logged out
    # a generous settle cap: this test is about what a reset undoes, not about how long a loaded
    # machine takes to serve the log-in POST (the 400 ms default cut it short under full-suite load)
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(settle_ms=5000))
    try:
        obs = await env.reset(task)
        seed_state = env.state
        acct = seed_state["admin_accounts"][0]
        assert any(e.name == "Sign in" for e in obs.elements) and not seed_state["admin_sessions"]
        obs = await _login(env, obs, acct)
        assert "400 users" in " ".join(e.text or "" for e in obs.elements) and "Email" not in _text(obs)
        token = env.state["admin_sessions"][0]["token"]
        # the flag changes what renders
        obs = (await env.step(Action("goto", url="/admin/flags"))).observation
        obs = (await env.step(Action("click",
                                     element=_el(obs, role="switch", name="Show email column").id))).observation
        obs = (await env.step(Action("goto", url="/admin/users"))).observation
        assert "Email" in _text(obs)
        # an uploaded file is stored, read back into rows, and listed
        obs = (await env.step(Action("goto", url="/admin/import"))).observation
        path = tmp_path / "people.csv"
        path.write_bytes(CSV)
        await env.page.set_input_files(_el(obs, attr_id="csv").id, [path])
        obs = (await env.step(Action("click",
                                     element=_el(obs, role="button", name="Upload and import").id))).observation
        obs = (await env.step(Action("goto", url="/admin/import"))).observation
        assert "people.csv" in _text(obs)
        changed = env.state
        assert len(changed["admin_users"]) == 401 and changed["files"] != seed_state["files"]

        obs = await env.reset(task)  # the same episode, back to its seed
        assert env.state == seed_state and any(e.name == "Sign in" for e in obs.elements)
        # the old session cookie, presented again, no longer logs anyone in
        await env.page.evaluate(f"() => {{ document.cookie = 'wg_admin={token}; path=/'; }}")
        obs = (await env.step(Action("goto", url="/admin/users"))).observation
        assert "/admin/login" in obs.url and any(e.name == "Sign in" for e in obs.elements)
        obs = await _login(env, obs, acct)
        obs = (await env.step(Action("goto", url="/admin/users"))).observation
        assert "Email" not in _text(obs) and "400 users" in " ".join(e.text or "" for e in obs.elements)
        obs = (await env.step(Action("goto", url="/admin/import"))).observation
        assert "people.csv" not in _text(obs) and "Previous imports" not in _text(obs)
    finally:
        await env.close()
