"""webgauge arena tasks for BrowserGym: ``import browsergym.webgauge`` registers
``browsergym/webgauge.<family>`` for every family. Run ``webgauge arena serve`` and set
``WEBGAUGE_ARENA_URL`` to the control API URL it prints; then
``gym.make("browsergym/webgauge.shop.buy_variant")`` works like any BrowserGym task.
"""

from __future__ import annotations

from browsergym.core.registration import register_task

from .client import API_VERSION, URL_ENV, ArenaClient, ArenaServiceError
from .page_watch import install as _install_screenshot
from .task import FAMILIES, WebgaugeTask

__all__ = ["API_VERSION", "ENV_IDS", "FAMILIES", "URL_ENV", "ArenaClient", "ArenaServiceError", "WebgaugeTask"]

ENV_IDS = []
for _family in FAMILIES:
    register_task(f"webgauge.{_family}", WebgaugeTask, task_kwargs={"family": _family})
    ENV_IDS.append(f"browsergym/webgauge.{_family}")

_install_screenshot()  # BrowserGym's screenshot through the page's kept session: no viewport change
