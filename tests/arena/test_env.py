"""The environment in real Chromium: every task is solvable by its oracle without forbidden
effects, stale pointer actions are rejected, and the agent's browser cannot reach the
control API or leave the app."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.core.actions import Action
from webgauge.arena.core.hooks import EnvHooks
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.episode import play
from webgauge.arena.env.page_pool import PagePool
from webgauge.arena.tasks import FAMILIES, build_tasks


async def _solve(env: ArenaEnv, task) -> tuple[bool, list, list]:
    rec, _ = await play(env, OracleAgent(task), task, keep_dom=False)
    rejected = [s.result for s in rec.steps if s.result.get("rejected")]
    return rec.success, rec.validator_errors + rejected, rec.forbidden_violations


@pytest.mark.browser
@pytest.mark.parametrize("seed", [0, 1])
async def test_oracle_solves_every_task_without_forbidden_effects(browser, arena, seed, at_public_seeds):
    # the first six apps' families, every other one at each of seeds 0 and 1 (the ASGI apps' families:
    # tests/arena/test_apps.py)
    families = [k for k in FAMILIES if k.split(".")[0] in ("shop", "work", "visual")]
    assert len(families) == 16  # shop 7 (i12-port-a: +cheapest, +reorder_from_mail), work 4, visual 5
    tasks = at_public_seeds(families, seed)
    queue = list(tasks)
    results = {}

    async def worker():
        env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
        try:
            while queue:
                t = queue.pop(0)
                results[t.id] = await _solve(env, t)
        finally:
            await env.close()

    await asyncio.gather(worker(), worker())
    failed = {k: v for k, v in results.items() if not v[0] or v[2] or v[1]}
    assert len(results) == len(tasks) == 8 and {t.seed for t in tasks} == {seed}
    assert not failed, failed


@pytest.mark.browser
async def test_stale_pointer_and_destructive_guards(browser, arena):
    task = next(t for t in build_tasks((0,)) if t.family == "shop.cancel_order")
    task = dataclasses.replace(task, max_steps=60)  # more steps than the task's budget: the episode must not end
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        obs = await env.reset(task)
        old_hash = obs.screenshot_hash
        # aimed at another screenshot: stale
        out = await env.step(Action("pointer", pointer="click", x=0.5, y=0.5, screenshot_hash="0" * 64))
        assert out.info["result"]["rejected"] == "stale"
        # navigation and scroll change the screenshot: older hashes are stale
        out = await env.step(Action("goto", url="/shop/"))
        catalog_hash, catalog_token = out.observation.screenshot_hash, out.observation.token
        assert catalog_hash != old_hash and len(catalog_token) < 12
        out = await env.step(Action("scroll", dy=300))
        assert out.observation.scroll[1] > 0 and out.observation.screenshot_hash != catalog_hash
        out = await env.step(Action("pointer", pointer="click", x=0.5, y=0.5, screenshot_hash=catalog_hash))
        assert out.info["result"]["rejected"] == "stale"
        # the short token binds the same way: an older observation's token is stale, the current one is not
        out = await env.step(Action("pointer", pointer="click", x=0.5, y=0.5, token=catalog_token))
        assert out.info["result"]["rejected"] == "stale"
        out = await env.step(Action("pointer", pointer="click", x=0.99, y=0.5, token=out.observation.token))
        assert out.info["result"].get("rejected") != "stale", out.info["result"]
        out = await env.step(Action("goto", url="/shop/orders"))
        # the page changes after the observation (a late banner): the current hash is stale
        obs = out.observation
        await env.page.evaluate("() => { const d = document.createElement('div'); d.textContent = 'Late news';"
                                " d.style.cssText = 'position:fixed;top:0;left:0;background:red;padding:20px';"
                                " document.body.appendChild(d); }")
        out = await env.step(Action("pointer", pointer="click", x=0.5, y=0.5, screenshot_hash=obs.screenshot_hash))
        assert out.info["result"]["rejected"] == "stale"
        # the rejection names what differs and what the change watch saw
        assert "(pixels differ; seen: " in out.info["result"]["error"], out.info["result"]
        assert "mutation" in out.info["result"]["error"].split("seen: ")[1], out.info["result"]
        assert env.final_diff().empty
        # the "Cancel" opener is not declared irreversible: it only opens the confirm dialog
        obs = out.observation
        cancel = next(e for e in obs.elements if e.role == "button" and e.name == "Cancel" and e.visible)
        env.gate_destructive = True
        out = await env.step(Action("click", element=cancel.id))
        assert out.info["result"]["ok"], out.info["result"]
        assert env.final_diff().empty  # the click only opened the confirm dialog
        # a declared irreversible target that moved after the observation is not clicked
        obs = out.observation
        confirm = next(e for e in obs.elements if e.role == "button" and e.name == "Cancel order" and e.visible)
        await env.page.evaluate("() => document.querySelector('.modal').style.marginTop = '120px'")
        env.gate_destructive = False
        out = await env.step(Action("click", element=confirm.id))
        assert out.info["result"]["rejected"] == "moved"
        assert env.moved_checks == {"watch": 0, "capture": 1}  # the watch saw the change: the boxes were read
        # with approval gating, the app refuses the irreversible request without an approval, and says so
        env.gate_destructive = True
        obs = out.observation
        confirm = next(e for e in obs.elements if e.role == "button" and e.name == "Cancel order" and e.visible)
        out = await env.step(Action("click", element=confirm.id))
        if "gate" not in out.info["result"]:  # the form went out after the step's settle (a loaded machine)
            out = await env.step(Action("wait", ms=300))
        assert out.info["result"]["rejected"] == "approval_required", out.info["result"]
        assert [g["outcome"] for g in out.info["result"]["gate"]] == ["blocked"]
        assert env.final_diff().empty
        out = await env.step(Action("back"))
        cancel = next(e for e in out.observation.elements if e.role == "button" and e.name == "Cancel" and e.visible)
        out = await env.step(Action("click", element=cancel.id))
        out = await env.step(Action("request_approval", reason="cancel the order the user named", value="Cancel order"))
        assert out.observation.approval == "granted"
        confirm = next(e for e in out.observation.elements
                       if e.role == "button" and e.name == "Cancel order" and e.visible)
        out = await env.step(Action("click", element=confirm.id))
        assert out.info["result"]["ok"], out.info["result"]
        if "gate" not in out.info["result"]:
            out = await env.step(Action("wait", ms=300))
        assert [g["outcome"] for g in out.info["result"]["gate"]] == ["allowed"]
        assert not env.final_diff().empty  # now the order is cancelled
        # nothing changed since the observation: the watch alone let the irreversible click through
        assert env.moved_checks["watch"] >= 1 and env.moved_checks["capture"] == 1
    finally:
        await env.close()


@pytest.mark.browser
async def test_agent_browser_cannot_reach_control_api_or_leave_the_app(browser, arena):
    task = build_tasks((0,))[0]
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        await env.reset(task)
        got = await env.page.evaluate(
            "async (u) => { try { const r = await fetch(u + '/health'); return 'reached:' + r.status; }"
            " catch (e) { return 'blocked'; } }", arena.control_url)
        assert got == "blocked"
        assert any(arena.control_url in b["url"] for b in env.page.blocked_requests)
        out = await env.step(Action("goto", url=arena.control_url + "/health"))
        assert out.info["result"]["rejected"] == "blocked"
        out = await env.step(Action("goto", url=f"{arena.app_url}/e/other/shop/"))
        assert out.info["result"]["rejected"] == "blocked"
        assert "/shop/" in out.observation.url and env.episode_id in out.observation.url
    finally:
        await env.close()


@pytest.mark.browser
async def test_disabled_controls_are_rejected_until_enabled(browser, arena):
    task = build_tasks((0,), families=["account.rename"])[0]
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        obs = await env.reset(task)
        save = next(e for e in obs.elements if e.role == "button" and e.name == "Save changes")
        out = await env.step(Action("click", element=save.id))
        assert out.info["result"]["rejected"] == "disabled"
        box = next(e for e in out.observation.elements if e.role == "textbox" and e.name == "Display name")
        out = await env.step(Action("fill", element=box.id, value="Alex Q. Morgan"))
        save = out.observation.element(save.id)
        assert "disabled" not in save.attrs
        out = await env.step(Action("click", element=save.id))
        assert out.info["result"]["ok"]
        await env.step(Action("wait", ms=900))  # the app saves after a loading state
        want = task.oracle()[0].value  # the name the task asks for (drawn from the seed's pool)
        assert task.validate(env.state).errors == [f"display name is 'Alex Q. Morgan', expected {want!r}"]
    finally:
        await env.close()


@pytest.mark.browser
async def test_actions_behind_an_open_dialog_are_rejected_at_once_and_change_nothing(browser, arena):
    """A click, a fill and a select on controls under the account page's open confirm dialog (a native
    ``<dialog>`` opened modally: the page behind it is inert) are each rejected as ``not_interactable``
    within 300 ms of the step's start to its rejection (guard and action: the observation after it is
    every step's cost), naming the dialog; focus cannot be moved behind it, so typing reaches nothing
    there; the field keeps its value and nothing is stored."""
    task = build_tasks((0,), families=["account.rename"])[0]
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        obs = await env.reset(task)
        box = next(e for e in obs.elements if e.role == "textbox" and e.name == "Display name")
        openers = [e for e in obs.elements if e.role == "button" and "key-open" in e.attrs.get("class", "")]
        status = next(e for e in obs.elements if e.role == "combobox" and e.name == "Status")
        out = await env.step(Action("focus", element=box.id))
        assert out.info["result"]["ok"], out.info["result"]
        out = await env.step(Action("click", element=openers[0].id))  # opens "Rotate/Revoke key ...?"
        assert out.info["result"]["ok"], out.info["result"]
        title = await env.page.evaluate("() => document.getElementById('modal-title').textContent")
        await env.page.evaluate("() => document.getElementById('display_name').focus()")  # focus left behind it
        before = await env.page.evaluate("() => document.getElementById('display_name').value")
        assert await env.page.evaluate("() => document.activeElement.closest('dialog[open]') !== null")
        for action in (Action("fill", element=box.id, value="Mallory Evans"),
                       Action("click", element=openers[1].id),
                       Action("select", element=status.id, value="revoked")):
            out = await env.step(action)
            result, t = out.info["result"], out.info["timings_ms"]
            assert result.get("rejected") == "not_interactable", result
            assert "outside the open modal <dialog" in result["error"] and title in result["error"], result
            assert t["guard"] + t["action"] <= 300, (action.kind, t)
        await env.step(Action("type_text", value="Mallory"))  # the focus is in the dialog: nothing behind it
        assert await env.page.evaluate("() => document.getElementById('display_name').value") == before
        assert env.final_diff().empty
        keep = next(e for e in out.observation.elements if e.attrs.get("id") == "keep")
        assert (await env.step(Action("click", element=keep.id))).info["result"]["ok"]
        out = await env.step(Action("fill", element=box.id, value="Mallory Evans"))  # the dialog closed: it works
        assert out.info["result"]["ok"], out.info["result"]
        assert await env.page.evaluate("() => document.getElementById('display_name').value") == "Mallory Evans"
    finally:
        await env.close()


_STORE_JS = """async () => {
  document.cookie = 'leak=1; path=/';
  localStorage.setItem('leak', '1');
  sessionStorage.setItem('leak', '1');
  await new Promise((res, rej) => {
    const r = indexedDB.open('leakdb', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('t');
    r.onsuccess = () => { const tx = r.result.transaction('t', 'readwrite'); tx.objectStore('t').put('1', 'k');
                          tx.oncomplete = () => { r.result.close(); res(); }; tx.onerror = rej; };
    r.onerror = rej;
  });
  await (await caches.open('leakcache')).put(location.href, new Response('1'));
}"""

_READ_JS = """async () => ({cookie: document.cookie.includes('leak'), local: localStorage.getItem('leak'),
  session: sessionStorage.getItem('leak'), idb: (await indexedDB.databases()).map(d => d.name),
  caches: await caches.keys(), history: history.length})"""


@pytest.mark.browser
async def test_reused_context_leaks_nothing_between_episodes(browser, arena):
    import dataclasses

    task = build_tasks((0,), families=["account.rename"])[0]
    # the page cleared before reset returns (the double-buffered reset has its own test below)
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=False))
    try:
        await env.reset(task)
        first_page = env.page
        await env.page.evaluate(_STORE_JS)
        stored = await env.page.evaluate(_READ_JS)
        assert stored["cookie"] and stored["local"] == stored["session"] == "1"
        assert "leakdb" in stored["idb"] and "leakcache" in stored["caches"]
        obs = await env.reset(task)
        assert env.page is first_page and env.contexts_reused == 1  # the same context, cleared
        fresh = await env.page.evaluate(_READ_JS)
        # as in the fresh context of episode 1, history included (the app's own entries)
        assert fresh == {"cookie": False, "local": None, "session": None, "idb": [], "caches": [],
                         "history": stored["history"]}
        assert obs.viewport == (task.viewport.width, task.viewport.height)
        # a pointer action on an unchanged page is checked by the change watch, not a screenshot
        name = next(e for e in obs.elements if e.role == "textbox" and e.visible)
        x, y, w, h = obs.viewport_box(name)
        out = await env.step(Action("pointer", pointer="click", x=(x + w / 2) / obs.viewport[0],
                                    y=(y + h / 2) / obs.viewport[1], screenshot_hash=obs.screenshot_hash))
        assert out.info["result"]["ok"] and env.stale_checks == {"watch": 1, "screenshot": 0}
        # a device scale factor a context cannot change gets a fresh context
        hidpi = dataclasses.replace(task, viewport=dataclasses.replace(task.viewport, device_scale_factor=2.0))
        obs = await env.reset(hidpi)
        assert env.page is not first_page and env.contexts_reused == 1
        assert len(obs.png) > 0 and env.page.profile.device_scale_factor == 2.0
        # ... and the first context, parked cleared, serves the next task with its profile
        await env.reset(task)
        assert env.page is first_page and env.contexts_reused == 2
        assert await env.page.evaluate(_READ_JS) == fresh
        await env.page.evaluate(_STORE_JS)
    finally:
        await env.close()
    # a shared pool (the runner's, one per browser) passes cleared contexts from env to env
    pool = PagePool()
    for n in range(2):
        env = ArenaEnv(browser, arena.app_url, arena.client(), pool=pool)
        try:
            await env.reset(task)
            assert env.contexts_reused == n and await env.page.evaluate(_READ_JS) == fresh
            await env.page.evaluate(_STORE_JS)
        finally:
            await env.close()
        assert len(pool) == 1
    await pool.close()


#: What an app page might do as it goes away: its unload-type handlers and a timer write a cookie,
#: localStorage, sessionStorage and an IndexedDB database (each named for what wrote it).
_UNLOAD_WRITER_JS = """() => {
  const put = (why) => { document.cookie = 'late_' + why + '=1; path=/'; localStorage.setItem('late_' + why, '1');
    sessionStorage.setItem('late_' + why, '1');
    const r = indexedDB.open('late_' + why, 1); r.onupgradeneeded = () => r.result.createObjectStore('t'); };
  for (const ev of ['beforeunload', 'pagehide', 'unload', 'freeze']) addEventListener(ev, () => put(ev));
  addEventListener('unload', () => put('unload_capture'), true);
  document.addEventListener('visibilitychange', () => put('visibilitychange'));
  setInterval(() => put('timer'), 1);
}"""

_LATE_JS = """async () => [document.cookie, Object.keys(localStorage), Object.keys(sessionStorage),
  (await indexedDB.databases()).map(d => d.name)].map((x, i) => i + ":" + String(x)).filter(x => x.includes("late_"))"""


async def _timer_wrote_indexeddb(page) -> None:
    """Wait until the writer's timer has created its IndexedDB database (the browser creates it a
    moment after the open; under load one opened by an unload handler may never be, so the
    timer's is what shows that IndexedDB holds a write)."""
    for _ in range(250):
        if "late_timer" in await page.evaluate("async () => (await indexedDB.databases()).map(d => d.name)"):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the writer's timer created no IndexedDB database within 5 s")


@pytest.mark.browser
@pytest.mark.parametrize("reset", ["inline", "double", "preload"])
async def test_what_an_ending_pages_unload_handlers_write_never_reaches_the_next_episode(browser, arena, reset):
    """Cookies, localStorage, sessionStorage and IndexedDB written by the last episode's page as it
    goes away (pagehide, unload, beforeunload, visibilitychange, freeze handlers, and a timer that
    writes every millisecond) are not in the next episode, with each reset (the next episode
    prepared while the last one ran, too); the writer does write when its page merely navigates
    (the test can fail)."""
    task = build_tasks((0,), families=["account.rename"])[0]
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=reset != "inline"))
    try:
        await env.reset(task)
        await env.page.evaluate(_UNLOAD_WRITER_JS)
        await _timer_wrote_indexeddb(env.page)
        await env.page.goto(env.base + task.start_url)  # a plain navigation: the handlers write
        assert len(await env.page.evaluate(_LATE_JS)) == 4
        for _ in range(3):  # on a reused page (inline) or on the other pages and back (double, preload)
            if reset == "preload":
                assert env.preload(task)
            await env.page.evaluate(_UNLOAD_WRITER_JS)
            await _timer_wrote_indexeddb(env.page)  # all four stores hold a write when the reset begins
            await env.reset(task)
            await asyncio.sleep(0.1)  # a late write would land by now
            assert await env.page.evaluate(_LATE_JS) == []
        assert env.contexts_reused >= 1
        assert env.preloads["taken"] == (3 if reset == "preload" else 0)
    finally:
        await env.close()


@pytest.mark.browser
async def test_each_episode_on_one_env_is_laid_out_at_its_own_tasks_viewport(browser, arena):
    """Tasks of other viewport sizes in turn on one env: each episode's document is laid out at its
    task's viewport, its screenshot agrees with its element table, and the records say so. When a
    reused page was resized on reuse (and a form submission could race the capture), the
    laptop-size episode after ``mail.forward`` laid out at the old 1280x800 while Playwright
    reported 1024x640 (three runs of three), and the next 1280x960 board episode on that page did too."""
    from webgauge.browser.capture import png_size

    tasks = {t.id: t for t in build_tasks((0,), families=["mail.forward", "mail.archive_sender", "board.drag",
                                                          "board.multi_archive", "shop.buy_variant"])}
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=False))
    try:
        for tid in ["mail.forward.s0", "mail.archive_sender.s0", "board.drag.s0", "board.multi_archive.s0",
                    "shop.buy_variant.s0", "mail.archive_sender.s0"]:
            task = tasks[tid]
            want = (task.viewport.width, task.viewport.height)
            rec, _ = await play(env, OracleAgent(task), task, keep_dom=False)
            assert rec.success, (tid, rec.error, rec.validator_errors, rec.forbidden_violations,
                                 [(s.action, s.result, s.after.get("url")) for s in rec.steps])
            # the record says each capture was one settled state (the PNG agreeing with the table)
            assert [s.after["capture_warnings"] for s in rec.steps] == [[]] * len(rec.steps), tid
            assert rec.steps[0].observed["viewport"] == list(want) and not rec.steps[0].observed["capture_warnings"]
            obs = env.obs  # the last observation, on the page the next task's reset takes
            assert await env.page.evaluate("() => [innerWidth, innerHeight]") == list(want), tid
            assert obs.viewport == want, tid
            assert png_size(obs.png) == tuple(round(v * task.viewport.device_scale_factor) for v in want), tid
            assert obs.snapshot.settled and not obs.snapshot.warnings, (tid, obs.snapshot.warnings)
    finally:
        await env.close()


@pytest.mark.browser
async def test_the_pool_keeps_pages_per_render_profile_and_prepare_opens_them_ahead(browser, arena):
    """A run over three viewports, one page kept per profile: ``prepare`` opens them before the first
    reset, and no reset then opens a browser context, however the viewports alternate (a pool that
    kept its last pages whatever their profile would give the phone's page up to the 2x desktop's)."""
    import dataclasses

    task = build_tasks((0,), families=["account.rename"])[0]
    vps = [dataclasses.replace(task.viewport, width=w, height=h, device_scale_factor=d)
           for w, h, d in [(1280, 800, 1.0), (390, 844, 2.0), (1280, 800, 2.0)]]
    tasks = [dataclasses.replace(task, viewport=vp) for vp in vps]
    pool = PagePool(size=1)
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=False), pool=pool)
    try:
        assert await env.prepare(tasks + tasks) == 3 and len(pool) == 3
        assert await env.prepare(tasks) == 0  # warm already: nothing more is opened
        warm = set(map(id, pool._pages))
        for n, t in enumerate([tasks[0], tasks[1], tasks[2], tasks[1], tasks[0], tasks[2], tasks[1]], start=1):
            obs = await env.reset(t)
            assert env.contexts_reused == n, (n, t.viewport)  # a pooled page, never a new context
            assert id(env.page) in warm
            assert obs.viewport == (t.viewport.width, t.viewport.height)
            assert len(pool) == 2  # the two other profiles' pages wait in the pool
    finally:
        await env.close()
    assert len(pool) == 3 and set(map(id, pool._pages)) == warm
    # a cap on all pages: the first profiles are warmed first and the pool never grows past it
    capped = PagePool(size=2, max_pages=3)
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=False), pool=capped)
    try:
        assert await env.prepare(tasks) == 3
        assert [capped.count(env._profile(t)) for t in tasks] == [2, 1, 0]
    finally:
        await env.close()
        await capped.close()
    await pool.close()


async def _send_late_revoke(env, kid, hold_ms: float) -> None:
    """A late write of the episode's page: a keepalive fetch (it outlives the page) revoking API key
    ``kid``, which the browser holds ``hold_ms`` before it goes out."""
    env.page.delay_requests("*/revoke", hold_ms)
    await env.page.evaluate(f"() => {{ fetch('{env.base}/account/keys/{kid}/revoke', "
                            "{method: 'POST', keepalive: true}); }")


async def _late_revoke_landed(arena, episode_id, kid, within_s: float = 5.0) -> bool:
    """Whether episode ``episode_id``'s database shows key ``kid`` revoked within ``within_s``."""
    for _ in range(int(within_s / 0.02)):
        old, _ = arena.client().state(episode_id)
        if next(k for k in old["acct_api_keys"] if k["id"] == kid)["revoked_at"]:
            return True
        await asyncio.sleep(0.02)
    return False


@pytest.mark.browser
async def test_double_buffered_reset_clears_the_old_page_in_the_background_and_its_late_writes_miss(browser, arena):
    """The double-buffered reset runs the next episode on another cleared page while the last one is
    frozen, then blanked and cleared in the background; a request that page had already sent
    reaches its own episode id, which the next episode does not use, and two resets later the
    page serves again, cleared."""
    import asyncio

    task = build_tasks((0,), families=["account.rename"])[0]
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=True))
    try:
        await env.reset(task)
        first_page, first_id, seed_state = env.page, env.episode_id, env.state
        history = (await env.page.evaluate(_READ_JS))["history"]
        await env.page.evaluate(_STORE_JS)
        kid = next(k["id"] for k in seed_state["acct_api_keys"] if not k["revoked_at"])
        # a late write (a keepalive fetch, which outlives the page): the page sends it now, the browser
        # holds it 250 ms, the reset happens meanwhile
        await _send_late_revoke(env, kid, hold_ms=250)
        await asyncio.sleep(0.05)
        await env.reset(task)
        assert env.page is not first_page and env.episode_id != first_id and env.contexts_reused == 0
        await env.pool.drain()  # the old page is blank now: nothing of it runs
        # the held request is released and served (a fast reset ends before 250 ms)
        assert await _late_revoke_landed(arena, first_id, kid)  # the late write reached its id
        assert await env.refresh_state() == seed_state  # ... and not this episode
        await env.reset(task)
        assert env.page is first_page and env.episode_id == first_id and env.contexts_reused == 1
        assert env.state == seed_state
        assert await env.page.evaluate(_READ_JS) == {"cookie": False, "local": None, "session": None, "idb": [],
                                                      "caches": [], "history": history}
    finally:
        await env.close()
    assert len(env.pool) == 0 and env.episode_id is None


@pytest.mark.browser
async def test_a_late_write_of_the_last_episode_misses_a_preloaded_one(browser, arena):
    """The episode before one prepared while it ran (``ArenaEnv.preload``) writes to its own
    database as it ends (a keepalive fetch the browser holds past the reset): the write lands on that
    episode's id, not the prepared episode's, whose world stays the seed's; the prepared page shares
    none of the last page's storage."""
    task = build_tasks((0,), families=["account.rename"])[0]
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=True))
    try:
        await env.reset(task)
        first_page, first_id, seed_state = env.page, env.episode_id, env.state
        assert env.preload(task)
        await env.page.evaluate(_STORE_JS)
        kid = next(k["id"] for k in seed_state["acct_api_keys"] if not k["revoked_at"])
        await _send_late_revoke(env, kid, hold_ms=250)
        await asyncio.sleep(0.05)
        await env.reset(task)
        assert env.preloads["taken"] == 1
        assert env.page is not first_page and env.episode_id != first_id
        assert await _late_revoke_landed(arena, first_id, kid)  # it reached its own id ...
        assert await env.refresh_state() == seed_state  # ... and not the prepared episode's
        stored = await env.page.evaluate(_READ_JS)
        assert (stored["cookie"], stored["local"], stored["idb"], stored["caches"]) == (False, None, [], [])
    finally:
        await env.close()


@pytest.mark.browser
async def test_a_late_request_of_the_last_episode_cannot_write_to_the_next_on_a_reused_page(browser, arena):
    """The inline reset reuses the page and runs the next episode on another of the env's episode
    ids (two in turn): a write the old page sent as its episode ended (a keepalive fetch, which
    outlives the page; here the browser holds it 400 ms, past the reset) reaches its own, retired
    id, not the new episode's database; the id serves again two resets later, reset to the seed."""
    import asyncio

    task = build_tasks((0,), families=["account.rename"])[0]
    env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(double_buffer=False))
    try:
        await env.reset(task)
        first_page, first_id, seed_state = env.page, env.episode_id, env.state
        kid = next(k["id"] for k in seed_state["acct_api_keys"] if not k["revoked_at"])
        await _send_late_revoke(env, kid, hold_ms=400)
        await asyncio.sleep(0.05)
        await env.reset(task)
        assert env.page is first_page and env.contexts_reused == 1 and env.episode_id != first_id
        # the held request is released and served meanwhile
        assert await _late_revoke_landed(arena, first_id, kid)  # it reached its own id ...
        assert await env.refresh_state() == seed_state  # ... and not this episode's database
        await env.reset(task)
        assert env.page is first_page and env.episode_id == first_id and env.state == seed_state
    finally:
        await env.close()


@pytest.mark.browser
async def test_a_step_that_opens_a_tab_waits_for_it_even_when_the_tab_is_announced_late(browser, arena):
    """A target=_blank link's new tab is announced by Playwright only once it is set up, which on a
    loaded machine can come after the step has otherwise settled. The step must still end on the new
    tab (the browser said a window opened): otherwise the next step's own tab choice is overruled
    when the late tab arrives (the promo_tab oracle once failed on this under load)."""
    task = next(t for t in build_tasks((0,)) if t.family == "shop.promo_tab")
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        obs = await env.reset(task)
        obs = (await env.step(Action(kind="goto", url="/shop/cart"))).observation
        link = next(e for e in obs.elements if e.role == "link" and e.name == "Weekly deals ↗")
        live = env.page
        ctx = live._ctx
        ctx.remove_listener("page", live._on_new_page)
        loop = asyncio.get_running_loop()
        ctx.on("page", lambda p: loop.call_later(1.5, live._on_new_page, p))  # announced 1.5 s late
        out = await env.step(Action(kind="click", element=link.id))
        assert out.info["result"]["ok"]
        assert out.observation.active_tab == 1 and len(out.observation.tabs) == 2
        assert out.observation.url.endswith("/shop/deals")
        # the agent's own switch back is not overruled later
        back = await env.step(Action(kind="switch_tab", tab=0))
        assert back.observation.active_tab == 0 and back.observation.url.endswith("/shop/cart")
    finally:
        await env.close()


class _Observed(EnvHooks):
    """Every observation's screenshot hash and element table (paths and boxes), in order."""

    def __init__(self) -> None:
        self.seen: list = []

    async def after_observe(self, env, obs) -> None:
        self.seen.append((obs.screenshot_hash, [(e.path, e.box) for e in obs.elements or []]))


@pytest.mark.browser
async def test_observations_captured_at_once_are_the_ones_a_settle_first_gives(browser, arena):
    """The oracle's episodes on the arena's own pages, played with captures taken at once and with
    every capture settled first: most observations are taken at once (a new document's first with the
    watch it armed at its load), and each shows the very pixels and element table the settled capture shows."""
    tasks = [t for t in build_tasks((0,)) if t.family in ("shop.buy_variant", "shop.cancel_order", "work.revoke_key")]
    seen = {}
    for at_once in (True, False):
        observed = _Observed()
        env = ArenaEnv(browser, arena.app_url, arena.client(), EnvOptions(capture_at_once=at_once), hooks=[observed])
        try:
            for t in tasks:
                rec, _ = await play(env, OracleAgent(t), t, keep_dom=False)
                assert rec.success, (t.id, at_once, rec.validator_errors)
            counts = dict(env.captures)
        finally:
            await env.close()
        seen[at_once] = observed.seen
        if at_once:
            assert counts["at once"] > counts["settled first"], counts
            # the start pages and the pages a step opened: their watch armed itself at their load
            assert counts["of those, armed at load"] >= len(tasks), counts
        else:
            assert counts["at once"] == 0 and counts["settled first"] > 0, counts
            assert counts["of those, armed at load"] == 0, counts
    assert len(seen[True]) == len(seen[False]) > 10
    assert seen[True] == seen[False]


_TOASTS = "() => [...document.querySelectorAll('.toast')].map(t => t.textContent)"


@pytest.mark.browser
async def test_a_notification_stays_until_the_next_input_so_thinking_never_makes_a_pointer_stale(browser, arena):
    """A model thinks for seconds between steps. A notification that a timer removed meanwhile changed
    the pixels, and the next pointer action was rejected as stale: a step lost in screenshot mode only.
    The apps' notifications (one a page is served with, one a script shows) stay until the next input,
    and let the pointer through to what they cover."""
    task = next(t for t in build_tasks((0,)) if t.family.startswith("maps."))
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        await env.reset(task)
        out = await env.step(Action("goto", url="/maps/?toast=Route+saved"))
        share = next(e for e in out.observation.elements if e.role == "button" and e.name.startswith("Share "))
        for show in (None, share):  # the page's own notification, then the one the share button's script shows
            if show is not None:
                out = await env.step(Action("click", element=show.id))
                assert out.info["result"]["ok"], out.info["result"]
            toasts = await env.page.evaluate(_TOASTS)
            assert len(toasts) == 1 and toasts[0].startswith("Share code" if show else "Route saved"), toasts
            await asyncio.sleep(3.5)  # longer than the 2.5-3 s the notifications used to last
            status = next(e for e in out.observation.elements if e.attrs.get("id") == "status")
            x, y = (status.box[0] + 5) / out.observation.viewport[0], (status.box[1] + 5) / out.observation.viewport[1]
            out = await env.step(Action("pointer", pointer="click", x=x, y=y, token=out.observation.token))
            assert out.info["result"]["ok"] and not out.info["result"].get("rejected"), out.info["result"]
            assert await env.page.evaluate(_TOASTS) == [], "the notification outlived the next input"
        # a notification lets a click through to what it covers
        await env.page.evaluate("() => { const b = document.querySelector('button.share'); const r ="
                                " b.getBoundingClientRect(); const t = document.createElement('div');"
                                " t.className = 'toast'; t.textContent = 'Over the button';"
                                " t.style.cssText = `top:${r.top - 4}px;left:${r.left - 4}px;right:auto`;"
                                " document.body.appendChild(t); toastUntilInput(t); }")
        out = await env.step(Action("wait", ms=50))
        covered = next(e for e in out.observation.elements if e.role == "button" and e.name == share.name)
        cx, cy = covered.box[0] + covered.box[2] / 2, covered.box[1] + covered.box[3] / 2
        out = await env.step(Action("pointer", pointer="click", x=cx / out.observation.viewport[0],
                                    y=cy / out.observation.viewport[1], token=out.observation.token))
        assert out.info["result"]["ok"] and (out.info["result"]["target"] or {}).get("name") == share.name, \
            out.info["result"]
        assert [t[:10] for t in await env.page.evaluate(_TOASTS)] == ["Share code"]  # the click reached the button
    finally:
        await env.close()
