"""An answer's text as a reader sees it: one kind of digit, dash, space and letter.

:func:`normalise` is the first step of the answer judge (:mod:`.answers`). It maps every way
of writing the same visible thing to one spelling, so the judge's readers see one script:

- a digit of any script (Arabic-Indic ``٣``, Devanagari ``३``, full-width ``３``, bold
  ``𝟑``) becomes its ASCII digit, and runs of them stay one number (``٣٤`` is ``34``);
- every other character with a numeric value is its own number, set apart by spaces:
  circled (``③``, ``❸``, ``㉑``), superscript and subscript (``²``, ``₃``), Unicode roman
  numerals (``Ⅲ``, ``ⅻ``), fractions (``½``), CJK numerals (``三``); so ``2³`` is the two
  numbers 2 and 3, never 23;
- compatibility forms fold (NFKC): full-width letters and ``＠``, ligatures, math letters;
- accents fold (``José Núñez`` reads ``Jose Nunez``; ``ø æ œ ß ł đ ı þ ð`` too);
- invisible characters go (zero-width spaces and joiners, soft hyphens, direction marks,
  variation selectors, keycap marks); every run of whitespace (tabs, newlines, no-break and
  thin spaces) is one space; every dash and minus is ``-``, every fraction slash ``/``,
  every tilde-like "approximately" sign ``~``, curly quotes straight.

Letters of other scripts are kept: :func:`foreign_letters` names them, and the judge fails
an answer that holds any (it cannot read a Cyrillic ``З`` that looks like a ``3``).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalise", "foreign_letters", "fmt_number"]

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d\u2796"
_SLASHES = "\u2044\u2215\u29f8\uff0f"
_APPROX = "\u223c\u2248\u2243\u2245\u2252\u224a\u224b\u224c\u223d\u2053\u301c\uff5e"
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'",
           "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'}
_FOLD = str.maketrans({"ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ß": "ss", "ẞ": "SS",
                       "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "ı": "i", "þ": "th", "Þ": "Th", "ð": "d",
                       "Ð": "D", "ħ": "h", "Ħ": "H", "ŀ": "l", "Ŀ": "L", "ŧ": "t", "Ŧ": "T"})
_MAP = {**{c: "-" for c in _DASHES}, **{c: "/" for c in _SLASHES}, **{c: "~" for c in _APPROX}, **_QUOTES}
_SPACE = re.compile(r"\s+")


def fmt_number(v: float) -> str:
    """``3.0`` as ``3``, ``0.5`` as ``0.5``."""
    return str(int(v)) if v == int(v) else repr(v)


def _digits(text: str) -> str:
    out = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat == "Nd":
            out.append(str(unicodedata.decimal(ch)))
        elif (v := unicodedata.numeric(ch, None)) is not None:
            out.append(f" {fmt_number(v)} ")
        elif cat in ("Cf", "Mn", "Me"):
            continue  # invisible: zero-width, direction marks, variation selectors, keycaps, accents
        else:
            out.append(ch)
    return "".join(out)


def normalise(text: str) -> str:
    """``text`` in one spelling (see the module docstring); case is kept."""
    s = _digits(text)  # numbers first: NFKC would glue "①②" into "12"
    s = unicodedata.normalize("NFKC", s)
    s = _digits(s)  # what NFKC unfolded ("⑴" is "(1)")
    s = "".join(c for c in unicodedata.normalize("NFKD", s) if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    s = "".join(_MAP.get(c, c) for c in s.translate(_FOLD))
    return _SPACE.sub(" ", s).strip()


def foreign_letters(text: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The letters of ``text`` (normalised) that are not Latin, and not in ``allowed``."""
    return [c for c in dict.fromkeys(text) if c.isalpha() and c not in allowed
            and not unicodedata.name(c, "").startswith("LATIN")]
