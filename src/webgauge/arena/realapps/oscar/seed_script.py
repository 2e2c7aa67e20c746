"""Write one seed's shop into a django-oscar database through Oscar's own models.

Run by the shop's interpreter (``python seed_script.py SITE_DIR SHOP.json``, with ``WG_OSCAR_DATA``
naming the scratch data folder), not imported by webgauge: it imports Django, Oscar, Pillow,
the standard library and the photo drawer next to it. Past orders go through Oscar's own
``OrderCreator`` from real baskets; reviews update product ratings as Oscar does. Afterwards
every time stamp the wall clock wrote is set from the content, the catalogue's pages are
rendered once so their thumbnails exist (and Django's cache, a table of the same database, holds
what that rendering stored), and sessions are emptied.
"""

import datetime as dt
import io
import json
import os
import sys
import time
from decimal import Decimal

EPOCH = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.timezone.utc)


def main(site_dir, spec_path):
    sys.path.insert(0, site_dir)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wgshop.settings")
    import django

    django.setup()
    from django.core.management import call_command
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
        phase("catalogue", seed_catalogue, spec)
        users = phase("customers", seed_customers, spec)
        phase("orders", seed_orders, spec, users)
        phase("reviews", seed_reviews, spec, users)
        phase("vouchers", seed_vouchers, spec)
        phase("times", freeze_times, spec, started)
    phase("search index", call_command, "rebuild_index", interactive=False, verbosity=0)
    phase("pages", render_pages, spec)
    phase("tidy", tidy)
    print("seeded: " + ", ".join(phases), file=sys.stderr)


def seed_catalogue(spec):
    from django.contrib.sites.models import Site
    from django.core.files.base import ContentFile
    from oscar.apps.catalogue.categories import create_from_breadcrumbs
    from oscar.apps.catalogue.models import (
        Option,
        Product,
        ProductAttribute,
        ProductCategory,
        ProductClass,
        ProductImage,
    )
    from oscar.apps.partner.models import Partner, StockRecord
    from photos import draw

    Site.objects.filter(id=1).update(domain="127.0.0.1", name="Larder & Loom")
    cats = {leaf: create_from_breadcrumbs(f"{top} > {leaf}") for top, leaf, _s, _n, _c in spec["categories"]}
    classes = {}
    gift = Option.objects.create(name="Gift message", code="gift-message", type=Option.TEXT, required=False)
    for _t, _l, _s, _n, pclass in spec["categories"]:
        if pclass in classes:
            continue
        pc = ProductClass.objects.create(name=pclass, requires_shipping=True, track_stock=True)
        ProductAttribute.objects.create(product_class=pc, name="Material", code="material", type="text")
        if pclass in ("Apparel", "Footwear"):
            ProductAttribute.objects.create(product_class=pc, name="Size", code="size", type="text")
        if pclass in ("Apparel",):
            ProductAttribute.objects.create(product_class=pc, name="Colour", code="colour", type="text")
        if pclass in ("Homeware", "Accessories"):
            pc.options.add(gift)
        classes[pclass] = pc
    partner = Partner.objects.create(name="Larder & Loom Warehouse", code="warehouse")
    made = {}
    colours = spec["colours"]
    for p in spec["products"]:
        if p["parent"]:
            parent = made[p["parent"]]
            prod = Product(structure=Product.CHILD, parent=parent, title=p["title"], upc=p["upc"])
        else:
            is_parent = any(q["parent"] == p["key"] for q in spec["products"])
            prod = Product(structure=Product.PARENT if is_parent else Product.STANDALONE, title=p["title"],
                           upc=p["upc"], description=p["description"], product_class=classes[p["product_class"]])
        prod.save()
        if p["parent"]:
            prod.attr.size = p["size"]
            if p["product_class"] == "Apparel":
                prod.attr.colour = p["colour"].capitalize()
        prod.attr.material = p["material"]
        prod.save()
        made[p["key"]] = prod
        if not p["parent"]:
            ProductCategory.objects.create(product=prod, category=cats[p["category"]])
            buf = io.BytesIO()
            draw(p["shape"], tuple(colours[p["colour"]]), p["variation"]).save(buf, "JPEG", quality=86)
            ProductImage.objects.create(product=prod, original=ContentFile(buf.getvalue(), name=f"{p['upc']}.jpg"),
                                        caption="", display_order=0)
        if prod.structure != Product.PARENT:
            StockRecord.objects.create(product=prod, partner=partner, partner_sku=p["upc"],
                                       price=Decimal(p["price"]), price_currency="GBP", num_in_stock=p["stock"])
    spec["_made"] = {k: v.id for k, v in made.items()}


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
    users = {}
    for i, c in enumerate(spec["customers"]):
        u = User(username=_username(c["email"]), email=c["email"], first_name=c["first_name"],
                 last_name=c["last_name"], password=make_password(c["password"], salt=f"wgseed{spec['seed']}x{i}"))
        u.save()
        for k, a in enumerate(c["addresses"]):
            UserAddress.objects.create(user=u, first_name=c["first_name"], last_name=c["last_name"], line1=a["line1"],
                                       line4=a["town"], postcode=a["postcode"], country_id="GB",
                                       phone_number=a["phone"], is_default_for_shipping=k == 0,
                                       is_default_for_billing=k == 0)
        users[c["email"]] = u
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
    from oscar.apps.catalogue.models import Product
    from oscar.apps.catalogue.reviews.models import ProductReview

    for r in spec["reviews"]:
        rev = ProductReview.objects.create(product=Product.objects.get(id=spec["_made"][r["product"]]),
                                           user=users[r["customer"]], score=r["score"], title=r["title"],
                                           body=r["body"], status=ProductReview.APPROVED)
        ProductReview.objects.filter(id=rev.id).update(date_created=EPOCH + dt.timedelta(minutes=r["minute"]))


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


def render_pages(spec):
    """Render the home page, every category page and every product page once, so the thumbnails the
    templates ask for exist in the snapshot (a fresh episode does not pay for resizing)."""
    from django.test import Client
    from oscar.apps.catalogue.models import Category, Product

    client = Client(HTTP_HOST="127.0.0.1")
    urls = ["/catalogue/"]
    for cat in Category.objects.all():
        urls.append(cat.get_absolute_url())
        n = cat.product_set.count()
        urls += [f"{cat.get_absolute_url()}?page={k}" for k in range(2, 2 + n // 24)]
    urls += [p.get_absolute_url() for p in Product.objects.all()]
    for u in urls:
        r = client.get(u)
        if r.status_code != 200 and "?page=" not in u:  # a listing may have fewer pages than products / 24
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
    main(sys.argv[1], sys.argv[2])
