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
@pytest.mark.parametrize("which", [0, 1])
async def test_oracle_solves_every_family_in_heldout_worlds(solve_with_oracle, app, which):
    seed = heldout_seeds(SECRET, 2)[which]
    tasks = build_tasks((seed,), families=[k for k in FAMILIES if k.split(".")[0] == app])
    assert tasks and all(t.seed == seed for t in tasks)
    records, failed = await solve_with_oracle(tasks)
    assert len(records) == len(tasks)
    assert not failed, failed
