"""Shop and inbox (Starlette + Jinja2): the oracle solves their families in real Chromium
without forbidden effects, pagination and search behave in the browser, and reset restores
the seed after orders, replies and clean-ups."""

from __future__ import annotations

import urllib.request

import pytest

from webgauge.arena.apps import ASGI_APPS
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.inbox import PAGE_SIZE as MAIL_PAGE
from webgauge.arena.apps.shop import PAGE_SIZE
from webgauge.arena.core.actions import Action
from webgauge.arena.env import ArenaEnv
from webgauge.arena.tasks import FAMILIES, build_tasks

LONG = ["shop.cheapest", "shop.reorder_from_mail", "mail.cleanup"]
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _text(obs) -> str:
    return "\n".join(e.text or "" for e in obs.elements or [])


def test_shop_and_inbox_declare_their_irreversible_controls_and_flags():
    apps = {a.name: a for a in ASGI_APPS}
    assert {"Place order", "Cancel order"} <= set(apps["shop"].irreversible)
    assert {"Send", "Delete"} <= set(apps["inbox"].irreversible)
    assert apps["shop"].flags == {"promo_banner": "1", "new_checkout": "0"}


@pytest.mark.browser
@pytest.mark.parametrize("seed", [0, 1])
async def test_oracle_solves_the_shop_and_inbox_families(solve_with_oracle, seed):
    # the long families; the shop's are played at these seeds with every shop family in
    # tests/arena/test_env.py (the same oracle and checks), so only the inbox's is played here
    tasks = build_tasks((seed,), families=LONG)
    assert len(tasks) == len(LONG) and all(len(t.oracle()) >= 10 for t in tasks)
    shop = [k for k in FAMILIES if k.startswith("shop.")]
    played_in_test_env = {t.family for t in build_tasks((seed,), families=shop)}
    assert {t.family for t in tasks} - played_in_test_env == {"mail.cleanup"}
    tasks = [t for t in tasks if t.family not in played_in_test_env]
    records, failed = await solve_with_oracle(tasks)
    assert len(records) == len(tasks) == 1 and not failed, str(failed)


@pytest.mark.browser
async def test_pagination_search_flags_and_reset_in_chromium(browser, arena, control):
    task = build_tasks((0,), families=["mail.cleanup"])[0]
    env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
    try:
        obs = await env.reset(task)
        seed_hash = control.hash(env.episode_id)
        seed, _ = control.state(env.episode_id)
        inbox = [m for m in seed["mail_messages"] if m["folder"] == "inbox"]
        pages = -(-len(inbox) // MAIL_PAGE)
        assert f"Page 1 of {pages}" in _text(obs) and pages >= 8
        rows = [e for e in obs.elements if e.tag == "tr" and e.attrs.get("data-testid", "").startswith("mail-")]
        assert len(rows) == MAIL_PAGE
        nxt = next(e for e in obs.elements if e.role == "link" and e.name == "Next page")
        out = await env.step(Action("click", element=nxt.id))
        assert "Page 2 of" in _text(out.observation) and "page=2" in out.observation.url
        newest = sorted(inbox, key=lambda m: (m["received_at"], m["id"]))[-MAIL_PAGE - 1]
        assert newest["subject"] in _text(out.observation)  # the 26th newest mail opens page 2
        # search narrows to one sender; an archive from the results returns to the same search
        digest = next(m for m in inbox if m["sender"].startswith("news@"))
        box = next(e for e in out.observation.elements if e.role == "textbox" and e.name == "Search mail")
        out = await env.step(Action("fill", element=box.id, value=digest["sender"]))
        btn = next(e for e in out.observation.elements if e.role == "button" and e.name == "Search")
        out = await env.step(Action("click", element=btn.id))
        n = sum(m["sender"] == digest["sender"] for m in inbox)
        assert f"{n} messages matching" in _text(out.observation)
        arch = next(e for e in out.observation.elements if e.role == "button" and e.name == "Archive" and e.visible)
        out = await env.step(Action("click", element=arch.id))
        assert f"{n - 1} messages matching" in _text(out.observation) and "q=" in out.observation.url
        # the catalogue pages and sorts in the browser; the promo_banner flag draws the sticky banner
        out = await env.step(Action("goto", url="/shop/?sort=price_asc&page=2"))
        prices = sorted(p["price_cents"] for p in seed["shop_products"])
        assert "Page 2 of" in _text(out.observation)
        assert f"${prices[PAGE_SIZE] / 100:.2f}" in _text(out.observation)
        assert any(e.attrs.get("data-testid") == "promo-banner" for e in out.observation.elements)
        control.set_flags(env.episode_id, promo_banner="0", new_checkout="1")
        out = await env.step(Action("goto", url="/shop/"))
        assert not any(e.attrs.get("data-testid") == "promo-banner" for e in out.observation.elements)
        assert control.hash(env.episode_id) != seed_hash
        control.reset(env.episode_id)
        assert control.hash(env.episode_id) == seed_hash
        restored, _ = control.state(env.episode_id)
        assert restored == seed
    finally:
        await env.close()


def test_reset_restores_the_seed_after_an_order_a_reply_and_a_cleanup(arena, control):
    ep = control.create(seed=2)
    base, eid = ep["base_url"], ep["id"]
    before, _ = control.state(eid)
    product = next(p for p in before["shop_products"] if p["sizes"] != "One size")
    mail = next(m for m in before["mail_messages"] if m["folder"] == "inbox")

    def post(path: str, body: str) -> None:
        req = urllib.request.Request(base + path, data=body.encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        with OPENER.open(req) as r:
            r.read()

    post("/shop/cart/add", f"product={product['id']}&size={product['sizes'].split(',')[0]}&qty=2")
    post("/shop/checkout", "address=1")
    post("/mail/send", "to=x%40example.test&subject=Re%3A+s&body=order")
    post(f"/mail/m/{mail['id']}/delete", "back=page%3D2")
    after, _ = control.state(eid)
    assert len(after["shop_orders"]) == len(before["shop_orders"]) + 1
    assert [m["folder"] for m in after["mail_messages"] if m["id"] == mail["id"]] == ["trash"]
    control.reset(eid)
    assert control.state(eid)[0] == before
    control.delete(eid)
