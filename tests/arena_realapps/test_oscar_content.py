"""The shop's content at volume, read as a reader would: enough products, categories, reviews and
distinct texts; addresses whose postcodes belong to their towns; sentences whose verbs, articles and
counted nouns agree (a rule set over the generated text, checked to fail on known-bad text)."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from webgauge.arena.realapps.oscar import prose
from webgauge.arena.realapps.oscar.content import CATEGORIES, world
from webgauge.arena.realapps.oscar.photos import SHAPES, draw, photo_key

# postcode areas (the letters of the outward code) and the post towns they belong to (Royal Mail)
AREAS = {"BS": "Bristol", "LS": "Leeds", "YO": "York", "NR": "Norwich", "BA": "Bath", "EX": "Exeter",
         "OX": "Oxford", "CB": "Cambridge", "BN": "Brighton", "CH": "Chester", "DH": "Durham", "LN": "Lincoln",
         "M": "Manchester", "S": "Sheffield", "NG": "Nottingham", "L": "Liverpool", "EH": "Edinburgh",
         "G": "Glasgow", "CF": "Cardiff", "NE": "Newcastle upon Tyne", "LE": "Leicester", "PL": "Plymouth",
         "BT": "Belfast", "CT": "Canterbury"}
POSTCODE = re.compile(r"^([A-Z]{1,2})[0-9]{1,2} [0-9][A-Z]{2}$")

# the agreement rule set: a subject whose number is known, then the verb right after it; a noun phrase
# after "this"/"these" ends in one of the catalogue's nouns
_NOUNS = sorted({c[3].lower() for c in CATEGORIES}, key=len, reverse=True)
_SG = "|".join(re.escape(n) for n in _NOUNS if n.title() not in {x.title() for x in prose.PLURAL_NOUNS})
_PL = "|".join(re.escape(n) for n in _NOUNS if n.title() in {x.title() for x in prose.PLURAL_NOUNS})
SINGULAR_SUBJECTS = rf"(?:It|it|[Tt]his (?:{_SG})|The (?:cut|fabric|binding|glaze|finish|light|switch|colour|" \
                    r"cotton|battery|sound|cover|scent|flavour|pack|wick|handle|weight)|One charge|A game|" \
                    r"Each (?:pack|bottle))"
PLURAL_SUBJECTS = rf"(?:They|they|[Tt]hese (?:{_PL})|The (?:pages|zips|straps|soles|rules|pieces)|Returns|" \
                  r"Eggs|My herbs|We)"
SINGULAR_BAD = re.compile(rf"\b{SINGULAR_SUBJECTS} (?:are|were|have|do)\b")
PLURAL_BAD = re.compile(rf"\b{PLURAL_SUBJECTS} (?:is|was|has|does|(?!always|perhaps|less)[a-z]+[^s']s)\b")
ARTICLE_BAD = re.compile(r"\b(?:a [aeio]\w|an [bcdfgjklmnpqrstvwxyz]\w)")
COUNT_BAD = re.compile(r"\b(?:one (?:day|week|month|year)s|(?:two|three|four|five|six|seven|eight|nine|ten|eleven|"
                       r"twelve) (?:day|week|month|year)\b)")
RULES = (SINGULAR_BAD, PLURAL_BAD, ARTICLE_BAD, COUNT_BAD)


def disagreements(text: str) -> list[str]:
    plain = re.sub(r"<[^>]+>", " ", text)
    return [m.group(0) for rule in RULES for m in rule.finditer(plain)]


def test_the_rule_set_catches_disagreement():
    for bad in ("They is light.", "It have a lid.", "These headphones fits well.", "This mug are blue.",
                "These walking boots comes with a guarantee.", "This espresso cup are small.",
                "a oak chair", "an stoneware mug", "I bought it one weeks ago.", "after three week of use",
                "We has been using it.", "The pages lies flat."):
        assert disagreements(bad), bad
    for good in ("They are light.", "It has a lid.", "These headphones fit well.", "This mug is blue.",
                 "an oak chair", "a stoneware mug", "I bought it one week ago.", "after three weeks of use"):
        assert not disagreements(good), good


def test_500_sampled_sentences_agree():
    w = world(0)
    rng = random.Random(7)
    texts = [p.description for p in rng.sample([p for p in w.products if p.description], 250)]
    texts += [r.body for r in rng.sample(list(w.reviews), 250)]
    bad = {t: disagreements(t) for t in texts if disagreements(t)}
    assert not bad, list(bad.items())[:5]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from(sorted({c[3] for c in CATEGORIES})), st.sampled_from(
    sorted(prose.CLASSES_FOR_TESTS)), st.integers(1, 5))
def test_any_item_reads_with_agreement(seed, noun, pclass, score):
    from webgauge.arena.realapps.oscar.content import CLASSES, _attrs

    rng = random.Random(seed)
    item = prose.Item(f"Acme Ember {noun}", noun, "x", pclass, "Acme", "Ember", dict(_attrs(rng, pclass)))
    desc = prose.description(rng, item)
    title, body = prose.review(rng, item, score)
    assert desc.count("<p>") == 3 and title and body
    assert not disagreements(desc) and not disagreements(body), (desc, body)
    assert pclass in CLASSES


def test_volume_and_variety_of_seed_0():
    w = world(0)
    top = [p for p in w.products if p.parent is None]
    assert len(top) >= 5000
    assert len({p.category for p in top}) >= 50
    descs = {p.description for p in top}
    assert len(descs) >= 0.95 * len(top) and all(d.count("<p>") == 3 for d in descs)
    assert len(w.reviews) >= 2000 and len({r.body for r in w.reviews}) >= 500
    assert len({p.product_class for p in top}) >= 10 and all(p.attrs for p in top)
    assert len({o.customer for o in w.orders}) >= 10 and len({o.status for o in w.orders}) == 4


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_every_address_postcode_belongs_to_its_town(seed):
    for c in world(seed).customers:
        for a in c.addresses:
            m = POSTCODE.match(a.postcode)
            assert m, a.postcode
            assert AREAS[m.group(1)] == a.town, (a.postcode, a.town)


def test_every_shape_draws_a_distinct_photo_and_keys_hide_the_colour():
    frames = {draw(s, (36, 92, 190), 0).tobytes() for s in SHAPES}
    assert len(frames) == len(SHAPES)
    name, *_ = photo_key("mug", "red", 5)
    assert "red" not in name and photo_key("mug", "red", 5) == photo_key("mug", "red", 5)
    assert photo_key("mug", "red", 5)[0] != photo_key("mug", "blue", 5)[0]
