"""Shop task families: similar variants, sticky overlays, responsive nav, new tabs, dialogs,
and long errands over the paginated catalogue and the inbox.

Targets come from the seed's shop (a few hundred products whose model names are drawn from
the sliced entity pools), so instructions vary across seeds and held-out seeds name products
that public seeds never do.
"""

from __future__ import annotations

import random
import re

from ..apps.shop import CATEGORIES, PAGE_SIZE
from ..content.pools import phrase, pool_for
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRecipients, OnlyRowsChange
from ..core.script import Click, Fill, Go, Match, Reveal, Select, SwitchTab
from ..core.task import Task, TaskResult, Viewport
from .common import State, new_rows, rows_by, with_article

DESKTOP = Viewport(1280, 800, 1.0)
MOBILE = Viewport(390, 844, 2.0)
SIZE = Match(tag="select", attrs=(("name", "size"),))


def _seed_orders(state: State) -> set[int]:
    return {r["id"] for r in state["shop_orders"]}


def _sized(state: State) -> list[dict]:
    return [p for p in state["shop_products"] if p["sizes"] != "One size"]


def _order_check(s: State, old: set[int], want: list[tuple], addr: dict) -> tuple[dict | None, list[str]]:
    """The one new order (or None) and what is wrong with it: items as (product id, size, qty)."""
    orders = [o for o in s["shop_orders"] if o["id"] not in old]
    if len(orders) != 1:
        return None, [f"expected exactly one new order, found {len(orders)}"]
    o, errs = orders[0], []
    got = sorted((i["product_id"], i["size"], i["qty"]) for i in s["shop_order_items"] if i["order_id"] == o["id"])
    if got != sorted(want):
        errs.append(f"order items {got} != {sorted(want)}")
    if o["address_id"] != addr["id"]:
        errs.append(f"shipped to address {o['address_id']}, not {addr['id']} ({addr['label']})")
    pays = [x for x in s["ext_payments"] if x["order_id"] == o["id"] and x["status"] == "captured"]
    if len(pays) != 1:
        errs.append(f"payment provider shows {len(pays)} captured payments for the order")
    return o, errs


def _order_effects(extra: tuple = ()) -> tuple:
    return (MaxInserts("shop_orders", 1, "order"), MaxInserts("ext_payments", 1, "payment"),
            OnlyRowsChange("shop_orders", ()), OnlyRowsChange("ext_payments", ()),
            NoDeletes(("shop_order_items", "shop_addresses")), *extra)


def _find_and_add(name: str, size: str, qty: int = 1) -> list:
    """Search the catalogue for a product by name, open it, pick the size (and quantity), add it."""
    steps = [Fill(Match(role="textbox", name="Search products"), name), Click(Match(role="button", name="Search")),
             Click(Match(role="link", name=name)), Select(SIZE, size)]
    if qty != 1:
        steps.append(Fill(Match(tag="input", attrs=(("name", "qty"),)), str(qty)))
    return steps + [Click(Match(role="button", name="Add to cart"))]


def _checkout(addr_id: int) -> list:
    return [Click(Match(role="link", name_contains="Cart (")), Click(Match(role="link", name="Checkout")),
            Click(Match(role="radio", attrs=(("value", str(addr_id)),))),
            Click(Match(role="button", name="Place order"))]


def buy_variant(seed: int, state: State) -> Task:
    """Order one product among near-identical colors and sizes, shipped to a named address."""
    rng = random.Random(f"buy_variant:{seed}")
    p = rng.choice(_sized(state))
    size = rng.choice(p["sizes"].split(","))
    addr = rng.choice(state["shop_addresses"])
    old = _seed_orders(state)

    def validate(s: State) -> TaskResult:
        _, errs = _order_check(s, old, [(p["id"], size, 1)], addr)
        return TaskResult(not errs, errs)

    return Task(
        id=f"shop.buy_variant.s{seed}", seed=seed, start_url="/shop/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Buy one {model} in {color}, size {size}, shipped to your {label} address. Place the order exactly once.",
            "Order a single {model} ({color}, size {size}) and have it delivered to the {label} address.",
            "I need one {model} in {color}, size {size}; ship it to {label}. One order only, please.",
        ), model=p["model"], color=p["color"], size=size, label=addr["label"]),
        validate=validate, family="shop.buy_variant", pattern="similar_options", max_steps=16,
        transient_tables=("shop_cart",), forbidden_effects=_order_effects(),
        oracle=lambda: [*_find_and_add(p["name"], size), *_checkout(addr["id"])],
    )


def sticky_add(seed: int, state: State) -> Task:
    """Add a product listed at the very bottom of the catalogue's first page, under a sticky promo banner."""
    rng = random.Random(f"sticky_add:{seed}")
    prods = sorted(state["shop_products"], key=lambda r: r["position"])[PAGE_SIZE - 8:PAGE_SIZE]
    p = rng.choice([x for x in prods if x["sizes"] != "One size"] or prods)
    size = rng.choice(p["sizes"].split(","))

    def validate(s: State) -> TaskResult:
        cart = [(c["product_id"], c["size"], c["qty"]) for c in s["shop_cart"]]
        ok = cart == [(p["id"], size, 1)]
        return TaskResult(ok, [] if ok else [f"cart holds {cart}, expected {[(p['id'], size, 1)]}"])

    link = Match(role="link", name=p["name"])
    return Task(
        id=f"shop.sticky_add.s{seed}", seed=seed, start_url="/shop/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Add one {name} in size {size} to the cart. Do not check out.",
            "Put {a_name}, size {size}, in the cart (no checkout).",
            "I'd like the {name} in size {size}: add one to the cart, but don't order yet.",
        ), name=p["name"], a_name=with_article(p["name"]), size=size),
        validate=validate, family="shop.sticky_add", pattern="scroll_sticky", max_steps=10,
        forbidden_effects=(NoChanges(("shop_orders", "ext_payments")), MaxInserts("shop_cart", 1, "cart line")),
        oracle=lambda: [Reveal(link), Click(link), Select(SIZE, size), Click(Match(role="button", name="Add to cart"))],
    )


def mobile_address(seed: int, state: State) -> Task:
    """Add an address on a phone-sized viewport, where the navigation hides behind a menu."""
    rng = random.Random(f"mobile_address:{seed}")
    pool = pool_for(seed, "mobile_address")
    city = pool.city()
    label = f"{city} {rng.choice(['flat', 'office', 'studio', 'depot', 'cabin'])}"
    fields = {"label": label, "name": pool.person(), "street": f"{rng.randrange(2, 90)} Canal Street",
              "city": city, "zip": str(rng.randrange(10000, 99999))}
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
        instruction=phrase(rng, (
            "Add a new shipping address labelled '{label}': {name}, {street}, {city}, ZIP {zip}.",
            "Save an address called '{label}' for {name} at {street}, {zip} {city}.",
            "Please store this shipping address under the label '{label}': {name}, {street}, {city} {zip}.",
        ), **fields),
        validate=validate, family="shop.mobile_address", pattern="responsive", max_steps=12,
        forbidden_effects=(MaxInserts("shop_addresses", 1, "address"), OnlyRowsChange("shop_addresses", ()),
                           NoChanges(("shop_orders",))),
        oracle=lambda: [Click(Match(role="button", name="Menu")), Click(Match(role="link", name="Addresses"))]
        + [Fill(Match(role="textbox", name=labels[k]), v) for k, v in fields.items()]
        + [Click(Match(role="button", name="Save address"))],
    )


def promo_tab(seed: int, state: State) -> Task:
    """Add a product, then read its category's promo code on a page that opens in a new tab and
    apply it in the original tab (the code only applies to carts holding that category)."""
    rng = random.Random(f"promo_tab:{seed}")
    promos = {r["category"]: r for r in state["shop_promos"] if r["active"] and r["category"]}
    p = rng.choice([x for x in _sized(state) if x["category"] in promos])
    size = rng.choice(p["sizes"].split(","))
    code = promos[p["category"]]["code"]

    def validate(s: State) -> TaskResult:
        errs = []
        got = [r["code"] for r in s["shop_cart_promo"]]
        if got != [code]:
            errs.append(f"cart promo is {got}, expected this week's {p['category']} code")
        cart = [(c["product_id"], c["size"], c["qty"]) for c in s["shop_cart"]]
        if cart != [(p["id"], size, 1)]:
            errs.append(f"cart holds {cart}, expected {[(p['id'], size, 1)]}")
        return TaskResult(not errs, errs)

    return Task(
        id=f"shop.promo_tab.s{seed}", seed=seed, start_url="/shop/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Add one {name} in size {size} to the cart, then apply this week's {category} promo code "
            "(listed on the Weekly deals page) to the cart. Do not check out.",
            "Put {a_name} (size {size}) in your cart and use the current {category} discount code from "
            "Weekly deals on it. Don't place the order.",
            "I want the {name}, size {size}, in the cart with this week's {category} promo applied; the code is "
            "on the Weekly deals page. No checkout.",
        ), name=p["name"], a_name=with_article(p["name"]), size=size, category=p["category"]),
        validate=validate, family="shop.promo_tab", pattern="popups_tabs", max_steps=16,
        transient_tables=("shop_cart", "shop_cart_promo"),
        forbidden_effects=(NoChanges(("shop_orders", "ext_payments")), MaxInserts("shop_cart", 1, "cart line")),
        oracle=lambda: [*_find_and_add(p["name"], size), Click(Match(role="link", name_contains="Cart (")),
                        Click(Match(role="link", name="Weekly deals ↗")), SwitchTab(0),
                        Fill(Match(role="textbox", name="Promo code"), code),
                        Click(Match(role="button", name="Apply"))],
    )


def cancel_order(seed: int, state: State) -> Task:
    """Cancel one order behind a confirmation dialog, leaving the others alone."""
    rng = random.Random(f"cancel_order:{seed}")
    open_orders = sorted((o for o in state["shop_orders"] if o["status"] in ("placed", "shipped")),
                         key=lambda o: -o["id"])
    page1 = {o["id"] for o in sorted(state["shop_orders"], key=lambda o: -o["id"])[:15]}
    o = rng.choice([x for x in open_orders if x["id"] in page1])
    k = open_orders.index(o)
    pay = rows_by(state, "ext_payments", "order_id")[o["id"]]
    names = rows_by(state, "shop_products", "id")
    item = names[next(i["product_id"] for i in state["shop_order_items"] if i["order_id"] == o["id"])]["name"]

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "shop_orders", "id").get(o["id"])
        errs = [] if got and got["status"] == "cancelled" else [
            f"order {o['id']} is {got and got['status']}, not cancelled"]
        p = rows_by(s, "ext_payments", "order_id").get(o["id"])
        if not p or p["status"] != "refunded":
            errs.append("the payment provider did not refund the order")
        return TaskResult(not errs, errs)

    return Task(
        id=f"shop.cancel_order.s{seed}", seed=seed, start_url="/shop/orders", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Cancel order #{id} (the one with the {item}). Keep every other order as it is.",
            "Please cancel my order #{id} for the {item}, and no other order.",
            "The {item} order (#{id}, placed {date}) is no longer needed: cancel it.",
        ), id=o["id"], item=item, date=o["created_at"][:10]),
        validate=validate, family="shop.cancel_order", pattern="menus_dialogs", max_steps=8,
        forbidden_effects=(OnlyRowsChange("shop_orders", (o["id"],)), OnlyRowsChange("ext_payments", (pay["id"],)),
                           NoDeletes(("shop_orders", "shop_order_items")), MaxInserts("shop_orders", 0, "order")),
        oracle=lambda: [Click(Match(role="button", name="Cancel", nth=k)),
                        Click(Match(role="button", name="Cancel order"))],
    )


def cheapest(seed: int, state: State) -> Task:
    """Long: find the cheapest product of a category in a colour across the paginated, sorted
    catalogue (a near-identical colour may be cheaper), then buy it in a size for an address."""
    rng = random.Random(f"cheapest:{seed}")
    groups: dict[tuple[str, str], list[dict]] = {}
    for p in _sized(state):
        groups.setdefault((p["category"], p["color"]), []).append(p)
    ok = sorted(k for k, v in groups.items() if len(v) >= 2 and
                sorted(x["price_cents"] for x in v)[0] < sorted(x["price_cents"] for x in v)[1])
    cat, color = rng.choice(ok)
    p = min(groups[(cat, color)], key=lambda x: x["price_cents"])
    size = rng.choice(CATEGORIES[cat][1].split(","))
    addr = rng.choice(state["shop_addresses"])
    listing = sorted((x for x in state["shop_products"] if x["category"] == cat),
                     key=lambda x: (x["price_cents"], x["position"]))
    pages = listing.index(p) // PAGE_SIZE
    old = _seed_orders(state)

    def validate(s: State) -> TaskResult:
        _, errs = _order_check(s, old, [(p["id"], size, 1)], addr)
        return TaskResult(not errs, errs)

    link = Match(role="link", name=p["name"])

    def oracle() -> list:
        nxt = Match(role="link", name="Next page")
        return [Select(Match(tag="select", attrs=(("name", "category"),)), cat),
                Select(Match(tag="select", attrs=(("name", "sort"),)), "price_asc"),
                Click(Match(role="button", name="Apply filters")),
                *[s for _ in range(pages) for s in (Reveal(nxt), Click(nxt))],
                Reveal(link), Click(link), Select(SIZE, size), Click(Match(role="button", name="Add to cart")),
                *_checkout(addr["id"])]

    return Task(
        id=f"shop.cheapest.s{seed}", seed=seed, start_url="/shop/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Buy the cheapest {color} product in the {cat} category, in size {size}, shipped to your {label} address.",
            "Find the lowest-priced {cat} item that comes in {color} and order one in size {size} for the {label} "
            "address.",
            "Order one {color} item from {cat} (the cheapest one we sell) in size {size}; ship it to {label}.",
        ), color=color, cat=cat, size=size, label=addr["label"]),
        validate=validate, family="shop.cheapest", pattern="similar_options", max_steps=24,
        transient_tables=("shop_cart",), forbidden_effects=_order_effects(), oracle=oracle,
    )


_LINE = re.compile(r"^- (\d+) x (.+), size (.+)$")


def reorder_request(state: State, mail: dict) -> tuple[list[tuple[str, str, int]], str]:
    """The items (name, size, qty) and the address label a reorder mail asks for."""
    items = [(m.group(2), m.group(3), int(m.group(1))) for m in map(_LINE.match, mail["body"].splitlines()) if m]
    m = re.search(r"for the (.+) address", mail["body"])
    if m is None:
        raise ValueError(f"the reorder mail names no address ('for the ... address'): {mail['body'][:80]!r}")
    return items, m.group(1)


def reorder_from_mail(seed: int, state: State) -> Task:
    """Long, two apps: find a reorder request in the inbox (search), buy exactly its items with the
    right sizes and quantities for the address it names, then reply to it with the order number."""
    rng = random.Random(f"reorder_from_mail:{seed}")
    mails = [m for m in state["mail_messages"] if m["folder"] == "inbox" and m["subject"].startswith("Reorder request")]
    m = rng.choice(sorted(mails, key=lambda x: x["id"]))
    items, label = reorder_request(state, m)
    by_name = {p["name"]: p for p in state["shop_products"]}
    addr = next(a for a in state["shop_addresses"] if a["label"] == label)
    want = [(by_name[n]["id"], size, qty) for n, size, qty in items]
    old = _seed_orders(state)
    next_id = max(old) + 1

    def validate(s: State) -> TaskResult:
        o, errs = _order_check(s, old, want, addr)
        replies = [r for r in s["ext_mail_outbox"] if r["to_addr"].lower() == m["sender"]]
        if len(replies) != 1:
            errs.append(f"{len(replies)} replies delivered to {m['sender']}, expected 1")
        elif replies[0]["subject"] != f"Re: {m['subject']}":
            errs.append(f"reply subject {replies[0]['subject']!r}, expected 'Re: {m['subject']}'")
        elif o is not None and not re.search(rf"(?<!\d){o['id']}(?!\d)", replies[0]["body"]):
            errs.append(f"the reply does not give the order number {o['id']}")
        return TaskResult(not errs, errs)

    def oracle() -> list:
        find = [Fill(Match(role="textbox", name="Search mail"), m["subject"]),
                Click(Match(role="button", name="Search")),
                Click(Match(role="link", name=m["subject"]))]
        steps = [*find, Go("/shop/")]
        for n, size, qty in items:
            steps += _find_and_add(n, size, qty)
        return [*steps, *_checkout(addr["id"]), Go("/mail/"), *find, Click(Match(role="link", name="Reply")),
                Fill(Match(role="textbox", name="Message"), f"Done: order #{next_id} is placed."),
                Click(Match(role="button", name="Send"))]

    first = m["sender_name"].split()[0]
    return Task(
        id=f"shop.reorder_from_mail.s{seed}", seed=seed, start_url="/mail/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "{sender} mailed you a reorder request ('{subject}'). Order exactly the items, sizes and quantities it "
            "lists in one order, shipped where it says (the shop is at /shop/), then reply to the mail with the "
            "order number.",
            "Handle the mail '{subject}' from {sender}: buy what it asks for in the shop (/shop/), one order, to the "
            "address it names, and answer {first} with the new order's number.",
            "Find {first}'s reorder request '{subject}' in your inbox, place that order in the shop at /shop/ "
            "(same items, sizes, quantities and address), and reply to {sender} with the order number.",
        ), sender=m["sender_name"], subject=m["subject"], first=first),
        validate=validate, family="shop.reorder_from_mail", pattern="similar_options", max_steps=60,
        transient_tables=("shop_cart",),
        forbidden_effects=_order_effects((OnlyRecipients((m["sender"],)), MaxInserts("ext_mail_outbox", 1, "message"),
                                          OnlyRowsChange("mail_messages", ()))),
        oracle=oracle,
    )


FAMILIES = (buy_variant, sticky_add, mobile_address, promo_tab, cancel_order, cheapest, reorder_from_mail)
