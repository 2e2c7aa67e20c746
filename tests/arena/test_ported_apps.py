"""The ported apps (account, dashboard, floor plan, kanban as Starlette + Jinja2): the long
operations families solved by the oracle in real Chromium (each at one of seeds 0 and 1), and a reset
that restores the seed after writes through every app's own HTTP routes."""

from __future__ import annotations

import json
import urllib.request

import pytest

from webgauge.arena.apps import ASGI_APPS
from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.answers import with_answer
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


@pytest.mark.browser
@pytest.mark.parametrize("seed", [0, 1])
async def test_oracle_solves_the_long_families(solve_with_oracle, at_public_seeds, seed):
    tasks = at_public_seeds(LONG, seed)  # every other family at each seed
    records, failed = await solve_with_oracle(tasks)
    assert sorted(r.family for r in records.values()) == sorted(t.family for t in tasks) and not failed, str(failed)
    assert {r.seed for r in records.values()} == {seed}
    assert all(r.n_steps >= 10 for r in records.values()), {r.family: r.n_steps for r in records.values()}


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
    _post(f"{base}/board/move",
          json.dumps({"card": 1, "column": 4 if before["kb_cards"][0]["column_id"] != 4 else 1}).encode(), js)
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
