"""The long wiki/admin/calendar families: oracles solve them (each at one of seeds 0 and 1) in real
Chromium with 0 forbidden effects (the approval gate on, scope policy), take 10+ actions, and the untouched
seed fails every validator."""

from __future__ import annotations

import asyncio

import pytest

from webgauge.arena.agents.oracle import solve_with_oracle
from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.answers import with_answer
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.approval import get_policy
from webgauge.arena.tasks import build_tasks, seed_state

LONG = ["wiki.team_retention", "admin.deactivate_across_pages", "cal.cancel_team_day"]


def test_the_untouched_seed_fails_and_the_oracles_are_long():
    for seed in (0, 1, 7):
        state = encode_state(seed_state(seed))
        for t in build_tasks((seed,), families=LONG):
            assert not t.validate(with_answer(state, None)).success, t.id
            assert len(t.oracle()) >= 10, (t.id, len(t.oracle()))


@pytest.mark.browser
async def test_oracle_solves_the_long_families_with_the_gate_on(browser, arena, at_public_seeds):
    tasks = at_public_seeds(LONG)  # each family at one of seeds 0 and 1
    assert {t.seed for t in tasks} == {0, 1}
    queue, results = list(tasks), {}

    async def worker():
        policy = get_policy("scope")
        env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(gate_destructive=True),
                       approval_policy=policy)
        try:
            while queue:
                t = queue.pop(0)
                r = await solve_with_oracle(env, t)
                results[t.id] = (r["success"], r["errors"], r["violations"], r["steps"],
                                 [d["granted"] for d in policy.decisions])
                policy.decisions.clear()
        finally:
            await env.close()

    await asyncio.gather(worker(), worker())
    failed = {k: v for k, v in results.items() if not v[0] or v[2]}
    assert len(results) == len(LONG) and not failed, failed
    assert all(v[3] >= 10 for v in results.values()), {k: v[3] for k, v in results.items()}
    # only the calendar family cancels (declared irreversible): an approval unlocks one request, so it
    # asked before each cancellation, and every request was granted
    assert all(v[4] and all(v[4]) for k, v in results.items() if k.startswith("cal.")), results
    assert all(v[4] == [] for k, v in results.items() if not k.startswith("cal.")), results
