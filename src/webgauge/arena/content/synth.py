"""Words that read like names but come from no list: the held-out slice's vocabulary.

A held-out world names its people, product lines, companies, places and project topics with
words *coined* here from syllables, by a PRNG keyed with the world's content key (derived
from its secret seed). The syllable tables are public, but the space they span is large
(tens of millions of words per style), so enumerating this module does not reproduce a
held-out world's names, and a thousand worlds built from seeds chosen without the secret
share almost none of them.

Each style imitates one kind of name:

- ``given``: a first name, a root plus a given-name ending (``Kervenine``, ``Fornina``);
- ``family``: a surname, a root plus a surname ending (``Jivertsen``, ``Palmini``);
- ``brand``: a product line or company word (``Cralmasto``, ``Dresemex``);
- ``place``: a town, a root plus a place ending (``Gastilbury``, ``Modakholm``);
- ``codename``: a lower-case project topic (``dalarven``, ``bertondo``).

A word is an onset, two vowel-consonant syllables and an ending, so every style spans
millions of spellings (:func:`space_size`).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import random

__all__ = ["STYLES", "coin", "vocabulary", "space_size"]

_ONSET = "b c d f g h j k l m n p r s t v w z br cr dr fr gr pr tr st cl fl bl sl sk sp gl pl kr ch sh th".split()
_VOWEL = "a e i o u a e i o".split()
_SIMPLE = "b d g k l m n p r s t v z".split()
_CLUSTER = "nd rt st ll rn lm ss lv rv nt rk ld rm mb ng lt rs nn rd".split()
_GIVEN_END = "a ia ina elle o an en el is ie ara ena ius ine ette ora ian on ea ika".split()
_FAMILY_END = ("son sen berg ford ton ley man ski holm wald ez ini ova elli ari os akis enko ard ers ing "
               "dottir escu").split()
_BRAND_END = "a o ix on ar en is ex io ra va ta ent um ax ia ine".split()
_PLACE_END = ("ford haven vik stad burg ton bury dal holm wick by mar mouth ora enza field wood port ham brook ley "
              "more thorpe minster").split()
_CODE_END = "a o is on ex ar us en al ix um".split()
_ENDS = {"given": _GIVEN_END, "family": _FAMILY_END, "brand": _BRAND_END, "place": _PLACE_END, "codename": _CODE_END}

STYLES = tuple(_ENDS)


def coin(rng: random.Random, style: str) -> str:
    """One coined word of ``style``: onset, vowel, consonant(s), vowel, consonant, ending (see the module doc)."""
    if style not in _ENDS:
        raise ValueError(f"unknown style {style!r}; use one of {', '.join(STYLES)}")
    end = rng.choice(_ENDS[style])
    last = rng.choice(_SIMPLE if end[0] not in "aeiou" else _SIMPLE + _CLUSTER)
    word = rng.choice(_ONSET) + rng.choice(_VOWEL) + rng.choice(_SIMPLE + _CLUSTER) + rng.choice(_VOWEL) + last + end
    word = _tidy(word)
    return word if style == "codename" else word.capitalize()


def _tidy(word: str) -> str:
    """Drop the doubled vowels and triple consonants syllable joins can make (``aia``, ``nnd``)."""
    out = ""
    for ch in word:
        if len(out) >= 2 and ch == out[-1] == out[-2]:
            continue
        if out and ch in "aeiou" and out[-1] == ch:
            continue
        out += ch
    return out


def space_size(style: str) -> int:
    """How many onset-vowel-consonant-vowel-consonant-ending spellings ``style`` has (an upper bound on its words)."""
    ends = _ENDS[style]
    mid = len(_ONSET) * len(set(_VOWEL)) ** 2 * (len(_SIMPLE) + len(_CLUSTER))
    return mid * sum(len(_SIMPLE) + (len(_CLUSTER) if e[0] in "aeiou" else 0) for e in ends)


@functools.lru_cache(maxsize=256)
def vocabulary(key: bytes, name: str, style: str, n: int, avoid: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """``n`` distinct coined words for the pool ``name`` of the world keyed by ``key`` (none in ``avoid``)."""
    stream = hmac.new(key, f"arena-content-v1:{name}".encode(), hashlib.sha256).digest()
    rng = random.Random(stream)
    out: dict[str, None] = {}
    for _ in range(50 * n + 100):
        w = coin(rng, style)
        if 5 <= len(w) <= 13 and w not in avoid and w.lower() not in avoid:
            out.setdefault(w, None)
        if len(out) == n:
            return tuple(out)
    raise ValueError(f"could not coin {n} distinct {style} words")
