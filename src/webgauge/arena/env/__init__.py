"""The live environment: one episode at a time in a browser against the apps, built on ``core``.

:class:`ArenaEnv` is assembled from small parts, one module each: ``options`` (:class:`EnvOptions`,
the frozen settings), ``lifecycle`` (reset, the page pool and double buffering, close),
``guards`` (mode, disabled, stale, approval, moved), ``executor`` (one coroutine per action
kind), ``capture`` (settle, then observe), ``state`` (the stored state through the control
API), ``pickers`` (native pickers drawn onto the screenshot) and ``approval`` (the approval
policies). ``episode`` holds :func:`play`, the one episode loop.
"""

from .arena_env import ApprovalPolicy, ArenaEnv, StepOutcome, deny_all, grant_all
from .episode import play
from .lifecycle import episode_salt
from .options import EnvOptions
from .page_pool import PagePool, pool_for

__all__ = ["ApprovalPolicy", "ArenaEnv", "EnvOptions", "PagePool", "StepOutcome", "deny_all", "episode_salt",
           "grant_all", "play", "pool_for"]
