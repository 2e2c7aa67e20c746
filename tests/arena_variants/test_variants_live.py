"""Every kind of variant keeps its task solvable by the scripted oracle, in real Chromium,
and each variant really changes the world the agent sees."""

from __future__ import annotations

import asyncio

import pytest

from webgauge.arena.agents.oracle import solve_with_oracle
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.tasks import build_tasks
from webgauge.arena.variants import VariantEnv, get_variant

pytestmark = pytest.mark.browser

# (variant, task family): every variant kind, every form factor and scale factor, on a task
# where the variant matters (pointer tasks for stale shifts, dialogs under pop-ups, ...)
CASES = [
    ("cohort.laptop@2x", "mail.forward"),
    ("cohort.tablet@3x", "shop.cancel_order"), ("cohort.mobile@2x", "shop.promo_tab"),
    ("perturb.color", "account.rename"), ("perturb.text", "shop.cancel_order"),
    ("perturb.layout", "mail.archive_sender"), ("popup.cookie", "shop.sticky_add"),
    ("popup.newsletter", "account.revoke_key"), ("popup.overlay", "dash.peak_month"),
    ("slow.load", "shop.cancel_order"), ("late.content", "account.rename"), ("stale.shift", "board.drag"),
]


async def test_oracle_solves_every_variant_kind_with_the_base_validator(browser, arena):
    tasks = {t.family: t for t in build_tasks((0,))}
    queue = list(CASES)
    results: dict[str, tuple] = {}

    async def worker():
        while queue:
            name, fam = queue.pop(0)
            v = get_variant(name)
            task = v.apply(tasks[fam])
            assert task.validate is tasks[fam].validate
            env = VariantEnv(browser, arena.app_url, ControlClient(arena.control_url), v)
            try:
                first = await env.reset(task)
                shot = (first.viewport, first.device_scale_factor, [e.attrs.get("id") for e in first.elements])
                results[name] = (await solve_with_oracle(env, task), shot)
            finally:
                await env.close()

    await asyncio.gather(worker(), worker())
    failed = {k: r for k, (r, _) in results.items() if not r["success"] or r["violations"]}
    assert len(results) == len(CASES) and not failed, failed
    # the variants did change the world
    assert results["cohort.tablet@3x"][1][:2] == ((820, 1180), 3.0)
    assert results["cohort.mobile@2x"][1][:2] == ((390, 844), 2.0)
    for name, node in (("popup.cookie", "wg-cookie"), ("popup.newsletter", "wg-newsletter"),
                       ("popup.overlay", "wg-chat")):
        assert node in results[name][1][2], f"{name}: the pop-up was not on the first screen"
    assert results["perturb.text"][0]["events"]["text_changes"] >= 1
    assert results["perturb.color"][0]["events"]["perturbed_docs"] >= 1
    assert results["perturb.layout"][0]["events"]["perturbed_docs"] >= 1
    stale = results["stale.shift"][0]
    assert stale["events"]["shifts"] >= 1 and "stale" in stale["rejections"]  # the trap fired and the oracle recovered


async def test_base_validator_still_fails_on_the_untouched_variant_world(browser, arena):
    """A variant never writes state: right after reset the variant task is not yet solved."""
    task = get_variant("popup.newsletter").apply(next(t for t in build_tasks((0,)) if t.family == "account.rename"))
    env = VariantEnv(browser, arena.app_url, ControlClient(arena.control_url), get_variant("popup.newsletter"))
    try:
        await env.reset(task)
        assert not task.validate(env.state).success and env.final_diff().empty
    finally:
        await env.close()
