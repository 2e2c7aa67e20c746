"""The real apps' families through BrowserGym 0.14.3: ``gym.make("browsergym/webgauge.roundup.close")``
in BrowserGym's own venv, the world a slot of ``webgauge arena serve`` holds (the service starts the
installed app's server on the first reset to one of its families and restores the task's seed on
every reset), the oracle played as BrowserGym action strings; the service's verdict must be 1.0.

Marked ``browsergym`` and ``realapps``: it needs BrowserGym's venv (tests/browsergym/bgym_venv.py,
built on first use) and the installed apps named in ``WEBGAUGE_REALAPPS`` (default ``roundup``;
``make test-realapps`` installs them). Run: ``pytest -m "browsergym and realapps" tests/browsergym``.
The service is the only user of the apps while it runs (an installed app is one live world).
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bgym_venv import VenvError, ensure_venv
from harness import Driver, Service, play_oracle_bgym

from webgauge.arena.registry import REAL_FAMILIES, require_app, task_for

pytestmark = [pytest.mark.browsergym, pytest.mark.realapps, pytest.mark.timeout(3600)]

APPS = [a for a in re.split(r"[\s,]+", os.environ.get("WEBGAUGE_REALAPPS", "roundup")) if a]


def test_every_real_app_family_through_browsergym_is_solved():
    try:
        py = ensure_venv()
    except VenvError as exc:
        pytest.fail(f"the BrowserGym venv could not be built: {exc}", pytrace=False)
    for app in APPS:
        require_app(app)  # AppNotInstalled names the install command
    results: dict[str, object] = {}
    with Service(slots=1) as svc:
        driver = Driver(py, svc.url)
        try:
            for app in APPS:
                for family in REAL_FAMILIES[app]:
                    task = task_for(family, 0)
                    try:
                        ep = asyncio.run(play_oracle_bgym(driver, task))
                        results[family] = (ep.reward, ep.steps, ep.verdict, ep.errors[:3], ep.goal == task.instruction)
                    except RuntimeError as exc:  # recorded per family; the others still run
                        results[family] = exc
        finally:
            driver.close()
    failed = {f: r for f, r in results.items() if isinstance(r, Exception) or r[0] != 1.0 or not r[4]}
    assert len(results) == sum(len(REAL_FAMILIES[a]) for a in APPS)
    assert not failed, failed
