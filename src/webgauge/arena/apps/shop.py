"""Shop: catalog, product pages, cart with promo codes, checkout through a stand-in payment
provider, orders (cancellable behind a confirm dialog) and addresses.

Responsive: below 700 px the navigation collapses behind a menu button. A sticky promo banner
covers the bottom of every page. The weekly deals page opens in a new tab.
"""

from __future__ import annotations

import random
import sqlite3

from .common import Request, Response, Site, esc, now, page, redirect, route

SCHEMA = """
CREATE TABLE shop_products(id INTEGER PRIMARY KEY, name TEXT, model TEXT, color TEXT, hex TEXT,
  sizes TEXT, price_cents INTEGER, position INTEGER);
CREATE TABLE shop_cart(id INTEGER PRIMARY KEY AUTOINCREMENT, product_id INTEGER REFERENCES shop_products(id),
  size TEXT, qty INTEGER);
CREATE TABLE shop_cart_promo(id INTEGER PRIMARY KEY CHECK(id=1), code TEXT);
CREATE TABLE shop_promos(code TEXT PRIMARY KEY, percent INTEGER, active INTEGER);
CREATE TABLE shop_addresses(id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT, name TEXT, street TEXT,
  city TEXT, zip TEXT);
CREATE TABLE shop_orders(id INTEGER PRIMARY KEY AUTOINCREMENT, address_id INTEGER, total_cents INTEGER,
  status TEXT, promo TEXT, created_at TEXT);
CREATE TABLE shop_order_items(id INTEGER PRIMARY KEY AUTOINCREMENT, order_id INTEGER REFERENCES shop_orders(id),
  product_id INTEGER, size TEXT, qty INTEGER, price_cents INTEGER);
CREATE TABLE ext_payments(id INTEGER PRIMARY KEY AUTOINCREMENT, order_id INTEGER, amount_cents INTEGER,
  status TEXT, created_at TEXT);
"""

MODELS = ["Trail Runner", "City Walker", "Peak Hiker", "Harbor Loafer", "Summit Boot", "Metro Sneaker"]
COLORS = [("Navy", "#1f2f5c"), ("Blue", "#2d5fd0"), ("Slate", "#5a6b7d"), ("Black", "#16181c"),
          ("Charcoal", "#3a3d42"), ("Red", "#c62828"), ("Crimson", "#8e1330")]
STREETS = ["Maple Ave", "Harbor Rd", "Elm Street", "Station Sq", "Mill Lane", "Orchard Way"]
CITIES = ["Lindenport", "Bramley", "Easton", "Fairview"]


def seed(conn: sqlite3.Connection, rng: random.Random) -> None:
    products = []
    for m in MODELS:
        for c, hx in rng.sample(COLORS, 5):
            products.append((m, c, hx))
    rng.shuffle(products)
    for i, (m, c, hx) in enumerate(products, start=1):
        conn.execute(
            "INSERT INTO shop_products VALUES(?,?,?,?,?,?,?,?)",
            (i, f"{m} {c}", m, c, hx, "39,40,41,42,43,44", rng.randrange(49, 160) * 100 + 99, i),
        )
    for label in ["Home", "Work", "Parents"]:
        conn.execute(
            "INSERT INTO shop_addresses(label,name,street,city,zip) VALUES(?,?,?,?,?)",
            (label, "Alex Morgan", f"{rng.randrange(2, 99)} {rng.choice(STREETS)}", rng.choice(CITIES),
             f"{rng.randrange(10000, 99999)}"),
        )
    conn.execute("INSERT INTO sqlite_sequence(name,seq) VALUES('shop_orders',1040)")
    for k in range(4):
        pid = rng.randrange(1, len(products) + 1)
        price = conn.execute("SELECT price_cents FROM shop_products WHERE id=?", (pid,)).fetchone()[0]
        cur = conn.execute(
            "INSERT INTO shop_orders(address_id,total_cents,status,promo,created_at) VALUES(?,?,?,?,?)",
            (1 + k % 3, price, "placed" if k % 2 else "shipped", None, f"2026-02-{10 + k:02d}T10:00:00Z"),
        )
        conn.execute(
            "INSERT INTO shop_order_items(order_id,product_id,size,qty,price_cents) VALUES(?,?,?,?,?)",
            (cur.lastrowid, pid, "42", 1, price),
        )
        conn.execute(
            "INSERT INTO ext_payments(order_id,amount_cents,status,created_at) VALUES(?,?,?,?)",
            (cur.lastrowid, price, "captured", f"2026-02-{10 + k:02d}T10:00:00Z"),
        )
    codes = [f"SAVE{rng.randrange(10, 99)}", f"SPRING{rng.randrange(10, 99)}", f"DEAL{rng.randrange(10, 99)}"]
    for i, code in enumerate(codes):
        conn.execute("INSERT INTO shop_promos VALUES(?,?,?)", (code, 10 + 5 * i, 1 if i == 0 else 0))


CSS = """
.nav-links{display:flex;gap:16px} .menu-btn{display:none;background:none;border:1px solid #fff;color:#fff;
 padding:4px 10px;border-radius:4px;font-size:15px}
@media (max-width:700px){.nav-links{display:none;position:absolute;top:48px;left:0;right:0;background:#243b6b;
 flex-direction:column;padding:12px 20px}.nav-links.open{display:flex}.menu-btn{display:inline-block}
 .grid{grid-template-columns:1fr 1fr!important}.form-row{flex-direction:column}}
.grid{display:grid;grid-template-columns:repeat(4,1fr);gap:12px}
.prod{background:#fff;border:1px solid #dde1ea;border-radius:8px;padding:10px}
.swatch{height:70px;border-radius:6px;margin-bottom:6px}
.banner{position:fixed;left:0;right:0;bottom:0;height:110px;background:#ffcf4a;color:#3a2a00;display:flex;
 align-items:center;justify-content:center;gap:20px;font-size:18px;box-shadow:0 -2px 8px rgba(0,0,0,.2)}
.form-row{display:flex;gap:12px}
"""

NAV_JS = """
document.querySelector('.menu-btn')?.addEventListener('click',()=>{
 document.querySelector('.nav-links').classList.toggle('open');});
document.querySelectorAll('form.once').forEach(f=>f.addEventListener('submit',e=>{
 const b=f.querySelector('button[type=submit]'); if(b){b.disabled=true;b.textContent='Processing…';}}));
"""


def _nav(req: Request) -> str:
    n = req.conn.execute("SELECT COALESCE(SUM(qty),0) FROM shop_cart").fetchone()[0]
    links = [("/shop/", "Catalog"), ("/shop/cart", f"Cart ({n})"), ("/shop/orders", "Orders"),
             ("/shop/addresses", "Addresses")]
    items = "".join(f'<a href="{req.url(p)}">{esc(t)}</a>' for p, t in links)
    items += f'<a href="{req.url("/shop/deals")}" target="_blank">Weekly deals ↗</a>'
    return (f'<header class="top"><span class="brand">Stride&amp;Co</span>'
            f'<button class="menu-btn" aria-label="Menu">☰ Menu</button><nav class="nav-links">{items}</nav></header>')


def _banner() -> str:
    return '<div class="banner"><b>Free shipping on orders over $50</b><span>Members save 10% every week</span></div>'


def _page(req: Request, title: str, body: str, toast: str = "") -> Response:
    return page(req, title, body + _banner(), nav=_nav(req), css=CSS, js=NAV_JS, toast=toast)


def money(c: int) -> str:
    return f"${c / 100:.2f}"


def catalog(req: Request) -> Response:
    rows = req.conn.execute("SELECT id,name,hex,price_cents FROM shop_products ORDER BY position").fetchall()
    cards = "".join(
        f'<div class="prod"><div class="swatch" style="background:{r["hex"]}"></div><div>{esc(r["name"])}</div>'
        f'<div>{money(r["price_cents"])}</div><a class="btn secondary" href="{req.url("/shop/p/%d" % r["id"])}">View</a></div>'
        for r in rows
    )
    return _page(req, "Catalog", f'<h1>Catalog</h1><div class="grid">{cards}</div>')


def product(req: Request) -> Response:
    pid = int(req.params["id"])
    p = req.conn.execute("SELECT * FROM shop_products WHERE id=?", (pid,)).fetchone()
    if p is None:
        return Response(404, b"no such product")
    sizes = "".join(f"<option>{s}</option>" for s in p["sizes"].split(","))
    others = req.conn.execute("SELECT id,color FROM shop_products WHERE model=? AND id!=? ORDER BY color",
                              (p["model"], pid)).fetchall()
    alt = " · ".join(f'<a href="{req.url("/shop/p/%d" % o["id"])}">{esc(o["color"])}</a>' for o in others)
    body = (
        f'<h1>{esc(p["name"])}</h1><div class="card"><div class="swatch" style="background:{p["hex"]};width:220px"></div>'
        f'<p>Price: {money(p["price_cents"])}</p>'
        f'<form method=post action="{req.url("/shop/cart/add")}"><input type=hidden name=product value="{pid}">'
        f'<label for=size>Size</label><select id=size name=size><option value="">Choose size</option>{sizes}</select>'
        f'<label for=qty>Quantity</label><input id=qty name=qty type=number value=1 min=1 max=5>'
        f'<p><button class=btn type=submit>Add to cart</button></p></form><p>Other colors: {alt}</p></div>'
    )
    return _page(req, p["name"], body, toast="Added to cart" if req.query.get("added") else "")


def cart_add(req: Request) -> Response:
    pid, size = int(req.field("product")), req.field("size")
    if not size:
        return redirect(req.url(f"/shop/p/{pid}"))
    qty = max(1, min(5, int(req.field("qty", "1") or 1)))
    row = req.conn.execute("SELECT id FROM shop_cart WHERE product_id=? AND size=?", (pid, size)).fetchone()
    if row:
        req.conn.execute("UPDATE shop_cart SET qty=qty+? WHERE id=?", (qty, row[0]))
    else:
        req.conn.execute("INSERT INTO shop_cart(product_id,size,qty) VALUES(?,?,?)", (pid, size, qty))
    return redirect(req.url(f"/shop/p/{pid}", added=1))


def _cart_total(req: Request) -> tuple[list, int, int]:
    rows = req.conn.execute(
        "SELECT c.id,c.size,c.qty,p.name,p.price_cents,p.id AS pid FROM shop_cart c JOIN shop_products p ON p.id=c.product_id"
    ).fetchall()
    total = sum(r["qty"] * r["price_cents"] for r in rows)
    promo = req.conn.execute("SELECT p.percent FROM shop_cart_promo c JOIN shop_promos p ON p.code=c.code").fetchone()
    if promo:
        total = total * (100 - promo[0]) // 100
    return rows, total, promo[0] if promo else 0


def cart(req: Request) -> Response:
    rows, total, pct = _cart_total(req)
    items = "".join(
        f'<tr><td>{esc(r["name"])}</td><td>{esc(r["size"])}</td><td>{r["qty"]}</td>'
        f'<td><form method=post action="{req.url("/shop/cart/%d/remove" % r["id"])}"><button class="btn secondary">Remove</button></form></td></tr>'
        for r in rows
    )
    err = '<p class="error">That code is not valid.</p>' if req.query.get("bad") else ""
    promo = (f"<p>Promo applied: {pct}% off</p>" if pct else "") + (
        f'<form method=post action="{req.url("/shop/cart/promo")}"><label for=promo>Promo code</label>'
        f'<input id=promo name=code><button class="btn secondary">Apply</button>{err}</form>'
    )
    checkout = f'<a class=btn href="{req.url("/shop/checkout")}">Checkout</a>' if rows else "<p>Your cart is empty.</p>"
    body = (f'<h1>Cart</h1><table><tr><th>Item</th><th>Size</th><th>Qty</th><th></th></tr>{items}</table>'
            f'<div class=card>{promo}<p>Total: {money(total)}</p>{checkout}</div>')
    return _page(req, "Cart", body)


def cart_remove(req: Request) -> Response:
    req.conn.execute("DELETE FROM shop_cart WHERE id=?", (int(req.params["id"]),))
    return redirect(req.url("/shop/cart"))


def cart_promo(req: Request) -> Response:
    code = req.field("code").strip().upper()
    ok = req.conn.execute("SELECT 1 FROM shop_promos WHERE code=? AND active=1", (code,)).fetchone()
    if not ok:
        return redirect(req.url("/shop/cart", bad=1))
    req.conn.execute("INSERT OR REPLACE INTO shop_cart_promo(id,code) VALUES(1,?)", (code,))
    return redirect(req.url("/shop/cart"))


def checkout(req: Request) -> Response:
    rows, total, _ = _cart_total(req)
    if not rows:
        return redirect(req.url("/shop/cart"))
    addrs = req.conn.execute("SELECT * FROM shop_addresses ORDER BY id").fetchall()
    radios = "".join(
        f'<label><input type=radio name=address value="{a["id"]}"> {esc(a["label"])}: {esc(a["street"])}, {esc(a["city"])}</label>'
        for a in addrs
    )
    err = '<p class="error">Choose a shipping address.</p>' if req.query.get("noaddr") else ""
    body = (f'<h1>Checkout</h1><form class="card once" method=post action="{req.url("/shop/checkout")}">'
            f'<fieldset><legend>Ship to</legend>{radios}</fieldset>{err}<p>Total: {money(total)}</p>'
            f'<button class=btn type=submit>Place order</button></form>')
    return _page(req, "Checkout", body)


def place_order(req: Request) -> Response:
    rows, total, _ = _cart_total(req)
    addr = req.field("address")
    if not rows:
        return redirect(req.url("/shop/cart"))
    if not addr:
        return redirect(req.url("/shop/checkout", noaddr=1))
    promo = req.conn.execute("SELECT code FROM shop_cart_promo").fetchone()
    t = now(req.conn)
    oid = req.conn.execute(
        "INSERT INTO shop_orders(address_id,total_cents,status,promo,created_at) VALUES(?,?,?,?,?)",
        (int(addr), total, "placed", promo[0] if promo else None, t),
    ).lastrowid
    for r in rows:
        req.conn.execute("INSERT INTO shop_order_items(order_id,product_id,size,qty,price_cents) VALUES(?,?,?,?,?)",
                         (oid, r["pid"], r["size"], r["qty"], r["price_cents"]))
    # The stand-in payment provider: part of the episode state, restored by reset.
    req.conn.execute("INSERT INTO ext_payments(order_id,amount_cents,status,created_at) VALUES(?,?,?,?)",
                     (oid, total, "captured", t))
    req.conn.execute("DELETE FROM shop_cart")
    req.conn.execute("DELETE FROM shop_cart_promo")
    return redirect(req.url("/shop/orders", placed=oid))


ORDERS_JS = """
let pending=null; const back=document.querySelector('.modal-back');
document.querySelectorAll('button.cancel-open').forEach(b=>b.addEventListener('click',()=>{
 pending=b.dataset.order; document.getElementById('modal-title').textContent='Cancel order #'+pending+'?';
 back.classList.add('open');}));
document.getElementById('keep').addEventListener('click',()=>back.classList.remove('open'));
document.getElementById('confirm').addEventListener('click',()=>{const f=document.getElementById('cancel-form');
 f.action=f.dataset.base+'/shop/orders/'+pending+'/cancel'; f.submit();});
"""


def _cancel_btn(r: sqlite3.Row) -> str:
    if r["status"] == "cancelled":
        return ""
    return f'<button class="btn btn-danger cancel-open" data-order="{r["id"]}">Cancel</button>'


def orders(req: Request) -> Response:
    rows = req.conn.execute("SELECT * FROM shop_orders ORDER BY id DESC").fetchall()
    trs = "".join(
        f'<tr><td>#{r["id"]}</td><td>{esc(r["created_at"][:10])}</td><td>{money(r["total_cents"])}</td><td>{esc(r["status"])}</td>'
        f'<td>{_cancel_btn(r)}</td></tr>'
        for r in rows
    )
    modal = (f'<div class="modal-back"><div class="modal" role="dialog" aria-modal="true"><h2 id="modal-title"></h2>'
             f'<p>This cannot be undone.</p><button id=keep class="btn secondary">Keep order</button> '
             f'<button id=confirm class="btn btn-danger">Cancel order</button></div></div>'
             f'<form id=cancel-form method=post data-base="{req.base}"></form>')
    placed = req.query.get("placed")
    body = f'<h1>Orders</h1><table><tr><th>Order</th><th>Date</th><th>Total</th><th>Status</th><th></th></tr>{trs}</table>{modal}'
    r = _page(req, "Orders", body, toast=f"Order #{placed} placed" if placed else "")
    r.body = r.body.replace(b"</script>", ORDERS_JS.encode() + b"</script>", 1)
    return r


def cancel_order(req: Request) -> Response:
    oid = int(req.params["id"])
    req.conn.execute("UPDATE shop_orders SET status='cancelled' WHERE id=? AND status!='cancelled'", (oid,))
    req.conn.execute("UPDATE ext_payments SET status='refunded' WHERE order_id=?", (oid,))
    return redirect(req.url("/shop/orders"))


def addresses(req: Request) -> Response:
    rows = req.conn.execute("SELECT * FROM shop_addresses ORDER BY id").fetchall()
    lis = "".join(f'<div class=card><b>{esc(a["label"])}</b><br>{esc(a["name"])}<br>{esc(a["street"])}<br>'
                  f'{esc(a["zip"])} {esc(a["city"])}</div>' for a in rows)
    fields = "".join(f'<div><label for="a-{n}">{t}</label><input id="a-{n}" name="{n}" required></div>'
                     for n, t in [("label", "Label"), ("name", "Full name"), ("street", "Street"), ("city", "City"), ("zip", "ZIP")])
    form = (f'<form class="card once" method=post action="{req.url("/shop/addresses")}"><h2>Add address</h2>'
            f'<div class="form-row">{fields}</div><p><button class=btn type=submit>Save address</button></p></form>')
    return _page(req, "Addresses", f"<h1>Addresses</h1>{form}{lis}", toast="Address saved" if req.query.get("saved") else "")


def add_address(req: Request) -> Response:
    vals = [req.field(k).strip() for k in ("label", "name", "street", "city", "zip")]
    if not all(vals):
        return redirect(req.url("/shop/addresses"))
    req.conn.execute("INSERT INTO shop_addresses(label,name,street,city,zip) VALUES(?,?,?,?,?)", vals)
    return redirect(req.url("/shop/addresses", saved=1))


def deals(req: Request) -> Response:
    rows = req.conn.execute("SELECT * FROM shop_promos ORDER BY active DESC, code").fetchall()
    lis = "".join(
        (f'<div class=card><b>This week: {esc(r["code"])}</b> — {r["percent"]}% off everything</div>' if r["active"]
         else f'<div class=card><s>{esc(r["code"])}</s> (expired)</div>')
        for r in rows
    )
    return _page(req, "Weekly deals", f"<h1>Weekly deals</h1>{lis}")


SITE = Site(
    name="shop",
    prefix="/shop",
    title="Stride&Co shop",
    routes=(
        route("GET", r"/shop/", catalog),
        route("GET", r"/shop/p/(?P<id>\d+)", product),
        route("POST", r"/shop/cart/add", cart_add),
        route("GET", r"/shop/cart", cart),
        route("POST", r"/shop/cart/(?P<id>\d+)/remove", cart_remove),
        route("POST", r"/shop/cart/promo", cart_promo),
        route("GET", r"/shop/checkout", checkout),
        route("POST", r"/shop/checkout", place_order),
        route("GET", r"/shop/orders", orders),
        route("POST", r"/shop/orders/(?P<id>\d+)/cancel", cancel_order),
        route("GET", r"/shop/addresses", addresses),
        route("POST", r"/shop/addresses", add_address),
        route("GET", r"/shop/deals", deals),
    ),
    irreversible=("Cancel order", "Place order"),  # declared irreversible controls (accessible names)
)
