"""The fair-baseline actions in real Chromium: type_text into the focused element, semantic
drag and drop, and a text caret that never makes a current pointer token stale."""

from __future__ import annotations

import pytest

from webgauge.arena.apps.control import ControlClient
from webgauge.arena.core.actions import Action
from webgauge.arena.core.script import Match
from webgauge.arena.env import ArenaEnv
from webgauge.arena.tasks import build_tasks

pytestmark = pytest.mark.browser


async def test_typing_into_the_focused_field_and_a_caret_that_is_never_stale(browser, arena):
    task = build_tasks((0,), families=["account.rename"])[0]
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        obs = await env.reset(task)
        field = Match(role="textbox", name="Display name").find(obs)
        x, y = obs.normalized(*[c - s for c, s in zip(field.center, obs.scroll, strict=True)])
        out = await env.step(Action("pointer", pointer="click", x=x, y=y, token=obs.token))
        assert out.info["result"]["ok"], out.info["result"]
        out = await env.step(Action("press", key="Control+a"))
        out = await env.step(Action("type_text", value="Typed Name"))
        assert out.info["result"]["ok"]
        value = await env.page.evaluate("() => document.activeElement.value")
        assert value == "Typed Name"
        # the focused field shows a caret; pointer actions on the current token are never stale
        for _ in range(4):
            await env.page.wait_for_timeout(350)
            obs = out.observation
            out = await env.step(Action("pointer", pointer="click", x=x, y=y, token=obs.token))
            assert out.info["result"]["ok"], out.info["result"]
    finally:
        await env.close()


async def test_semantic_drag_moves_a_card_for_dom_agents(browser, arena):
    task = build_tasks((0,), families=["board.drag"])[0]
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        obs = await env.reset(task)
        steps = task.oracle()
        card = steps[0].target.find(obs)
        column = steps[1].target.find(obs)
        out = await env.step(Action("drag", element=card.id, target=column.id))
        assert out.info["result"]["ok"], out.info["result"]
        assert task.validate(env.judged_state).success, task.validate(env.judged_state).errors
        out = await env.step(Action("drag", element=card.id, target="no-such-id"))
        assert out.info["result"]["rejected"] == "missing_element"
    finally:
        await env.close()


async def test_a_wait_of_zero_ms_does_not_wait_and_a_wait_without_ms_waits_half_a_second(browser, arena, monkeypatch):
    """An unusable model answer and BrowserGym's no-op are ``wait`` with ms=0: a step, but no time."""
    from webgauge.browser.session import LivePage

    waited: list[float] = []
    real = LivePage.wait_for_timeout

    async def spy(self, ms):
        waited.append(ms)
        await real(self, min(ms, 500))  # what the executor asks for is the point; the 5 s cap is not slept

    monkeypatch.setattr(LivePage, "wait_for_timeout", spy)
    task = build_tasks((0,), families=["account.rename"])[0]
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        await env.reset(task)
        for action, want in ((Action("wait", ms=0), 0), (Action("wait"), 500), (Action("wait", ms=90000), 5000),
                             (Action("wait", ms=20), 20)):
            waited.clear()
            out = await env.step(action)
            assert not out.info["result"].get("rejected") and waited[:1] == [want], (action, waited)
    finally:
        await env.close()
