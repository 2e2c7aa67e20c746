"""Families that fill the thin visual strata (issue 12: every stratum has >= 3 families).

- ``responsive``: the shop and the mail app at a phone viewport, where navigation and search
  hide behind a menu button and the mail table collapses into stacked rows;
- ``scroll_sticky``: a past order listed at the bottom of the orders page, under the shop's
  fixed promo banner, whose item is bought again (its size is only on the order's page);
- ``pixels_vs_dom``: snooze the highest-impact alert of a team, pressing the button whose
  on-screen label says "Snooze" while its DOM/aria label says something else.
"""

from __future__ import annotations

import random

from ..apps.shop import ORDERS_PAGE_SIZE
from ..content.pools import phrase
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, Fill, Match, Reveal, Select
from ..core.task import Task, TaskResult, Viewport
from .common import State, rows_by, with_article
from .shop import SIZE, _find_and_add

DESKTOP = Viewport(1280, 800, 1.0)
PHONE = Viewport(390, 844, 2.0)
MENU = Match(role="button", name="Menu")


def _cart_is(s: State, want: tuple) -> TaskResult:
    cart = [(c["product_id"], c["size"], c["qty"]) for c in s["shop_cart"]]
    ok = cart == [want]
    return TaskResult(ok, [] if ok else [f"cart holds {cart}, expected {[want]}"])


_CART_ONLY = (NoChanges(("shop_orders", "ext_payments", "shop_addresses")), MaxInserts("shop_cart", 1, "cart line"))


def mobile_cart(seed: int, state: State) -> Task:
    """Phone viewport: the product search sits inside the collapsed menu; add a quantity in a size."""
    rng = random.Random(f"mobile_cart:{seed}")
    p = rng.choice([x for x in state["shop_products"] if x["sizes"] != "One size"])
    size, qty = rng.choice(p["sizes"].split(",")), rng.randrange(2, 5)
    return Task(
        id=f"strata.mobile_cart.s{seed}", seed=seed, start_url="/shop/", viewport=PHONE,
        instruction=phrase(rng, (
            "Add {qty} of the {name} in size {size} to the cart. Do not check out.",
            "Put {qty} × {name} (size {size}) in my cart, without ordering.",
            "I want {qty} pieces of the {name}, size {size}, in the cart; don't place the order yet.",
        ), qty=qty, name=p["name"], size=size),
        validate=lambda s: _cart_is(s, (p["id"], size, qty)), family="strata.mobile_cart", pattern="responsive",
        max_steps=12, forbidden_effects=_CART_ONLY,
        oracle=lambda: [Click(MENU), *_find_and_add(p["name"], size, qty)],
    )


def mobile_star(seed: int, state: State) -> Task:
    """Phone viewport: the folder links hide behind a menu and the mail table collapses into
    stacked rows; star one archived or sent mail."""
    rng = random.Random(f"mobile_star:{seed}")
    folder = rng.choice(("archive", "sent"))
    msgs = [m for m in state["mail_messages"] if m["folder"] == folder]
    subjects = [m["subject"] for m in msgs]
    m = rng.choice(sorted((x for x in msgs if not x["starred"] and subjects.count(x["subject"]) == 1),
                          key=lambda x: x["id"]))
    who = m["recipients"] if folder == "sent" else m["sender_name"]

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "mail_messages", "id")[m["id"]]
        ok = got["starred"] == 1 and got["folder"] == folder
        return TaskResult(ok, [] if ok else [f"mail {m['id']} is starred={got['starred']} in {got['folder']}"])

    where = {"archive": ("archived mail", "from", "Archive"), "sent": ("mail you sent", "to", "Sent")}[folder]
    row = Match(tag="tr", attrs=(("data-testid", f"mail-{m['id']}"),))
    return Task(
        id=f"strata.mobile_star.s{seed}", seed=seed, start_url="/mail/", viewport=PHONE,
        instruction=phrase(rng, (
            "Star the {kind} '{subject}' ({prep} {who}).",
            "In the mail app, find the {kind} {prep} {who} titled '{subject}' and star it.",
            "Mark '{subject}', the {kind} {prep} {who}, with a star. Change nothing else.",
        ), kind=where[0], prep=where[1], who=who, subject=m["subject"]),
        validate=validate, family="strata.mobile_star", pattern="responsive", max_steps=12,
        forbidden_effects=(OnlyRowsChange("mail_messages", (m["id"],)), MaxInserts("mail_messages", 0, "message"),
                           NoChanges(("ext_mail_outbox",))),
        oracle=lambda: [Click(MENU), Click(Match(role="link", name=where[2])),
                        Fill(Match(role="textbox", name="Search mail"), m["subject"]),
                        Click(Match(role="button", name="Search")),
                        Click(Match(role="button", name="Star", within=row))],
    )


def buy_again(seed: int, state: State) -> Task:
    """An order at the bottom of the orders page (under the fixed promo banner): put one of its
    items back in the cart in the size it had, which only the order's own page shows."""
    rng = random.Random(f"buy_again:{seed}")
    products = rows_by(state, "shop_products", "id")
    orders = rows_by(state, "shop_orders", "id")
    bottom = sorted(orders, reverse=True)[ORDERS_PAGE_SIZE - 5:ORDERS_PAGE_SIZE]
    key = [(orders[i["order_id"]]["created_at"][:10], i["product_id"]) for i in state["shop_order_items"]]
    lines = [i for i in state["shop_order_items"] if i["order_id"] in bottom
             and key.count((orders[i["order_id"]]["created_at"][:10], i["product_id"])) == 1]
    line = rng.choice(sorted(lines, key=lambda i: i["id"]))
    o, p = orders[line["order_id"]], products[line["product_id"]]
    link = Match(role="link", name=f"#{o['id']}")
    return Task(
        id=f"strata.buy_again.s{seed}", seed=seed, start_url="/shop/orders", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Add one {name} to the cart again, in the same size I got in my order of {date}. Do not check out.",
            "Buy again, into the cart only: one {name}, same size as in the order placed on {date}.",
            "My order from {date} had {a_name}. Put one more in the cart in that same size (no checkout).",
        ), name=p["name"], a_name=with_article(p["name"]), date=o["created_at"][:10]),
        validate=lambda s: _cart_is(s, (p["id"], line["size"], 1)), family="strata.buy_again",
        pattern="scroll_sticky", max_steps=12, forbidden_effects=(*_CART_ONLY, NoDeletes(("shop_order_items",))),
        oracle=lambda: [Reveal(link), Click(link), Click(Match(role="link", name=p["name"])),
                        Select(SIZE, line["size"]),
                        Click(Match(role="button", name="Add to cart"))],
    )


def snooze_top(seed: int, state: State) -> Task:
    """Snooze the highest-impact open alert of a team and severity; the buttons' DOM labels are
    stale, only their pixels say which one snoozes."""
    rng = random.Random(f"snooze_top:{seed}")
    groups: dict[tuple[str, str], list[dict]] = {}
    for a in state["dash_alerts"]:
        if a["status"] == "open":
            groups.setdefault((a["team"], a["severity"]), []).append(a)
    team, sev = rng.choice(sorted(k for k, v in groups.items() if len(v) >= 2))
    a = max(groups[(team, sev)], key=lambda x: x["impact"])
    slot = next(r["slot"] for r in state["dash_slots"] if r["action"] == "snooze")

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "dash_alerts", "id")[a["id"]]["status"]
        return TaskResult(got == "snoozed", [] if got == "snoozed" else [f"alert '{a['title']}' is {got}, not snoozed"])

    row = Match(tag="div", cls="alert-row", text=a["title"])
    return Task(
        id=f"strata.snooze_top.s{seed}", seed=seed, start_url="/dash/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Snooze the open {sev} alert of the {team} that affects the most users. Leave every other alert alone.",
            "Among the {team}'s open {sev}-severity alerts, snooze the one with the highest impact.",
            "On the ops dashboard, find the {team}'s open {sev} alert hitting the most users and snooze it.",
        ), sev=sev, team=team),
        validate=validate, family="strata.snooze_top", pattern="pixels_vs_dom", visual=True, max_steps=12,
        forbidden_effects=(OnlyRowsChange("dash_alerts", (a["id"],)), NoChanges(("dash_reports",))),
        oracle=lambda: [Select(Match(tag="select", attrs=(("id", "team"),)), team),
                        Select(Match(tag="select", attrs=(("id", "severity"),)), sev),
                        Select(Match(tag="select", attrs=(("id", "status"),)), "open"),
                        Select(Match(tag="select", attrs=(("id", "sort"),)), "impact"),
                        Click(Match(role="button", name="Apply")), Reveal(row),
                        Click(Match(role="button", nth=slot, within=row))],
    )


FAMILIES = (mobile_cart, mobile_star, buy_again, snooze_top)
