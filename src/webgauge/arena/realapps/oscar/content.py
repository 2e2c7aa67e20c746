"""The seed's shop, a pure function of the seed: a category tree, a few hundred products (some with
size and colour variants), prices and stock, customers with addresses, past orders and reviews.

Nothing here touches Oscar: :func:`world` returns plain records and the seed script writes them
through Oscar's own models. Brand lines and customer names come from the arena's seeded pools
(:func:`~webgauge.arena.content.pools.pool_for`): public seeds draw from the public word lists,
held-out seeds from words coined for that world alone with its secret content key
(:mod:`webgauge.arena.content.synth`), so a held-out shop's brands and people appear in no list.

Look-alikes: in some categories four products share one title and differ only in the colour of
their photo (the title, description and alt text do not name it), which is what the
image-matching family asks about.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field

from ...content.pools import pool_for

__all__ = ["CATEGORIES", "COLOURS", "Customer", "Order", "Product", "Review", "Shop", "world"]

# (top level, category, photo shape, noun, product class, price range)
CATEGORIES = (
    ("Kitchen", "Mugs", "mug", "Mug", "Homeware", (7, 28)),
    ("Kitchen", "Bottles", "bottle", "Water Bottle", "Homeware", (9, 39)),
    ("Home", "Lamps", "lamp", "Table Lamp", "Homeware", (24, 160)),
    ("Home", "Vases", "vase", "Vase", "Homeware", (12, 90)),
    ("Home", "Chairs", "chair", "Side Chair", "Furniture", (60, 420)),
    ("Clothing", "T-shirts", "tshirt", "Crew T-shirt", "Apparel", (12, 45)),
    ("Footwear", "Sneakers", "sneaker", "Sneaker", "Footwear", (45, 180)),
    ("Bags", "Backpacks", "backpack", "Backpack", "Bags", (30, 140)),
    ("Audio", "Headphones", "headphones", "Headphones", "Electronics", (25, 350)),
    ("Accessories", "Watches", "watch", "Watch", "Accessories", (40, 600)),
)
VARIANT_CATEGORIES = ("T-shirts", "Sneakers")  # products sold as a parent with size (and colour) children
LOOKALIKE_CATEGORIES = ("Mugs", "Bottles", "Lamps", "Backpacks", "Headphones", "Vases")

# photo colours, far enough apart that a glance tells them apart; the names are the task's words
COLOURS = {
    "red": (196, 38, 42), "orange": (232, 118, 32), "yellow": (238, 196, 42), "green": (46, 140, 74),
    "teal": (22, 146, 150), "blue": (36, 92, 190), "purple": (128, 70, 168), "pink": (232, 120, 168),
    "black": (34, 34, 38), "white": (236, 236, 230), "grey": (140, 142, 146), "brown": (120, 80, 50),
}
SIZES = {"T-shirts": ("S", "M", "L", "XL"), "Sneakers": ("40", "41", "42", "43", "44", "45")}
MATERIALS = {"Homeware": ("stoneware", "porcelain", "recycled glass", "stainless steel", "enamelled steel"),
             "Furniture": ("oak", "beech", "walnut", "powder-coated steel"),
             "Apparel": ("organic cotton", "cotton blend", "merino wool"),
             "Footwear": ("canvas", "suede", "knit mesh", "leather"),
             "Bags": ("recycled nylon", "waxed canvas", "cordura"),
             "Electronics": ("aluminium", "plastic", "steel and leather"),
             "Accessories": ("stainless steel", "titanium", "brass")}
_LINES = ("Classic", "Studio", "Everyday", "Field", "Nordic", "Loft", "Harbour", "Atelier", "Trail", "Urban",
          "Coast", "Summit", "Metro", "Cabin", "Terrace", "Pilot", "Canvas", "Market", "Garden", "Workshop")
_BLURBS = ("Made to be used every day and to last for years.", "Designed in a small studio and made in small batches.",
           "A quiet design that fits most homes.", "Tested by our team for a full season before it went on sale.",
           "Light, sturdy and easy to look after.", "Packed in recycled cardboard, without plastic.")
_REVIEW_TITLES = {5: ("Love it", "Excellent quality", "Exactly as pictured", "Would buy again"),
                  4: ("Very good", "Nice, small niggles", "Good value"),
                  3: ("It's fine", "Average", "Does the job"),
                  2: ("Disappointing", "Not as described"), 1: ("Broke quickly", "Would not recommend")}
_REVIEW_BODIES = ("Arrived quickly and well packed.", "The colour is a bit different from my screen.",
                  "Solid build, feels more expensive than it is.", "Took a week to arrive but worth the wait.",
                  "Smaller than I expected.", "My second one; the first lasted three years.",
                  "Good, though the finish marks easily.", "Gift for my sister, she loves it.")
_STREETS = ("Station Road", "Mill Lane", "Church Street", "Park Avenue", "Victoria Road", "Kings Road",
            "Queen Street", "Market Place", "Orchard Close", "Riverside Walk", "High Street", "North Street")
_TOWNS = ("Bristol", "Leeds", "York", "Norwich", "Bath", "Exeter", "Oxford", "Cambridge", "Brighton", "Chester",
          "Durham", "Lincoln")
N_CUSTOMERS = 36
N_ORDERS = 110
N_REVIEWS = 180
PER_CATEGORY = 26  # standalone products in an ordinary category (variant categories have parents instead)


@dataclass(frozen=True)
class Product:
    key: str  # stable id within the seed ("p17"); the UPC is derived from it
    upc: str
    title: str
    category: str  # leaf category name
    product_class: str
    shape: str
    colour: str  # photo colour name (COLOURS)
    price: str  # "12.99" (a string: exact in JSON)
    stock: int
    material: str
    description: str
    variation: int  # photo backdrop / turn
    parent: str | None = None  # key of the parent product for a variant
    size: str | None = None
    lookalike: int | None = None  # group number when products share a title


@dataclass(frozen=True)
class Address:
    line1: str
    town: str
    postcode: str
    phone: str


@dataclass(frozen=True)
class Customer:
    email: str
    first_name: str
    last_name: str
    password: str
    addresses: tuple[Address, ...]


@dataclass(frozen=True)
class Order:
    number: str
    customer: str  # email
    lines: tuple[tuple[str, int], ...]  # (product key, quantity)
    minute: int  # placed at EPOCH + minute
    address: int  # index into the customer's addresses
    status: str


@dataclass(frozen=True)
class Review:
    product: str  # key
    customer: str  # email
    score: int
    title: str
    body: str
    minute: int


@dataclass(frozen=True)
class Shop:
    seed: int
    products: tuple[Product, ...]
    customers: tuple[Customer, ...]
    orders: tuple[Order, ...]
    reviews: tuple[Review, ...]
    vouchers: tuple[tuple[str, int], ...] = field(default=())  # (code, percent off)

    def to_json(self) -> dict:
        return {"seed": self.seed, "categories": [list(c[:5]) for c in CATEGORIES], "colours": COLOURS,
                **{k: [asdict(x) for x in getattr(self, k)] for k in ("products", "customers", "orders", "reviews")},
                "vouchers": [list(v) for v in self.vouchers]}

    def product(self, key: str) -> Product:
        return next(p for p in self.products if p.key == key)

    def buyable(self) -> list[Product]:
        """Products one can put in a basket: standalone ones and variants (not parents)."""
        parents = {p.parent for p in self.products if p.parent}
        return [p for p in self.products if p.key not in parents]


def _price(rng: random.Random, lo: float, hi: float) -> str:
    v = rng.uniform(lo, hi)
    return f"{int(v)}.{rng.choice(('00', '50', '95', '99', '49'))}"


def world(seed: int) -> Shop:
    """The shop of ``seed`` (see the module doc)."""
    rng = random.Random(f"oscar-shop-{seed}")
    pool = pool_for(seed, "oscar-shop")
    brands = list(pool.words("company_a"))
    rng.shuffle(brands)
    brands = brands[:14]
    products: list[Product] = []
    n = 0
    group = 0

    def add(**kw) -> Product:
        nonlocal n
        n += 1
        p = Product(key=f"p{n}", upc=f"50{seed % 1000:03d}{n:05d}", **kw)
        products.append(p)
        return p

    colour_names = list(COLOURS)
    for _top, cat, shape, noun, pclass, (lo, hi) in CATEGORIES:
        titles: set[str] = set()

        def fresh_title(noun=noun, titles=titles) -> str:
            for _ in range(200):
                t = f"{rng.choice(brands)} {rng.choice(_LINES)} {noun}"
                if t not in titles:
                    titles.add(t)
                    return t
            raise ValueError("not enough distinct titles")

        if cat in VARIANT_CATEGORIES:
            for _ in range(10 if cat == "T-shirts" else 8):
                title = fresh_title()
                cols = rng.sample(colour_names, 2) if cat == "T-shirts" else [rng.choice(colour_names)]
                material = rng.choice(MATERIALS[pclass])
                parent = add(title=title, category=cat, product_class=pclass, shape=shape, colour=cols[0],
                             price="0.00", stock=0, material=material, variation=rng.randrange(1000),
                             description=f"{title} in {material}. {rng.choice(_BLURBS)} Available in several sizes.")
                base = _price(rng, lo, hi)
                for col in cols:
                    for size in SIZES[cat]:
                        label = f"size {size}" + (f", {col}" if cat == "T-shirts" else "")
                        add(title=f"{title} ({label})", category=cat, product_class=pclass, shape=shape, colour=col,
                            price=base, stock=rng.randint(0, 25), material=material, variation=parent.variation,
                            description="", parent=parent.key, size=size)
            continue
        k = 0
        if cat in LOOKALIKE_CATEGORIES:
            for _ in range(2):
                title = fresh_title()
                group += 1
                material = rng.choice(MATERIALS[pclass])
                desc = f"{title}, {material}. {rng.choice(_BLURBS)}"
                for col in rng.sample(colour_names, 4):
                    add(title=title, category=cat, product_class=pclass, shape=shape, colour=col,
                        price=_price(rng, lo, hi), stock=rng.randint(3, 40), material=material,
                        variation=rng.randrange(1000), description=desc, lookalike=group)
                    k += 1
        while k < PER_CATEGORY:
            title = fresh_title()
            material = rng.choice(MATERIALS[pclass])
            add(title=title, category=cat, product_class=pclass, shape=shape, colour=rng.choice(colour_names),
                price=_price(rng, lo, hi), stock=rng.choice((0, *range(1, 60))), material=material,
                variation=rng.randrange(1000), description=f"{title}, {material}. {rng.choice(_BLURBS)}")
            k += 1

    people = pool.people(N_CUSTOMERS)
    customers: list[Customer] = []
    for i, name in enumerate(people):
        first, last = name.split(" ", 1)
        addrs = tuple(Address(f"{rng.randint(1, 180)} {rng.choice(_STREETS)}", rng.choice(_TOWNS),
                              f"{rng.choice('BLMNS')}{rng.choice('SRE')}{rng.randint(1, 20)} {rng.randint(1, 9)}"
                              f"{rng.choice('ABDEFGHJ')}{rng.choice('LNPQRSTUW')}",
                              f"+44 7700 9{rng.randint(0, 99999):05d}")
                      for _ in range(rng.choice((1, 1, 2))))
        email = pool.email(name, "mail.example")
        if any(c.email == email for c in customers):
            email = email.replace("@", f"{i}@")
        customers.append(Customer(email, first, last, f"shop-{rng.randint(1000, 9999)}-{last.lower()[:4]}", addrs))

    parents = {q.parent for q in products if q.parent}
    buy = [p for p in products if p.key not in parents and p.stock > 0]
    orders = []
    minute = 0
    for i in range(N_ORDERS):
        c = rng.choice(customers)
        minute += rng.randint(30, 600)
        picks = rng.sample(buy, rng.choice((1, 1, 2, 3)))
        orders.append(Order(str(100001 + i), c.email, tuple((p.key, rng.choice((1, 1, 1, 2))) for p in picks),
                            minute, rng.randrange(len(c.addresses)),
                            rng.choice(("Complete", "Complete", "Complete", "Being processed", "Pending"))))
    reviews: list[Review] = []
    seen: set = set()
    top_level = [p for p in products if p.parent is None]
    while len(reviews) < N_REVIEWS:
        p, c = rng.choice(top_level), rng.choice(customers)
        if (p.key, c.email) in seen:
            continue
        seen.add((p.key, c.email))
        score = rng.choice((5, 5, 4, 4, 4, 3, 2, 1))
        reviews.append(Review(p.key, c.email, score, rng.choice(_REVIEW_TITLES[score]), rng.choice(_REVIEW_BODIES),
                              rng.randint(0, minute)))
    vouchers = tuple((f"{rng.choice(('SPRING', 'WELCOME', 'THANKS', 'LOYAL'))}{rng.randint(10, 99)}",
                      rng.choice((10, 15, 20))) for _ in range(3))
    return Shop(seed, tuple(products), tuple(customers), tuple(orders), tuple(reviews), vouchers)
