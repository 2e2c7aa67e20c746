"""Product descriptions and reviews written by a small grammar, not by filling slots.

Every sentence is built around a subject whose grammatical number is known (``This mug``, ``These
headphones``, ``It``, ``They``, ``The Brand Line Honey``): verbs are inflected for it by
:func:`verb` (present, past, present perfect), articles agree with the next word (``a``/``an``,
none for plurals), counted nouns agree with their count (``one week``, ``three weeks``), and the
possessive follows the subject (``its``/``their``). Frames are in several tenses (a backstory in
the past, use in the present, ownership in the present perfect). A pure function of the
``random.Random`` passed in.

The agreement rules are checked over generated text by ``tests/arena_realapps/test_oscar_content.py``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["PLURAL_NOUNS", "Item", "article", "description", "number_words", "review", "verb"]

# nouns sold as a pair or naturally plural: "These sneakers are", "They fit"
PLURAL_NOUNS = frozenset({"Sneakers", "Headphones", "Running Shoes", "Walking Boots", "Slippers", "Earbuds",
                          "Sunglasses", "Coffee Beans"})
MASS_NOUNS = frozenset({"Loose Leaf Tea", "Honey", "Olive Oil", "Bath Oil"})  # "this honey", never "a honey"

_IRREGULAR_PAST = {"be": None, "have": "had", "make": "made", "keep": "kept", "feel": "felt", "hold": "held",
                   "come": "came", "go": "went", "take": "took", "find": "found", "sell": "sold", "leave": "left",
                   "wear": "wore",
                   "stand": "stood", "build": "built", "send": "sent", "begin": "began", "give": "gave",
                   "fit": "fitted", "get": "got", "ship": "shipped", "stop": "stopped", "spin": "spun"}
_PARTICIPLE = {"be": "been", "go": "gone", "take": "taken", "wear": "worn", "give": "given", "begin": "begun",
               "get": "got"}
NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def verb(lemma: str, plural: bool, tense: str = "present") -> str:
    """``lemma`` inflected for a third-person subject of that number in ``tense``
    ("present", "past", "perfect")."""
    if tense == "perfect":
        part = _PARTICIPLE.get(lemma) or _IRREGULAR_PAST.get(lemma) or _regular_past(lemma)
        return f"{'have' if plural else 'has'} {part}"
    if lemma == "be":
        return ("were" if plural else "was") if tense == "past" else ("are" if plural else "is")
    if tense == "past":
        return _IRREGULAR_PAST.get(lemma) or _regular_past(lemma)
    if plural:
        return lemma
    if lemma == "have":
        return "has"
    if lemma == "do":
        return "does"
    if lemma.endswith(("s", "sh", "ch", "x", "z", "o")):
        return lemma + "es"
    if lemma.endswith("y") and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ies"
    return lemma + "s"


def _regular_past(lemma: str) -> str:
    if lemma.endswith("e"):
        return lemma + "d"
    if lemma.endswith("y") and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ied"
    return lemma + "ed"


def article(phrase: str) -> str:
    """``a`` or ``an`` before ``phrase`` (by its first sound: vowels, and the silent h of "hour")."""
    w = phrase.split()[0].lower()
    an = w[0] in "aeio" or w.startswith(("hour", "honest", "heir")) \
        or (w[0] == "u" and not w.startswith(("uni", "use", "usu")))
    return "an" if an else "a"


def number_words(n: int, unit: str) -> str:
    """``n`` ``unit`` in words with the unit agreeing: one week, three weeks, 14 weeks."""
    word = NUMBERS[n] if 0 <= n < len(NUMBERS) else str(n)
    return f"{word} {unit}" if n == 1 else f"{word} {unit}s"


@dataclass(frozen=True)
class Item:
    title: str
    noun: str  # the category's noun as in titles: "Mug", "Headphones"
    category: str
    pclass: str
    brand: str
    line: str
    attrs: dict


class _Subj:
    """The grammatical facts of one item: its number and the words that refer to it."""

    def __init__(self, item: Item) -> None:
        self.pl = item.noun in PLURAL_NOUNS
        self.mass = item.noun in MASS_NOUNS
        self.n = item.noun.lower().replace("t-shirt", "T-shirt")
        self.it, self.It = ("they", "They") if self.pl else ("it", "It")
        self.obj = "them" if self.pl else "it"
        self.its = "their" if self.pl else "its"
        self.this = "these" if self.pl else "this"

    def v(self, lemma: str, tense: str = "present") -> str:
        return verb(lemma, self.pl, tense)

    def a(self, phrase: str) -> str:
        """``phrase`` (ending in the noun) with the article its number takes."""
        return phrase if self.pl or self.mass else f"{article(phrase)} {phrase}"


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


_ADJ = ("quiet", "well-made", "sturdy", "handsome", "simple", "carefully finished", "practical", "understated",
        "hard-wearing", "good-looking", "versatile", "thoughtfully designed", "generously sized", "compact")
_PLACES = ("Porto", "Stoke-on-Trent", "Leicester", "a workshop near Bristol", "Guimaraes", "Kyoto", "Northumberland",
           "Copenhagen", "Sheffield", "Valencia", "the Black Forest", "Donegal", "Jaipur", "Lyon")
_YEARS = tuple(range(2009, 2025))
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _made(s: _Subj, it: Item, rng: random.Random) -> str:
    """What the item is made of or with, as a participle phrase ("made from oak")."""
    a = it.attrs
    if "material" in a:
        return rng.choice((f"made from {a['material']}", f"made in {a['material']}", f"crafted from {a['material']}"))
    if "pages" in a:
        return f"with {a['pages']} pages of {a.get('paper_gsm', 100)} g/m2 paper"
    if "origin" in a:
        return f"sourced from {a['origin']}"
    if "players" in a:
        return f"for {a['players']} players"
    if "scent" in a:
        return f"scented with {a['scent']}"
    return "made in small batches"


def _features(s: _Subj, it: Item, rng: random.Random) -> list[str]:
    """Sentences about the item's typed attributes, in the present tense."""
    a, out = it.attrs, []
    if "capacity_ml" in a:
        out.append(f"{s.It} {s.v('hold')} {a['capacity_ml']} ml, "
                   + rng.choice(("enough for a long morning", "which is about right for most people",
                                 "a generous measure")) + ".")
    if "dishwasher_safe" in a:
        out.append(f"{s.It} {s.v('be')} dishwasher safe." if a["dishwasher_safe"]
                   else f"{s.It} {s.v('be')} best washed by hand to keep {s.its} glaze at {s.its} best.")
    if "diameter_cm" in a:
        out.append(f"At {a['diameter_cm']} cm across, {s.it} {s.v('suit')} "
                   + rng.choice(("most kitchens", "a small balcony", "a wide windowsill", "everyday use")) + ".")
    if "induction_ready" in a:
        out.append(f"{s.It} {s.v('work')} on every hob, induction included." if a["induction_ready"]
                   else f"{s.It} {s.v('work')} on gas and electric hobs but not on induction.")
    if "weight_kg" in a:
        out.append(f"{s.It} {s.v('weigh')} {a['weight_kg']} kg.")
    if "bulb" in a:
        out.append(f"{s.It} {s.v('take')} {article(a['bulb'])} {a['bulb']} bulb of up to {a.get('wattage', 8)} W"
                   + (" and " + s.v("be") + " dimmable." if a.get("dimmable") else "."))
    if "width_cm" in a:
        out.append(f"{s.It} {s.v('measure')} {a['width_cm']} cm across.")
    if "assembly_required" in a:
        out.append(f"{s.It} {s.v('arrive')} flat-packed with every tool you need." if a["assembly_required"]
                   else f"{s.It} {s.v('arrive')} fully assembled.")
    if "washable" in a:
        out.append(f"{s.It} {s.v('go')} in the washing machine at 30 degrees." if a["washable"]
                   else f"{s.It} {s.v('need')} dry cleaning.")
    if "burn_hours" in a:
        out.append(f"Poured in {a.get('wax', 'soy')} wax, {s.it} {s.v('burn')} for about {a['burn_hours']} hours.")
    if "fit" in a:
        out.append(f"The cut {verb('be', False)} {a['fit']}, and the fabric {verb('weigh', False)} "
                   f"{a.get('weight_gsm', 180)} g/m2.")
    if "waterproof" in a:
        out.append(f"{s.It} {s.v('keep')} the rain out on wet days." if a["waterproof"]
                   else f"{s.It} {s.v('be')} made for dry days, not for puddles.")
    if "volume_l" in a:
        out.append(f"{s.It} {s.v('carry')} {a['volume_l']} litres"
                   + (", with a padded sleeve for a laptop." if a.get("laptop_sleeve") else "."))
    if "battery_hours" in a:
        out.append(f"One charge {verb('last', False)} about {a['battery_hours']} hours"
                   + (f", and {s.it} {s.v('connect')} over Bluetooth." if a.get("wireless") else "."))
    if "water_resistance_m" in a and a["water_resistance_m"]:
        out.append(f"{s.It} {s.v('be')} water resistant to {a['water_resistance_m']} metres.")
    if "ruling" in a:
        out.append(f"The pages {verb('be', True)} {a['ruling']}, and the binding {verb('be', False)} "
                   f"{a.get('binding', 'sewn')}.")
    if "minutes" in a:
        out.append(f"A game {verb('take', False)} about {a['minutes']} minutes, and the box {verb('suggest', False)} "
                   f"ages {a.get('min_age', 8)} and up.")
    if "frost_proof" in a:
        out.append(f"{s.It} {s.v('be')} frost proof and {s.v('stay')} outside all year." if a["frost_proof"]
                   else f"{s.It} {s.v('need')} to come indoors over winter.")
    if "weight_g" in a and it.pclass == "Food":
        out.append(f"Each pack {verb('hold', False)} {a['weight_g']} g"
                   + (" and is certified organic." if a.get("organic") else "."))
    if "volume_ml" in a:
        out.append(f"Each bottle {verb('hold', False)} {a['volume_ml']} ml"
                   + (" and the formula is vegan." if a.get("vegan") else "."))
    return out


def description(rng: random.Random, it: Item) -> str:
    """Three paragraphs (as HTML paragraphs, what Oscar's dashboard editor stores): what the item is,
    how it is made and what it does, and where it came from and how to look after it."""
    s = _Subj(it)
    adj = rng.choice(_ADJ)
    made = _made(s, it, rng)
    intro = rng.choice((
        f"{it.title} {s.v('be')} {s.a(f'{adj} {s.n}')} {made}.",
        f"Meet the {it.title}: {s.a(f'{adj} {s.n}')} {made}.",
        f"{_cap(s.this)} {s.n} {s.v('come')} from {it.brand}'s {it.line} range, {made}.",
        f"{it.brand} {verb('make', False)} the {it.title} for people who want {s.a(s.n)} that simply {s.v('work')}.",
        f"{_cap(s.a(f'{adj} {s.n}'))} {made}: that {verb('be', False)} the {it.title} in a sentence.",
        f"The {it.line} range {verb('gain', False)} a new member in the {it.title}, {made}.",
    ))
    second = rng.choice((
        f"{s.It} {s.v('look')} at home in a {rng.choice(('busy', 'small', 'bright', 'calm'))} "
        f"{rng.choice(('kitchen', 'flat', 'family home', 'studio', 'office'))}.",
        f"{s.It} {s.v('do')} one job and {s.v('do')} it well.",
        f"Customers tell us {s.it} {s.v('make')} a good present.",
        f"{_cap(s.its)} lines {verb('be', True)} clean and {s.its} finish {verb('be', False)} "
        f"{rng.choice(('matte', 'satin', 'lightly textured', 'smooth'))}.",
        f"Nothing about {s.obj} {verb('be', False)} fussy.",
    ))
    feats = _features(s, it, rng)
    second2 = rng.choice((
        f"{s.It} {s.v('be', 'perfect')} tested by our team for a full season.",
        f"Every one {verb('be', False)} checked by hand before {s.it} {s.v('leave')} the workshop.",
        f"{s.It} {s.v('sit')} comfortably alongside the rest of the {it.line} range.",
        f"{_cap(s.this)} {s.n} {s.v('need')} very little looking after.",
    ))
    rng.shuffle(feats)
    p2 = " ".join([*feats[:3], second2] if len(feats) < 3 else feats[:3])
    when, where = rng.choice(_YEARS), rng.choice(_PLACES)
    story = rng.choice((
        f"{it.brand} {verb('start', False, 'past')} the {it.line} range in {when} in {where}.",
        f"The first {it.line} pieces left {where} in {when}.",
        f"{it.brand} {verb('work', False, 'past')} on the design for "
        f"{number_words(rng.randint(1, 4), 'year')} before {s.it} {s.v('go', 'past')} on sale.",
        f"{_cap(s.this)} {s.n} {s.v('be', 'perfect')} one of {it.brand}'s best sellers since {when}.",
        f"We {verb('find', True, 'past')} {it.brand} at a trade fair in {when} and {verb('have', True, 'perfect')} "
        f"stocked {s.its} work ever since.",
    ))
    care = rng.choice((
        f"{s.It} {s.v('ship')} in recycled cardboard, without plastic.",
        f"Orders placed before 2pm {verb('leave', True)} our warehouse the same day.",
        f"If {s.it} {s.v('arrive')} damaged, tell us within 30 days and we will replace {s.obj}.",
        f"{_cap(s.this)} {s.n} {s.v('come')} with a two-year guarantee.",
        f"Returns {verb('be', True)} free within 30 days of delivery.",
    ))
    paras = [f"{intro} {second}", p2, f"{story} {care}"]
    return "".join(f"<p>{p}</p>" for p in paras)


_TITLES = {5: ("Love it", "Excellent quality", "Exactly as pictured", "Would buy again", "Perfect", "Better than "
               "expected", "A real find", "Five stars", "Beautifully made", "Just what I wanted"),
           4: ("Very good", "Nice, small niggles", "Good value", "Pleased overall", "Almost perfect", "Solid choice",
               "Recommended"),
           3: ("It's fine", "Average", "Does the job", "Mixed feelings", "OK for the price", "Not bad"),
           2: ("Disappointing", "Not as described", "Expected more", "Meh", "Could be better"),
           1: ("Broke quickly", "Would not recommend", "Sent it back", "Poor quality", "Avoid")}
_ASPECTS = {
    "Homeware": ("{It} {keep} drinks warm for a good while.", "The glaze {is1} even and the weight {feels1} right.",
                 "{It} {survive} the dishwasher without fading."),
    "Cookware": ("{It} {heat} evenly across the base.", "The handle {stays1} cool enough to hold.",
                 "Eggs {slide2} out once {it} {be} properly seasoned."),
    "Lighting": ("The light {is1} warm and soft in the evening.", "{It} {throw} a pleasant glow over the desk.",
                 "The switch {feels1} solid."),
    "Furniture": ("{It} {feel} steady on a wooden floor.", "The finish {is1} smooth, with no rough edges.",
                  "{It} {take} up less room than I feared."),
    "Textiles": ("The fabric {is1} soft and heavy.", "{It} {wash} well without shrinking.",
                 "The colour {looks1} richer in person."),
    "Fragrance": ("The scent {fills1} the room without being too strong.", "{It} {burn} cleanly and evenly.",
                  "The wick {needs1} trimming now and then."),
    "Apparel": ("{It} {fit} true to size.", "The cotton {is1} thick and soft.",
                "{It} {keep} {its} shape after a dozen washes."),
    "Footwear": ("{It} {fit} true to size.", "{It} {be} comfortable from the first day.",
                 "The soles {grip2} well on wet pavements."),
    "Bags": ("{It} {carry} more than it looks.", "The zips {run2} smoothly.", "The straps {sit2} comfortably."),
    "Electronics": ("The battery {lasts1} as long as promised.", "Pairing {takes1} seconds.",
                    "The sound {is1} clear at every volume."),
    "Accessories": ("{It} {look} smarter than the price suggests.", "The finish {shows1} no scratches yet.",
                    "{It} {feel} light and well balanced."),
    "Paper": ("Fountain pen ink {does1} not bleed through.", "The pages {lie2} flat.", "The cover {is1} tough."),
    "Games": ("We play it every weekend.", "The rules {are} quick to learn.", "The pieces {are} nicely made."),
    "Garden": ("My herbs {are} thriving in it.", "{It} {drain} well.", "{It} {look} good on the patio."),
    "Food": ("The flavour {is1} rich and round.", "{It} {make} a lovely gift.", "The pack {keeps1} {it} fresh."),
    "Bath": ("The scent {is1} gentle.", "My skin {feels1} soft afterwards.", "A little {goes1} a long way."),
}
_OPEN = {"pos": ("{This} {n} {be} lovely.", "Really happy with {this} {n}.", "{It} {look} even better than in the "
                 "photos.", "{It} {be} exactly what I was after.", "I {am} impressed.",
                 "We have been using {obj} daily and {it} {have} not let us down."),
         "mid": ("{It} {be} all right.", "{This} {n} {do} the job, nothing more.", "Decent, but not special.",
                 "{It} {be} fine for the price."),
         "neg": ("{It} {be} not what I expected.", "I {am} disappointed with {this} {n}.",
                 "{This} {n} {be} not worth the money.", "{It} {look} cheaper than in the photos.")}
_CLOSE = {"pos": ("Would recommend.", "I will buy another.", "Great value.", "Already ordered a second one for a "
                  "friend.", "Delivery was quick too.", ""),
          "mid": ("I may return {obj}.", "Not sure I would buy again.", "{It} {do} for now.", ""),
          "neg": ("I returned {obj}.", "I would not buy again.", "Customer service was helpful at least.", "")}


def _fill(frame: str, s: _Subj) -> str:
    """Replace ``{verb}`` with the verb agreeing with the item (``{It}``), ``{verb1}`` with a singular
    subject's form, and the item's pronouns and noun."""
    out = []
    for chunk in frame.split("{"):
        if "}" not in chunk:
            out.append(chunk)
            continue
        key, rest = chunk.split("}", 1)
        fixed = {"It": s.It, "it": s.it, "its": s.its, "obj": s.obj, "This": _cap(s.this), "this": s.this,
                 "n": s.n, "am": "am", "have": s.v("have"), "are": "are"}
        if key in fixed:
            out.append(fixed[key] + rest)
        elif key.endswith("1"):  # a singular subject of its own: "The glaze {is1}"
            out.append(verb(_lemma(key[:-1]), False) + rest)
        elif key.endswith("2"):  # a plural subject of its own: "The pages {lie2}"
            out.append(verb(key[:-1], True) + rest)
        else:
            out.append(s.v(key) + rest)
    return "".join(out)


def _lemma(third: str) -> str:
    """The lemma of a third-person-singular form written in a frame ("feels" -> "feel")."""
    if third in ("is",):
        return "be"
    if third == "does":
        return "do"
    if third.endswith("ies"):
        return third[:-3] + "y"
    if third.endswith(("shes", "ches", "sses", "xes", "oes")):
        return third[:-2]
    return third[:-1]


def review(rng: random.Random, it: Item, score: int) -> tuple[str, str]:
    """A review of ``score`` stars: a title and a body of two to four sentences (opening, how long the
    reviewer has had it, an aspect of the product class, a close), in the tenses those take."""
    s = _Subj(it)
    band = "pos" if score >= 4 else "mid" if score == 3 else "neg"
    parts = [_fill(rng.choice(_OPEN[band]), s)]
    k = rng.randint(1, 11)
    unit = rng.choice(("day", "week", "month"))
    parts.append(rng.choice((
        f"I have had {s.obj} for {number_words(k, unit)} now.",
        f"I bought {s.obj} {number_words(k, unit)} ago.",
        f"I bought {s.obj} in {rng.choice(_MONTHS)} and {s.it} {s.v('arrive', 'past')} "
        f"{rng.choice(('within two days', 'well packed', 'a little late', 'the next morning'))}.",
        f"After {number_words(k, unit)} of use, {s.it} {s.v('be', 'perfect')} "
        f"{'fine' if band != 'neg' else 'a let-down'}.",
        f"{s.It} {s.v('be', 'past')} a present for my "
        f"{rng.choice(('sister', 'father', 'partner', 'neighbour', 'son'))}.",
        "",
    )))
    aspects = list(_ASPECTS.get(it.pclass, ()))
    if aspects and band != "neg":
        parts.append(_fill(rng.choice(aspects), s))
    elif band == "neg":
        parts.append(_fill(rng.choice(("{It} {feel} flimsy.", "The finish {is1} already wearing.",
                                       "{It} {be} smaller than described.", "The colour {is1} not as pictured.")), s))
    parts.append(_fill(rng.choice(_CLOSE[band]), s))
    return rng.choice(_TITLES[score]), " ".join(p for p in parts if p)


CLASSES_FOR_TESTS = frozenset(_ASPECTS)  # the product classes the review grammar knows an aspect of
