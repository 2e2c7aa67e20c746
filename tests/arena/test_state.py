"""Reset, isolation, flags and clock of the per-episode SQLite state, through real HTTP."""

from __future__ import annotations

import random
import socket
import threading
import urllib.request

import pytest

from webgauge.arena.apps.control import ControlError

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post(url: str, body: str = "") -> int:
    req = urllib.request.Request(url, data=body.encode(), method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    with OPENER.open(req) as r:
        r.read()
        return r.status


WRITES = [
    ("/shop/cart/add", "product=3&size={size3}&qty=2"),
    ("/shop/addresses", "label=X&name=Y&street=1+Z&city=Q&zip=11111"),
    ("/shop/orders/{open_order}/cancel", ""),
    ("/mail/m/{inbox_mail}/archive", ""),
    ("/mail/send", "to=a%40example.test&subject=s&body=b"),
    ("/account/keys/2/revoke", ""),
    ("/account/sessions/signout", ""),
    ("/account/notifications/product_news", ""),
    ("/dash/report", "month=Mar"),
    ("/desks/book", "desk=1"),
    ("/board/archive", "card=1&card=2"),
]


def test_reset_100_times_restores_the_seed_hash(arena, control):
    ep = control.create(seed=7)
    base, eid, seed_hash = ep["base_url"], ep["id"], ep["seed_hash"]
    assert control.hash(eid) == seed_hash
    state, _ = control.state(eid)  # the shop validates sizes; only open orders cancel; only inbox mail archives
    ids = {"size3": next(p["sizes"] for p in state["shop_products"] if p["id"] == 3).split(",")[0],
           "open_order": max(o["id"] for o in state["shop_orders"] if o["status"] in ("placed", "shipped")),
           "inbox_mail": min(m["id"] for m in state["mail_messages"] if m["folder"] == "inbox")}
    rng = random.Random(0)
    changed = 0
    for i in range(100):
        for path, body in rng.sample(WRITES, 3):
            post(base + path.format(**ids), body.format(**ids))
        control.set_flags(eid, new_checkout=str(i))
        control.set_clock(eid, f"2030-01-01T00:00:{i % 60:02d}Z")
        changed += control.hash(eid) != seed_hash
        r = control.reset(eid)
        assert r["hash"] == seed_hash == r["seed_hash"], f"reset {i} did not restore the seed"
        assert control.hash(eid) == seed_hash
        assert control.hash(eid, fresh=True) == seed_hash, f"reset {i}: the tables read afresh differ from the seed"
        assert control.writes(eid) == []
    assert changed == 100
    control.delete(eid)


def test_reset_restores_sessions_flags_clock_files_and_external_services(control):
    ep = control.create(seed=1)
    eid, base = ep["id"], ep["base_url"]
    before, _ = control.state(eid)
    size = next(p["sizes"] for p in before["shop_products"] if p["id"] == 1).split(",")[0]
    post(base + "/account/sessions/signout")
    post(base + "/shop/cart/add", f"product=1&size={size}&qty=1")
    post(base + "/shop/checkout", "address=1")
    post(base + "/mail/send", "to=x%40example.test&subject=s&body=b")
    control.set_flags(eid, promo_banner="0")
    control.set_clock(eid, "2031-05-05T05:05:05Z")
    after, _ = control.state(eid)
    assert len(after["acct_sessions"]) == 1 < len(before["acct_sessions"])
    assert len(after["ext_payments"]) == len(before["ext_payments"]) + 1
    assert len(after["ext_mail_outbox"]) == 1
    assert after["meta_clock"][0]["now"] == "2031-05-05T05:05:05Z"
    control.reset(eid)
    restored, _ = control.state(eid)
    assert restored == before
    assert restored["files"] and all("__bytes__" in f["content"] for f in restored["files"])
    control.delete(eid)


def test_episodes_are_isolated_under_parallel_writes(control):
    eps = [control.create(seed=3) for _ in range(4)]
    assert len({e["seed_hash"] for e in eps}) == 1
    state, _ = control.state(eps[0]["id"])
    size = next(p["sizes"] for p in state["shop_products"] if p["id"] == 2).split(",")[0]

    def hammer(ep, n):
        for _ in range(n):
            post(ep["base_url"] + "/shop/cart/add", f"product=2&size={size}&qty=1")

    threads = [threading.Thread(target=hammer, args=(ep, k)) for k, ep in enumerate(eps)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, ep in enumerate(eps):
        state, h = control.state(ep["id"])
        qty = sum(r["qty"] for r in state["shop_cart"])
        assert qty == k, f"episode {k} saw {qty} cart items: episodes leak into each other"
        assert (h == ep["seed_hash"]) == (k == 0)
    for ep in eps:
        control.delete(ep["id"])


def test_different_seeds_give_different_worlds_and_same_seed_the_same(control):
    a, b, c = control.create(seed=11), control.create(seed=12), control.create(seed=11)
    assert a["seed_hash"] == c["seed_hash"] != b["seed_hash"]
    for e in (a, b, c):
        control.delete(e["id"])


def test_control_api_reports_unknown_episodes_and_endpoints(control):
    with pytest.raises(ControlError, match="no episode"):
        control.reset("nope")
    with pytest.raises(ControlError, match="no control endpoint"):
        control._call("GET", "/bogus")
    with pytest.raises(ControlError, match="exists"):
        ep = control.create(seed=0, episode_id="dup-1")
        control.create(seed=0, episode_id="dup-1")
    control.delete(ep["id"])


def test_apps_reject_unknown_episodes(arena):
    with pytest.raises(urllib.error.HTTPError) as e:
        OPENER.open(arena.app_url + "/e/unknown/shop/")
    assert e.value.code == 404


def test_reset_restores_only_the_written_tables_and_the_sequence(arena, control):
    """Change tracking (temp triggers): a reset after one write restores that table alone, a reset
    after none restores nothing; both land on the seed, read afresh (not from the caches)."""
    ep = control.create(seed=2)
    eid, base = ep["id"], ep["base_url"]
    db = arena.episode(eid).db
    before = db.versions()
    post(base + "/shop/addresses", "label=X&name=Y&street=1+Z&city=Q&zip=11111")  # AUTOINCREMENT table
    changed = {t for t, v in db.versions().items() if v != before[t]}
    assert changed == {"shop_addresses"}
    state, h = control.state(eid)
    assert h != ep["seed_hash"] and control.hash(eid, fresh=True) == h
    counts = dict(db.restores)
    control.reset(eid)
    assert db.restores["tables"] == counts["tables"] + 1 and db.restores["full"] == counts["full"]
    assert control.hash(eid, fresh=True) == ep["seed_hash"] == control.hash(eid)
    post(base + "/shop/addresses", "label=X&name=Y&street=1+Z&city=Q&zip=11111")
    again, _ = control.state(eid)
    assert again["shop_addresses"] == state["shop_addresses"], "the restored sqlite_sequence gave another id"
    control.reset(eid)
    control.reset(eid)
    assert db.restores["none"] == counts["none"] + 1
    assert control.hash(eid, fresh=True) == ep["seed_hash"]
    control.delete(eid)


def test_a_state_read_over_http_sends_only_the_tables_that_changed(arena, control):
    """The HTTP control client sends the hashes of the tables it holds and is sent the rest: the
    state it returns equals a full read, and an unchanged table is the last read's own list."""
    ep = control.create(seed=3)
    eid, base = ep["id"], ep["base_url"]
    path = f"/episodes/{eid}/state"  # the client's own HTTP call, to see what the server sends
    full = control._call("GET", path)
    first = control._call("POST", path, {"have": {}})
    assert first["state"] == full["state"] and first["hash"] == full["hash"] == ep["seed_hash"]
    assert sorted(first["tables"]) == sorted(full["state"]) and len(first["tables"]) > 20
    assert control._call("POST", path, {"have": first["tables"]})["state"] == {}  # nothing written: nothing sent
    held, h0 = control.state(eid)
    assert held == full["state"] and h0 == ep["seed_hash"]
    post(base + "/shop/addresses", "label=X&name=Y&street=1+Z&city=Q&zip=11111")
    sent = control._call("POST", path, {"have": first["tables"]})
    assert set(sent["state"]) == {"shop_addresses", "sqlite_sequence"}
    after, h1 = control.state(eid)
    assert after == control._call("GET", path)["state"] and h1 == control.hash(eid, fresh=True) != h0
    assert len(after["shop_addresses"]) == len(held["shop_addresses"]) + 1
    assert after["shop_orders"] is held["shop_orders"] and after["shop_addresses"] is not held["shop_addresses"]
    control.delete(eid)


def test_the_control_client_keeps_one_connection_per_thread_and_survives_a_closed_one(arena, control,
                                                                                      connection_counter):
    """Calls from one thread share one kept-alive connection (a connection per call cost three
    times the call); calls from two threads use two; a connection the server closed is replaced
    and the call still answers once, with the right data."""
    with connection_counter(arena) as accepted:
        eid = control.create(seed=3)["id"]
        for _ in range(30):
            assert control.inflight(eid) == 0
        assert len(accepted) == 1, f"{len(accepted)} connections for 31 calls on one thread"
        other = threading.Thread(target=lambda: control.hash(eid))
        other.start()
        other.join()
        assert len(accepted) == 2
        accepted[0].shutdown(socket.SHUT_RDWR)  # the server side closes this thread's connection
        before = control.hash(eid, fresh=True)
        assert len(accepted) == 3 and before == control.hash(eid)
        with pytest.raises(ControlError, match="HTTP 404"):
            control.inflight("no-such-episode")
        assert control.inflight(eid) == 0 and len(accepted) == 3  # an error answer keeps the connection
