"""Shop: a catalogue of a few hundred products with search, category filter, sorting and
pagination; product pages with colours and sizes; a cart with category promo codes; checkout
through a stand-in payment provider (``ext_payments``); a paginated order history with order
pages and a cancel behind a confirm dialog; addresses; the weekly deals page (a new tab).

A Starlette app with Jinja2 templates, rendered on the server. Responsive: below 700 px the
navigation collapses behind a menu button. Feature flags: ``promo_banner`` shows a sticky
promo banner over the bottom of every page; ``new_checkout`` renders the checkout as an
order review with a summary table. Products are drawn from the seed's slice of the entity
pools (model names from adjectives and nouns, colours, sizes by category).
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

from ..content.pools import Pool
from ..core.gate import GatedRoute
from .asgi import AsgiApp, LazyApp, template_cache
from .common import BASE_CSS, flag, int_param, now

__all__ = ["APP", "SCHEMA", "PAGE_SIZE", "ORDERS_PAGE_SIZE", "CATEGORIES", "COLORS", "SORTS", "category_of",
           "money", "FIRST_ORDER_ID"]

SCHEMA = """
CREATE TABLE shop_products(id INTEGER PRIMARY KEY, name TEXT, model TEXT, color TEXT, hex TEXT, category TEXT,
  sizes TEXT, price_cents INTEGER, position INTEGER);
CREATE TABLE shop_cart(id INTEGER PRIMARY KEY AUTOINCREMENT, product_id INTEGER REFERENCES shop_products(id),
  size TEXT, qty INTEGER);
CREATE TABLE shop_cart_promo(id INTEGER PRIMARY KEY CHECK(id=1), code TEXT);
CREATE TABLE shop_promos(code TEXT PRIMARY KEY, percent INTEGER, active INTEGER, category TEXT);
CREATE TABLE shop_addresses(id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT, name TEXT, street TEXT,
  city TEXT, zip TEXT);
CREATE TABLE shop_orders(id INTEGER PRIMARY KEY AUTOINCREMENT, address_id INTEGER, total_cents INTEGER,
  status TEXT, promo TEXT, created_at TEXT);
CREATE TABLE shop_order_items(id INTEGER PRIMARY KEY AUTOINCREMENT, order_id INTEGER REFERENCES shop_orders(id),
  product_id INTEGER, size TEXT, qty INTEGER, price_cents INTEGER);
CREATE TABLE ext_payments(id INTEGER PRIMARY KEY AUTOINCREMENT, order_id INTEGER, amount_cents INTEGER,
  status TEXT, created_at TEXT);
"""

PAGE_SIZE = 24
ORDERS_PAGE_SIZE = 15
N_MODELS = 70
N_ORDERS = 60
FIRST_ORDER_ID = 1041
SORTS = (("featured", "Featured"), ("price_asc", "Price: low to high"), ("price_desc", "Price: high to low"),
         ("name", "Name"))
_ORDER_BY = {"featured": "position", "price_asc": "price_cents, position", "price_desc": "price_cents DESC, position",
             "name": "name, position"}
CATEGORIES = {  # category -> (nouns of the entity pool, sizes)
    "Footwear": ("Boots Runner Sandal Sneaker", "39,40,41,42,43,44,45"),
    "Apparel": ("Beanie Cap Fleece Gloves Hoodie Jacket Parka Poncho Scarf Vest", "XS,S,M,L,XL"),
    "Bags": ("Backpack Duffel Tote Wallet", "Small,Medium,Large"),
    "Outdoor": ("Bottle Flask Hammock Headlamp Helmet Lantern Mat Tent Thermos Tripod", "Small,Medium,Large"),
    "Kitchen": ("Blender Grinder Kettle Mug Pan Stove", "One size"),
    "Electronics": ("Clock Drone Earbuds Keyboard Monitor Mouse Router Speaker Watch", "One size"),
    "Home office": ("Chair Desk Lamp Notebook Pillow Planner Stool", "One size"),
}
_CATEGORY_OF = {noun: cat for cat, (nouns, _) in CATEGORIES.items() for noun in nouns.split()}
COLORS = (("Navy", "#1f2f5c"), ("Blue", "#2d5fd0"), ("Sky", "#6fa8e8"), ("Slate", "#5a6b7d"), ("Black", "#16181c"),
          ("Charcoal", "#3a3d42"), ("Grey", "#8a8f98"), ("White", "#f4f4f2"), ("Ivory", "#efe8d6"),
          ("Sand", "#d8c49a"), ("Tan", "#b48a5a"), ("Chocolate", "#5b3a22"), ("Red", "#c62828"),
          ("Crimson", "#8e1330"), ("Burgundy", "#6d1a2f"), ("Coral", "#f07a5f"), ("Pink", "#e98bb0"),
          ("Plum", "#6b2f5f"), ("Lilac", "#b9a2d8"), ("Mustard", "#d6a521"), ("Ochre", "#c27c0e"),
          ("Rust", "#a4471c"), ("Olive", "#6b6f2a"), ("Forest", "#1f5a35"), ("Sage", "#9cb08a"),
          ("Teal", "#18797a"), ("Mint", "#a8e0c8"), ("Khaki", "#a99f6b"))
STREETS = ("Maple Ave", "Harbor Rd", "Elm Street", "Station Sq", "Mill Lane", "Orchard Way", "Canal Street",
           "Quarry Road", "Bridge Row", "Linden Close", "Market Place", "Chapel Hill")
OWN_LABELS = ("Parents", "Studio", "Cabin", "Gym", "Lake house", "Workshop", "Allotment", "Boat")
_DIR = Path(__file__).parent / "templates"


def category_of(model: str) -> str:
    """The category of a product model (``"<Adjective> <Noun>"``) by its noun."""
    return _CATEGORY_OF.get(model.rsplit(" ", 1)[-1], "Home office")


def money(cents: int) -> str:
    return f"${cents / 100:.2f}"


def seed(conn: sqlite3.Connection, rng: random.Random, seed: int = 0) -> None:
    pool = Pool.of_seed(rng, seed)
    products = []
    for model in pool.products(N_MODELS):
        cat = category_of(model)
        base = rng.randrange(12, 240)
        for color, hx in rng.sample(COLORS, rng.randint(3, 6)):
            products.append((model, color, hx, cat, CATEGORIES[cat][1], (base + rng.randrange(0, 30)) * 100 + 99))
    rng.shuffle(products)
    conn.executemany("INSERT INTO shop_products VALUES(?,?,?,?,?,?,?,?,?)",
                     [(i, f"{m} {c}", m, c, hx, cat, sizes, price, i)
                      for i, (m, c, hx, cat, sizes, price) in enumerate(products, start=1)])
    labels = ["Home", "Work", *rng.sample(OWN_LABELS, 5)]
    cities = sorted({pool.city() for _ in range(30)})
    conn.executemany("INSERT INTO shop_addresses(label,name,street,city,zip) VALUES(?,?,?,?,?)",
                     [(lab, "Alex Morgan", f"{rng.randrange(2, 99)} {rng.choice(STREETS)}", rng.choice(cities),
                       f"{rng.randrange(10000, 99999)}") for lab in labels])
    orders, items, pays = [], [], []
    for k in range(N_ORDERS):
        oid = FIRST_ORDER_ID + k
        old = k < N_ORDERS - 12  # delivered long ago (Aug-Dec 2025); the 12 newest are from February
        day = f"2025-{8 + k * 5 // (N_ORDERS - 12):02d}-{1 + (k * 7) % 28:02d}" if old else \
            f"2026-02-{1 + (k - N_ORDERS + 12) * 2:02d}"
        status = "delivered" if old else rng.choice(("placed", "shipped", "shipped", "placed"))
        if rng.random() < 0.08:
            status = "cancelled"
        total = 0
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
            pid = rng.randrange(len(products)) + 1
            p = products[pid - 1]
            qty = rng.choice((1, 1, 1, 2))
            items.append((oid, pid, rng.choice(p[4].split(",")), qty, p[5]))
            total += qty * p[5]
        orders.append((oid, 1 + rng.randrange(len(labels)), total, status, None, f"{day}T10:00:00Z"))
        pays.append((oid, total, "refunded" if status == "cancelled" else "captured", f"{day}T10:00:00Z"))
    conn.executemany("INSERT INTO shop_orders(id,address_id,total_cents,status,promo,created_at) VALUES(?,?,?,?,?,?)",
                     orders)
    conn.executemany("INSERT INTO shop_order_items(order_id,product_id,size,qty,price_cents) VALUES(?,?,?,?,?)", items)
    conn.executemany("INSERT INTO ext_payments(order_id,amount_cents,status,created_at) VALUES(?,?,?,?)", pays)
    words = sorted({pool.pick("adjective").upper() for _ in range(40)})
    codes = rng.sample(words, len(CATEGORIES) + 3)
    promos = [(f"{codes[i]}{pct}", pct, 1, cat) for i, (cat, pct) in
              enumerate((c, rng.choice((10, 15, 20, 25, 30))) for c in CATEGORIES)]
    promos.append((f"{codes[-3]}{rng.choice((5, 10))}", rng.choice((5, 10)), 1, ""))
    promos += [(f"{codes[-2]}{rng.randrange(10, 40)}", 20, 0, rng.choice(list(CATEGORIES))),
               (f"{codes[-1]}{rng.randrange(10, 40)}", 25, 0, "")]
    conn.executemany("INSERT INTO shop_promos VALUES(?,?,?,?)", promos)


# ---------------------------------------------------------------- rendering helpers

_env = template_cache(_DIR, {"money": money})


def _render(request, name: str, title: str, **ctx):
    from starlette.responses import HTMLResponse

    conn = request.state.conn
    n = conn.execute("SELECT COALESCE(SUM(qty),0) FROM shop_cart").fetchone()[0]
    html = _env().get_template(name).render(title=title, base_css=BASE_CSS, base=request.state.base, cart_count=n,
                                            banner=flag(conn, "promo_banner"), toast=ctx.pop("toast", ""), **ctx)
    return HTMLResponse(html)


def _redirect(request, path: str, **query):
    from starlette.responses import RedirectResponse

    q = ("?" + urlencode(query)) if query else ""
    return RedirectResponse(request.state.base + path + q, status_code=303)


def _cart(conn) -> tuple[list[dict], int, int, int, str]:
    """Cart lines, subtotal, discount, total and the applied promo's description."""
    cols = ("id", "size", "qty", "name", "price_cents", "pid", "category")
    rows = [dict(zip(cols, r, strict=True)) for r in conn.execute(
        "SELECT c.id, c.size, c.qty, p.name, p.price_cents, p.id, p.category FROM shop_cart c "
        "JOIN shop_products p ON p.id=c.product_id ORDER BY c.id")]
    sub = sum(r["qty"] * r["price_cents"] for r in rows)
    promo = conn.execute("SELECT p.percent, p.category, p.code FROM shop_cart_promo c "
                         "JOIN shop_promos p ON p.code=c.code").fetchone()
    off, desc = 0, ""
    if promo:
        pct, cat, code = promo
        off = sum(r["qty"] * r["price_cents"] for r in rows if not cat or r["category"] == cat) * pct // 100
        desc = f"{code}: {pct}% off {cat or 'everything'}"
    return rows, sub, off, sub - off, desc


# ---------------------------------------------------------------- routes

async def catalog(request):
    conn, qp = request.state.conn, request.query_params
    q, cat, sort = qp.get("q", "").strip(), qp.get("category", ""), qp.get("sort", "featured")
    if sort not in _ORDER_BY:
        sort = "featured"
    where, args = [], []
    if q:
        where.append("(lower(name) LIKE ? OR lower(category) LIKE ?)")
        args += [f"%{q.lower()}%"] * 2
    if cat:
        where.append("category=?")
        args.append(cat)
    sql = (" WHERE " + " AND ".join(where)) if where else ""
    total = conn.execute("SELECT count(*) FROM shop_products" + sql, args).fetchone()[0]
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(pages, max(1, int_param(qp.get("page"))))
    cols = ("id", "name", "hex", "price_cents", "category")
    rows = [dict(zip(cols, r, strict=True)) for r in conn.execute(
        f"SELECT id, name, hex, price_cents, category FROM shop_products{sql} ORDER BY {_ORDER_BY[sort]} "
        "LIMIT ? OFFSET ?", (*args, PAGE_SIZE, (page - 1) * PAGE_SIZE))]
    kept = {k: v for k, v in (("q", q), ("category", cat), ("sort", sort if sort != "featured" else "")) if v}
    return _render(request, "shop_catalog.html", "Catalog", products=rows, total=total, page=page, pages=pages,
                   q=q, category=cat, sort=sort, sorts=SORTS, categories=list(CATEGORIES),
                   pager=lambda p: urlencode({**kept, "page": p}))


async def product(request):
    conn, pid = request.state.conn, request.path_params["pid"]
    cols = ("id", "name", "model", "color", "hex", "category", "sizes", "price_cents")
    row = conn.execute(f"SELECT {', '.join(cols)} FROM shop_products WHERE id=?", (pid,)).fetchone()
    if row is None:
        return _redirect(request, "/shop/")
    p = dict(zip(cols, row, strict=True))
    others = [{"id": r[0], "color": r[1]} for r in conn.execute(
        "SELECT id, color FROM shop_products WHERE model=? AND id!=? ORDER BY color", (p["model"], pid))]
    return _render(request, "shop_product.html", p["name"], p=p, sizes=p["sizes"].split(","), others=others,
                   toast="Added to cart" if request.query_params.get("added") else "")


async def cart_add(request):
    conn, form = request.state.conn, await request.form()
    pid, size = int_param(form.get("product"), 0), str(form.get("size", ""))
    row = conn.execute("SELECT sizes FROM shop_products WHERE id=?", (pid,)).fetchone()
    if row is None:
        return _redirect(request, "/shop/")
    if size not in row[0].split(","):
        return _redirect(request, f"/shop/p/{pid}")
    qty = max(1, min(5, int_param(form.get("qty"), 1)))
    line = conn.execute("SELECT id FROM shop_cart WHERE product_id=? AND size=?", (pid, size)).fetchone()
    if line:
        conn.execute("UPDATE shop_cart SET qty=min(5, qty+?) WHERE id=?", (qty, line[0]))
    else:
        conn.execute("INSERT INTO shop_cart(product_id,size,qty) VALUES(?,?,?)", (pid, size, qty))
    return _redirect(request, f"/shop/p/{pid}", added=1)


async def cart(request):
    rows, sub, off, total, desc = _cart(request.state.conn)
    err = {"bad": "That code is not valid.", "nomatch": "That code does not apply to anything in your cart."}
    return _render(request, "shop_cart.html", "Cart", rows=rows, subtotal=sub, discount=off, total=total,
                   promo=desc, error=err.get(request.query_params.get("err", ""), ""))


async def cart_remove(request):
    request.state.conn.execute("DELETE FROM shop_cart WHERE id=?", (request.path_params["lid"],))
    return _redirect(request, "/shop/cart")


async def cart_promo(request):
    conn, form = request.state.conn, await request.form()
    code = str(form.get("code", "")).strip().upper()
    row = conn.execute("SELECT category FROM shop_promos WHERE code=? AND active=1", (code,)).fetchone()
    if not row:
        return _redirect(request, "/shop/cart", err="bad")
    if row[0] and not conn.execute("SELECT 1 FROM shop_cart c JOIN shop_products p ON p.id=c.product_id "
                                   "WHERE p.category=?", (row[0],)).fetchone():
        return _redirect(request, "/shop/cart", err="nomatch")
    conn.execute("INSERT OR REPLACE INTO shop_cart_promo(id,code) VALUES(1,?)", (code,))
    return _redirect(request, "/shop/cart")


def _addresses(conn) -> list[dict]:
    cols = ("id", "label", "name", "street", "city", "zip")
    return [dict(zip(cols, r, strict=True))
            for r in conn.execute(f"SELECT {', '.join(cols)} FROM shop_addresses ORDER BY id")]


async def checkout(request):
    conn = request.state.conn
    if request.method == "GET":
        rows, sub, off, total, desc = _cart(conn)
        if not rows:
            return _redirect(request, "/shop/cart")
        return _render(request, "shop_checkout.html", "Checkout", rows=rows, subtotal=sub, discount=off, total=total,
                       promo=desc, addresses=_addresses(conn), new_checkout=flag(conn, "new_checkout"),
                       error="Choose a shipping address." if request.query_params.get("noaddr") else "")
    form = await request.form()
    rows, _, _, total, _ = _cart(conn)
    addr = int_param(form.get("address"), 0)
    if not rows:
        return _redirect(request, "/shop/cart")
    if not conn.execute("SELECT 1 FROM shop_addresses WHERE id=?", (addr,)).fetchone():
        return _redirect(request, "/shop/checkout", noaddr=1)
    promo = conn.execute("SELECT code FROM shop_cart_promo").fetchone()
    t = now(conn)
    oid = conn.execute("INSERT INTO shop_orders(address_id,total_cents,status,promo,created_at) VALUES(?,?,?,?,?)",
                       (addr, total, "placed", promo[0] if promo else None, t)).lastrowid
    conn.executemany("INSERT INTO shop_order_items(order_id,product_id,size,qty,price_cents) VALUES(?,?,?,?,?)",
                     [(oid, r["pid"], r["size"], r["qty"], r["price_cents"]) for r in rows])
    # the stand-in payment provider: part of the episode state, restored by reset
    conn.execute("INSERT INTO ext_payments(order_id,amount_cents,status,created_at) VALUES(?,?,?,?)",
                 (oid, total, "captured", t))
    conn.execute("DELETE FROM shop_cart")
    conn.execute("DELETE FROM shop_cart_promo")
    return _redirect(request, "/shop/orders", placed=oid)


def _order_rows(conn, where: str = "", args: tuple = ()) -> list[dict]:
    cols = ("id", "created_at", "total_cents", "status", "label")
    return [dict(zip(cols, r, strict=True)) for r in conn.execute(
        "SELECT o.id, o.created_at, o.total_cents, o.status, a.label FROM shop_orders o "
        f"LEFT JOIN shop_addresses a ON a.id=o.address_id {where} ORDER BY o.id DESC", args)]


async def orders(request):
    conn, qp = request.state.conn, request.query_params
    rows = _order_rows(conn)
    pages = max(1, -(-len(rows) // ORDERS_PAGE_SIZE))
    page = min(pages, max(1, int_param(qp.get("page"))))
    shown = rows[(page - 1) * ORDERS_PAGE_SIZE: page * ORDERS_PAGE_SIZE]
    first = {}
    for oid, name, n in conn.execute(
            "SELECT i.order_id, p.name, (SELECT count(*) FROM shop_order_items j WHERE j.order_id=i.order_id) "
            "FROM shop_order_items i JOIN shop_products p ON p.id=i.product_id ORDER BY i.id"):
        first.setdefault(oid, name + (f" and {n - 1} more" if n > 1 else ""))
    for r in shown:
        r["summary"] = first.get(r["id"], "")
    placed = qp.get("placed")
    return _render(request, "shop_orders.html", "Orders", orders=shown, page=page, pages=pages,
                   toast=f"Order #{placed} placed" if placed else "")


async def order_detail(request):
    conn, oid = request.state.conn, request.path_params["oid"]
    rows = _order_rows(conn, "WHERE o.id=?", (oid,))
    if not rows:
        return _redirect(request, "/shop/orders")
    cols = ("pid", "name", "size", "qty", "price_cents")
    items = [dict(zip(cols, r, strict=True)) for r in conn.execute(
        "SELECT p.id, p.name, i.size, i.qty, i.price_cents FROM shop_order_items i JOIN shop_products p "
        "ON p.id=i.product_id WHERE i.order_id=? ORDER BY i.id", (oid,))]
    return _render(request, "shop_order.html", f"Order #{oid}", o=rows[0], items=items)


async def cancel_order(request):
    conn, oid = request.state.conn, request.path_params["oid"]
    if conn.execute("UPDATE shop_orders SET status='cancelled' WHERE id=? AND status IN ('placed','shipped')",
                    (oid,)).rowcount:
        conn.execute("UPDATE ext_payments SET status='refunded' WHERE order_id=?", (oid,))
    return _redirect(request, "/shop/orders")


async def addresses(request):
    conn = request.state.conn
    if request.method == "POST":
        form = await request.form()
        vals = [str(form.get(k, "")).strip() for k in ("label", "name", "street", "city", "zip")]
        if not all(vals):
            return _redirect(request, "/shop/addresses")
        conn.execute("INSERT INTO shop_addresses(label,name,street,city,zip) VALUES(?,?,?,?,?)", vals)
        return _redirect(request, "/shop/addresses", saved=1)
    return _render(request, "shop_addresses.html", "Addresses", addresses=_addresses(conn),
                   fields=(("label", "Label"), ("name", "Full name"), ("street", "Street"), ("city", "City"),
                           ("zip", "ZIP")),
                   toast="Address saved" if request.query_params.get("saved") else "")


async def deals(request):
    cols = ("code", "percent", "active", "category")
    rows = [dict(zip(cols, r, strict=True)) for r in request.state.conn.execute(
        "SELECT code, percent, active, category FROM shop_promos ORDER BY active DESC, category, code")]
    return _render(request, "shop_deals.html", "Weekly deals", promos=rows)


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route

    return Starlette(routes=[
        Route("/shop/", catalog), Route("/shop/p/{pid:int}", product),
        Route("/shop/cart", cart), Route("/shop/cart/add", cart_add, methods=["POST"]),
        Route("/shop/cart/{lid:int}/remove", cart_remove, methods=["POST"]),
        Route("/shop/cart/promo", cart_promo, methods=["POST"]),
        Route("/shop/checkout", checkout, methods=["GET", "POST"]),
        Route("/shop/orders", orders), Route("/shop/orders/{oid:int}", order_detail),
        Route("/shop/orders/{oid:int}/cancel", cancel_order, methods=["POST"]),
        Route("/shop/addresses", addresses, methods=["GET", "POST"]), Route("/shop/deals", deals),
    ])


APP = AsgiApp(name="shop", prefix="/shop", title="Stride&Co shop", app=LazyApp(_app), schema=SCHEMA, seed=seed,
              irreversible=("Place order", "Cancel order"),
              gated=(GatedRoute("Place order", r"/shop/checkout"),
                     GatedRoute("Cancel order", r"/shop/orders/[^/]+/cancel")), renders="server",
              flags={"promo_banner": "1", "new_checkout": "0"})
