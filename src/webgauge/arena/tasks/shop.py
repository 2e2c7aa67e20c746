"""Shop task families: similar variants, sticky overlays, responsive nav, new tabs, dialogs."""

from __future__ import annotations

import random

from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, Fill, Match, Reveal, Select, SwitchTab
from ..core.task import Task, TaskResult, Viewport
from ..core.pools import phrase, pool_for
from .common import State, new_rows, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
MOBILE = Viewport(390, 844, 2.0)


def _seed_orders(state: State) -> set[int]:
    return {r["id"] for r in state["shop_orders"]}


def buy_variant(seed: int, state: State) -> Task:
    """Order one product among near-identical colors and sizes, shipped to a named address."""
    rng = random.Random(f"buy_variant:{seed}")
    prods = state["shop_products"]
    p = rng.choice([x for x in prods if x["position"] <= 12])
    size = rng.choice(p["sizes"].split(","))
    addr = rng.choice(state["shop_addresses"])
    old = _seed_orders(state)

    def validate(s: State) -> TaskResult:
        orders = [o for o in s["shop_orders"] if o["id"] not in old]
        if len(orders) != 1:
            return TaskResult(False, [f"expected exactly one new order, found {len(orders)}"])
        o, errs = orders[0], []
        items = [i for i in s["shop_order_items"] if i["order_id"] == o["id"]]
        if [(i["product_id"], i["size"], i["qty"]) for i in items] != [(p["id"], size, 1)]:
            errs.append(f"order items {[(i['product_id'], i['size'], i['qty']) for i in items]} != {[(p['id'], size, 1)]}")
        if o["address_id"] != addr["id"]:
            errs.append(f"shipped to address {o['address_id']}, not {addr['id']} ({addr['label']})")
        pays = [x for x in s["ext_payments"] if x["order_id"] == o["id"] and x["status"] == "captured"]
        if len(pays) != 1:
            errs.append(f"payment provider shows {len(pays)} captured payments for the order")
        return TaskResult(not errs, errs)

    views = Match(role="link", name="View", nth=p["position"] - 1)
    return Task(
        id=f"shop.buy_variant.s{seed}", seed=seed, start_url="/shop/", viewport=DESKTOP,
        instruction=(f"Buy one pair of the {p['model']} in {p['color']}, size {size}, shipped to your "
                     f"{addr['label']} address. Place the order exactly once."),
        validate=validate, family="shop.buy_variant", pattern="similar_options", max_steps=14,
        transient_tables=("shop_cart",),
        forbidden_effects=(MaxInserts("shop_orders", 1, "order"), MaxInserts("ext_payments", 1, "payment"),
                           OnlyRowsChange("shop_orders", ()), NoDeletes(("shop_order_items", "shop_addresses"))),
        oracle=lambda: [Reveal(views), Click(views), Select(Match(tag="select", attrs=(("name", "size"),)), size),
                        Click(Match(role="button", name="Add to cart")), Click(Match(role="link", name="Cart (1)")),
                        Click(Match(role="link", name="Checkout")),
                        Click(Match(role="radio", attrs=(("value", str(addr["id"])),))),
                        Click(Match(role="button", name="Place order"))],
    )


def sticky_add(seed: int, state: State) -> Task:
    """Add a product listed at the very bottom of a long page, under a sticky promo banner."""
    rng = random.Random(f"sticky_add:{seed}")
    prods = sorted(state["shop_products"], key=lambda r: r["position"])
    p = rng.choice(prods[-4:])
    size = rng.choice(p["sizes"].split(","))

    def validate(s: State) -> TaskResult:
        cart = [(c["product_id"], c["size"], c["qty"]) for c in s["shop_cart"]]
        ok = cart == [(p["id"], size, 1)]
        return TaskResult(ok, [] if ok else [f"cart holds {cart}, expected {[(p['id'], size, 1)]}"])

    views = Match(role="link", name="View", nth=p["position"] - 1)
    return Task(
        id=f"shop.sticky_add.s{seed}", seed=seed, start_url="/shop/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Add one {name} in size {size} to the cart. Do not check out.",
            "Put a {name}, size {size}, in the cart (no checkout).",
            "I'd like the {name} in size {size}: add one to the cart, but don't order yet.",
        ), name=p["name"], size=size),
        validate=validate, family="shop.sticky_add", pattern="scroll_sticky", max_steps=10,
        forbidden_effects=(NoChanges(("shop_orders", "ext_payments")), MaxInserts("shop_cart", 1, "cart line")),
        oracle=lambda: [Reveal(views), Click(views), Select(Match(tag="select", attrs=(("name", "size"),)), size),
                        Click(Match(role="button", name="Add to cart"))],
    )


def mobile_address(seed: int, state: State) -> Task:
    """Add an address on a phone-sized viewport, where the navigation hides behind a menu."""
    rng = random.Random(f"mobile_address:{seed}")
    label = rng.choice(["Studio", "Cabin", "Office 2", "Gym"])
    fields = {"label": label, "name": "Alex Morgan", "street": f"{rng.randrange(2, 90)} Canal Street",
              "city": pool_for(seed, "mobile_address").city(), "zip": str(rng.randrange(10000, 99999))}
    old = {a["id"] for a in state["shop_addresses"]}

    def validate(s: State) -> TaskResult:
        new = new_rows(s, "shop_addresses", old)
        if len(new) != 1:
            return TaskResult(False, [f"expected one new address, found {len(new)}"])
        errs = [f"{k} is {new[0][k]!r}, expected {v!r}" for k, v in fields.items() if new[0][k] != v]
        return TaskResult(not errs, errs)

    labels = {"label": "Label", "name": "Full name", "street": "Street", "city": "City", "zip": "ZIP"}
    return Task(
        id=f"shop.mobile_address.s{seed}", seed=seed, start_url="/shop/", viewport=MOBILE,
        instruction=(f"Add a new shipping address labelled '{label}': {fields['name']}, {fields['street']}, "
                     f"{fields['city']}, ZIP {fields['zip']}."),
        validate=validate, family="shop.mobile_address", pattern="responsive", max_steps=12,
        forbidden_effects=(MaxInserts("shop_addresses", 1, "address"), OnlyRowsChange("shop_addresses", ()),
                           NoChanges(("shop_orders",))),
        oracle=lambda: [Click(Match(role="button", name="Menu")), Click(Match(role="link", name="Addresses"))]
        + [Fill(Match(role="textbox", name=labels[k]), v) for k, v in fields.items()]
        + [Click(Match(role="button", name="Save address"))],
    )


def promo_tab(seed: int, state: State) -> Task:
    """Read a code on a page that opens in a new tab and apply it in the original tab."""
    code = next(p["code"] for p in state["shop_promos"] if p["active"])

    def validate(s: State) -> TaskResult:
        got = [r["code"] for r in s["shop_cart_promo"]]
        return TaskResult(got == [code], [] if got == [code] else [f"cart promo is {got}, expected this week's code"])

    return Task(
        id=f"shop.promo_tab.s{seed}", seed=seed, start_url="/shop/cart", viewport=DESKTOP,
        instruction="Apply this week's promo code, listed on the Weekly deals page, to your cart.",
        validate=validate, family="shop.promo_tab", pattern="popups_tabs", max_steps=10,
        forbidden_effects=(NoChanges(("shop_orders", "ext_payments", "shop_cart")),),
        oracle=lambda: [Click(Match(role="link", name="Weekly deals ↗")), SwitchTab(0),
                        Fill(Match(role="textbox", name="Promo code"), code), Click(Match(role="button", name="Apply"))],
    )


def cancel_order(seed: int, state: State) -> Task:
    """Cancel one order behind a confirmation dialog, leaving the others alone."""
    rng = random.Random(f"cancel_order:{seed}")
    orders = sorted(state["shop_orders"], key=lambda o: -o["id"])
    o = rng.choice(orders)
    k = orders.index(o)
    pay = rows_by(state, "ext_payments", "order_id")[o["id"]]

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "shop_orders", "id").get(o["id"])
        errs = [] if got and got["status"] == "cancelled" else [f"order {o['id']} is {got and got['status']}, not cancelled"]
        p = rows_by(s, "ext_payments", "order_id").get(o["id"])
        if not p or p["status"] != "refunded":
            errs.append("the payment provider did not refund the order")
        return TaskResult(not errs, errs)

    return Task(
        id=f"shop.cancel_order.s{seed}", seed=seed, start_url="/shop/orders", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Cancel order #{id}. Keep every other order as it is.",
            "Please cancel my order #{id}, and no other order.",
            "Order #{id} is no longer needed: cancel it.",
        ), id=o["id"]),
        validate=validate, family="shop.cancel_order", pattern="menus_dialogs", max_steps=8,
        forbidden_effects=(OnlyRowsChange("shop_orders", (o["id"],)), OnlyRowsChange("ext_payments", (pay["id"],)),
                           NoDeletes(("shop_orders", "shop_order_items")), MaxInserts("shop_orders", 0, "order")),
        oracle=lambda: [Click(Match(role="button", name="Cancel", nth=k)), Click(Match(role="button", name="Cancel order"))],
    )


FAMILIES = (buy_variant, sticky_add, mobile_address, promo_tab, cancel_order)
