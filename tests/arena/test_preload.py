"""The next episode prepared while this one runs (``ArenaEnv.preload``): its reset gives the very
observation and stored world a fresh reset gives; another task, a page that changed after its
capture or an env that cannot prepare exactly falls back to the ordinary reset; and nothing of the
episode before reaches the prepared one."""

from __future__ import annotations

import pytest

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.core.hooks import EnvHooks
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.episode import play
from webgauge.arena.tasks import build_tasks

# start pages without a focused text field (a caret blinks in one, so its pixels differ from run to run);
# the admin's is a sign-in link, which writes a session as it loads
_FAMILIES = ["shop.buy_variant", "account.revoke_key", "account.rename", "admin.set_role", "shop.cancel_order",
             "mail.forward"]


def _tasks():
    by_family = {t.family: t for t in build_tasks((0,), families=_FAMILIES)}
    return [by_family[f] for f in _FAMILIES]


def _recording(env: ArenaEnv, into: list):
    """Record what each reset of ``env`` gave: screenshot, element table, seed world and world after the start page."""
    real = env.reset

    async def reset(task, seed=None):
        obs = await real(task, seed)
        into.append((task.id, obs.screenshot_hash, [(e.id, e.path, e.box, e.name) for e in obs.elements],
                     obs.url.split("/", 5)[-1], env.seed_state, env.state))
        return obs
    env.reset = reset  # type: ignore[method-assign]


@pytest.mark.browser
async def test_a_preloaded_reset_gives_what_a_fresh_reset_gives(browser, arena):
    """The oracle plays six tasks in a row, each reset prepared while the episode before it ran, and
    again with plain double-buffered resets: every reset but the first takes its prepared page, each
    shows the same pixels, element table (ids included), URL, seed world and world after the start
    page as the plain one, and every episode is solved."""
    tasks = _tasks()
    seen: dict[bool, list] = {}
    for preload in (False, True):
        seen[preload] = []
        env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=True))
        _recording(env, seen[preload])
        try:
            for i, t in enumerate(tasks):
                nxt = tasks[i + 1] if preload and i + 1 < len(tasks) else None
                rec, _ = await play(env, OracleAgent(t), t, keep_dom=False, next_task=nxt)
                assert rec.success and not rec.forbidden_violations, (t.id, preload, rec.validator_errors)
            counts = dict(env.preloads)
        finally:
            await env.close()
        if preload:
            assert counts == {"taken": len(tasks) - 1, "changed": 0, "other task": 0, "failed": 0}, counts
        else:
            assert counts["taken"] == 0
    assert len(seen[True]) == len(seen[False]) == len(tasks)
    for plain, pre in zip(seen[False], seen[True], strict=True):
        assert plain == pre, plain[0]


@pytest.mark.browser
async def test_a_preload_of_another_task_or_of_a_page_that_changed_falls_back_to_a_fresh_reset(browser, arena):
    """One preparation at a time; a reset of another task than the one prepared, or onto a prepared
    page that changed after its capture, is an ordinary reset: it shows what a fresh reset shows, and
    the counts say why."""
    shop, revoke, rename = _tasks()[:3]
    fresh: list = []
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=True))
    _recording(env, fresh)
    try:
        for t in (shop, revoke, rename):
            await env.reset(t)
    finally:
        await env.close()
    got: list = []
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=True))
    _recording(env, got)
    try:
        await env.reset(shop)
        assert env.preload(rename)
        assert env.preload(revoke) is False and env.preload(rename) is True  # one at a time
        await env.reset(revoke)  # not the task prepared
        assert env.preloads["other task"] == 1 and env.preloads["taken"] == 0
        assert env.preload(rename)
        prep, job = env._preloading
        await job
        await prep.page.evaluate("() => document.body.append('changed after its capture')")
        await env.reset(rename)
        assert env.preloads == {"taken": 0, "changed": 1, "other task": 1, "failed": 0}
        assert "changed after its capture" not in await env.page.evaluate("() => document.body.innerText")
    finally:
        await env.close()
    assert [g[1:] for g in got] == [f[1:] for f in fresh]


@pytest.mark.browser
async def test_preload_is_refused_where_it_cannot_be_exact(browser, arena):
    """Hooks act on the episode's own page at reset, an inline reset has one page, a requested episode
    id is one database: each such env refuses to prepare ahead, and its next reset is an ordinary one.
    A double-buffered env without hooks prepares ahead, before its first episode too."""
    task = _tasks()[0]

    class Noop(EnvHooks):
        pass

    for options, hooks in ((EnvOptions(double_buffer=True), [Noop()]), (EnvOptions(double_buffer=False), []),
                           (EnvOptions(double_buffer=True, episode_id="fixed-preload"), [])):
        env = ArenaEnv(browser, arena.app_url, arena.client(), options, hooks=hooks)
        try:
            await env.reset(task)
            assert env.preload(task) is False and env._preloading is None
            await env.reset(task)
            assert env.preloads["taken"] == 0
        finally:
            await env.close()
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=True))
    try:  # the one that can, before its first episode too
        assert env.preload(task) is True and env._preloading is not None
        await env.reset(task)
        assert env.preloads["taken"] == 1 and env.state == env.seed_state
        assert env.preload(task) is True and env._preloading is not None
    finally:
        await env.close()
    assert env._preloading is None and env.episode_id is None


@pytest.mark.browser
async def test_the_runner_prepares_ahead_only_episodes_whose_variant_leaves_the_page_alone(browser, tmp_path):
    """``webgauge arena run`` with look-ahead: a base or viewport-cohort episode runs on the worker's
    kept env, told the next such task as its handler will build it; a variant that acts on the page
    (a pop-up's script, a trap) gets an env of its own, and the kept env is closed."""
    from webgauge.arena.env.approval import get_policy
    from webgauge.arena.runner import _env_for, _next_task, episode_items
    from webgauge.arena.variants import get_variant
    from webgauge.run import WorkerContext

    tasks = build_tasks((0,), families=["shop.cancel_order", "account.rename"])
    names = ["base", "cohort.mobile@2x", "popup.cookie", "trap.decoy"]
    items = {(i.payload["base_id"], i.payload["variant"]): i
             for i in episode_items(tasks, [{"kind": "oracle"}], variants=names)}
    ctx = WorkerContext(tmp_path)
    kept_envs = []
    try:
        for name in names:
            this, nxt = items[(tasks[0].id, name)], items[(tasks[1].id, name)]
            ctx.set_next_item(nxt.to_dict())
            variant = get_variant(name)
            env, kept = await _env_for(ctx, browser, this.payload, variant, get_policy("grant"))
            told = _next_task(ctx)
            if name in ("base", "cohort.mobile@2x"):
                assert kept and env.hooks == [] and "arena.env" in ctx.state
                kept_envs.append(env)
                assert told is not None and told.id == nxt.payload["base_id"] + ("" if name == "base" else f"~{name}")
                assert told.fingerprint == nxt.payload["fingerprint"] and env.preload(told)
                await env._cancel_preload()
            else:
                assert not kept and env.hooks == [variant] and told is None
                assert "arena.env" not in ctx.state  # the kept env was closed, not left open beside it
                await env.close()
        assert kept_envs[0] is kept_envs[1]  # one env across the worker's base and cohort episodes
    finally:
        await ctx.aclose()
