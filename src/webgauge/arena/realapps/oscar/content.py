"""The seed's shop, a pure function of the seed: a catalogue of about 5,500 products in 56 leaf
categories (some sold as a parent with size and colour children), product classes with typed
attributes, multi-paragraph descriptions, prices and stock, customers with addresses, a staff
account, past orders in several states, a few thousand reviews and vouchers.

Nothing here touches Oscar: :func:`world` returns plain records and the seed script writes them
through Oscar's own tables. Brands, product lines and customer names come from the arena's seeded
pools (:func:`~webgauge.arena.content.pools.pool_for`): public seeds draw from the public word
lists, held-out seeds from words coined for that world alone with its secret content key
(:mod:`webgauge.arena.content.synth`), so a held-out shop's brands and people appear in no list.

Text is generated, not slot-filled: every sentence names its subject and its verbs are inflected
for that subject's number (``This mug holds`` / ``These headphones fold``) and for the tense the
frame is in (:mod:`.prose`). Addresses pair a town with a postcode district of that town.

Look-alikes: in some categories four products share one title and differ only in the colour of
their photo (the title, description and alt text do not name it), which is what the
image-matching family asks about.
"""

from __future__ import annotations

import datetime as dt
import functools
import random
from dataclasses import asdict, dataclass, field
from decimal import Decimal

from ...content.pools import pool_for
from . import prose

__all__ = ["CATEGORIES", "CLASSES", "COLOURS", "EPOCH", "TOWNS", "Address", "Customer", "Order", "Product", "Review",
           "Shop", "Staff", "world"]

# (top level, category, photo shape, noun, product class, price range); the first ten are the shop's
# original departments (families and their tests name them), the rest widen the catalogue
CATEGORIES = (
    ("Kitchen", "Mugs", "mug", "Mug", "Homeware", (7, 28)),
    ("Kitchen", "Bottles", "bottle", "Water Bottle", "Homeware", (9, 39)),
    ("Home", "Lamps", "lamp", "Table Lamp", "Lighting", (24, 160)),
    ("Home", "Vases", "vase", "Vase", "Homeware", (12, 90)),
    ("Home", "Chairs", "chair", "Side Chair", "Furniture", (60, 420)),
    ("Clothing", "T-shirts", "tshirt", "Crew T-shirt", "Apparel", (12, 45)),
    ("Footwear", "Sneakers", "sneaker", "Sneakers", "Footwear", (45, 180)),
    ("Bags", "Backpacks", "backpack", "Backpack", "Bags", (30, 140)),
    ("Audio", "Headphones", "headphones", "Headphones", "Electronics", (25, 350)),
    ("Accessories", "Watches", "watch", "Watch", "Accessories", (40, 600)),
    ("Kitchen", "Bowls", "bowl", "Bowl", "Homeware", (6, 40)),
    ("Kitchen", "Plates", "plate", "Dinner Plate", "Homeware", (6, 35)),
    ("Kitchen", "Glassware", "glass", "Tumbler", "Homeware", (5, 30)),
    ("Kitchen", "Storage Jars", "jar", "Storage Jar", "Homeware", (6, 32)),
    ("Kitchen", "Frying Pans", "pan", "Frying Pan", "Cookware", (18, 140)),
    ("Kitchen", "Saucepans", "pan", "Saucepan", "Cookware", (22, 160)),
    ("Kitchen", "Espresso Cups", "mug", "Espresso Cup", "Homeware", (5, 22)),
    ("Kitchen", "Carafes", "bottle", "Carafe", "Homeware", (12, 48)),
    ("Home", "Cushions", "cushion", "Cushion", "Textiles", (14, 70)),
    ("Home", "Candles", "candle", "Candle", "Fragrance", (8, 48)),
    ("Home", "Floor Lamps", "lamp", "Floor Lamp", "Lighting", (60, 320)),
    ("Home", "Throws", "cushion", "Throw", "Textiles", (25, 150)),
    ("Home", "Storage Boxes", "box", "Storage Box", "Homeware", (8, 60)),
    ("Home", "Stools", "chair", "Stool", "Furniture", (35, 240)),
    ("Clothing", "Long-sleeve Tops", "tshirt", "Long-sleeve Top", "Apparel", (18, 60)),
    ("Clothing", "Polo Shirts", "tshirt", "Polo Shirt", "Apparel", (20, 70)),
    ("Clothing", "Caps", "cap", "Cap", "Apparel", (12, 40)),
    ("Clothing", "Beanies", "cap", "Beanie", "Apparel", (10, 38)),
    ("Footwear", "Running Shoes", "sneaker", "Running Shoes", "Footwear", (55, 190)),
    ("Footwear", "Walking Boots", "sneaker", "Walking Boots", "Footwear", (70, 240)),
    ("Footwear", "Slippers", "sneaker", "Slippers", "Footwear", (15, 60)),
    ("Bags", "Daypacks", "backpack", "Daypack", "Bags", (25, 110)),
    ("Bags", "Wash Bags", "box", "Wash Bag", "Bags", (12, 45)),
    ("Bags", "Laptop Sleeves", "book", "Laptop Sleeve", "Bags", (15, 70)),
    ("Audio", "Earbuds", "headphones", "Earbuds", "Electronics", (20, 240)),
    ("Audio", "Speakers", "speaker", "Speaker", "Electronics", (30, 450)),
    ("Audio", "Radios", "speaker", "Radio", "Electronics", (25, 180)),
    ("Accessories", "Sunglasses", "sunglasses", "Sunglasses", "Accessories", (20, 220)),
    ("Accessories", "Wallets", "book", "Wallet", "Accessories", (15, 90)),
    ("Accessories", "Smart Watches", "watch", "Smart Watch", "Electronics", (90, 480)),
    ("Stationery", "Notebooks", "book", "Notebook", "Paper", (4, 28)),
    ("Stationery", "Journals", "book", "Journal", "Paper", (8, 40)),
    ("Stationery", "Sketchbooks", "book", "Sketchbook", "Paper", (6, 36)),
    ("Stationery", "Planners", "book", "Planner", "Paper", (9, 38)),
    ("Games", "Board Games", "box", "Board Game", "Games", (15, 70)),
    ("Games", "Jigsaw Puzzles", "box", "Jigsaw Puzzle", "Games", (10, 40)),
    ("Games", "Card Games", "box", "Card Game", "Games", (6, 25)),
    ("Garden", "Plant Pots", "plantpot", "Plant Pot", "Garden", (6, 60)),
    ("Garden", "Planters", "plantpot", "Planter", "Garden", (20, 140)),
    ("Garden", "Watering Cans", "bottle", "Watering Can", "Garden", (10, 45)),
    ("Pantry", "Tea", "jar", "Loose Leaf Tea", "Food", (4, 24)),
    ("Pantry", "Coffee", "jar", "Coffee Beans", "Food", (6, 28)),
    ("Pantry", "Honey", "jar", "Honey", "Food", (5, 22)),
    ("Pantry", "Olive Oil", "bottle", "Olive Oil", "Food", (7, 35)),
    ("Bath", "Soaps", "box", "Soap Bar", "Bath", (4, 16)),
    ("Bath", "Bath Oils", "bottle", "Bath Oil", "Bath", (8, 38)),
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

# product classes and their typed attributes: (code, label, Oscar type, what the value is drawn from)
# "text" values are drawn from a tuple, "integer" from a (lo, hi) range, "float" from (lo, hi) with one
# decimal, "boolean" with the given chance of True
CLASSES: dict[str, tuple[tuple[str, str, str, object], ...]] = {
    "Homeware": (("material", "Material", "text", ("stoneware", "porcelain", "recycled glass", "stainless steel",
                                                    "enamelled steel", "earthenware", "borosilicate glass")),
                 ("capacity_ml", "Capacity (ml)", "integer", (150, 1500)),
                 ("dishwasher_safe", "Dishwasher safe", "boolean", 0.7)),
    "Cookware": (("material", "Material", "text", ("cast iron", "carbon steel", "tri-ply stainless steel",
                                                    "hard-anodised aluminium", "copper")),
                 ("diameter_cm", "Diameter (cm)", "integer", (16, 32)),
                 ("induction_ready", "Induction ready", "boolean", 0.75),
                 ("weight_kg", "Weight (kg)", "float", (0.8, 3.6))),
    "Lighting": (("material", "Material", "text", ("brass", "linen and oak", "powder-coated steel", "opal glass",
                                                    "rattan", "ceramic")),
                 ("bulb", "Bulb", "text", ("E27 LED", "E14 LED", "GU10 LED", "integrated LED")),
                 ("wattage", "Wattage (W)", "integer", (4, 12)),
                 ("dimmable", "Dimmable", "boolean", 0.5)),
    "Furniture": (("material", "Material", "text", ("oak", "beech", "walnut", "ash", "powder-coated steel")),
                  ("width_cm", "Width (cm)", "integer", (35, 60)),
                  ("weight_kg", "Weight (kg)", "float", (2.5, 11.0)),
                  ("assembly_required", "Assembly required", "boolean", 0.4)),
    "Textiles": (("material", "Material", "text", ("linen", "wool", "organic cotton", "velvet", "boucle")),
                 ("width_cm", "Width (cm)", "integer", (40, 180)),
                 ("washable", "Machine washable", "boolean", 0.6)),
    "Fragrance": (("scent", "Scent", "text", ("fig and cedar", "sea salt", "bergamot", "smoked oak", "lavender",
                                              "wild rhubarb", "black tea")),
                  ("burn_hours", "Burn time (hours)", "integer", (20, 70)),
                  ("wax", "Wax", "text", ("soy", "rapeseed", "coconut and soy", "beeswax"))),
    "Apparel": (("material", "Material", "text", ("organic cotton", "cotton blend", "merino wool", "linen",
                                                   "recycled polyester")),
                ("fit", "Fit", "text", ("regular", "relaxed", "slim")),
                ("weight_gsm", "Fabric weight (g/m2)", "integer", (140, 320))),
    "Footwear": (("material", "Material", "text", ("canvas", "suede", "knit mesh", "leather", "nubuck")),
                 ("waterproof", "Waterproof", "boolean", 0.35),
                 ("weight_g", "Weight per shoe (g)", "integer", (210, 620))),
    "Bags": (("material", "Material", "text", ("recycled nylon", "waxed canvas", "cordura", "leather")),
             ("volume_l", "Volume (l)", "integer", (4, 32)),
             ("laptop_sleeve", "Laptop sleeve", "boolean", 0.5)),
    "Electronics": (("material", "Material", "text", ("aluminium", "recycled plastic", "steel and leather",
                                                       "fabric and aluminium")),
                    ("battery_hours", "Battery life (hours)", "integer", (6, 60)),
                    ("wireless", "Wireless", "boolean", 0.75),
                    ("weight_g", "Weight (g)", "integer", (30, 900))),
    "Accessories": (("material", "Material", "text", ("stainless steel", "titanium", "brass", "acetate",
                                                       "vegetable-tanned leather")),
                    ("water_resistance_m", "Water resistance (m)", "integer", (0, 100))),
    "Paper": (("pages", "Pages", "integer", (96, 320)),
              ("paper_gsm", "Paper weight (g/m2)", "integer", (80, 160)),
              ("ruling", "Ruling", "text", ("plain", "lined", "dotted", "squared")),
              ("binding", "Binding", "text", ("lay-flat sewn", "wire-bound", "perfect bound"))),
    "Games": (("players", "Players", "text", ("1-4", "2-4", "2-6", "3-8", "2")),
              ("minutes", "Playing time (min)", "integer", (15, 120)),
              ("min_age", "Minimum age", "integer", (6, 14))),
    "Garden": (("material", "Material", "text", ("terracotta", "glazed stoneware", "fibre clay", "galvanised steel",
                                                  "recycled plastic")),
               ("diameter_cm", "Diameter (cm)", "integer", (10, 60)),
               ("frost_proof", "Frost proof", "boolean", 0.5)),
    "Food": (("weight_g", "Net weight (g)", "integer", (100, 1000)),
             ("origin", "Origin", "text", ("Assam", "Darjeeling", "Kenya", "Colombia", "Ethiopia", "Crete",
                                           "Andalusia", "Puglia", "Yunnan", "New Zealand", "Wales")),
             ("organic", "Organic", "boolean", 0.45)),
    "Bath": (("volume_ml", "Volume (ml)", "integer", (50, 500)),
             ("scent", "Scent", "text", ("neroli", "vetiver", "oat milk", "eucalyptus", "rose geranium",
                                         "unscented")),
             ("vegan", "Vegan", "boolean", 0.7)),
}

# towns with postcode districts that belong to them (outward codes of the town's postcode area)
TOWNS: dict[str, tuple[str, ...]] = {
    "Bristol": ("BS1", "BS2", "BS3", "BS5", "BS6", "BS7", "BS8", "BS9"),
    "Leeds": ("LS1", "LS2", "LS6", "LS7", "LS8", "LS11", "LS17"),
    "York": ("YO1", "YO10", "YO23", "YO24", "YO30", "YO31"),
    "Norwich": ("NR1", "NR2", "NR3", "NR4", "NR5", "NR7"),
    "Bath": ("BA1", "BA2"),
    "Exeter": ("EX1", "EX2", "EX4"),
    "Oxford": ("OX1", "OX2", "OX3", "OX4"),
    "Cambridge": ("CB1", "CB2", "CB3", "CB4", "CB5"),
    "Brighton": ("BN1", "BN2"),
    "Chester": ("CH1", "CH2", "CH3", "CH4"),
    "Durham": ("DH1",),
    "Lincoln": ("LN1", "LN2", "LN5", "LN6"),
    "Manchester": ("M1", "M4", "M8", "M13", "M14", "M15", "M20", "M21"),
    "Sheffield": ("S1", "S2", "S6", "S7", "S10", "S11"),
    "Nottingham": ("NG1", "NG2", "NG3", "NG5", "NG7"),
    "Liverpool": ("L1", "L3", "L8", "L15", "L17", "L18"),
    "Edinburgh": ("EH1", "EH3", "EH6", "EH9", "EH10", "EH11"),
    "Glasgow": ("G1", "G3", "G11", "G12", "G41", "G42"),
    "Cardiff": ("CF10", "CF11", "CF14", "CF23", "CF24"),
    "Newcastle upon Tyne": ("NE1", "NE2", "NE4", "NE6"),
    "Leicester": ("LE1", "LE2", "LE3", "LE4"),
    "Plymouth": ("PL1", "PL2", "PL3", "PL4"),
    "Belfast": ("BT1", "BT5", "BT7", "BT9", "BT15"),
    "Canterbury": ("CT1", "CT2"),
}
_STREETS = ("Station Road", "Mill Lane", "Church Street", "Park Avenue", "Victoria Road", "Kings Road",
            "Queen Street", "Market Place", "Orchard Close", "Riverside Walk", "High Street", "North Street",
            "Albert Road", "Chapel Lane", "Grove Terrace", "Manor Way", "Westfield Avenue", "Elm Grove",
            "Canal Street", "Abbey Lane", "Bridge Road", "Harbour Row", "York Place", "Castle Hill")
_INWARD = "ABDEFGHJLNPQRSTUWXYZ"  # letters an inward code's last two places use

EPOCH = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.timezone.utc)  # orders and reviews are placed at EPOCH + minute
ORDER_STATUSES = ("Pending", "Being processed", "Complete", "Cancelled")
N_CUSTOMERS = 48
N_ORDERS = 260
N_REVIEWS = 2400
PER_CATEGORY = 100  # standalone products in an ordinary category (variant categories have parents instead)
N_PARENTS = {"T-shirts": 24, "Sneakers": 20}


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
    attrs: tuple[tuple[str, object], ...]  # typed attribute values of the product class (code, value)
    text_seed: int  # the description's own random stream (-1: none, a variant's text is its parent's)
    variation: int  # photo backdrop / turn
    parent: str | None = None  # key of the parent product for a variant
    size: str | None = None
    lookalike: int | None = None  # group number when products share a title

    @property
    def material(self) -> str:
        return str(dict(self.attrs).get("material", ""))

    @functools.cached_property
    def description(self) -> str:
        """Three paragraphs of HTML (:func:`.prose.description`), written from the product's own random
        stream when first asked for (building a world's tasks does not pay for 5,000 descriptions)."""
        if self.text_seed < 0:
            return ""
        noun, cat, pclass = _NOUNS[self.category]
        brand, line = self.title.split(" ")[0], self.title.split(" ")[1]
        return prose.description(random.Random(f"oscar-text-{self.title}-{self.text_seed}"),
                                 prose.Item(self.title, noun, cat, pclass, brand, line, dict(self.attrs)))


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
class Staff:
    """The shop's one staff account (signs in to Oscar's dashboard); ``auth_user`` row after the customers."""

    email: str
    first_name: str
    last_name: str
    password: str


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
    noun: str  # the reviewed product's noun ("Mug", "Headphones"), which the text agrees with
    pclass: str
    text_seed: int  # the text's own random stream
    minute: int

    @functools.cached_property
    def _text(self) -> tuple[str, str]:
        return prose.review(random.Random(f"oscar-review-{self.text_seed}"),
                            prose.Item("", self.noun, "", self.pclass, "", "", {}), self.score)

    @property
    def title(self) -> str:
        return self._text[0]

    @property
    def body(self) -> str:
        return self._text[1]


@dataclass(frozen=True)
class Shop:
    seed: int
    products: tuple[Product, ...]
    customers: tuple[Customer, ...]
    orders: tuple[Order, ...]
    reviews: tuple[Review, ...]
    vouchers: tuple[tuple[str, int], ...] = field(default=())  # (code, percent off)
    staff: Staff = field(default=Staff("manager@larderandloom.example", "Robin", "Hale", "manage-shop"))

    def to_json(self) -> dict:
        return {"seed": self.seed, "categories": [list(c[:5]) for c in CATEGORIES], "colours": COLOURS,
                "classes": {k: [list(a[:3]) for a in v] for k, v in CLASSES.items()},
                "products": [{**asdict(p), "description": p.description} for p in self.products],
                "reviews": [{**asdict(r), "title": r.title, "body": r.body} for r in self.reviews],
                **{k: [asdict(x) for x in getattr(self, k)] for k in ("customers", "orders")},
                "vouchers": [list(v) for v in self.vouchers], "staff": asdict(self.staff),
                "statuses": list(ORDER_STATUSES)}

    def product(self, key: str) -> Product:
        return self._index()[key]

    def _index(self) -> dict[str, Product]:
        idx = self.__dict__.get("_idx")
        if idx is None:
            idx = {p.key: p for p in self.products}
            object.__setattr__(self, "_idx", idx)
        return idx

    def total(self, o: Order) -> Decimal:
        """An order's total as Oscar computes it here (free shipping, no tax)."""
        return sum((Decimal(self.product(k).price) * q for k, q in o.lines), Decimal("0.00"))

    def placed(self, o: Order) -> dt.datetime:
        return EPOCH + dt.timedelta(minutes=o.minute)

    def buyable(self) -> list[Product]:
        """Products one can put in a basket: standalone ones and variants (not parents)."""
        parents = {p.parent for p in self.products if p.parent}
        return [p for p in self.products if p.key not in parents]


def _price(rng: random.Random, lo: float, hi: float) -> str:
    v = lo + (hi - lo) * rng.random() ** 1.6  # more cheap products than dear ones
    return f"{int(v)}.{rng.choice(('00', '50', '95', '99', '49', '25'))}"


def _attrs(rng: random.Random, pclass: str) -> tuple[tuple[str, object], ...]:
    """One product's typed attribute values (see :data:`CLASSES`)."""
    out: list[tuple[str, object]] = []
    for code, _label, kind, src in CLASSES[pclass]:
        if kind == "text":
            assert isinstance(src, tuple)
            out.append((code, rng.choice(src)))
        elif kind in ("integer", "float"):
            assert isinstance(src, tuple)
            lo, hi = src
            if kind == "float":
                out.append((code, round(rng.uniform(lo, hi), 1)))
                continue
            step = 50 if hi >= 1000 else 10 if hi >= 100 else 1
            out.append((code, rng.randint(lo // step, hi // step) * step or lo))
        else:
            assert isinstance(src, float)
            out.append((code, rng.random() < src))
    return tuple(out)


def _postcode(rng: random.Random, town: str) -> str:
    return f"{rng.choice(TOWNS[town])} {rng.randint(1, 9)}{rng.choice(_INWARD)}{rng.choice(_INWARD)}"


def address(rng: random.Random, towns: tuple[str, ...] = tuple(TOWNS)) -> Address:
    """A street address whose postcode district belongs to its town."""
    town = rng.choice(towns)
    return Address(f"{rng.randint(1, 180)} {rng.choice(_STREETS)}", town, _postcode(rng, town),
                   f"+44 7700 9{rng.randint(0, 99999):05d}")


def world(seed: int) -> Shop:
    """The shop of ``seed`` (see the module doc)."""
    rng = random.Random(f"oscar-shop-{seed}")
    pool = pool_for(seed, "oscar-shop")
    brands = list(pool.words("company_a"))
    rng.shuffle(brands)
    brands = brands[:40]
    lines = list(pool.words("adjective"))
    rng.shuffle(lines)
    lines = lines[:60]
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

        def fresh_title(noun=noun, titles=titles) -> tuple[str, str, str]:
            for _ in range(500):
                brand, line = rng.choice(brands), rng.choice(lines)
                t = f"{brand} {line} {noun}"
                if t not in titles:
                    titles.add(t)
                    return t, brand, line
            raise ValueError("not enough distinct titles")

        def text(*_args) -> int:
            return rng.randrange(2 ** 32)

        if cat in VARIANT_CATEGORIES:
            for _ in range(N_PARENTS[cat]):
                title, brand, line = fresh_title()
                cols = rng.sample(colour_names, 2) if cat == "T-shirts" else [rng.choice(colour_names)]
                attrs = _attrs(rng, pclass)
                parent = add(title=title, category=cat, product_class=pclass, shape=shape, colour=cols[0],
                             price="0.00", stock=0, attrs=attrs, variation=rng.randrange(1000),
                             text_seed=text(title, brand, line, attrs))
                base = _price(rng, lo, hi)
                for col in cols:
                    for size in SIZES[cat]:
                        label = f"size {size}" + (f", {col}" if cat == "T-shirts" else "")
                        add(title=f"{title} ({label})", category=cat, product_class=pclass, shape=shape, colour=col,
                            price=base, stock=rng.randint(0, 25), attrs=attrs, variation=parent.variation,
                            text_seed=-1, parent=parent.key, size=size)
            continue
        k = 0
        if cat in LOOKALIKE_CATEGORIES:
            for _ in range(2):
                title, brand, line = fresh_title()
                group += 1
                attrs = _attrs(rng, pclass)
                desc = text(title, brand, line, attrs)
                for col in rng.sample(colour_names, 4):
                    add(title=title, category=cat, product_class=pclass, shape=shape, colour=col,
                        price=_price(rng, lo, hi), stock=rng.randint(3, 40), attrs=attrs,
                        variation=rng.randrange(1000), text_seed=desc, lookalike=group)
                    k += 1
        while k < PER_CATEGORY:
            title, brand, line = fresh_title()
            attrs = _attrs(rng, pclass)
            add(title=title, category=cat, product_class=pclass, shape=shape, colour=rng.choice(colour_names),
                price=_price(rng, lo, hi), stock=rng.choice((0, *range(1, 60))), attrs=attrs,
                variation=rng.randrange(1000), text_seed=text(title, brand, line, attrs))
            k += 1

    people = pool.people(N_CUSTOMERS)
    customers: list[Customer] = []
    for i, name in enumerate(people):
        first, last = name.split(" ", 1)
        addrs = tuple(address(rng) for _ in range(rng.choice((1, 1, 2))))
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
        minute += rng.randint(60, 1000)
        picks = rng.sample(buy, rng.choice((1, 1, 2, 3)))
        status = rng.choice(("Complete",) * 6 + ("Being processed",) * 2 + ("Pending", "Cancelled"))
        orders.append(Order(str(100001 + i), c.email, tuple((p.key, rng.choice((1, 1, 1, 2))) for p in picks),
                            minute, rng.randrange(len(c.addresses)), status))
    reviews: list[Review] = []
    seen: set = set()
    top_level = [p for p in products if p.parent is None]
    while len(reviews) < N_REVIEWS:
        p, c = rng.choice(top_level), rng.choice(customers)
        if (p.key, c.email) in seen:
            continue
        seen.add((p.key, c.email))
        score = rng.choice((5, 5, 5, 4, 4, 4, 3, 2, 1))
        noun, _cat, pclass = _NOUNS[p.category]
        reviews.append(Review(p.key, c.email, score, noun, pclass, rng.randrange(2 ** 32), rng.randint(0, minute)))
    vouchers = tuple((f"{rng.choice(('SPRING', 'WELCOME', 'THANKS', 'LOYAL'))}{rng.randint(10, 99)}",
                      rng.choice((10, 15, 20))) for _ in range(3))
    s_first, s_last = pool.person().split(" ", 1)
    staff = Staff(f"{s_first.lower()}.manager@larderandloom.example".replace("ü", "u"), s_first, s_last,
                  f"dash-{rng.randint(1000, 9999)}-{s_last.lower()[:4]}")
    return Shop(seed, tuple(products), tuple(customers), tuple(orders), tuple(reviews), vouchers, staff)


_NOUNS = {c[1]: (c[3], c[1], c[4]) for c in CATEGORIES}
