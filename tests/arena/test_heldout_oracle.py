"""Held-out worlds (coined names, reworded instructions) stay solvable: every family's oracle
solves its held-out instance at a secret seed (the first of ``heldout_oracle_seeds``), without
rejected steps or forbidden effects. The pointer-only oracle plays every family at the second
(tests/arena/test_modes.py), so two held-out worlds per family are played, one by each oracle."""

from __future__ import annotations

import pytest

from webgauge.arena.tasks import FAMILIES, build_tasks

pytestmark = pytest.mark.browser

APPS = sorted({k.split(".")[0] for k in FAMILIES})


@pytest.mark.parametrize("app", APPS)
async def test_oracle_solves_every_family_in_heldout_worlds(solve_with_oracle, heldout_oracle_seeds, app):
    """The first secret seed (the pointer-only oracle plays the second: tests/arena/test_modes.py)."""
    seeds = heldout_oracle_seeds[:1]
    tasks = build_tasks(tuple(seeds), families=[k for k in FAMILIES if k.split(".")[0] == app])
    for seed in seeds:
        assert any(t.seed == seed for t in tasks), seed
    assert {t.seed for t in tasks} == set(seeds) and seeds[0] >= 2**64, seeds
    records, failed = await solve_with_oracle(tasks)
    assert len(records) == len(tasks)
    assert not failed, failed
