"""A verdict is final: once an episode ends, no adapter turns a wrong answer into a right one, and an
answer task that ends without ``done`` is no success (real Chromium, real apps).

``arena serve``'s sealing is in ``test_serve.py`` (``test_a_final_verdict_is_sealed_...``); the
BrowserGym task package's in ``tests/browsergym`` (its own venv)."""

from __future__ import annotations

import dataclasses

import pytest

from webgauge.arena.adapters.bgym_env import BrowserGymEpisode
from webgauge.arena.adapters.gym_env import ArenaGymEnv
from webgauge.arena.core.actions import Action
from webgauge.arena.core.agent import AgentStep
from webgauge.arena.core.observation import Observation
from webgauge.arena.core.verdict import NO_DONE_ERROR
from webgauge.arena.env import ArenaEnv
from webgauge.arena.env.episode import play
from webgauge.arena.tasks import build_tasks

pytestmark = pytest.mark.browser

WRONG = "7 days"


def _lookup():
    task = next(t for t in build_tasks((0,)) if t.family == "wiki.lookup")
    assert task.answer is not None and WRONG not in str(task.answer)
    return task


class _Scripted:
    """An agent that plays a fixed list of actions (and waits once they run out)."""

    name = kind = "scripted"
    obs_mode = "screenshot+tree"

    def __init__(self, actions: list[Action]) -> None:
        self.actions = list(actions)
        self.seen = 0

    def start(self, public_task: dict, base_url: str) -> None:
        pass

    async def act(self, obs: Observation) -> AgentStep:
        self.seen += 1
        return AgentStep(self.actions.pop(0) if self.actions else Action("wait", ms=0))


async def test_the_env_seals_the_first_verdict(browser, arena):
    task = _lookup()
    env = ArenaEnv(browser, arena.app_url, arena.client())
    try:
        await env.reset(task)
        first = await env.step(Action("done", answer=WRONG))
        assert first.terminated and first.reward == 0.0 and first.info["verdict"]["success"] is False
        for action in (Action("done", answer=str(task.answer)), Action("goto", url="/wiki/")):
            later = await env.step(action)
            assert later.terminated and later.reward == 0.0 and later.info["sealed"], later.info
            assert later.info["result"]["rejected"] == "episode_over" and later.info["verdict"] == first.info["verdict"]
        assert env.done_answer == WRONG and env.steps == 1  # nothing of the later steps ran
        await env.reset(task)  # a new episode judges afresh
        assert (await env.step(Action("done", answer=str(task.answer)))).reward == 1.0
    finally:
        await env.close()


def test_gymnasium_wrong_then_right_stays_wrong(arena):
    task = _lookup()
    env = ArenaGymEnv([task], obs_mode="dom", server=arena)
    try:
        env.reset(seed=0)
        _, r1, term1, _, info1 = env.step({"kind": "done", "answer": WRONG})
        _, r2, term2, _, info2 = env.step({"kind": "done", "answer": str(task.answer)})
        assert (r1, term1, r2, term2) == (0.0, True, 0.0, True)
        assert info2["sealed"] and info2["verdict"] == info1["verdict"]
    finally:
        env.close()


async def test_browsergym_wrong_then_right_stays_wrong(browser, arena):
    task = _lookup()
    ep = BrowserGymEpisode(ArenaEnv(browser, arena.app_url, arena.client()))
    try:
        await ep.reset(task)
        _, r1, term1, _, info1 = await ep.step(f"send_msg_to_user({WRONG!r})")
        _, r2, term2, _, info2 = await ep.step(f"send_msg_to_user({str(task.answer)!r})")
        assert (r1, term1, r2, term2) == (0.0, True, 0.0, True)
        assert info2["sealed"] and info2["verdict"] == info1["verdict"]
        assert [m["message"] for m in ep.chat if m["role"] == "assistant"] == [WRONG]
    finally:
        await ep.env.close()


async def test_the_episode_loop_wrong_then_right_stays_wrong_and_no_done_is_no_answer(browser, arena):
    """The runner's episode loop (``play``) stops at the first ``done``; an answer task truncated by
    its step budget without ``done`` fails even if the state alone would pass."""
    task = _lookup()
    env = ArenaEnv(browser, arena.app_url, arena.client())
    try:
        agent = _Scripted([Action("done", answer=WRONG), Action("done", answer=str(task.answer))])
        rec, _ = await play(env, agent, task, keep_dom=False)
        assert not rec.success and rec.n_steps == 1 and agent.seen == 1 and rec.done_answer == WRONG
        short = dataclasses.replace(task, max_steps=2)
        rec, _ = await play(env, _Scripted([]), short, keep_dom=False)
        assert rec.truncated and not rec.success and NO_DONE_ERROR in rec.validator_errors
        # a state-change task is judged on its state whether or not it ended with done
        state_task = next(t for t in build_tasks((0,)) if t.answer is None and t.family == "account.rename")
        rec, _ = await play(env, _Scripted([]), dataclasses.replace(state_task, max_steps=1), keep_dom=False)
        assert rec.truncated and NO_DONE_ERROR not in rec.validator_errors
    finally:
        await env.close()
