"""The Gymnasium face of the arena: ``reset(seed=..., options=...)`` and ``step(action)``.

:class:`ArenaGymEnv` runs the async :class:`~webgauge.arena.env.ArenaEnv` on a private
event loop thread with its own Chromium and (unless given one) its own arena server, so
synchronous RL code can use it. It passes ``gymnasium.utils.env_checker.check_env``:

- **observations** fit ``observation_space``: the screenshot as an RGB array (modes with
  pixels), its sha256 (what pointer actions must quote), the URL, navigation id, viewport
  and scroll. What has no fixed shape (PNG bytes, the element table and aria tree of the
  observation mode, tabs, the last action's result, the state change) is in ``info``;
- **actions** are samples of ``action_space``, a ``Dict`` of indices and numbers that is
  always decodable (``kind`` indexes :data:`ACTION_KINDS`, ``element`` indexes the current
  element table, ``point`` is a normalized pointer position bound to the current
  screenshot, ...); an :class:`~webgauge.arena.core.actions.Action`, its dict or its JSON
  text are accepted too (bad JSON raises a ``ValueError`` naming the fix);
- ids ``webgauge/arena-<family>-v0`` of every family of :mod:`webgauge.arena.registry` (the
  arena's own and the real apps', ``webgauge/arena-roundup.close-v0``) are registered when
  ``webgauge.arena`` is imported (:func:`register_builtin_envs`: names only, no world is built
  and no browser starts); :func:`register_envs` also registers plug-in families. A real-app
  family's env runs on that app's server (started on first use, :func:`~webgauge.arena.realapps.live.live_app`);
  making one whose app is not installed raises ``AppNotInstalled`` naming the install command;
- ``step`` before ``reset`` raises ``gymnasium.error.ResetNeeded``.

The reward is sparse: 1.0 on the step that ends the episode if the validator passes on the
stored state and no forbidden effect occurred, else 0.0. That verdict is sealed: a step after
the episode ended does nothing and returns the same reward, ``terminated``/``truncated`` and
``info["verdict"]`` (with ``info["sealed"]``), so stepping on cannot change it. Step latency is not in ``info``
(it would make identical steps differ); read ``env.last_latency_ms``.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import io
import json
import string
import threading
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..apps.server import ArenaServer
from ..core.actions import ACTION_KINDS, POINTER_KINDS, Action, ActionError
from ..core.observation import Observation
from ..core.task import Task
from ..env import ArenaEnv, EnvOptions
from ..registry import OWN_FAMILIES, all_family_names, app_of
from .external import ExternalApp

if TYPE_CHECKING:
    from ...browser import Browser

__all__ = ["ArenaGymEnv", "register_envs", "register_builtin_envs", "make_family_env", "ENV_ID", "MAX_ELEMENTS",
           "KEYS", "BUILTIN_FAMILIES"]

ENV_ID = "webgauge/arena-{family}-v0"
BUILTIN_FAMILIES = OWN_FAMILIES
"""The task family names of the arena's own built-in families (:data:`webgauge.arena.registry.OWN_FAMILIES`)."""
MAX_ELEMENTS = 1024
"""``element`` indices wrap around the current element table (never longer in practice)."""
KEYS = ("Enter", "Escape", "Tab", "ArrowDown", "ArrowUp", "Space", "Backspace")
_URL_CHARS = "".join(c for c in string.printable if not c.isspace())


def _png_array(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.uint8)


class ArenaGymEnv(gym.Env):
    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, tasks: list[Task], obs_mode: str = "screenshot+tree", server: ArenaServer | None = None,
                 render_mode: str | None = None, options: EnvOptions | None = None, *,
                 app: ExternalApp | None = None, **env_kwargs: Any) -> None:
        """``app``: the tasks run on this external (real) app instead of the arena's own server."""
        if not tasks:
            raise ValueError("ArenaGymEnv needs at least one task (webgauge.arena.build_tasks(seeds))")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode {render_mode!r}: use None or 'rgb_array'")
        sizes = {(round(t.viewport.width * t.viewport.device_scale_factor),
                  round(t.viewport.height * t.viewport.device_scale_factor)) for t in tasks}
        if len(sizes) != 1:
            raise ValueError(f"the tasks of one ArenaGymEnv must share one screenshot size (found {sorted(sizes)}); "
                             "make one env per viewport, e.g. one per family")
        (w, h), = sizes
        self.tasks = {t.id: t for t in tasks}
        self.obs_mode = obs_mode
        self.render_mode = render_mode
        self.action_space = spaces.Dict({
            "kind": spaces.Discrete(len(ACTION_KINDS)),
            "element": spaces.Discrete(MAX_ELEMENTS),
            "point": spaces.Box(0.0, 1.0, shape=(2,), dtype=np.float32),
            "pointer": spaces.Discrete(len(POINTER_KINDS)),
            "key": spaces.Discrete(len(KEYS)),
            "value": spaces.Text(max_length=32),
            "scroll": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32),
            "tab": spaces.Discrete(8),
        })
        obs_spaces: dict[str, spaces.Space] = {
            "screenshot_hash": spaces.Text(max_length=64, min_length=0, charset="0123456789abcdef"),
            "url": spaces.Text(max_length=4096, min_length=1, charset=_URL_CHARS),
            "navigation_id": spaces.Discrete(2**31 - 1),
            "viewport": spaces.Box(0, 100_000, shape=(2,), dtype=np.int64),
            "scroll": spaces.Box(-1e7, 1e7, shape=(2,), dtype=np.float64),
        }
        if obs_mode != "dom":
            obs_spaces["screenshot"] = spaces.Box(0, 255, shape=(h, w, 3), dtype=np.uint8)
        self.observation_space = spaces.Dict(obs_spaces)
        self._app = app
        self._own_server = server is None and app is None
        self._server: ArenaServer | None = server if server is not None or app is not None else ArenaServer().start()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._browser: Browser | None = None
        # never double-buffered: one episode id across resets, since the observed URLs carry it and
        # gymnasium asks that the same seed give the same observations
        self._options = EnvOptions(double_buffer=False) if options is None else options
        self._env_kwargs = env_kwargs  # the env's collaborators (hooks, pool, approval_policy)
        self._env: ArenaEnv | None = None
        self.task: Task | None = None
        self._last: Observation | None = None
        self.last_latency_ms: float | None = None

    # ---- plumbing ------------------------------------------------------------
    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    async def _ensure(self) -> ArenaEnv:
        if self._env is None:
            from webgauge.browser import Browser

            self._browser = await Browser.launch(headless_shell=True).start()
            # one episode id for every reset: the observed URLs carry it, and a seed must repeat them
            options = dataclasses.replace(self._options, obs_mode=self.obs_mode,
                                          episode_id=self._options.episode_id or "gym")
            if self._app is not None:
                self._env = self._app.env(self._browser, options=options, **self._env_kwargs)
                return self._env
            if self._server is None:
                raise RuntimeError("this env is closed: make a new one")
            self._env = ArenaEnv(self._browser, self._server.app_url, self._server.client(), options,
                                 **self._env_kwargs)
        return self._env

    @property
    def base_url(self) -> str:
        """The episode's app URL (what an agent's ``start`` takes)."""
        if self._env is None:
            raise gym.error.ResetNeeded("call reset() first")
        return self._env.base

    @property
    def _task_now(self) -> Task:
        if self.task is None:
            raise gym.error.ResetNeeded("call reset() first")
        return self.task

    @property
    def observation(self) -> Observation:
        """The current full :class:`Observation` (for agents written against the async API)."""
        if self._last is None:
            raise gym.error.ResetNeeded("call reset() first")
        return self._last

    def _obs(self, obs: Observation) -> dict:
        seen = obs.for_mode(self.obs_mode)
        out = {"screenshot_hash": seen.screenshot_hash or "", "url": obs.url,
               "navigation_id": int(obs.navigation_id), "viewport": np.array(obs.viewport, dtype=np.int64),
               "scroll": np.array(obs.scroll, dtype=np.float64)}
        if self.obs_mode != "dom":
            out["screenshot"] = _png_array(obs.png or b"")
        return out

    def _info(self, obs: Observation, **extra) -> dict:
        seen = obs.for_mode(self.obs_mode)
        # nothing returned is shared with the env (gymnasium checks it); the element dicts are new
        # already, and copying them again took 10 ms a step on a dashboard's 763 elements
        info = copy.deepcopy({
            "png": seen.png, "tabs": list(obs.tabs), "active_tab": obs.active_tab, "last_result": obs.last_result,
            "aria": seen.aria, "device_scale_factor": obs.device_scale_factor, **extra})
        info["elements"] = [e.to_dict() for e in seen.elements] if seen.elements is not None else None
        return info

    # ---- the Gymnasium API -----------------------------------------------------
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
        return self._obs(self._last), self._info(self._last, task=self.task.public(self.obs_mode))

    def decode(self, action: Action | dict | str) -> Action:
        """An :class:`Action` from a sample of ``action_space``, an Action, its dict or its JSON text."""
        if isinstance(action, Action):
            return action
        if isinstance(action, str):
            try:
                action = json.loads(action)
            except json.JSONDecodeError as exc:
                raise ValueError(f"action text is not JSON ({exc.msg}); pass an Action, its dict, or a sample of "
                                 "env.action_space") from None
        if not isinstance(action, dict):
            raise ValueError(f"an action must be an Action, a dict or JSON text, got {type(action).__name__}")
        if isinstance(action.get("kind"), str):
            return Action.from_dict(action)
        return self._from_sample(action)

    def _from_sample(self, s: dict) -> Action:
        obs = self.observation
        task = self._task_now
        kind = ACTION_KINDS[int(s["kind"]) % len(ACTION_KINDS)]
        els = obs.elements or []
        el = els[int(s.get("element", 0)) % len(els)].id if els else None
        x, y = (float(v) for v in np.clip(np.asarray(s.get("point", (0.5, 0.5)), dtype=np.float64), 0.0, 1.0))
        value = str(s.get("value", ""))
        if kind == "pointer":
            return Action("pointer", pointer=POINTER_KINDS[int(s.get("pointer", 0)) % len(POINTER_KINDS)], x=x, y=y,
                          screenshot_hash=obs.screenshot_hash)
        if kind in ("click", "hover", "fill", "select", "focus", "drag") and el is None:
            return Action("wait", ms=100)  # nothing to aim at on this page
        if kind in ("click", "hover", "fill", "select", "focus"):
            return Action(kind, element=el, value=value if kind in ("fill", "select") else None)
        if kind == "drag":  # the drop target is the element after the dragged one
            return Action("drag", element=el, target=els[(int(s.get("element", 0)) + 1) % len(els)].id)
        if kind == "type_text":
            return Action("type_text", value=value)
        if kind == "upload":  # one of the task's own files (tasks without files have nothing to upload)
            if el is None or not task.files:
                return Action("wait", ms=100)
            name = task.files[int(s.get("element", 0)) % len(task.files)][0]
            return Action("upload", element=el, value=name)
        if kind == "press":
            return Action("press", element=el, key=KEYS[int(s.get("key", 0)) % len(KEYS)])
        if kind == "scroll":
            dx, dy = np.asarray(s.get("scroll", (0.0, 0.0)), dtype=np.float64)
            return Action("scroll", dx=float(dx) * obs.viewport[0], dy=float(dy) * obs.viewport[1])
        if kind == "goto":
            return Action("goto", url=task.start_url)
        if kind == "switch_tab":
            return Action("switch_tab", tab=int(s.get("tab", 0)) % max(1, len(obs.tabs)))
        if kind == "wait":
            return Action("wait", ms=100)
        if kind == "request_approval":
            return Action("request_approval", element=el, reason=value or "approve")  # the control it names
        return Action(kind, answer=value) if kind == "done" else Action(kind)

    def step(self, action: Action | dict | str):
        if self._env is None or self._last is None or self.task is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        try:
            act = self.decode(action)
        except ActionError as exc:
            raise ValueError(f"invalid action: {exc}") from None
        out = self._run(self._env.step(act))
        self._last = out.observation
        self.last_latency_ms = out.info["latency_ms"]
        info = {"action": act.to_dict(), "result": out.info["result"], "diff": out.info["diff"].to_dict()}
        if "verdict" in out.info:  # the episode's end: the env's sealed verdict (again on any later step)
            v = out.info["verdict"]
            info.update(task_result={"success": v["success"], "errors": v["errors"]},
                        forbidden_violations=v["forbidden_violations"], verdict=v, sealed=bool(out.info.get("sealed")))
        return (self._obs(out.observation), out.reward, out.terminated, out.truncated,
                self._info(out.observation, **info))

    def render(self):
        if self._last is None or self._last.png is None:
            return None
        return _png_array(self._last.png)

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
        if self._own_server and self._server is not None:
            self._server.close()
            self._server = None
        self._env = self._browser = None
        super().close()


def make_family_env(family: str, seeds: tuple[int, ...] = (0,), obs_mode: str = "screenshot+tree",
                    **kwargs: Any) -> ArenaGymEnv:
    """An :class:`ArenaGymEnv` over one family's tasks at ``seeds`` (what the registered ids make); a
    real-app family runs on its app, served by this process (raises ``AppNotInstalled`` when it is missing)."""
    from ..registry import build_tasks

    tasks = build_tasks(tuple(seeds), families=[family])
    app = app_of(family)
    if app is not None and "app" not in kwargs:
        from ..realapps.live import live_app

        kwargs["app"] = live_app(app)
    return ArenaGymEnv(tasks, obs_mode=obs_mode, **kwargs)


def _register(families) -> list[str]:
    ids = []
    for family in sorted(families):
        env_id = ENV_ID.format(family=family)
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="webgauge.arena.adapters.gym_env:make_family_env",
                         kwargs={"family": family}, disable_env_checker=True)
        ids.append(env_id)
    return ids


def register_builtin_envs() -> list[str]:
    """Register ``webgauge/arena-<family>-v0`` for every family of the registry, own and real
    (done by ``import webgauge.arena``).

    >>> import gymnasium, webgauge.arena
    >>> env = gymnasium.make("webgauge/arena-dash.peak_month-v0", obs_mode="dom")
    """
    return _register(all_family_names())


def register_envs() -> list[str]:
    """Register ``webgauge/arena-<family>-v0`` for every task family, plug-in families included
    (their names are read from the tasks of seed 0); returns the ids."""
    from ..tasks import build_tasks

    return _register({*all_family_names(), *(t.family for t in build_tasks((0,)))})
