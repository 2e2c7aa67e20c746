"""webgauge.arena: browser agents on live, resettable web apps, judged on stored state.

Sites (shop, inbox, account, dashboard, floor plan, kanban) run in one loopback server with
one SQLite database per episode (:class:`ArenaServer`); the harness resets and reads them
through a separate control API (:class:`ControlClient`). Tasks (:class:`Task`) are plain
values built from seeded families (:func:`build_tasks`), validated on the stored state and
checked against declarative forbidden effects. :class:`ArenaEnv` steps agents through the
browser layer with stale-pointer and destructive-action guards.
"""

from .actions import ACTION_KINDS, ACTION_SCHEMA, POINTER_KINDS, Action, ActionError, parse_action
from .agents.base import Agent, AgentStep
from .agents.oracle import OracleAgent
from .control import ControlClient, ControlError
from .diff import StateDiff, diff_states
from .effects import MaxInserts, NoChanges, NoDeletes, OnlyRecipients, OnlyRowsChange, check_effects
from .env import ArenaEnv, StepOutcome, deny_all, grant_all
from .families import FAMILIES, build_tasks, seed_state
from .observation import OBS_MODES, Observation, image_tokens
from .server import ArenaServer
from .task import PATTERNS, Task, TaskResult, Viewport

__all__ = [
    "Action", "ActionError", "ACTION_KINDS", "ACTION_SCHEMA", "POINTER_KINDS", "parse_action",
    "Agent", "AgentStep", "OracleAgent", "ControlClient", "ControlError", "StateDiff", "diff_states",
    "MaxInserts", "NoChanges", "NoDeletes", "OnlyRecipients", "OnlyRowsChange", "check_effects",
    "ArenaEnv", "StepOutcome", "grant_all", "deny_all", "FAMILIES", "build_tasks", "seed_state",
    "OBS_MODES", "Observation", "image_tokens", "ArenaServer", "PATTERNS", "Task", "TaskResult", "Viewport",
]
