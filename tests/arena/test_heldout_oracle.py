"""Held-out worlds (coined names, reworded instructions) stay solvable: every family's oracle
solves its held-out instances at two secret seeds, without rejected steps or forbidden effects."""

from __future__ import annotations

import pytest

from webgauge.arena.tasks import FAMILIES, build_tasks
from webgauge.arena.tasks.heldout import heldout_seeds

pytestmark = pytest.mark.browser

SECRET = b"heldout-oracle-test-secret-0123456789"
APPS = sorted({k.split(".")[0] for k in FAMILIES})


@pytest.mark.parametrize("app", APPS)
async def test_oracle_solves_every_family_in_heldout_worlds(solve_with_oracle, app):
    """Both secret seeds of an app in one run (the two workers' pages and the app's worlds serve both)."""
    seeds = heldout_seeds(SECRET, 2)
    tasks = build_tasks(tuple(seeds), families=[k for k in FAMILIES if k.split(".")[0] == app])
    for seed in seeds:
        assert any(t.seed == seed for t in tasks), seed
    assert {t.seed for t in tasks} == set(seeds)
    records, failed = await solve_with_oracle(tasks)
    assert len(records) == len(tasks)
    assert not failed, failed
