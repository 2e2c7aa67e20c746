"""Write one seed's shop into a django-oscar database through Oscar's own models and tables.

Run by the shop's interpreter (``python seed_script.py SITE_DIR SHOP.json PHOTO_CACHE``, with
``WG_OSCAR_DATA`` naming the scratch data folder), not imported by webgauge: it imports Django,
Oscar, Pillow, the standard library and the photo drawer next to it. Categories and product
classes go through Oscar's models; the catalogue's thousands of rows (products, attribute values,
category links, images, stock records), customers and reviews through ``bulk_create`` with the
content's ids; product ratings as ``Product.update_rating`` computes them, in one SQL update. Past
orders go through Oscar's own ``OrderCreator`` from real baskets. Afterwards
every time stamp the wall clock wrote is set from the content, the catalogue's pages are
rendered once so their thumbnails exist (and Django's cache, a table of the same database, holds
what that rendering stored), and sessions are emptied.
"""

import datetime as dt
import json
import os
import shutil
import sys
import time
from decimal import Decimal

EPOCH = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.timezone.utc)


def main(site_dir, spec_path, photo_cache):
    sys.path.insert(0, site_dir)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wgshop.settings")
    import django

    django.setup()
    from django.db import connection, transaction

    started = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    # a scratch database that becomes the snapshot only when this script succeeds: no journal, no
    # syncing to disk after every row, and the rows written in one transaction (one commit, not
    # thousands); what is written, and in which order (so every row id), is unchanged
    with connection.cursor() as cur:
        cur.execute("PRAGMA journal_mode=MEMORY")
        cur.execute("PRAGMA synchronous=OFF")
    phases = []

    def phase(name, fn, *args, **kwargs):
        t = time.perf_counter()
        out = fn(*args, **kwargs)
        phases.append(f"{name} {time.perf_counter() - t:.1f} s")
        return out

    with transaction.atomic():
        phase("catalogue", seed_catalogue, spec, photo_cache)
        users = phase("customers", seed_customers, spec)
        phase("orders", seed_orders, spec, users)
        phase("reviews", seed_reviews, spec, users)
        phase("vouchers", seed_vouchers, spec)
        phase("times", freeze_times, spec, started)
    phase("search index", search_index)
    phase("pages", render_pages, spec)
    phase("tidy", tidy)
    print("seeded: " + ", ".join(phases), file=sys.stderr)


def seed_catalogue(spec, photo_cache):
    """Categories and product classes through Oscar's models (a few dozen rows); products, their
    attribute values, category links, images and stock records in bulk (``bulk_create`` with the
    content's ids, so product ``k`` of the content is row ``k + 1``)."""
    from django.contrib.sites.models import Site
    from oscar.apps.catalogue.categories import create_from_breadcrumbs
    from oscar.apps.catalogue.models import (
        Option,
        Product,
        ProductAttribute,
        ProductAttributeValue,
        ProductCategory,
        ProductClass,
        ProductImage,
    )
    from oscar.apps.partner.models import Partner, StockRecord
    from oscar.core.utils import slugify

    Site.objects.filter(id=1).update(domain="127.0.0.1", name="Larder & Loom")
    cats = {leaf: create_from_breadcrumbs(f"{top} > {leaf}") for top, leaf, _s, _n, _c in spec["categories"]}
    classes, attrs = {}, {}
    gift = Option.objects.create(name="Gift message", code="gift-message", type=Option.TEXT, required=False)
    for _t, _l, _s, _n, pclass in spec["categories"]:
        if pclass in classes:
            continue
        pc = ProductClass.objects.create(name=pclass, requires_shipping=True, track_stock=True)
        typed = [tuple(a) for a in spec["classes"][pclass]]
        if pclass in ("Apparel", "Footwear"):
            typed.append(("size", "Size", "text"))
        if pclass == "Apparel":
            typed.append(("colour", "Colour", "text"))
        for code, name, kind in typed:
            attrs[(pclass, code)] = ProductAttribute.objects.create(product_class=pc, name=name, code=code, type=kind)
        if pclass in ("Homeware", "Accessories", "Fragrance", "Food"):
            pc.options.add(gift)
        classes[pclass] = pc
    partner = Partner.objects.create(name="Larder & Loom Warehouse", code="warehouse")
    ids = {p["key"]: i + 1 for i, p in enumerate(spec["products"])}
    parents = {p["parent"] for p in spec["products"] if p["parent"]}
    photos = product_photos(spec, photo_cache)
    prods, values, links, images, stock = [], [], [], [], []
    for p in spec["products"]:
        pid = ids[p["key"]]
        kid = bool(p["parent"])
        structure = Product.CHILD if kid else Product.PARENT if p["key"] in parents else Product.STANDALONE
        prods.append(Product(id=pid, structure=structure, title=p["title"], upc=p["upc"], slug=slugify(p["title"]),
                             description=p["description"], parent_id=ids[p["parent"]] if kid else None,
                             product_class=None if kid else classes[p["product_class"]]))
        own = dict(p["attrs"]) if not kid else {}
        if kid:
            own["size"] = p["size"]
            if p["product_class"] == "Apparel":
                own["colour"] = p["colour"].capitalize()
        for code, value in own.items():
            attr = attrs[(p["product_class"], code)]
            values.append(ProductAttributeValue(product_id=pid, attribute=attr, **{f"value_{attr.type}": value}))
        if not kid:
            links.append(ProductCategory(product_id=pid, category=cats[p["category"]]))
            images.append(ProductImage(product_id=pid, original=photos[p["key"]], caption="", display_order=0))
        if structure != Product.PARENT:
            stock.append(StockRecord(product_id=pid, partner=partner, partner_sku=p["upc"], price=Decimal(p["price"]),
                                     price_currency="GBP", num_in_stock=p["stock"]))
    Product.objects.bulk_create(prods, batch_size=500)
    ProductAttributeValue.objects.bulk_create(values, batch_size=500)
    ProductCategory.objects.bulk_create(links, batch_size=500)
    ProductImage.objects.bulk_create(images, batch_size=500)
    StockRecord.objects.bulk_create(stock, batch_size=500)
    spec["_made"] = ids


def product_photos(spec, photo_cache):
    """Each top-level product's photo file under ``media/images/products/``: one file per distinct
    photo (shape, colour, pose), drawn once into ``photo_cache`` (in two processes) and linked in."""
    from concurrent.futures import ProcessPoolExecutor

    from django.conf import settings
    from photos import photo_key, render_to

    os.makedirs(photo_cache, exist_ok=True)
    colours = spec["colours"]
    keys = {p["key"]: photo_key(p["shape"], p["colour"], p["variation"]) for p in spec["products"] if not p["parent"]}
    todo = {k for k in keys.values() if not os.path.isfile(os.path.join(photo_cache, k[0]))}
    if todo:
        with ProcessPoolExecutor(2) as ex:
            list(ex.map(render_to, [(os.path.join(photo_cache, name), shape, tuple(colours[c]), pose)
                                    for name, shape, c, pose in sorted(todo)], chunksize=8))
    folder = os.path.join(settings.MEDIA_ROOT, "images", "products")
    os.makedirs(folder, exist_ok=True)
    for name, *_ in set(keys.values()):
        dst = os.path.join(folder, name)
        if not os.path.exists(dst):
            try:
                os.link(os.path.join(photo_cache, name), dst)
            except OSError:
                shutil.copyfile(os.path.join(photo_cache, name), dst)
    return {pk: f"images/products/{k[0]}" for pk, k in keys.items()}


def _username(email):
    return "u-" + email.split("@")[0].replace(".", "-")[:24] + "-" + str(abs(hash_str(email)) % 10000)


def hash_str(s):
    h = 0
    for ch in s:
        h = (h * 131 + ord(ch)) % 2 ** 31
    return h


def seed_customers(spec):
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User
    from oscar.apps.address.models import Country, UserAddress

    Country.objects.create(iso_3166_1_a2="GB", iso_3166_1_a3="GBR", iso_3166_1_numeric="826",
                           printable_name="United Kingdom", name="United Kingdom of Great Britain and Northern Ireland",
                           display_order=1, is_shipping_country=True)
    for a2, a3, num, name in (("IE", "IRL", "372", "Ireland"), ("FR", "FRA", "250", "France"),
                              ("DE", "DEU", "276", "Germany"), ("NL", "NLD", "528", "Netherlands")):
        Country.objects.create(iso_3166_1_a2=a2, iso_3166_1_a3=a3, iso_3166_1_numeric=num, printable_name=name,
                               name=name, is_shipping_country=True)
    users, addrs = {}, []
    made = User.objects.bulk_create([
        User(id=i + 1, username=_username(c["email"]), email=c["email"], first_name=c["first_name"],
             last_name=c["last_name"], password=make_password(c["password"], salt=f"wgseed{spec['seed']}x{i}"))
        for i, c in enumerate(spec["customers"])])
    for u, c in zip(made, spec["customers"], strict=True):
        users[c["email"]] = u
        for k, a in enumerate(c["addresses"]):
            addrs.append(UserAddress(user=u, first_name=c["first_name"], last_name=c["last_name"], line1=a["line1"],
                                     line4=a["town"], postcode=a["postcode"], country_id="GB",
                                     phone_number=a["phone"], is_default_for_shipping=k == 0,
                                     is_default_for_billing=k == 0))
    for a in addrs:  # what UserAddress.save computes
        a._update_search_text()
        a.hash = a.generate_hash()
    UserAddress.objects.bulk_create(addrs)
    st = spec["staff"]  # the dashboard's staff account, the row after the customers
    User.objects.create(id=len(made) + 1, username="shop-manager", email=st["email"], first_name=st["first_name"],
                        last_name=st["last_name"], is_staff=True, is_superuser=True,
                        password=make_password(st["password"], salt=f"wgseed{spec['seed']}staff"))
    return users


def seed_orders(spec, users):
    from oscar.apps.basket.models import Basket
    from oscar.apps.catalogue.models import Product
    from oscar.apps.checkout.calculators import OrderTotalCalculator
    from oscar.apps.order.models import Order, ShippingAddress
    from oscar.apps.order.utils import OrderCreator
    from oscar.apps.partner.strategy import Selector
    from oscar.apps.shipping.methods import Free

    custs = {c["email"]: c for c in spec["customers"]}
    for o in spec["orders"]:
        user = users[o["customer"]]
        basket = Basket.objects.create(owner=user)
        basket.strategy = Selector().strategy(user=user)
        for key, qty in o["lines"]:
            basket.add_product(Product.objects.get(id=spec["_made"][key]), qty)
        method = Free()
        charge = method.calculate(basket)
        total = OrderTotalCalculator().calculate(basket, charge)
        c = custs[o["customer"]]
        a = c["addresses"][o["address"]]
        addr = ShippingAddress(first_name=c["first_name"], last_name=c["last_name"], line1=a["line1"], line4=a["town"],
                               postcode=a["postcode"], country_id="GB", phone_number=a["phone"])
        addr.save()
        order = OrderCreator().place_order(basket=basket, total=total, shipping_method=method, shipping_charge=charge,
                                           user=user, shipping_address=addr, order_number=o["number"],
                                           status=o["status"])
        basket.submit()
        when = EPOCH + dt.timedelta(minutes=o["minute"])
        Order.objects.filter(id=order.id).update(date_placed=when)
        Basket.objects.filter(id=basket.id).update(date_created=when, date_submitted=when)


def seed_reviews(spec, users):
    from django.db import connection
    from oscar.apps.catalogue.reviews.models import ProductReview

    ProductReview.objects.bulk_create([
        ProductReview(id=i + 1, product_id=spec["_made"][r["product"]], user=users[r["customer"]], score=r["score"],
                      title=r["title"], body=r["body"], status=ProductReview.APPROVED,
                      date_created=EPOCH) for i, r in enumerate(spec["reviews"])], batch_size=500)
    with connection.cursor() as cur:  # date_created is written as "now" by bulk_create: set it from the content
        cur.executemany("UPDATE reviews_productreview SET date_created = %s WHERE id = %s",
                        [(EPOCH + dt.timedelta(minutes=r["minute"]), i + 1) for i, r in enumerate(spec["reviews"])])
        # each reviewed product's rating, as Product.update_rating computes it
        cur.execute("UPDATE catalogue_product SET rating = (SELECT avg(score) FROM reviews_productreview r "
                    "WHERE r.product_id = catalogue_product.id AND r.status = %s) "
                    "WHERE id IN (SELECT product_id FROM reviews_productreview)", [ProductReview.APPROVED])


def seed_vouchers(spec):
    from oscar.apps.offer.models import Benefit, Condition, ConditionalOffer, Range
    from oscar.apps.voucher.models import Voucher

    everything = Range.objects.create(name="Everything", includes_all_products=True)
    for code, pct in spec["vouchers"]:
        cond = Condition.objects.create(range=everything, type=Condition.COUNT, value=1)
        ben = Benefit.objects.create(range=everything, type=Benefit.PERCENTAGE, value=pct)
        offer = ConditionalOffer.objects.create(name=f"Voucher {code}", offer_type=ConditionalOffer.VOUCHER,
                                                condition=cond, benefit=ben)
        v = Voucher.objects.create(name=f"{pct}% off ({code})", code=code, usage=Voucher.MULTI_USE,
                                   start_datetime=EPOCH - dt.timedelta(days=30),
                                   end_datetime=EPOCH + dt.timedelta(days=3650))
        v.offers.add(offer)


def freeze_times(spec, started):
    """Every time stamp written during this run (auto_now / auto_now_add) is set to the shop's epoch,
    except those set from the content above (orders, reviews), which are older than ``started``."""
    from django.apps import apps
    from django.db import models

    for model in apps.get_models():
        for f in model._meta.concrete_fields:
            if isinstance(f, models.DateTimeField):
                model.objects.filter(**{f"{f.name}__gte": started}).update(**{f.name: EPOCH})


def search_index():
    """Oscar's product search index (Haystack's Whoosh backend), written in one pass: the documents
    ``ProductIndex.full_prepare`` makes, built from four queries instead of a dozen per product (a
    parent product's price, which Oscar's strategy picks among its children, still through
    ``full_prepare``), added by a two-process Whoosh writer and committed once. The searchable text of
    a product is its UPC, title and first paragraph (what the shop's search finds it by)."""
    from collections import defaultdict

    from django.db import connection
    from django.utils.html import escape
    from haystack import connections
    from oscar.apps.catalogue.models import Product

    backend = connections["default"].get_backend()
    backend.clear()
    backend.setup()
    index = connections["default"].get_unified_index().get_index(Product)
    with connection.cursor() as cur:
        cats = defaultdict(list)
        for pid, cid in cur.execute("SELECT product_id, category_id FROM catalogue_productcategory ORDER BY id"):
            cats[pid].append(cid)
        stock = {pid: (price, n, alloc) for pid, price, n, alloc in cur.execute(
            "SELECT product_id, price, num_in_stock, num_allocated FROM partner_stockrecord ORDER BY id")}
        classes = dict(cur.execute("SELECT id, name FROM catalogue_productclass"))
    parents = Product.objects.filter(structure=Product.PARENT)
    docs = [index.full_prepare(p) for p in parents]
    for p in Product.objects.browsable().exclude(structure=Product.PARENT).order_by("id"):
        d = {"id": f"catalogue.product.{p.id}", "django_ct": "catalogue.product", "django_id": str(p.id),
             "text": f"{p.upc}\n{p.title}\n{escape(p.description.split('</p>')[0])}</p>\n", "upc": p.upc,
             "title": p.title,
             "title_exact": p.title, "product_class": classes[p.product_class_id], "category": cats[p.id],
             "category_exact": cats[p.id], "suggestions": p.title, "date_created": p.date_created,
             "date_updated": p.date_updated, "is_public": p.is_public, "structure": p.structure}
        if p.rating is not None:
            d["rating"] = d["rating_exact"] = int(p.rating)
        if p.id in stock:
            price, n, alloc = stock[p.id]
            d["price"] = d["price_exact"] = Decimal(str(price)).quantize(Decimal("0.01"))
            d["num_in_stock"] = d["num_in_stock_exact"] = (n or 0) - (alloc or 0)
        docs.append(d)
    writer = backend.index.writer(procs=2, limitmb=128, multisegment=True)
    for d in docs:
        writer.add_document(**{k: backend._from_python(v) for k, v in d.items() if k != "boost"})
    writer.commit()


def render_pages(spec):
    """Render the catalogue's front page and the first page of the shop's ten original departments
    once, so the thumbnails those listings show exist in the snapshot (a fresh episode does not pay
    for resizing them); other pages make their thumbnails on first view."""
    from django.test import Client
    from oscar.apps.catalogue.models import Category

    client = Client(HTTP_HOST="127.0.0.1")
    first = {leaf for _top, leaf, *_ in spec["categories"][:10]}
    for u in ["/", "/catalogue/", *(c.get_absolute_url() for c in Category.objects.filter(name__in=first))]:
        r = client.get(u)
        if r.status_code not in (200, 301, 302):
            raise RuntimeError(f"GET {u} gave {r.status_code} while rendering the seed's pages")


def tidy():
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("DELETE FROM django_session")
        cur.execute("DELETE FROM basket_basket WHERE owner_id IS NULL")
        cur.execute("DELETE FROM analytics_userproductview")
        cur.execute("DELETE FROM analytics_usersearch")
        cur.execute("DELETE FROM auth_user WHERE username = 'wg-render'")
    connection.close()
    import sqlite3

    from django.conf import settings

    conn = sqlite3.connect(settings.DATABASES["default"]["NAME"])
    conn.execute("VACUUM")
    conn.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
