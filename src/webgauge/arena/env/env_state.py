"""What the parts of the live environment share: :class:`~webgauge.arena.env.arena_env.ArenaEnv` is
:class:`~webgauge.arena.env.lifecycle.EpisodeLifecycle`, :class:`~webgauge.arena.env.guards.EnvGuards`,
:class:`~webgauge.arena.env.executor.ActionExecutor`, :class:`~webgauge.arena.env.capture.SettleAndCapture`
and :class:`~webgauge.arena.env.state.StateReading` over one state, which ``ArenaEnv.__init__`` sets.

:class:`EnvState` declares that state once (annotations, and three checked accessors) and, for type
checkers, the methods one part calls on another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...browser import Browser, LivePage, RenderProfile, Snapshot
    from ..apps.control import ControlClient
    from ..core.hooks import EnvHooks, WorldEvents
    from ..core.irreversible import IrreversibleControls
    from ..core.observation import Observation
    from ..core.task import Task
    from ..core.verdict import Verdict
    from .options import EnvOptions
    from .page_pool import PagePool
    from .pickers import FileDialog, SelectPopup

__all__ = ["EnvState"]


class EnvState:
    """The attributes of the live environment (set in ``ArenaEnv.__init__``), checked accessors of the
    episode's page, observation and task, and the cross-part methods."""

    options: EnvOptions
    browser: Browser
    app_url: str
    control: ControlClient
    approval_policy: Callable[[Task, str], bool]
    gate_destructive: bool
    irreversible: IrreversibleControls
    settle_ms: int
    settle_quiet_ms: int
    settle_frames: int
    action_timeout: float
    with_aria: bool
    hooks: list[EnvHooks]
    reuse_context: bool
    fast_screenshots: bool
    capture_at_once: bool
    watch_changes: bool
    contexts_reused: int
    double_buffer: bool
    _retiring: tuple[LivePage, str | None, asyncio.Future[Any]] | None
    _clearing: tuple[asyncio.Task[Any], str | None] | None
    _episode_ids: list[str]
    _retired_id: str | None
    _upload_dir: Path | None
    _own_upload_dir: bool
    _own_pool: bool
    pool: PagePool
    captures: dict[str, int]
    stale_checks: dict[str, int]
    moved_checks: dict[str, int]
    events: WorldEvents
    _requested_id: str | None
    episode_id: str | None
    page: LivePage | None
    task: Task | None
    obs: Observation | None
    steps: int
    approved: bool  # the last request_approval was granted (what the observation says)
    verdict: Verdict | None  # sealed when the episode ends; later steps return it and do nothing
    gate_log: list[dict[str, Any]]  # this episode's approvals (granted or not) and gated requests, in order
    _gate_seen: int  # gate events of this episode already read
    _gate_pushed: tuple[str | None, bool] | None  # (episode id, enforce) last set on the server's gate
    _grants_made: list[tuple[int, int]]  # (step, approval number) of approvals that may still be waiting
    done_answer: str | None
    seed_state: dict[str, Any]
    reset_ms: float | None
    env_reset_ms: float | None
    reset_kind: str
    reset_timings_ms: dict[str, float]
    _state: dict[str, Any]
    _dragging: bool
    _dialogs_seen: int
    obs_mode: str | None
    picker: SelectPopup | FileDialog | None

    def _begin_episode(self, task: Task) -> None:
        """The per-episode fields of a new episode on ``task`` (no step, no approval, no verdict)."""
        self.task, self.steps, self.approved, self.done_answer, self._dragging = task, 0, False, None, False
        self.verdict, self.gate_log, self._gate_seen, self._gate_pushed = None, [], 0, None
        self._grants_made = []

    @property
    def _live_page(self) -> LivePage:
        """The episode's page (fails before reset)."""
        if self.page is None:
            raise RuntimeError("no episode page: call reset(task) first")
        return self.page

    @property
    def _obs_now(self) -> Observation:
        """The current observation (fails before reset)."""
        if self.obs is None:
            raise RuntimeError("no observation yet: call reset(task) first")
        return self.obs

    @property
    def _task_now(self) -> Task:
        """The episode's task (fails before reset)."""
        if self.task is None:
            raise RuntimeError("no task: call reset(task) first")
        return self.task

    if TYPE_CHECKING:
        @property
        def base(self) -> str: ...

        async def _control(self, method: str, *args: Any) -> Any: ...

        async def _observe(self, result: dict[str, Any]) -> Observation: ...

        def _base_of(self, episode_id: str | None) -> str: ...

        def _profile(self, task: Task) -> RenderProfile: ...

        async def _new_page(self, profile: RenderProfile) -> LivePage: ...

        def _set_page_options(self, page: LivePage | None = None) -> None: ...

        async def _capture_page(self, page: LivePage) -> tuple[Snapshot, int]: ...

        async def _reset_from_preload(self, task: Task, seed: int, clock: Any,
                                      t_start: float) -> Observation | None: ...

        async def _retire_page(self) -> None: ...

        async def _free_episode_id(self, busy: set[str | None], seed: int) -> str: ...

        async def _restore_seed(self, episode_id: str, seed: int) -> float: ...

        def _start_clearing(self) -> None: ...

        async def _cancel_preload(self) -> None: ...
