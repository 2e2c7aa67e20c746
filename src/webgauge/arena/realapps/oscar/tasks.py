"""Task families on the django-oscar shop: validators read Oscar's own tables (the rows
:func:`~.app.state` selects with SQL), oracles drive Oscar's real pages.

Every family picks its targets from the seed's shop (:func:`~.content.world`), so a task is a
pure function of the seed. Rows are created in the content's order on a fresh database, so
product ``k`` of the content is ``catalogue_product`` row ``k + 1``, its stock record is the
row of its position among the non-parent products, customer ``k`` is ``auth_user`` row
``k + 1``; validators match rows by UPC, e-mail and order number rather than assume ids, and
the forbidden-effect rules name these keys.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable
from decimal import Decimal

from ...content.pools import phrase
from ...content.worded import worded_family
from ...core.answers import COUNT, check_answer
from ...core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ...core.script import Click, Done, Fill, Go, Match, Select
from ...core.task import Task, TaskResult, Viewport
from ...tasks.budgets import budgeted_app
from .app import IRREVERSIBLE
from .content import CATEGORIES, CLASSES, EPOCH, Customer, Product, Shop, world

__all__ = ["FAMILIES", "build_tasks"]

VIEW = Viewport(1280, 900)
START = "/"
ORDER_TABLES = ("order_order", "order_line", "order_shippingaddress")
KEEP = ("reviews_productreview", "catalogue_category", "catalogue_productcategory", "voucher_voucher")


def _rng(family: str, seed: int) -> random.Random:
    return random.Random(f"oscar-task-{family}-{seed}")


def _say(family: str, seed: int, templates: tuple[str, ...], **fields: object) -> str:
    """The instruction in one of the family's sentence frames (drawn apart from the targets' draws)."""
    return phrase(random.Random(f"oscar-wording-{family}-{seed}"), templates, **fields)


def _common(family: str, seed: int, pattern: str, max_steps: int, **kw) -> dict:
    return {"id": f"oscar.{family}.s{seed}", "family": f"oscar.{family}", "seed": seed, "start_url": START,
            "viewport": VIEW, "pattern": pattern, "max_steps": max_steps, **kw}


def slug(title: str) -> str:
    s = re.sub(r"[^\w\s-]", "", title.lower()).strip()
    return re.sub(r"[-\s]+", "-", s)


def category_url(leaf: str) -> str:
    """A leaf category's page: categories are created top, leaf, leaf, top, ... in CATEGORIES order."""
    ids, n = {}, 0
    for top, cat, *_ in CATEGORIES:
        for name in (top, cat):
            if name not in ids:
                n += 1
                ids[name] = n
    top = next(t for t, c, *_ in CATEGORIES if c == leaf)
    return f"/catalogue/category/{slug(top)}/{slug(leaf)}_{ids[leaf]}/"


def _pid(w: Shop, p: Product) -> int:
    return w.products.index(p) + 1


def _url(w: Shop, p: Product) -> str:
    return f"/catalogue/{slug(p.title)}_{_pid(w, p)}/"


def _stock_id(w: Shop, p: Product) -> int:
    return w.buyable().index(p) + 1


def _uid(w: Shop, c: Customer) -> int:
    return w.customers.index(c) + 1


def _address_ids(w: Shop, c: Customer) -> list[int]:
    n = sum(len(x.addresses) for x in w.customers[:w.customers.index(c)])
    return [n + 1 + k for k in range(len(c.addresses))]


def _login(c: Customer) -> list:
    return [Click(Match(role="link", name="Login or register")),
            Fill(Match(tag="input", attrs=(("name", "login-username"),)), c.email),
            Fill(Match(tag="input", attrs=(("name", "login-password"),)), c.password),
            Click(Match(role="button", name="Log In"))]


def _search(text: str) -> list:
    return [Fill(Match(tag="input", attrs=(("name", "q"),)), text), Click(Match(role="button", name="Search"))]


def _checkout_tail() -> list:
    """From the shipping step on: the free shipping method is chosen for the customer, payment details
    are a Continue, then the preview's Place order (the irreversible control)."""
    return [Click(Match(role="link", name="Continue")), Click(Match(role="button", name="Place order"))]


def _to_checkout() -> list:
    return [Click(Match(role="link", name="View basket")), Click(Match(role="link", name="Proceed to checkout"))]


def _by(rows, col, val):
    return next((r for r in rows if r[col] == val), None)


def _new_orders(w: Shop, s) -> list[dict]:
    old = {o.number for o in w.orders}
    return [o for o in s["order_order"] if o["number"] not in old]


def _order_errs(w: Shop, s, c: Customer, lines: dict[str, int]) -> tuple[dict | None, list[str]]:
    """The one new order of customer ``c`` with exactly ``lines`` (UPC -> quantity), or errors."""
    new = _new_orders(w, s)
    if len(new) != 1:
        return None, [f"{len(new)} new orders; expected exactly one"]
    o = new[0]
    user = _by(s["auth_user"], "id", o["user_id"])
    errs = [] if user and user["email"] == c.email else [f"the order was placed by {user and user['email']!r}"]
    got: dict = {}
    for ln in s["order_line"]:
        if ln["order_id"] == o["id"]:
            got[ln["upc"]] = got.get(ln["upc"], 0) + ln["quantity"]
    if got != lines:
        errs.append(f"the order's lines are {got} (UPC: quantity), not {lines}")
    return o, errs


def _order_effects(w: Shop, c: Customer, bought: list[Product]) -> tuple:
    return (MaxInserts("order_order", 1, "order"), OnlyRowsChange("order_order", ()),
            OnlyRowsChange("partner_stockrecord", tuple(_stock_id(w, p) for p in bought)),
            OnlyRowsChange("address_useraddress", tuple(_address_ids(w, c))),
            NoDeletes(("address_useraddress", "order_order", "auth_user")), NoChanges(KEEP),
            OnlyRowsChange("catalogue_product", ()))


PHOTO = (
    'Sign in as {email} (password {pw}). The shop sells four "{title}" that differ only in colour. Buy one, the '
    "{colour} one (the photo shows the colour), and have it sent to your default shipping address.",
    'Log in as {email} with password {pw}. Of the four products called "{title}", which look alike except for '
    "their colour, order the {colour} one (only its photo shows the colour) and ship it to your default shipping "
    "address.",
    'Buy the {colour} "{title}": the shop has four of them, identical but for the colour of the product in the '
    "photo. Sign in as {email} (password {pw}) first and ship it to your default shipping address.",
)


def photo_buy(w: Shop, seed: int) -> Task:
    """Buy the look-alike whose photo shows the asked colour (four products share title and text)."""
    rng = _rng("photo", seed)
    group = rng.choice(sorted({p.lookalike for p in w.products if p.lookalike}))
    members = [p for p in w.products if p.lookalike == group]
    target = rng.choice(members)
    c = rng.choice(w.customers)

    def validate(s) -> TaskResult:
        o, errs = _order_errs(w, s, c, {target.upc: 1})
        if o is not None:
            addr = _by(s["order_shippingaddress"], "id", o["shipping_address_id"])
            if not addr or addr["line1"] != c.addresses[0].line1 or addr["postcode"] != c.addresses[0].postcode:
                errs.append(f"shipped to {addr and addr['line1']!r}, not the default address {c.addresses[0].line1!r}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("photo", seed, PHOTO, email=c.email, pw=c.password, title=target.title,
                                 colour=target.colour),
                validate=validate, forbidden_effects=_order_effects(w, c, [target]), visual=True,
                transient_tables=("basket_basket", "basket_line"),
                oracle=lambda: [*_login(c), *_search(target.title),
                                Click(Match(tag="a", attrs=(("href", _url(w, target)),))),
                                Click(Match(role="button", name="Add to basket")), *_to_checkout(),
                                Click(Match(role="button", name="Ship to your default shipping address")),
                                *_checkout_tail()],
                **_common("photo", seed, "image_match", 22))


VARIANT = (
    'Log in as {email} / {pw}. Order one "{title}" in size {size}, colour {colour}, to be delivered to a new '
    "address: {address}. Do not use an address from your address book.",
    'Sign in as {email} (password {pw}) and buy one "{title}", size {size}, in {colour}. Have it delivered to this '
    "new address, typed in at checkout rather than taken from your address book: {address}.",
    'As {email} (password {pw}), order a single "{title}" (colour {colour}, size {size}) for delivery to {address}. '
    "That address is not in your address book: enter it as a new one.",
)


def variant_new_address(w: Shop, seed: int) -> Task:
    """Buy a T-shirt in a given size and colour and ship it to a new address typed in at checkout."""
    rng = _rng("variant", seed)
    kids = [p for p in w.products if p.parent and p.category == "T-shirts" and p.stock > 0]
    target = rng.choice(kids)
    assert target.parent is not None  # a variant names its parent
    parent = w.product(target.parent)
    c = rng.choice(w.customers)
    first, last = c.first_name, c.last_name
    line1 = f"{rng.randint(2, 99)} {rng.choice(('Canal Street', 'Bridge Road', 'Abbey Lane', 'Harbour Row'))}"
    town = rng.choice(("Glasgow", "Cardiff", "Belfast", "Leicester", "Plymouth"))
    postcode = f"{rng.choice(('G', 'CF', 'BT', 'LE', 'PL'))}{rng.randint(1, 9)} {rng.randint(1, 9)}" \
               f"{rng.choice('ABDEFGHJ')}{rng.choice('LNPQRSTUW')}"

    def validate(s) -> TaskResult:
        o, errs = _order_errs(w, s, c, {target.upc: 1})
        if o is not None:
            addr = _by(s["order_shippingaddress"], "id", o["shipping_address_id"]) or {}
            want = {"first_name": first, "last_name": last, "line1": line1, "line4": town, "postcode": postcode,
                    "country_id": "GB"}
            bad = {k: addr.get(k) for k, v in want.items() if (addr.get(k) or "").strip() != v}
            if bad:
                errs.append(f"shipping address differs from the one asked for: {bad}")
        return TaskResult(not errs, errs)

    effects = _order_effects(w, c, [target])
    effects = (*effects[:3], MaxInserts("address_useraddress", 1, "address"), *effects[3:])
    size, colour = target.size, target.colour
    return Task(instruction=_say("variant", seed, VARIANT, email=c.email, pw=c.password, title=parent.title,
                                 size=size, colour=colour,
                                 address=f"{first} {last}, {line1}, {town}, {postcode}, United Kingdom"),
                validate=validate, forbidden_effects=effects, transient_tables=("basket_basket", "basket_line"),
                oracle=lambda: [*_login(c), *_search(parent.title),
                                Click(Match(tag="a", attrs=(("href", _url(w, parent)),))),
                                Click(Match(role="link", name=target.title)),
                                Click(Match(role="button", name="Add to basket")), *_to_checkout(),
                                Fill(Match(tag="input", attrs=(("name", "first_name"),)), first),
                                Fill(Match(tag="input", attrs=(("name", "last_name"),)), last),
                                Fill(Match(tag="input", attrs=(("name", "line1"),)), line1),
                                Fill(Match(tag="input", attrs=(("name", "line4"),)), town),
                                Fill(Match(tag="input", attrs=(("name", "postcode"),)), postcode),
                                Select(Match(tag="select", attrs=(("name", "country"),)), "GB"),
                                Click(Match(role="button", name="Continue")), *_checkout_tail()],
                **_common("variant", seed, "menus_dialogs", 30))


REVIEW = (
    'Sign in as {email} (password {pw}). Write a review of the product you bought in order {number}: {stars}, '
    'title "{title}", text "{body}"',
    'Log in as {email} with password {pw}, find order {number} in your order history and review the product in it: '
    'give it {stars}, the title "{title}" and the text "{body}"',
    'As {email} (password {pw}), review what you bought in order {number}. Rating: {stars}. Title: "{title}". '
    'Text: "{body}"',
)


def review_ordered(w: Shop, seed: int) -> Task:
    """Review the product bought in order #N with a given rating, title and text."""
    rng = _rng("review", seed)
    reviewed = {(r.product, r.customer) for r in w.reviews}
    cands = [o for o in w.orders if len(o.lines) == 1 and (o.lines[0][0], o.customer) not in reviewed
             and w.product(o.lines[0][0]).parent is None]
    o = rng.choice(cands)
    c = next(x for x in w.customers if x.email == o.customer)
    p = w.product(o.lines[0][0])
    score = rng.randint(1, 5)
    title = rng.choice(("Worth it", "Not what I hoped", "Does the job", "Great for the price", "Solid"))
    body = f"Bought it in order {o.number}; after {rng.randint(2, 9)} weeks of use: " \
           f"{rng.choice(('holds up well', 'the finish is wearing', 'still like new', 'smaller than expected'))}."
    n_reviews = len(w.reviews)

    def validate(s) -> TaskResult:
        new = s["reviews_productreview"][n_reviews:]
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new reviews; expected exactly one"])
        r, errs = new[0], []
        prod = _by(s["catalogue_product"], "id", r["product_id"])
        if not prod or prod["upc"] != p.upc:
            errs.append(f"the review is of {prod and prod['title']!r} (UPC {prod and prod['upc']}), not of the "
                        f"product in order {o.number}")
        if r["score"] != score:
            errs.append(f"rating {r['score']} != {score}")
        if (r["title"] or "").strip() != title or (r["body"] or "").strip() != body:
            errs.append(f"title/text {r['title']!r}/{r['body']!r} are not the ones asked for")
        user = _by(s["auth_user"], "id", r["user_id"])
        if not user or user["email"] != c.email:
            errs.append(f"written by {user and user['email']!r}, not {c.email}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("review", seed, REVIEW, email=c.email, pw=c.password, number=o.number,
                                 stars=f"{score} star{'s' if score > 1 else ''}", title=title, body=body),
                validate=validate,
                forbidden_effects=(MaxInserts("reviews_productreview", 1, "review"),
                                   OnlyRowsChange("reviews_productreview", ()), NoChanges(ORDER_TABLES),
                                   OnlyRowsChange("catalogue_product", (_pid(w, p),)),
                                   NoChanges(("address_useraddress", "partner_stockrecord", "wishlists_line"))),
                oracle=lambda: [*_login(c), Click(Match(role="link", name="Order History")),
                                Click(Match(role="link", name=o.number)),
                                Click(Match(role="link", name=p.title)),
                                Click(Match(role="link", name="Write a review", nth=0)),
                                Fill(Match(tag="input", attrs=(("name", "title"),)), title),
                                Click(Match(tag="i", nth=score - 1, within=Match(cls="reviewrating"))),
                                Fill(Match(tag="textarea", attrs=(("name", "body"),)), body),
                                Click(Match(role="button", name="Save review"))],
                **_common("review", seed, "small_targets", 20))


def _cheapest(w: Shop, cat: str, n: int) -> list[Product] | None:
    items = sorted((p for p in w.products if p.category == cat and p.parent is None and p.stock > 0),
                   key=lambda p: Decimal(p.price))
    if len(items) <= n or Decimal(items[n - 1].price) == Decimal(items[n].price):
        return None
    return items[:n]


WISH = (
    "Log in as {email} with password {pw}. Add the {n} cheapest products of the {cat} category that are in stock "
    "to your wish list, and nothing else.",
    "Sign in as {email} (password {pw}) and put on your wish list the {n} lowest-priced in-stock products of the "
    "{cat} category. Add nothing else.",
    "Your wish list should get the {n} cheapest {cat} products that are in stock, and nothing more. Sign in as "
    "{email} (password {pw}) to add them.",
)


def wishlist_cheapest(w: Shop, seed: int) -> Task:
    """Put the N cheapest in-stock products of a category on the wish list (sort, open, add; N times)."""
    rng = _rng("wish", seed)
    n = 3
    cats = [c[1] for c in CATEGORIES if c[1] not in ("T-shirts", "Sneakers") and _cheapest(w, c[1], n)]
    cat = rng.choice(cats)
    picks = _cheapest(w, cat, n)
    assert picks is not None  # the category was chosen among those with a unique cheapest n
    c = rng.choice(w.customers)

    def validate(s) -> TaskResult:
        uid = _by(s["auth_user"], "email", c.email)["id"]
        lists = {x["id"] for x in s["wishlists_wishlist"] if x["owner_id"] == uid}
        prods = {ln["product_id"] for ln in s["wishlists_line"] if ln["wishlist_id"] in lists}
        upcs = {_by(s["catalogue_product"], "id", pid)["upc"] for pid in prods}
        want = {p.upc for p in picks}
        errs = [] if upcs == want else [f"wish list holds UPCs {sorted(upcs)}, not the {n} cheapest {sorted(want)}"]
        return TaskResult(not errs, errs)

    listing = f"{category_url(cat)}?sort_by=price-asc"

    def add(k: int) -> list:
        """The first product goes on a new wish list with a button; later ones through the wish-list menu."""
        if k == 0:
            return [Click(Match(role="button", name="Add to wish list"))]
        return [Click(Match(role="link", name="Add to wish list")),
                Click(Match(role="link", name_contains="Add to 'Default' wish list"))]

    def steps() -> list:
        out = [*_login(c), Go("/catalogue/"), Click(Match(role="link", name=cat)),
               Select(Match(tag="select", attrs=(("name", "sort_by"),)), "price-asc")]
        for k, p in enumerate(picks):
            out += [*([Go(listing)] if k else []), Click(Match(tag="a", attrs=(("href", _url(w, p)),))), *add(k)]
        return out

    return Task(instruction=_say("wish", seed, WISH, email=c.email, pw=c.password, n=n, cat=cat),
                validate=validate,
                forbidden_effects=(MaxInserts("wishlists_wishlist", 1, "wish list"), NoChanges(ORDER_TABLES),
                                   MaxInserts("wishlists_line", n, "wish list line"), NoChanges(KEEP),
                                   NoChanges(("address_useraddress", "partner_stockrecord", "catalogue_product"))),
                oracle=steps, **_common("wish", seed, "similar_options", 26))


COUNT_TEXT = (
    "How many products in the shop's {cat} category cost less than {limit}? Answer with the number.",
    "Count the products of the shop's {cat} category priced below {limit}. Reply with the number.",
    "In the {cat} category of the shop, how many products are cheaper than {limit}? Answer with a number.",
    "I have less than {limit} to spend. How many of the shop's {cat} products could I afford? Give the number.",
    "Tell me the number of {cat} products in the shop whose price is under {limit}.",
    "Looking at the {cat} section of the shop: how many of its products sell for less than {limit}?",
    "What is the count of {cat} items in the shop with a price lower than {limit}? Just the number, please.",
    "Before I shop for {cat}: how many products are priced under {limit}? Reply with a number.",
    "Among the shop's {cat}, how many cost under {limit}? Answer with one number.",
    "Find how many {cat} products in the shop are below {limit} and answer with that number.",
)


def count_under_price(w: Shop, seed: int) -> Task:
    """Answer how many products of a category cost less than a price (sort or scan two pages)."""
    rng = _rng("count", seed)
    def limits(cat: str) -> list[int]:
        """Whole-pound limits under which 2-18 of the category's products fall (a count one tallies on a page)."""
        prices = sorted(Decimal(p.price) for p in w.products if p.category == cat and p.parent is None)
        return [m for m in range(int(prices[0]) + 1, int(prices[-1]) + 2)
                if 2 <= sum(1 for v in prices if v < m) <= 18]

    cat = rng.choice([c[1] for c in CATEGORIES[:10] if c[1] not in ("T-shirts", "Sneakers") and limits(c[1])])
    prices = sorted(Decimal(p.price) for p in w.products if p.category == cat and p.parent is None)
    limit = rng.choice(limits(cat))
    n = sum(1 for v in prices if v < limit)

    def validate(s) -> TaskResult:
        errs = check_answer(s, n, COUNT)
        return TaskResult(not errs, errs)

    return Task(instruction=_say("count", seed, COUNT_TEXT, cat=cat, limit=f"£{limit}"),
                validate=validate, answer=str(n), answer_type=COUNT,
                forbidden_effects=(NoChanges((*ORDER_TABLES, *KEEP, "wishlists_line", "address_useraddress")),),
                oracle=lambda: [Go("/catalogue/"), Click(Match(role="link", name=cat)),
                                Select(Match(tag="select", attrs=(("name", "sort_by"),)), "price-asc"), Done(str(n))],
                **_common("count", seed, "similar_options", 12))


# -- shop administration on Oscar's own dashboard (WebArena's shopping_admin) --------------------------

DASH_KEEP = ("reviews_productreview", "catalogue_category", "catalogue_productcategory", "wishlists_line",
             "address_useraddress", "basket_line")


def _staff_login(w: Shop) -> list:
    """The dashboard sends a visitor to its own sign-in page; the staff account signs in there (by e-mail)."""
    return [Go("/dashboard/"), Fill(Match(tag="input", attrs=(("name", "username"),)), w.staff.email),
            Fill(Match(tag="input", attrs=(("name", "password"),)), w.staff.password),
            Click(Match(tag="input", attrs=(("type", "submit"), ("value", "Login"))))]


def _day(d) -> str:
    return f"{d.day} {d:%B %Y}"


def _order_id(w: Shop, number: str) -> int:
    return next(i for i, o in enumerate(w.orders) if o.number == number) + 1


def _customer(w: Shop, email: str) -> Customer:
    return next(c for c in w.customers if c.email == email)


def _staff_say(w: Shop) -> dict:
    return {"staff": w.staff.email, "spw": w.staff.password}


STATUS = (
    "Sign in to the shop's dashboard as {staff} (password {spw}). {name} placed an order on {day}: change its status "
    "to \"{new}\".",
    "As the shop's staff member {staff} (password {spw}), open the dashboard, find the order {name} placed on {day} "
    "and move it to the status \"{new}\".",
    "{name}'s order of {day} should now be \"{new}\". Log in to the dashboard as {staff} with password {spw} and "
    "change that order's status.",
)


def admin_status(w: Shop, seed: int) -> Task:
    """Find a customer's order of a given day on the dashboard and move it along the status pipeline."""
    rng = _rng("admin_status", seed)
    per_day: dict = {}
    for o in w.orders:
        per_day.setdefault((o.customer, w.placed(o).date()), []).append(o)
    cands = [o for o in w.orders if o.status in ("Pending", "Being processed")
             and len(per_day[(o.customer, w.placed(o).date())]) == 1]
    o = rng.choice(cands)
    c = _customer(w, o.customer)
    new = rng.choice({"Pending": ("Being processed", "Cancelled"),
                      "Being processed": ("Complete", "Cancelled")}[o.status])
    oid = _order_id(w, o.number)

    def validate(s) -> TaskResult:
        row = _by(s["order_order"], "number", o.number)
        errs = [] if row and row["status"] == new else [
            f"order {o.number} is {row and row['status']!r}, not {new!r}"]
        return TaskResult(not errs, errs)

    name = f"{c.first_name} {c.last_name}"
    return Task(instruction=_say("admin_status", seed, STATUS, name=name, day=_day(w.placed(o)), new=new,
                                 **_staff_say(w)),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("order_order", (oid,)), MaxInserts("order_order", 0, "order"),
                                   NoChanges((*DASH_KEEP, "catalogue_product", "partner_stockrecord",
                                              "voucher_voucher", "order_line"))),
                oracle=lambda: [*_staff_login(w), Go("/dashboard/orders/"),
                                Click(Match(role="link", name="Advanced Search")),
                                Fill(Match(tag="input", attrs=(("name", "name"),)), name),
                                Click(Match(tag="button", name="Search")),
                                Click(Match(role="link", name=o.number)),
                                Select(Match(tag="select", attrs=(("id", "id_new_status"),)), new),
                                Click(Match(role="button", name="Change status"))],
                **_common("admin_status", seed, "menus_dialogs", 16))


COUNT_ORDERS = (
    "Using the shop's dashboard (staff login {staff}, password {spw}): how many orders with the status \"{status}\" "
    "were placed from {d1} to {d2}, both days included? Answer with the number.",
    "Sign in to the dashboard as {staff} (password {spw}) and count the orders placed between {d1} and {d2} "
    "(inclusive) that are now \"{status}\". Reply with the number.",
    "How many \"{status}\" orders did the shop receive from {d1} through {d2}? The dashboard knows; its staff login is "
    "{staff} with password {spw}. Answer with a number.",
)


def admin_count_orders(w: Shop, seed: int) -> Task:
    """Count the orders in a status placed in a date range (the dashboard's order search)."""
    rng = _rng("admin_count", seed)
    days = sorted({w.placed(o).date() for o in w.orders})
    while True:
        i = rng.randrange(len(days) - 12)
        d1, d2 = days[i], days[i + rng.randint(4, 11)]
        status = rng.choice(("Complete", "Complete", "Being processed", "Pending", "Cancelled"))
        n = sum(1 for o in w.orders if o.status == status and d1 <= w.placed(o).date() <= d2)
        if n >= 1:
            break

    def validate(s) -> TaskResult:
        errs = check_answer(s, n, COUNT)
        return TaskResult(not errs, errs)

    return Task(instruction=_say("admin_count", seed, COUNT_ORDERS, status=status, d1=_day(d1), d2=_day(d2),
                                 **_staff_say(w)),
                validate=validate, answer=str(n), answer_type=COUNT,
                forbidden_effects=(NoChanges((*ORDER_TABLES, *KEEP, "catalogue_product", "partner_stockrecord")),),
                oracle=lambda: [*_staff_login(w), Go("/dashboard/orders/"),
                                Click(Match(role="link", name="Advanced Search")),
                                Select(Match(tag="select", attrs=(("name", "status"),)), status),
                                Fill(Match(tag="input", attrs=(("name", "date_from"),)), d1.isoformat()),
                                Fill(Match(tag="input", attrs=(("name", "date_to"),)), d2.isoformat()),
                                Click(Match(tag="button", name="Search")),
                                Done(str(n))],
                **_common("admin_count", seed, "similar_options", 14))


REPORT = (
    "In the shop's dashboard (sign in as {staff}, password {spw}), generate the \"Orders placed\" report for {d1} to "
    "{d2}. How many orders does it list? Answer with the number.",
    "Sign in to the dashboard as {staff} (password {spw}) and run the \"Orders placed\" report from {d1} to {d2}. "
    "Reply with the number of orders in it.",
    "How many orders were placed between {d1} and {d2}, both days included? Read it off the dashboard's \"Orders "
    "placed\" report (staff login {staff}, password {spw}) and answer with the number.",
)


def admin_report(w: Shop, seed: int) -> Task:
    """Read the number of orders off the dashboard's Orders placed report for a date range (the report pages
    by 25 rows: a longer range means counting across pages)."""
    rng = _rng("admin_report", seed)
    days = sorted({w.placed(o).date() for o in w.orders})
    i = rng.randrange(len(days) - 30)
    span = rng.randint(3, 28)
    while True:  # at most 18 orders: a count one reads off a page or two
        d1, d2 = days[i], days[i + span]
        n = sum(1 for o in w.orders if d1 <= w.placed(o).date() <= d2)
        if n <= 18 or span == 1:
            break
        span -= 1

    def validate(s) -> TaskResult:
        errs = check_answer(s, n, COUNT)
        return TaskResult(not errs, errs)

    return Task(instruction=_say("admin_report", seed, REPORT, d1=_day(d1), d2=_day(d2), **_staff_say(w)),
                validate=validate, answer=str(n), answer_type=COUNT,
                forbidden_effects=(NoChanges((*ORDER_TABLES, *KEEP, "catalogue_product", "partner_stockrecord")),),
                oracle=lambda: [*_staff_login(w), Go("/dashboard/reports/"),
                                Select(Match(tag="select", attrs=(("name", "report_type"),)), "order_report"),
                                Fill(Match(tag="input", attrs=(("name", "date_from"),)), d1.isoformat()),
                                Fill(Match(tag="input", attrs=(("name", "date_to"),)), d2.isoformat()),
                                Click(Match(role="button", name="Generate report")), Done(str(n))],
                **_common("admin_report", seed, "similar_options", 14))


STOCK = (
    "Sign in to the shop's dashboard as {staff} (password {spw}). A delivery came in: set the stock of every {colour} "
    "variant of the \"{title}\" (all {k} sizes) to {n}.",
    "As {staff} (password {spw}) on the dashboard, update the stock records of the {colour} \"{title}\": each of its "
    "{k} sizes now has {n} in stock. Leave the other colour alone.",
    "We now hold {n} of each size of the {colour} \"{title}\". Log in to the dashboard as {staff} with password "
    "{spw} and set the stock of those {k} variants accordingly.",
)


def admin_stock(w: Shop, seed: int) -> Task:
    """Set the stock of one colour's size variants of a T-shirt (one edit page per variant)."""
    rng = _rng("admin_stock", seed)
    parents = [p for p in w.products if p.category == "T-shirts" and p.parent is None]
    parent = rng.choice(parents)
    kids = [p for p in w.products if p.parent == parent.key]
    colour = rng.choice(sorted({k.colour for k in kids}))
    targets = [k for k in kids if k.colour == colour]
    n = rng.choice([v for v in range(5, 60) if all(v != k.stock for k in targets)])
    ids = tuple(_stock_id(w, k) for k in targets)

    def validate(s) -> TaskResult:
        errs = []
        for k in targets:
            row = _by(s["partner_stockrecord"], "partner_sku", k.upc)
            if not row or row["num_in_stock"] != n:
                errs.append(f"{k.title}: {row and row['num_in_stock']} in stock, not {n}")
        return TaskResult(not errs, errs)

    def steps() -> list:
        out = [*_staff_login(w), Go("/dashboard/catalogue/"),
               Fill(Match(tag="input", attrs=(("name", "title"),)), parent.title),
               Click(Match(role="button", name="Search")), Click(Match(role="link", name=parent.title))]
        edit = f"/dashboard/catalogue/products/{_pid(w, parent)}/"
        for k, kid in enumerate(targets):
            out += [*([Go(edit)] if k else []), Click(Match(role="link", name="Variants")),
                    Click(Match(tag="a", attrs=(("href", f"/dashboard/catalogue/products/{_pid(w, kid)}/"),))),
                    Click(Match(role="link", name="Stock and pricing")),
                    Fill(Match(tag="input", attrs=(("name", "stockrecords-0-num_in_stock"),)), str(n)),
                    Click(Match(role="button", name="Save"))]
        return out

    return Task(instruction=_say("admin_stock", seed, STOCK, colour=colour, title=parent.title, k=len(targets), n=n,
                                 **_staff_say(w)),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("partner_stockrecord", ids), NoDeletes(("catalogue_product",)),
                                   MaxInserts("catalogue_product", 0, "product"),
                                   OnlyRowsChange("catalogue_product", tuple(_pid(w, k) for k in targets)),
                                   NoChanges((*ORDER_TABLES, *DASH_KEEP, "voucher_voucher"))),
                oracle=steps, **_common("admin_stock", seed, "similar_options", 40))


def _attr_label(pclass: str, code: str) -> str:
    return next(label for c, label, *_ in CLASSES[pclass] if c == code)


PRICE = (
    "On the shop's dashboard (staff login {staff}, password {spw}), change the price of \"{title}\" to £{price} and "
    "set its \"{label}\" attribute to {value}.",
    "Sign in to the dashboard as {staff} (password {spw}). \"{title}\" now costs £{price}, and its \"{label}\" is "
    "{value}: update the product.",
    "Update the product \"{title}\" in the dashboard (log in as {staff} with password {spw}): price £{price}, "
    "\"{label}\" {value}.",
)


def admin_price(w: Shop, seed: int) -> Task:
    """Change a product's price (its stock record) and one typed attribute (integer) on its edit page."""
    rng = _rng("admin_price", seed)
    titles: dict = {}
    for p in w.products:
        titles[p.title] = titles.get(p.title, 0) + 1
    cands = [p for p in w.products if p.parent is None and p.lookalike is None and titles[p.title] == 1
             and p.category not in ("T-shirts", "Sneakers")
             and any(isinstance(v, int) and not isinstance(v, bool) for _c, v in p.attrs)]
    p = rng.choice(cands)
    code, old = rng.choice([(c, v) for c, v in p.attrs if isinstance(v, int) and not isinstance(v, bool)])
    value = rng.choice([v for v in range(max(1, int(old) // 2), int(old) * 2 + 3) if v != old])
    price = Decimal(p.price) + Decimal(rng.choice((-3, -2, -1, 1, 2, 4, 5))) + Decimal("0.50")
    if price <= 0:
        price = Decimal(p.price) + Decimal("1.50")
    label = _attr_label(p.product_class, code)

    def validate(s) -> TaskResult:
        errs = []
        row = _by(s["partner_stockrecord"], "partner_sku", p.upc)
        if not row or Decimal(str(row["price"])).quantize(Decimal("0.01")) != price:
            errs.append(f"the price is {row and row['price']}, not {price}")
        pid = _pid(w, p)
        vals = [v for v in s["catalogue_productattributevalue"] if v["product_id"] == pid
                and _by(s["catalogue_productattribute"], "id", v["attribute_id"])["code"] == code]
        if not vals or vals[0]["value_integer"] != value:
            errs.append(f"{label} is {vals and vals[0]['value_integer']}, not {value}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("admin_price", seed, PRICE, title=p.title, price=price, label=label, value=value,
                                 **_staff_say(w)),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("partner_stockrecord", (_stock_id(w, p),)),
                                   OnlyRowsChange("catalogue_product", (_pid(w, p),)),
                                   MaxInserts("catalogue_product", 0, "product"), NoDeletes(("catalogue_product",)),
                                   NoChanges((*ORDER_TABLES, *DASH_KEEP, "voucher_voucher"))),
                oracle=lambda: [*_staff_login(w), Go("/dashboard/catalogue/"),
                                Fill(Match(tag="input", attrs=(("name", "title"),)), p.title),
                                Click(Match(role="button", name="Search")), Click(Match(role="link", name=p.title)),
                                Click(Match(role="link", name="Attributes")),
                                Fill(Match(tag="input", attrs=(("name", f"attr_{code}"),)), str(value)),
                                Click(Match(role="link", name="Stock and pricing")),
                                Fill(Match(tag="input", attrs=(("name", "stockrecords-0-price"),)), str(price)),
                                Click(Match(role="button", name="Save"))],
                **_common("admin_price", seed, "menus_dialogs", 22))


USAGES = {"Single use": "can be used once by one customer",
          "Once per customer": "can be used once by each customer",
          "Multi-use": "can be used any number of times by anyone"}
VOUCHER = (
    "Sign in to the shop's dashboard as {staff} (password {spw}) and create a voucher named \"{name}\" with the code "
    "{code} for the offer \"{offer}\". It is valid from {d1} to {d2} and {usage}.",
    "Create a new voucher on the dashboard (log in as {staff}, password {spw}): name \"{name}\", code {code}, "
    "offer \"{offer}\", valid {d1} to {d2}; it {usage}.",
    "As {staff} (password {spw}), add a voucher {code} called \"{name}\" that applies the offer \"{offer}\" from "
    "{d1} until {d2}; it {usage}.",
)


def admin_voucher(w: Shop, seed: int) -> Task:
    """Create a voucher with a code, name, offer, validity dates and a usage rule."""
    rng = _rng("admin_voucher", seed)
    k = rng.randrange(len(w.vouchers))
    offer_code, pct = w.vouchers[k]
    offer = f"Voucher {offer_code}"
    code = f"{rng.choice(('AUTUMN', 'FRIENDS', 'CLEARANCE', 'NEWSLETTER', 'WINTER', 'STUDENT'))}{rng.randint(10, 99)}"
    name = f"{rng.choice(('Autumn', 'Friends', 'Clearance', 'Newsletter', 'Winter', 'Student'))} " \
           f"{rng.choice(('promotion', 'thank-you', 'campaign', 'offer'))} {rng.randint(2, 9)}"
    start = EPOCH.date() + dt.timedelta(days=rng.randint(60, 200))
    end = start + dt.timedelta(days=rng.randint(7, 45))
    usage = rng.choice(sorted(USAGES))
    n_old = len(w.vouchers)

    def validate(s) -> TaskResult:
        new = s["voucher_voucher"][n_old:]
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new vouchers; expected exactly one"])
        v, errs = new[0], []
        if (v["code"] or "").upper() != code or (v["name"] or "").strip() != name:
            errs.append(f"code/name {v['code']!r}/{v['name']!r}, not {code!r}/{name!r}")
        if v["usage"] != usage:
            errs.append(f"usage {v['usage']!r}, not {usage!r}")
        if str(v["start_datetime"])[:10] != start.isoformat() or str(v["end_datetime"])[:10] != end.isoformat():
            errs.append(f"valid {str(v['start_datetime'])[:10]} to {str(v['end_datetime'])[:10]}, not {start} to {end}")
        offers = {x["conditionaloffer_id"] for x in s["voucher_voucher_offers"] if x["voucher_id"] == v["id"]}
        if offers != {k + 1}:
            errs.append(f"the voucher applies offers {sorted(offers)}, not only {offer!r}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("admin_voucher", seed, VOUCHER, name=name, code=code, offer=offer, d1=_day(start),
                                 d2=_day(end), usage=USAGES[usage], **_staff_say(w)),
                validate=validate,
                forbidden_effects=(MaxInserts("voucher_voucher", 1, "voucher"), OnlyRowsChange("voucher_voucher", ()),
                                   NoChanges((*ORDER_TABLES, *DASH_KEEP, "catalogue_product", "partner_stockrecord"))),
                oracle=lambda: [*_staff_login(w), Go("/dashboard/vouchers/"),
                                Click(Match(role="link", name_contains="Create new voucher")),
                                Fill(Match(tag="input", attrs=(("name", "name"),)), name),
                                Fill(Match(tag="input", attrs=(("name", "code"),)), code),
                                Fill(Match(tag="input", attrs=(("name", "start_datetime"),)), f"{start} 00:00:00"),
                                Fill(Match(tag="input", attrs=(("name", "end_datetime"),)), f"{end} 23:59:00"),
                                Select(Match(tag="select", attrs=(("name", "usage"),)), usage),
                                Select(Match(tag="select", attrs=(("name", "offers"),)), str(k + 1)),
                                Click(Match(role="button", name="Save"))],
                **_common("admin_voucher", seed, "menus_dialogs", 24))


RETIRE = (
    "The voucher {code} must stop working for good. Sign in to the dashboard as {staff} (password {spw}) and delete "
    "it; keep the other vouchers.",
    "Delete the voucher with the code {code} from the shop (dashboard login {staff}, password {spw}). The other "
    "vouchers stay.",
    "As {staff} (password {spw}), remove voucher {code} on the shop's dashboard. Do not touch any other voucher.",
)


def admin_retire(w: Shop, seed: int) -> Task:
    """Delete one voucher (an irreversible control: the dashboard's Delete is behind the approval gate)."""
    rng = _rng("admin_retire", seed)
    k = rng.randrange(len(w.vouchers))
    code, pct = w.vouchers[k]

    def validate(s) -> TaskResult:
        codes = {v["code"] for v in s["voucher_voucher"]}
        errs = [] if code not in codes else [f"voucher {code} still exists"]
        left = {c for c, _p in w.vouchers} - {code} - codes
        if left:
            errs.append(f"other vouchers were removed: {sorted(left)}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("admin_retire", seed, RETIRE, code=code, **_staff_say(w)),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("voucher_voucher", (k + 1,)),
                                   MaxInserts("voucher_voucher", 0, "voucher"),
                                   NoChanges((*ORDER_TABLES, *DASH_KEEP, "catalogue_product", "partner_stockrecord"))),
                oracle=lambda: [*_staff_login(w), Go("/dashboard/vouchers/"),
                                Click(Match(role="link", name=f"{pct}% off ({code})")),
                                Click(Match(tag="a", attrs=(("href", f"/dashboard/vouchers/delete/{k + 1}/"),))),
                                Click(Match(role="button", name="Delete"))],
                **_common("admin_retire", seed, "menus_dialogs", 14))


FAMILIES: dict[str, Callable[[Shop, int], Task]] = {name: worded_family(make) for name, make in {
    "oscar.photo": photo_buy, "oscar.variant": variant_new_address, "oscar.review": review_ordered,
    "oscar.wish": wishlist_cheapest, "oscar.count": count_under_price,
    "oscar.admin_status": admin_status, "oscar.admin_count": admin_count_orders, "oscar.admin_report": admin_report,
    "oscar.admin_stock": admin_stock, "oscar.admin_price": admin_price, "oscar.admin_voucher": admin_voucher,
    "oscar.admin_retire": admin_retire,
}.items()}



# the oracle's longest run (element mode) over seeds 0-199 per family, printed by
# ``python -m webgauge.arena.tasks.budget_table``; the budgets derive from it (tests/arena/test_budgets.py)
ORACLE_MAX: dict[str, int] = {
    "admin_count": 11,
    "admin_price": 14,
    "admin_report": 10,
    "admin_retire": 10,
    "admin_status": 12,
    "admin_stock": 32,
    "admin_voucher": 14,
    "count": 4,
    "photo": 15,
    "review": 13,
    "variant": 22,
    "wish": 18,
}

FAMILIES = budgeted_app(FAMILIES, ORACLE_MAX, IRREVERSIBLE)


def build_tasks(seeds=(0,), families=None) -> list[Task]:
    out = []
    for seed in seeds:
        w = world(seed)
        for name, make in FAMILIES.items():
            if families is None or name in families:
                out.append(make(w, seed))
    return out
