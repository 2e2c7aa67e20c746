"""Large seeded entity pools and instruction wording: public lists, held-out words coined per world.

Task families and app seed data draw people, products, companies, places, topics, dates and
amounts from here instead of from short hard-coded lists, so that instructions vary a lot
across seeds and a model cannot memorise them.

**Slices.** Every word list is split once, by a fixed hash of each value, into a public part
(about three quarters) and a held-out part; public seeds draw from the public part. Held-out
seeds (the 128-bit HMAC seeds of :mod:`webgauge.arena.tasks.heldout`, all at or above
:data:`HELDOUT_BASE`) draw names from no list at all: each held-out world gets its own
vocabulary of first names, surnames, product lines, company words, towns and project topics
*coined* from syllables by a PRNG keyed with :func:`content_key` of its seed
(:mod:`webgauge.arena.content.synth`). Public code plus seeds chosen without the secret
therefore reproduce almost none of a held-out world's names; only the generic words that make
names read naturally (product categories, company kinds) come from the held-out part of the
lists. Dates and amounts of held-out worlds come from the held-out part of the calendar and
of the amounts, so they never appear in a public world either.

**Wording.** :func:`phrase` picks one of several instruction templates for a family, so the
same target is asked for in different words across seeds; in a held-out world the chosen
template is further rewritten by the world's phrasing (:mod:`webgauge.arena.content.phrasing`).

Everything is a pure function of an explicit ``random.Random``; nothing is global.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import hmac
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from . import phrasing
from .synth import vocabulary

__all__ = ["HELDOUT_BASE", "Pool", "pool_for", "slice_of_seed", "slice_of_value", "phrase", "POOLS", "pool_sizes",
           "staff", "content_key", "COINED"]

T = TypeVar("T")

HELDOUT_BASE = 2 ** 64
"""Held-out seeds are ``HELDOUT_BASE + <128-bit HMAC>``; public seeds are below it."""

HELDOUT_SHARE = 64  # of 256: about a quarter of each pool is held out

FIRST = """Aaliyah Abel Ada Adaeze Adrian Agnes Aiko Akira Alba Aleksander Alma Amara Amir Anika Anton Arjun Astrid
Aurelio Ayla Bao Beatriz Benedikt Bianca Bjorn Bronwyn Caio Camille Carmen Cedric Chiara Chidi Clara Colm Dalia
Damian Dana Daria Dev Diego Dmitri Dora Edda Efe Elif Elio Elsa Emeka Emil Enzo Esme Ezra Fatima Felix Fenna
Filipa Finn Freya Gael Gemma Gideon Greta Hana Hassan Hedda Helio Hugo Ilse Imani Ines Ingrid Isak Ivana Jae
Jalen Janne Jasper Jin Joaquin Jonas Juno Kai Kalani Karim Katja Kenji Kiran Klara Kofi Lars Leila Lena Leon
Lucia Luka Lior Mads Maeve Mai Malik Mara Marek Marisol Mateo Maya Mehmet Mila Mirela Nadia Naveen Nell Nia
Niko Nils Noor Oda Olek Olga Omar Oskar Paloma Pavel Petra Priya Quinn Rafael Rania Ravi Rhea Rosa Rowan Rui
Saanvi Sami Sana Santiago Selin Seo Silas Sofia Soren Stellan Suki Tala Tamsin Teo Thea Tomas Uma Valentin
Vera Viggo Wanda Wen Xavier Yara Yusuf Zara Zeno Zofia""".split()

LAST = """Abara Achebe Adler Aguilar Ahmed Akhtar Alvarez Amsel Andersen Arslan Asante Bach Baptiste Barros Becker
Bergstrom Bianchi Blanco Bose Brandt Brennan Calder Campos Carvalho Castillo Chen Cho Costa Dahl Dalton Darko
Delgado Dimitrov Duarte Dubois Eklund Engel Esposito Farouk Ferreira Fischer Fontaine Fujita Galli Garcia Gill
Greco Grün Haas Hakimi Halvorsen Hartmann Herrera Holm Huang Ibarra Iqbal Ivanova Jaramillo Jensen Joshi Jung
Kaur Keller Khan Kim Koch Kovac Kowalski Kruger Laine Lambert Larsen Lehmann Lind Lopez Lund Madsen Maier
Marin Markovic Meier Mendes Meyer Molina Moreau Mori Murphy Nakamura Navarro Nguyen Nilsen Novak Nowak Obi
Okafor Okoro Oliveira Olsen Ortiz Osei Park Patel Pereira Petrov Popescu Quint Rahman Ramos Reyes Rossi Roth
Sahin Saito Santos Sato Schmid Schulz Serra Shah Silva Sorensen Stein Suzuki Svoboda Tanaka Teixeira Torres
Triantafyllou Ueda Valdez Vargas Vasquez Vogel Wagner Walsh Weber Winter Wolff Yadav Yamamoto Yilmaz Zhang
Zielinski Zimmer""".split()

ADJECTIVE = """Alpine Amber Arctic Aurora Azure Basalt Birch Blaze Boreal Breeze Canyon Cedar Cinder Citrus Cobalt
Comet Coral Cosmic Crest Crimson Delta Drift Dune Echo Ember Fern Fjord Flint Frost Glacier Granite Harbor Hazel
Horizon Indigo Iris Jade Juniper Lagoon Lunar Maple Marble Meadow Mesa Mist Monsoon Moss Nimbus Nova Oasis Onyx
Orbit Pebble Pine Polar Prairie Quartz Rapid Raven Reef Ridge River Sable Sage Sierra Slate Solar Sonic Spruce
Storm Summit Tidal Timber Topaz Trail Tundra Vapor Velvet Vista Willow Zenith Zephyr""".split()

NOUN = """Backpack Beanie Blender Bottle Boots Cap Chair Clock Desk Drone Duffel Earbuds Flask Fleece Gloves Grinder
Hammock Headlamp Helmet Hoodie Jacket Kettle Keyboard Lamp Lantern Mat Monitor Mouse Mug Notebook Pan Parka
Pillow Planner Poncho Router Runner Sandal Scarf Sneaker Speaker Stool Stove Tent Thermos Tote Tripod Vest
Wallet Watch""".split()

COMPANY_A = """Acme Apex Atlas Beacon Bright Cascade Civic Clear Core Crown Delta Ember Evergreen First Forge Frontier
Golden Granite Harbor Helix Highland Iron Keystone Lantern Liberty Lumen Meridian Metro Nimbus North Northwind
Oak Orbit Pacific Peak Pilot Pioneer Prime Quantum Radiant Redwood Sterling Summit Sun Terra True Union Vantage
Vector Vertex""".split()

COMPANY_B = """Analytics Bakery Builders Capital Clinic Collective Consulting Dynamics Energy Foods Freight Games
Health Holdings Industries Labs Logistics Media Motors Networks Partners Robotics Studios Supply Systems
Textiles Travel Ventures Works""".split()

CITY = """Aarhus Accra Adelaide Alicante Antwerp Arequipa Asuncion Auckland Bergen Bilbao Bologna Bordeaux Brno
Bruges Busan Cadiz Calgary Cork Cusco Dakar Delft Dundee Durban Eindhoven Faro Fukuoka Galway Gdansk Ghent
Graz Groningen Hobart Innsbruck Izmir Kaunas Kobe Krakow Leeds Leipzig Leuven Lille Linz Ljubljana Lyon
Malaga Malmo Medellin Mendoza Montpellier Mysore Nantes Nagoya Odense Oporto Oulu Padua Parma Perth Pune
Quebec Recife Riga Rosario Salzburg Sapporo Seville Split Tallinn Tampere Toulouse Trieste Turin Uppsala
Utrecht Valencia Verona Vilnius Wellington Wroclaw York Zagreb Zurich""".split()

TOPIC = """accessibility accounting analytics archiving authentication backups billing budgeting caching
calendars captions checkout compliance compression contracts dashboards deployments diagrams encryption
exports feedback forecasting geocoding glossaries hiring indexing invoicing journaling kanban licensing
localization logging mapping migrations monitoring notifications onboarding packaging payroll permissions
pipelines printing procurement queues quotas recruiting refunds releases reporting retention roadmaps
routing sampling scheduling search security shipping sitemaps snapshots staffing storage subscriptions
surveys tagging taxes templates testing ticketing timesheets tracing training translations uploads
versioning warehousing webhooks widgets workflows""".split()


def _h(value: str) -> int:
    return hashlib.sha256(f"arena-pool-split-v1:{value}".encode()).digest()[0]


def slice_of_value(value: object) -> str:
    """``public`` or ``heldout``: the fixed part of every pool ``value`` belongs to."""
    return "heldout" if _h(str(value)) < HELDOUT_SHARE else "public"


def slice_of_seed(seed: int) -> str:
    """``heldout`` for the 128-bit HMAC seeds (at or above :data:`HELDOUT_BASE`), else ``public``."""
    return "heldout" if seed >= HELDOUT_BASE else "public"


def _split(values: Sequence[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {"public": [], "heldout": []}
    for v in values:
        out[slice_of_value(v)].append(v)
    return {k: tuple(v) for k, v in out.items()}


POOLS: dict[str, dict[str, tuple[str, ...]]] = {
    name: _split(values) for name, values in {
        "first": FIRST, "last": LAST, "adjective": ADJECTIVE, "noun": NOUN, "company_a": COMPANY_A,
        "company_b": COMPANY_B, "city": CITY, "topic": TOPIC}.items()}
"""Each word list split into its ``public`` and ``heldout`` parts."""


COINED = {"first": "given", "last": "family", "adjective": "brand", "company_a": "brand", "city": "place",
          "topic": "codename"}
"""The word lists a held-out world coins its own words for (list -> :mod:`~webgauge.arena.content.synth` style);
the other lists (product nouns, company kinds) lend it their held-out part."""

_EVERY_LISTED = frozenset(w for name in COINED for parts in POOLS[name].values() for w in parts)


def content_key(seed: int) -> bytes:
    """The key a held-out world's coined words and phrasing are drawn with (from its secret seed)."""
    return hmac.new(b"arena-heldout-content-v1", str(seed).encode(), hashlib.sha256).digest()


def pool_sizes() -> dict[str, dict[str, int]]:
    """How many distinct values each composite pool offers per slice (held-out: in one world)."""
    out = {}
    key = content_key(HELDOUT_BASE)
    for s in ("public", "heldout"):
        p = Pool(random.Random(0), s, key if s == "heldout" else None)
        n = {name: len(p.words(name)) for name in POOLS}
        out[s] = {"people": n["first"] * n["last"], "products": n["adjective"] * n["noun"],
                  "companies": n["company_a"] * n["company_b"], "cities": n["city"], "topics": n["topic"]}
    return out


@dataclass
class Pool:
    """Draws for one seed: from the public part of every list, or from a held-out world's coined words.

    A held-out pool needs the world's ``key`` (:func:`content_key`; :meth:`of_seed` passes it)."""

    rng: random.Random
    slice: str = "public"
    key: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.slice == "heldout" and self.key is None:
            raise ValueError("a held-out pool draws from its world's coined words: "
                             "build it with Pool.of_seed(rng, seed)")

    @classmethod
    def of_seed(cls, rng: random.Random, seed: int) -> Pool:
        """The pool of ``seed``'s world (public lists, or the held-out world's coined vocabulary)."""
        sl = slice_of_seed(seed)
        return cls(rng, sl, content_key(seed) if sl == "heldout" else None)

    def words(self, name: str) -> tuple[str, ...]:
        """Every word list ``name`` offers this pool."""
        if self.slice == "heldout" and name in COINED and self.key is not None:
            return vocabulary(self.key, name, COINED[name], len(POOLS[name]["public"]) + len(POOLS[name]["heldout"]),
                              _EVERY_LISTED)
        return POOLS[name][self.slice]

    def pick(self, name: str) -> str:
        return self.rng.choice(self.words(name))

    def person(self) -> str:
        return f"{self.pick('first')} {self.pick('last')}"

    def people(self, n: int) -> list[str]:
        """``n`` distinct full names."""
        return self._distinct(self.person, n)

    def email(self, name: str, domain: str = "example.org") -> str:
        first, last = name.split(" ", 1)
        return f"{first[0].lower()}.{last.lower().replace(' ', '')}@{domain}".replace("ü", "u")

    def product(self) -> str:
        return f"{self.pick('adjective')} {self.pick('noun')}"

    def products(self, n: int) -> list[str]:
        return self._distinct(self.product, n)

    def company(self) -> str:
        return f"{self.pick('company_a')} {self.pick('company_b')}"

    def companies(self, n: int) -> list[str]:
        return self._distinct(self.company, n)

    def city(self) -> str:
        return self.pick("city")

    def topic(self) -> str:
        return self.pick("topic")

    def date(self, start: str = "2026-01-01", days: int = 365) -> str:
        """An ISO date in ``[start, start + days)`` from this slice's part of the calendar."""
        base = _dt.date.fromisoformat(start)
        return self._of_slice(lambda: (base + _dt.timedelta(days=self.rng.randrange(days))).isoformat())

    def amount(self, lo: float, hi: float) -> float:
        """A money amount with cents in ``[lo, hi)`` from this slice's part of the amounts."""
        return self._of_slice(lambda: round(self.rng.uniform(lo, hi), 2))

    def _of_slice(self, draw: Callable[[], T]) -> T:
        for _ in range(200):
            v = draw()
            if slice_of_value(v) == self.slice:
                return v
        raise ValueError("the range is too narrow to hold values of both slices; widen it")

    def _distinct(self, draw: Callable[[], str], n: int) -> list[str]:
        seen: dict[str, None] = {}
        for _ in range(50 * n + 100):
            seen.setdefault(draw(), None)
            if len(seen) == n:
                return list(seen)
        raise ValueError(f"the {self.slice} pool cannot supply {n} distinct values")


def pool_for(seed: int, purpose: str) -> Pool:
    """The pool a family or app uses at ``seed`` (``purpose`` keeps streams independent)."""
    return Pool.of_seed(random.Random(f"{purpose}:{seed}"), seed)


def staff(seed: int, n: int = 400) -> list[tuple[str, str]]:
    """The seed's staff directory: ``n`` distinct (name, email) pairs shared by every app that
    knows people (the wiki's page owners are admin-console users, and so on). Drawn once per
    seed (five apps ask while one world is built; the seed decides everything, its held-out
    vocabulary included)."""
    return list(_staff(seed, n))


@functools.lru_cache(maxsize=16)
def _staff(seed: int, n: int) -> tuple[tuple[str, str], ...]:
    pool = pool_for(seed, "staff")
    out, emails = [], set()
    for name in pool.people(n):
        email, k = pool.email(name, "corp.example"), 2
        while email in emails:
            email, k = pool.email(name, "corp.example").replace("@", f"{k}@"), k + 1
        emails.add(email)
        out.append((name, email))
    return tuple(out)


def phrase(rng: random.Random, templates: Sequence[str], **fields: object) -> str:
    """One of ``templates`` filled with ``fields`` (every template must use the same fields).

    In a held-out world (while :func:`~webgauge.arena.content.phrasing.phrasing_for` is active)
    the chosen template is rewritten by the world's phrasing first; public seeds get it as is."""
    if not templates:
        raise ValueError("phrase needs at least one template")
    return phrasing.rewrite(rng.choice(tuple(templates))).format(**fields)
