"""Model-backed baselines over a real HTTP model server, failures as data, and the
Gymnasium wrapper."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from webgauge.arena.agents.model import SYSTEM_PROMPT, ModelAgent
from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.episode import play
from webgauge.arena.tasks import build_tasks
from webgauge.models import get_model
from webgauge.models.fake_server import FakeModelServer, request_images, request_text

pytestmark = pytest.mark.browser


async def _oracle_actions(env: ArenaEnv, task) -> list[dict]:
    """The oracle's actions on this task (element ids are stable across episodes)."""
    rec, _ = await play(env, OracleAgent(task), task)
    assert rec.success, rec.validator_errors
    return [s.action for s in rec.steps]


async def test_model_agents_share_one_prompt_across_observation_modes(browser, arena):
    tasks = {t.family: t for t in build_tasks((0,), families=["dash.peak_month", "board.drag"])}
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    plan = {"dom": tasks["dash.peak_month"], "screenshot": tasks["board.drag"], "screenshot+tree": tasks["board.drag"]}
    try:
        scripts = {f: await _oracle_actions(env, t) for f, t in tasks.items()}
        queue: list[dict] = []

        def respond(body: dict) -> str:
            # A stand-in remote model: replays the oracle's next action, aimed at the screenshot it is shown.
            a = dict(queue.pop(0))
            if a["kind"] == "pointer":
                a["token"] = re.search(r"Screenshot token: (\S+)", request_text(body)).group(1)
            return json.dumps(a)

        with FakeModelServer(respond) as srv:
            model = get_model("openai:fake-vlm", base_url=srv.openai_base_url, api_key="test", cache=None)
            for mode, task in plan.items():
                queue[:] = scripts[task.family]
                first = srv.request_count
                rec, blobs = await play(env, ModelAgent(model, mode), task)
                assert rec.success and not rec.forbidden, (mode, rec.validator_errors, rec.steps[-1].result)
                assert rec.usage["input_tokens"] > 0 and rec.agent == f"model-{mode}"
                reqs = srv.requests[first:]
                assert len(reqs) == rec.n_steps
                for r in reqs:
                    text, images = request_text(r.body), request_images(r.body)
                    assert r.body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
                    assert ("Elements (id" in text) == (mode != "screenshot")
                    assert len(images) == (0 if mode == "dom" else 1)
                    assert ("Screenshot token" in text) == (mode != "dom")
                if mode == "dom":
                    assert rec.screenshots == 0 and rec.image_tokens == 0
                else:
                    assert rec.screenshots == rec.n_steps and rec.screenshot_bytes > 0
    finally:
        await env.close()


async def test_unusable_model_answers_are_recorded_and_the_budget_ends_the_episode(browser, arena):
    task = build_tasks((0,), families=["dash.peak_month"])[0]
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    model = get_model("scripted", answers=[{"match": "", "answer": "I would click the chart."}])
    try:
        rec, _ = await play(env, ModelAgent(model, "screenshot+tree"), task)
    finally:
        await env.close()
    assert not rec.success and rec.truncated and rec.n_steps == task.max_steps
    assert rec.usage["invalid_actions"] == task.max_steps
    assert all("invalid action" in s.thought for s in rec.steps)


def test_gymnasium_env_passes_check_env_and_the_oracle_earns_the_reward():
    import gymnasium
    import pytest
    from gymnasium.utils.env_checker import check_env

    from webgauge.arena.adapters.gym_env import ArenaGymEnv, register_envs

    task = build_tasks((1,), families=["dash.peak_month"])[0]
    # check_env's sampled click lands on a hidden element, which waits out the action time limit
    env = ArenaGymEnv([task], obs_mode="screenshot+tree", options=EnvOptions(action_timeout=2.0))
    try:
        with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
            env.step({"kind": "done"})
        check_env(env, skip_render_check=True)
        obs, info = env.reset(seed=3)
        assert env.observation_space.contains(obs), {k: type(v) for k, v in obs.items()}
        assert info["task"] == task.public("screenshot+tree") and info["elements"] and obs["screenshot"].shape == (800,
                                                                                                                   1280,
                                                                                                                   3)
        info["elements"][0]["attrs"]["planted"] = "by the agent"  # what it returns is its own
        assert "planted" not in env.observation.elements[0].attrs
        with pytest.raises(ValueError, match="not JSON"):
            env.step("click the chart")
        from webgauge.arena.core.actions import ACTION_KINDS

        env.action_space.seed(0)
        for i in range(len(ACTION_KINDS)):  # a sample of every kind decodes to a valid action
            for _ in range(3):
                sample = {**env.action_space.sample(), "kind": i}
                decoded = env.decode(sample)
                assert decoded.kind in (ACTION_KINDS[i], "wait")
                if decoded.kind == "request_approval":  # an approval names the control it is for
                    assert decoded.element in {e.id for e in env.observation.elements or []}
        oracle = OracleAgent(task)
        oracle.start(task.public(), env.base_url)
        reward, term, trunc = 0.0, False, False
        while not (term or trunc):
            step = asyncio.run(oracle.act(env.observation))  # the oracle only reads the observation
            obs, reward, term, trunc, info = env.step(json.dumps(step.action.to_dict()))
            assert env.observation_space.contains(obs)
        assert reward == 1.0 and info["forbidden_violations"] == []
    finally:
        env.close()
    ids = register_envs()
    assert "webgauge/arena-dash.peak_month-v0" in ids and all(i in gymnasium.registry for i in ids)
    made = gymnasium.make("webgauge/arena-dash.peak_month-v0", obs_mode="dom")
    try:
        obs, info = made.reset(seed=0)
        assert made.observation_space.contains(obs) and "screenshot" not in obs and info["elements"]
    finally:
        made.close()
