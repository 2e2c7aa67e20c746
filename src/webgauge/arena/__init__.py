"""webgauge.arena: browser agents on live, resettable web apps, judged on stored state.

Sites (shop, inbox, account, dashboard, floor plan, kanban) run in one loopback server with
one SQLite database per episode (:class:`ArenaServer`); the harness resets and reads them
through a separate control API (:class:`ControlClient`). Tasks (:class:`Task`) are plain
values built from seeded families (:func:`build_tasks`), validated on the stored state and
checked against declarative forbidden effects. :class:`ArenaEnv` steps agents through the
browser layer with stale-pointer and destructive-action guards; :class:`ArenaGymEnv` is its
Gymnasium face. :func:`run_arena` runs agents (oracle, heuristic, refuser, model baselines) on tasks and
variants through :mod:`webgauge.run` with the one episode loop :func:`play`, storing typed
:class:`EpisodeRecord` s; :func:`write_arena_report` writes the report and trace viewer.

Importing the package registers the Gymnasium ids ``webgauge/arena-<family>-v0`` of the
built-in families (``gymnasium.make("webgauge/arena-cal.book-v0")``; no world is built and no
browser starts until ``reset``); :func:`register_envs` adds plug-in families.

Folders: ``core/`` (env, hooks, actions, observation, task, records, episode loop),
``apps/`` (sites, seeds, db, server, control), ``tasks/`` (families, held-out slices),
``variants/`` (catalogue, cohorts, perturbations, pop-ups, traps), ``agents/`` and
``outputs/`` (scoring, report, viewer, safety report, packages).
"""

from .adapters.external import ExternalApp, ResetError
from .agents.heuristic import HeuristicAgent
from .agents.model import SYSTEM_PROMPT, ModelAgent
from .agents.oracle import OracleAgent, solve_with_oracle
from .agents.parse import parse_action
from .agents.refuser import RefusingAgent
from .apps import declared_controls
from .apps.control import ControlClient, ControlError
from .apps.server import ArenaServer
from .core.actions import ACTION_KINDS, ACTION_SCHEMA, POINTER_KINDS, Action, ActionError
from .core.agent import Agent, AgentStep
from .core.diff import StateDiff, diff_states
from .core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRecipients, OnlyRowsChange, check_effects
from .core.hooks import EnvHooks, WorldEvents
from .core.irreversible import IrreversibleControls, requires_irreversible
from .core.observation import OBS_MODES, Observation, image_tokens
from .core.records import EpisodeRecord, SealedEpisodeRecord, StepRecord
from .core.task import PATTERNS, Task, TaskResult, Viewport
from .env import ArenaEnv, EnvOptions, StepOutcome, deny_all, grant_all

# variants, safety traps, approvals, held-out slices and packages (issue 6)
from .env.approval import ApprovalLog, get_policy
from .env.episode import play
from .env.page_pool import PagePool, pool_for
from .outputs.package import EnvironmentMismatch, build_package, compare_packages, verify_package
from .outputs.report import write_arena_report
from .outputs.safety_report import write_safety_report
from .outputs.scoring import load_episodes
from .outputs.visual_split import visual_split
from .runner import run_arena
from .tasks import FAMILIES, build_tasks, seed_state
from .tasks.heldout import Slices, heldout_seeds, load_secret, make_slices
from .tasks.variety import measure_variety
from .variants import (
    COHORTS,
    DEFAULT_SAFETY_VARIANTS,
    DEFAULT_SWEEP_VARIANTS,
    VARIANTS,
    Variant,
    VariantEnv,
    apply_variant,
    get_variant,
)
from .variants.traps import TRAPS, TrapServer, TrapVariant, attack_outcome

__all__ = [
    "Action", "ActionError", "ACTION_KINDS", "ACTION_SCHEMA", "POINTER_KINDS", "parse_action",
    "Agent", "AgentStep", "OracleAgent", "ControlClient", "ControlError", "StateDiff", "diff_states",
    "MaxInserts", "NoChanges", "NoDeletes", "OnlyRecipients", "OnlyRowsChange", "check_effects",
    "ArenaEnv", "EnvOptions", "StepOutcome", "PagePool", "pool_for", "grant_all", "deny_all", "FAMILIES", "build_tasks",
    "seed_state",
    "OBS_MODES", "Observation", "image_tokens", "ArenaServer", "PATTERNS", "Task", "TaskResult", "Viewport",
    "HeuristicAgent", "ModelAgent", "SYSTEM_PROMPT", "play", "EnvHooks", "WorldEvents", "EpisodeRecord",
    "SealedEpisodeRecord", "StepRecord", "run_arena", "write_arena_report",
    "load_episodes", "visual_split", "ArenaGymEnv", "register_envs",
    "ApprovalLog", "get_policy", "Slices", "heldout_seeds", "load_secret", "make_slices", "EnvironmentMismatch",
    "build_package", "compare_packages", "verify_package", "write_safety_report", "RefusingAgent",
    "TRAPS", "TrapServer", "TrapVariant", "attack_outcome", "COHORTS", "VARIANTS", "Variant", "VariantEnv",
    "apply_variant", "get_variant", "solve_with_oracle", "DEFAULT_SWEEP_VARIANTS", "DEFAULT_SAFETY_VARIANTS",
    "IrreversibleControls", "declared_controls", "requires_irreversible", "ExternalApp", "ResetError",
    "measure_variety",
]


def _register_gym_ids() -> None:
    """The gym ids, on import (only where gymnasium, part of the `arena` extra, is installed)."""
    import importlib.util

    if importlib.util.find_spec("gymnasium") is not None:
        from .adapters.gym_env import register_builtin_envs

        register_builtin_envs()


_register_gym_ids()


def __getattr__(name: str):
    if name in ("ArenaGymEnv", "register_envs"):  # needs gymnasium (the `arena` extra): imported on first use
        from .adapters import gym_env

        return getattr(gym_env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
