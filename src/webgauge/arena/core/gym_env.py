"""The Gymnasium face of the arena: ``reset(seed=..., options=...)`` and ``step(action)``.

:class:`ArenaGymEnv` runs the async :class:`~webgauge.arena.core.env.ArenaEnv` on a private
event loop thread with its own Chromium and (unless given one) its own arena server, so
synchronous RL code can use it. Actions are :class:`~webgauge.arena.core.actions.Action` values,
their dicts or their JSON text. Observations are dicts (PNG bytes and hash, URL and
navigation id, viewport, scale, scroll, tabs, and per ``obs_mode`` the element table and
aria tree); the declared ``observation_space`` covers the fixed-shape keys only, since PNG
bytes and element tables have no Gymnasium space. The reward is sparse: 1.0 on the step
that ends the episode if the validator passes on the stored state and no forbidden effect
occurred, else 0.0.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .actions import Action
from ..apps.control import ControlClient
from .effects import check_effects
from .env import ArenaEnv
from .observation import Observation
from ..apps.server import ArenaServer
from .task import Task

__all__ = ["ArenaGymEnv"]


def _obs_dict(obs: Observation, mode: str) -> dict:
    seen = obs.for_mode(mode)
    return {
        "png": seen.png, "screenshot_hash": seen.screenshot_hash or "", "url": obs.url,
        "navigation_id": obs.navigation_id, "viewport": np.array(obs.viewport, dtype=np.int64),
        "device_scale_factor": obs.device_scale_factor, "scroll": np.array(obs.scroll, dtype=np.float64),
        "tabs": list(obs.tabs), "active_tab": obs.active_tab, "last_result": obs.last_result,
        "elements": [e.to_dict() for e in seen.elements] if seen.elements is not None else None,
        "aria": seen.aria,
    }


class ArenaGymEnv(gym.Env):
    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, tasks: list[Task], obs_mode: str = "screenshot+tree", server: ArenaServer | None = None,
                 render_mode: str | None = None, **env_kwargs: Any) -> None:
        if not tasks:
            raise ValueError("ArenaGymEnv needs at least one task (webgauge.arena.build_tasks(seeds))")
        self.tasks = {t.id: t for t in tasks}
        self.obs_mode = obs_mode
        self.render_mode = render_mode
        self.action_space = spaces.Text(8192)  # an action as JSON text (Action and dict values are accepted too)
        self.observation_space = spaces.Dict({
            "navigation_id": spaces.Discrete(2**31 - 1),
            "viewport": spaces.Box(0, 100_000, shape=(2,), dtype=np.int64),
            "scroll": spaces.Box(-1e7, 1e7, shape=(2,), dtype=np.float64),
        })
        self._own_server = server is None
        self._server = server or ArenaServer().start()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._browser = None
        self._env_kwargs = env_kwargs
        self._env: ArenaEnv | None = None
        self.task: Task | None = None
        self._last: Observation | None = None

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    async def _ensure(self) -> ArenaEnv:
        if self._env is None:
            from webgauge.browser import Browser

            self._browser = await Browser.launch().start()
            self._env = ArenaEnv(self._browser, self._server.app_url, ControlClient(self._server.control_url),
                                 **self._env_kwargs)
        return self._env

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """``options={"task_id": ...}`` picks a task; otherwise the seeded RNG picks one."""
        super().reset(seed=seed)
        options = options or {}
        if "task_id" in options:
            if options["task_id"] not in self.tasks:
                raise KeyError(f"unknown task {options['task_id']!r}; known: {', '.join(self.tasks)}")
            self.task = self.tasks[options["task_id"]]
        else:
            ids = sorted(self.tasks)
            self.task = self.tasks[ids[int(self.np_random.integers(len(ids)))]]

        async def go():
            env = await self._ensure()
            return await env.reset(self.task)

        self._last = self._run(go())
        return _obs_dict(self._last, self.obs_mode), {"task": self.task.public(), "episode": self._env.episode_id}

    def step(self, action: Action | dict | str):
        if isinstance(action, str):
            action = Action.from_dict(json.loads(action))
        elif isinstance(action, dict):
            action = Action.from_dict(action)
        out = self._run(self._env.step(action))
        self._last = out.observation
        info = {"result": out.info["result"], "diff": out.info["diff"].to_dict(), "latency_ms": out.info["latency_ms"]}
        reward = 0.0
        if out.terminated or out.truncated:
            res = self.task.validate(self._env.judged_state)
            violations = check_effects(self.task.forbidden_effects, self._env.final_diff())
            info.update(task_result=res.to_dict(), forbidden_violations=violations)
            reward = 1.0 if res.success and not violations else 0.0
        return _obs_dict(out.observation, self.obs_mode), reward, out.terminated, out.truncated, info

    def render(self):
        if self._last is None or self._last.png is None:
            return None
        import io

        from PIL import Image

        return np.asarray(Image.open(io.BytesIO(self._last.png)).convert("RGB"))

    def close(self) -> None:
        async def shut():
            if self._env is not None:
                await self._env.close()
            if self._browser is not None:
                await self._browser.close()

        if self._thread.is_alive():
            self._run(shut())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._loop.close()
        if self._own_server:
            self._server.close()
        self._env = self._browser = None
