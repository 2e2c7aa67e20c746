"""Words that read like names but come from no list: the held-out slice's vocabulary.

A held-out world names its people, product lines, companies, places and project topics with
words *coined* here from syllables, by a PRNG keyed with the world's content key (derived
from its secret seed). The syllable tables are public, but the space they span is large
(tens of millions of words per style), so enumerating this module does not reproduce a
held-out world's names, and a thousand worlds built from seeds chosen without the secret
share almost none of them.

Each style imitates one kind of name:

- ``given``: a first name (``Maren``, ``Tobiel``);
- ``family``: a surname, a root plus a surname ending (``Dalvik``, ``Orsenberg``, ``Kastelli``);
- ``brand``: a product line or company word (``Corvana``, ``Tessix``);
- ``place``: a town, a root plus a place ending (``Kestford``, ``Malvenza``);
- ``codename``: a lower-case project topic (``velora``, ``tarnis``).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import random

__all__ = ["STYLES", "coin", "vocabulary", "space_size"]

_ONSET = "b c d f g h j k l m n p r s t v w z br cr dr fr gr pr tr st cl fl bl sl".split()
_VOWEL = "a e i o u a e i o".split()
_MID = "l n r s t v m d k nd rt st ll rn lm ss lv rv".split()
_GIVEN_END = "a ia ina elle o an en el is ie ara ena ius ine".split()
_FAMILY_END = "son sen berg ford ton ley man ski holm wald ez ini ova elli ari os akis enko ard".split()
_BRAND_END = "a o ix on ar en is ex io ra va ta ent um".split()
_PLACE_END = "ford haven vik stad burg ton bury dal holm wick by mar mouth ora enza".split()
_CODE_END = "a o is on ex ar us en".split()
_ENDS = {"given": _GIVEN_END, "family": _FAMILY_END, "brand": _BRAND_END, "place": _PLACE_END, "codename": _CODE_END}

STYLES = tuple(_ENDS)


def _root(rng: random.Random, syllables: int) -> str:
    """Onset, vowel, then ``syllables - 1`` more (consonants, vowel), ending on a consonant."""
    word = rng.choice(_ONSET) + rng.choice(_VOWEL)
    for _ in range(syllables - 1):
        word += rng.choice(_MID) + rng.choice(_VOWEL)
    return word + rng.choice(_MID)


def coin(rng: random.Random, style: str) -> str:
    """One coined word of ``style`` (see the module doc)."""
    if style not in _ENDS:
        raise ValueError(f"unknown style {style!r}; use one of {', '.join(STYLES)}")
    word = _tidy(_root(rng, 1 + (rng.random() < 0.45)) + rng.choice(_ENDS[style]))
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
    """An upper bound on how many distinct words ``style`` can coin (the size of its syllable product)."""
    one = len(_ONSET) * len(_VOWEL) * len(_MID) * len(_ENDS[style])
    return one * (1 + len(_MID) * len(_VOWEL))


@functools.lru_cache(maxsize=256)
def vocabulary(key: bytes, name: str, style: str, n: int, avoid: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """``n`` distinct coined words for the pool ``name`` of the world keyed by ``key`` (none in ``avoid``)."""
    stream = hmac.new(key, f"arena-content-v1:{name}".encode(), hashlib.sha256).digest()
    rng = random.Random(stream)
    out: dict[str, None] = {}
    for _ in range(50 * n + 100):
        w = coin(rng, style)
        if 4 <= len(w) <= 11 and w not in avoid and w.lower() not in avoid:
            out.setdefault(w, None)
        if len(out) == n:
            return tuple(out)
    raise ValueError(f"could not coin {n} distinct {style} words")
