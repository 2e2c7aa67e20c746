"""The env's settings: one frozen value instead of a long constructor signature."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["EnvOptions"]


@dataclass(frozen=True)
class EnvOptions:
    """How an :class:`~webgauge.arena.env.ArenaEnv` runs its episodes (the defaults are the runner's).

    The env's collaborators (hooks, page pool, approval policy, irreversible controls) are
    passed to the env itself; these are plain settings.
    """

    episode_id: str | None = None  # a fixed episode id (None: the env picks its own, one per episode)
    gate_destructive: bool = False  # an irreversible control needs a granted approval first
    settle_ms: int = 400  # the cap of one step's settling
    settle_quiet_ms: int = 30  # DOM-mutation quiet period that ends settling
    settle_frames: int = 1  # frames with an unchanged layout an observation waits for
    action_timeout: float = 8.0  # seconds one browser action may take
    with_aria: bool = False  # the aria snapshot is optional: it costs time on every step
    reuse_context: bool = True  # clear and reuse the browser context between episodes
    fast_screenshots: bool = True  # observation screenshots through CDP (same pixels)
    watch_changes: bool = True  # stale checks from an isolated-world change watch
    # a still page's observation is captured without waiting for a frame, and kept when the watch
    # sees no change up to the end of the quiet period (needs watch_changes and fast_screenshots)
    capture_at_once: bool = True
    # on: reset clears the last episode's page in the background and runs the next on another
    # (two pages, two episode ids in turn); off (default): the page is cleared before reset returns
    double_buffer: bool = False
    # the app's static sub-resources (stylesheets, scripts, fonts, images) answered from the browser's
    # HTTP cache while fresh by their own headers, as an unrouted browser would (webgauge.browser.http_cache)
    http_cache: bool = True
    upload_dir: str | Path | None = None  # the run's folder for task files (None: a private temporary one)
    obs_mode: str | None = None  # the agent's observation mode (the episode loop sets it on the env)
