"""The ported apps (account, dashboard, floor plan, kanban as Starlette + Jinja2): the long
operations families solved by the oracle in real Chromium at seeds 0 and 1, and a reset
that restores the seed after writes through every app's own HTTP routes."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps import ASGI_APPS
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.answers import with_answer
from webgauge.arena.core.env import ArenaEnv
from webgauge.arena.core.episode import play
from webgauge.arena.tasks import build_tasks, seed_state

LONG = ["desks.team_visit", "board.triage", "account.rotate_keys", "dash.ack_team"]
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _post(url: str, body: bytes, ctype: str) -> int:
    req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": ctype})
    with OPENER.open(req) as r:
        r.read()
        return r.status


def test_ported_apps_are_asgi_apps_and_declare_their_irreversible_controls():
    apps = {a.name: a for a in ASGI_APPS}
    assert {"account", "dashboard", "floorplan", "kanban"} <= set(apps)
    assert {"Revoke key", "Rotate key", "Sign out all other sessions"} <= set(apps["account"].irreversible)
    assert apps["kanban"].irreversible == ("Archive selected",) and apps["kanban"].renders == "client"


def test_long_families_fail_on_the_seed_and_on_a_wrong_answer():
    for t in build_tasks((0, 1), families=LONG):
        seed = encode_state(seed_state(t.seed))
        assert not t.validate(with_answer(seed, None)).success, t.id
        assert not t.validate(with_answer(seed, t.answer)).success, t.id  # the answer alone changes nothing


@pytest.mark.parametrize("seed", [0, 1])
async def test_oracle_solves_the_long_families(browser, arena, seed):
    tasks = build_tasks((seed,), families=LONG)
    queue, results = list(tasks), {}

    async def worker():
        env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
        try:
            while queue:
                t = queue.pop(0)
                rec, _ = await play(env, OracleAgent(t), t, keep_dom=False)
                rejected = [s.result for s in rec.steps if s.result.get("rejected")]
                results[t.family] = (rec.success, rec.validator_errors + rejected, rec.forbidden_violations, rec.n_steps)
        finally:
            await env.close()

    await asyncio.gather(worker(), worker())
    failed = {k: v for k, v in results.items() if not v[0] or v[1] or v[2]}
    assert sorted(results) == sorted(LONG) and not failed, failed
    assert all(v[3] >= 10 for v in results.values()), {k: v[3] for k, v in results.items()}


def test_reset_restores_the_seed_after_writes_to_every_ported_app(control):
    ep = control.create(seed=2)
    base, eid = ep["base_url"], ep["id"]
    before, _ = control.state(eid)
    form, js = "application/x-www-form-urlencoded", "application/json"
    key = next(k for k in before["acct_api_keys"] if not k["revoked_at"])
    _post(f"{base}/account/keys/{key['id']}/rotate", b"", form)
    _post(f"{base}/dash/report", b"kind=lowest&month=Feb&metric=Orders&year=2024", form)
    alert = next(a["id"] for a in before["dash_alerts"] if a["status"] == "open")
    _post(f"{base}/dash/alerts/{alert}/0", b"", form)
    _post(f"{base}/desks/book", b"desk=40&day=2026-03-05&booked_for=Ops", form)
    _post(f"{base}/board/move", json.dumps({"card": 1, "column": 4 if before["kb_cards"][0]["column_id"] != 4 else 1}).encode(), js)
    _post(f"{base}/board/archive", json.dumps({"card": [2, 3]}).encode(), js)
    after, _ = control.state(eid)
    for table in ("acct_api_keys", "dash_reports", "dash_alerts", "fp_bookings", "kb_cards"):
        assert after[table] != before[table], f"the write to {table} did not land"
    rotated = [k for k in after["acct_api_keys"] if k["name"] == key["name"]]
    assert len(rotated) == 2 and sum(k["revoked_at"] is None for k in rotated) == 1
    control.reset(eid)
    restored, _ = control.state(eid)
    assert restored == before and control.hash(eid) == ep["seed_hash"]
    control.delete(eid)
