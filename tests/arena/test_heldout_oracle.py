"""Held-out worlds (coined names, reworded instructions) stay solvable, by an agent that sees only
pixels: every family's pointer-only oracle solves its held-out instance at a secret seed, in
screenshot mode and within that mode's step budget, without rejected steps or forbidden effects.

The pointer-only oracle plays the element-id oracle's script through the same element table, so
this also plays the script in a held-out world; the element-id oracle itself plays every family in
a public world (``at_public_seeds``), and without pixels (``dom`` mode) in tests/arena/test_modes.py."""

from __future__ import annotations

import pytest

from webgauge.arena.tasks import FAMILIES, build_tasks

pytestmark = [pytest.mark.browser, pytest.mark.slow]

APPS = sorted({k.split(".")[0] for k in FAMILIES})


@pytest.mark.parametrize("app", APPS)
async def test_pointer_only_oracle_solves_every_family_in_heldout_worlds(solve_with_oracle, heldout_oracle_seed,
                                                                          app):
    seed = heldout_oracle_seed
    assert seed >= 2**64, seed  # a secret seed, not a public one
    tasks = build_tasks((seed,), families=[k for k in FAMILIES if k.split(".")[0] == app])
    assert tasks and {t.seed for t in tasks} == {seed}
    assert len({t.family for t in tasks}) == len(tasks)
    records, failed = await solve_with_oracle(tasks, pointer_only=True)
    assert len(records) == len(tasks)
    assert not failed, str(failed)
    steps = {t.family: (records[t.id].n_steps, t.budget("screenshot"), t.max_steps) for t in tasks}
    assert all(records[t.id].obs_mode == "screenshot" for t in tasks)
    assert all(n <= budget for n, budget, _ in steps.values()), steps
