"""The value readers of the answer judge: numbers, dates, clock times, email addresses, and
the words that qualify a value or offer another one.

Each reader scans a :func:`~.answer_text.normalise`-d text and returns :class:`Span` s
(where, and the value read there). The judge (:mod:`.answers`) decides which readers count
for an answer type; the rules are stated in its docstring.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from .answer_text import fmt_number

__all__ = ["Span", "mask", "dates", "partial_dates", "times", "emails", "handles", "numbers", "vague_counts",
           "weekdays", "qualified", "offers_alternative", "open_list", "WEEKDAYS"]


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    value: str


def mask(text: str, spans: list[Span]) -> str:
    """``text`` with ``spans`` blanked (same length, so later spans keep their places)."""
    chars = list(text)
    for s in spans:
        chars[s.start:s.end] = " " * (s.end - s.start)
    return "".join(chars)


# ---- dates and clock times -------------------------------------------------------------
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_OF = {**{m: i for i, m in enumerate(_MONTHS, 1)}, **{m[:3]: i for i, m in enumerate(_MONTHS, 1)}, "sept": 9}
_MON = "|".join(sorted(_MONTH_OF, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_I = re.IGNORECASE
_ISO = re.compile(r"(?<![\w.])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})"
                  r"(?:T\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w])")
_NUMERIC = re.compile(r"(?<![\w.])(\d{1,2})([-/.])(\d{1,2})\2(\d{4})(?![\w])")
_DMY = re.compile(rf"(?<![\w])(?:the\s+)?(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MON})\b\.?,?\s+(\d{{4}})(?![\w])", _I)
_MDY = re.compile(rf"(?<![\w])({_MON})\b\.?\s+(?:the\s+)?(\d{{1,2}}){_ORD},?\s+(\d{{4}})(?![\w])", _I)
_DM = re.compile(rf"(?<![\w])(?:the\s+)?(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MON})\b\.?", _I)
_MD = re.compile(rf"(?<![\w])({_MON})\b\.?\s+(?:the\s+)?(\d{{1,2}}){_ORD}(?![\w])", _I)
_MY = re.compile(rf"(?<![\w])({_MON})\b\.?,?\s+(\d{{4}})(?![\w])", _I)
_YM = re.compile(r"(?<![\w.])(\d{4})-(\d{1,2})(?![\w-])")
_TIME = re.compile(r"(?<![\w:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s*(?:am|pm|a\.m\.|p\.m\.))?(?![\w:])"
                   r"|(?<![\w:.])(?:1[0-2]|0?[1-9])\s*(?:am|pm|a\.m\.|p\.m\.)(?![\w])", _I)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(rf"(?<![\w])({'|'.join(WEEKDAYS)})(?![\w])", _I)


def _iso(y: int | str, m: int | str, d: int | str) -> str | None:
    try:
        return dt.date(int(y), int(m), int(d)).isoformat()
    except ValueError:
        return None


def _read_iso(m: re.Match[str]) -> list[str | None]:
    return [_iso(m.group(1), m.group(3), m.group(4))]


def _read_numeric(m: re.Match[str]) -> list[str | None]:  # day first, then month first
    return [_iso(m.group(4), m.group(3), m.group(1)), _iso(m.group(4), m.group(1), m.group(3))]


def _read_dmy(m: re.Match[str]) -> list[str | None]:
    return [_iso(m.group(3), _MONTH_OF[m.group(2).lower()], m.group(1))]


def _read_mdy(m: re.Match[str]) -> list[str | None]:
    return [_iso(m.group(3), _MONTH_OF[m.group(1).lower()], m.group(2))]


_FULL: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], list[str | None]]], ...] = (
    (_ISO, _read_iso), (_NUMERIC, _read_numeric), (_DMY, _read_dmy), (_MDY, _read_mdy))


def dates(text: str) -> list[tuple[Span, list[str]]]:
    """Every full date (day, month and year) with its readings: ISO ``2026-04-04`` (also with
    ``/`` or ``.``), ``4 April 2026``, ``4th of Apr. 2026``, ``April 4th, 2026``, and the
    numeric ``04/04/2026``, ``26-03-2027``, read day first and month first: one reading when
    both agree or only one is a real date, two when both are real and differ (ambiguous)."""
    out: list[tuple[Span, list[str]]] = []
    taken = text
    for rx, reader in _FULL:
        for m in rx.finditer(taken):
            vals = list(dict.fromkeys(v for v in reader(m) if v))
            span = Span(m.start(), m.end(), vals[0] if vals else m.group(0))
            out.append((span, vals or [f"not a date: {m.group(0)}"]))
        taken = mask(taken, [s for s, _ in out])
    return sorted(out, key=lambda sv: sv[0].start)


def _fmt_my(m: re.Match[str]) -> str:
    return f"{m.group(2)}-{_MONTH_OF[m.group(1).lower()]:02d}"


def _fmt_dm(m: re.Match[str]) -> str:
    return f"--{_MONTH_OF[m.group(2).lower()]:02d}-{int(m.group(1)):02d}"


def _fmt_md(m: re.Match[str]) -> str:
    return f"--{_MONTH_OF[m.group(1).lower()]:02d}-{int(m.group(2)):02d}"


def _fmt_ym(m: re.Match[str]) -> str:
    return f"{m.group(1)}-{int(m.group(2)):02d}"


_PARTIAL: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (_MY, _fmt_my), (_DM, _fmt_dm), (_MD, _fmt_md), (_YM, _fmt_ym))


def partial_dates(text: str) -> list[Span]:
    """Dates without a day or a year: ``4 April``, ``April 4th``, ``April 2026``, ``2026-04``."""
    out: list[Span] = []
    for rx, fmt in _PARTIAL:
        for m in rx.finditer(mask(text, out)):
            out.append(Span(m.start(), m.end(), fmt(m)))
    return sorted(out, key=lambda s: s.start)


def times(text: str) -> list[Span]:
    """Clock times: ``09:00``, ``9:30:15``, ``8am``, ``8 p.m.``."""
    return [Span(m.start(), m.end(), m.group(0)) for m in _TIME.finditer(text)]


def weekdays(text: str) -> list[Span]:
    return [Span(m.start(), m.end(), m.group(1).lower()) for m in _WEEKDAY.finditer(text)]


# ---- email addresses -------------------------------------------------------------------
_AT = r"(?:\s*@\s*|\s*[(\[{<]\s*at\s*[)\]}>]\s*)"
_DOT = r"(?:\.|\s*[(\[{<]\s*dot\s*[)\]}>]\s*|\s+dot\s+)"
_DOMAIN = rf"([a-z0-9-]+(?:{_DOT}[a-z0-9-]+)+)"
_EMAIL = re.compile(rf"(?<![\w.+%])([a-z0-9][a-z0-9._%+-]*){_AT}{_DOMAIN}", _I)
# "a.obi at corp.example": only a local part with a dot, digit or underscore ("look at x.y" is no address)
_EMAIL_WORDS = re.compile(rf"(?<![\w.+%])([a-z0-9]*[._\d][a-z0-9._%+-]*)\s+at\s+{_DOMAIN}", _I)
_DOT_RE = re.compile(_DOT, _I)
_HANDLE = re.compile(r"(?<![\w.@+%-])[a-z][a-z0-9_+%-]*(?:\.[a-z0-9_+%-]+)+(?![\w@])", _I)
_NOT_HANDLES = {"e.g", "i.e", "a.m", "p.m", "et.al", "n.b", "p.s", "u.s", "u.k", "vs"}


def emails(text: str) -> list[Span]:
    """Email addresses, also written ``a.obi (at) corp (dot) example`` or ``a.obi at corp.example``."""
    out: list[Span] = []
    for m in [*_EMAIL.finditer(text), *_EMAIL_WORDS.finditer(mask(text, []))]:
        if any(s.start <= m.start() < s.end for s in out):
            continue
        domain = _DOT_RE.sub(".", m.group(2)).strip(".-").lower()
        out.append(Span(m.start(), m.start() + len(m.group(0).rstrip(".-")),
                        f"{m.group(1).lower().strip('.')}@{domain}"))
    return out


def handles(text: str) -> list[Span]:
    """Dotted words that could be part of an address (``m.castillo``, ``corp.example``)."""
    return [Span(m.start(), m.end(), m.group(0).lower().rstrip(".")) for m in _HANDLE.finditer(text)
            if m.group(0).lower().rstrip(".") not in _NOT_HANDLES]


# ---- numbers ---------------------------------------------------------------------------
_UNITS = {w: i for i, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"))}
_ORDINALS = {w: i for i, w in enumerate((
    "zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
    "nineteenth"))}
_TENS = {w: 10 * i for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                                          "ninety"), 2)}
_TENTHS = {w: 10 * i for i, w in enumerate(("twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth",
                                            "seventieth", "eightieth", "ninetieth"), 2)}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "hundredth": 100, "thousandth": 1000,
           "millionth": 1_000_000}
_ALONE = {"once": 1, "twice": 2, "thrice": 3, "half": 0.5, "single": 1, "pair": 2, "nil": 0, "nought": 0,
          "naught": 0, "none": 0, "nobody": 0, "nothing": 0, "dozen": 12}
_ZERO_ONLY = {"none", "nobody", "nothing", "nil"}  # read as 0 only in counts
_WORDS = [*_UNITS, *_ORDINALS, *_TENS, *_TENTHS, *_SCALES, *_ALONE]
_W = "|".join(sorted(_WORDS, key=len, reverse=True))
_WORD_RUN = re.compile(rf"(?<![\w'])(?:{_W})(?:(?:[\s-]+|\s+and\s+)(?:{_W}))*(?![\w'])", _I)
_DIGITS = re.compile(r"(?:(?<![\w.-])-)?(?<!\d)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:st|nd|rd|th)?", _I)
_PRONOUN_ONE = re.compile(r"(?<![\w])(?:each|every|any|which|this|that|another|the|no)\s+(one)(?![\w])", _I)
_ZERO = re.compile(r"(?<![\w])(?:no\s+one|not\s+(?:a\s+single(?:\s+one)?|one|any)|no(?=\s+[a-z]))(?![\w'])", _I)
_ROMAN_UP = re.compile(r"(?<![\w'])(?=[MDCLXVI])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
                       r"(?![\w'])")
_ROMAN_LOW = re.compile(r"(?<![\w'])(?=[mdclxvi])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
                        r"(?![\w'])")
_CLAUSE_END = re.compile(r"\s*(?:[).,;:!?\]]|$)")
_LOOKALIKE = re.compile(r"(?<![\w'])([Oo]|l)(?![\w'])")
_VAGUE = re.compile(r"(?<![\w])(?:several|few|multiple|numerous|handful|dozens|hundreds|thousands|couple)(?![\w])",
                    _I)


def _word_values(run: str) -> list[float]:
    """The numbers a run of number words spells: "twenty one" is 21, "three four" is 3 and 4,
    "twenty-first" is 21, "two dozen" is 24, "one thousand seven hundred and thirty" is 1730;
    "and" joins only after a scale word ("twenty and one" is 20 and 1)."""
    out: list[float] = []
    total: float | None = None  # the number so far, above its current group
    group: float | None = None  # the group under a hundred/thousand being built
    last, scale = "", 10.0 ** 12  # last word kind; the smallest scale used so far

    def flush() -> None:
        nonlocal total, group, last, scale
        if total is not None or group is not None:
            out.append((total or 0) + (group or 0))
        total, group, last, scale = None, None, "", 10.0 ** 12

    after_and = False
    for w in (w for w in re.split(r"[\s-]+", run.lower()) if w):
        if w == "and":
            after_and = True
            continue
        if after_and and last not in ("hundred", "scale"):
            flush()
        after_and = False
        if w in _UNITS or w in _ORDINALS:
            if last not in ("", "tens", "hundred", "scale"):
                flush()
            group = (group or 0) + _UNITS.get(w, _ORDINALS.get(w, 0))
            last = "ord" if w in _ORDINALS else "unit"
        elif w in _TENS or w in _TENTHS:
            if last not in ("", "hundred", "scale"):
                flush()
            group = (group or 0) + _TENS.get(w, _TENTHS.get(w, 0))
            last = "ord" if w in _TENTHS else "tens"
        elif w in _SCALES or w == "dozen":
            mult = _SCALES.get(w, 12)
            if mult == 100:
                group = (1 if group is None else group) * 100
            elif mult >= scale and group is None:  # "thousand thousand": two numbers
                flush()
                total = mult
            else:
                total = ((total or 0) + (1 if group is None else group) * mult) if mult > 100 else \
                    (total or 0) + (1 if group is None else group) * mult
                group = None
                scale = min(scale, mult)
            last = "ord" if w.endswith("th") else "hundred" if mult == 100 else "scale"
        else:  # once, twice, half, none ...: a number on its own
            flush()
            group, last = _ALONE[w], "ord"
        if last == "ord":  # an ordinal (or a word that stands alone) ends its number
            flush()
    flush()
    return out


def numbers(text: str, zero_words: bool = True, lookalikes: bool = True) -> list[Span]:
    """Every number in ``text``: digits (``1,730``, ``4.0``, ``26th``, ``-3``), number words
    (cardinal and ordinal, ``twice``, ``a dozen``), roman numerals (``IV``, ``xii``; a lone
    ``I`` or ``i`` only where a clause ends, never the pronoun), and, when ``lookalikes``, a
    lone ``O``/``o`` (0) or ``l`` (1). ``one`` after a determiner ("each one", "this one") is a
    pronoun, not a number. With ``zero_words``: ``none``, ``nobody``, ``nothing``, ``nil``,
    ``no one``, ``not a single``/``not one``/``not any`` and ``no`` before a word ("no
    suspended accounts") are 0; without, those are not numbers."""
    out: list[Span] = []
    t = text
    if zero_words:
        out += [Span(m.start(), m.end(), "0") for m in _ZERO.finditer(t)]
        t = mask(t, out)
    t = mask(t, [Span(m.start(1), m.end(1), "") for m in _PRONOUN_ONE.finditer(t)])
    for m in _DIGITS.finditer(t):
        v = float(m.group(1).replace(",", "")) * (-1 if m.group(0).startswith("-") else 1)
        out.append(Span(m.start(), m.end(), fmt_number(v)))
    t = mask(t, out)
    for m in _WORD_RUN.finditer(t):
        words = [w for w in re.split(r"[\s-]+", m.group(0).lower()) if w]
        if not zero_words and all(w in _ZERO_ONLY for w in words):
            continue
        vals = _word_values(m.group(0) if zero_words else " ".join(w for w in words if w not in _ZERO_ONLY))
        out += [Span(m.start(), m.end(), fmt_number(v)) for v in vals]
    t = mask(t, out)
    for rx in (_ROMAN_UP, _ROMAN_LOW):
        for m in rx.finditer(t):
            tok = m.group(0)
            if not tok or (tok in ("I", "i") and not _CLAUSE_END.match(t, m.end())):
                continue
            out.append(Span(m.start(), m.end(), str(_roman(tok.upper()))))
    if lookalikes:
        t = mask(t, out)
        out += [Span(m.start(), m.end(), "1" if m.group(1) == "l" else "0") for m in _LOOKALIKE.finditer(t)]
    return sorted(out, key=lambda s: s.start)


def vague_counts(text: str) -> list[Span]:
    """Words that give a count without committing to one: several, a few, a couple, dozens."""
    return [Span(m.start(), m.end(), m.group(0).lower()) for m in _VAGUE.finditer(text)]


def _roman(token: str) -> int:
    vals, total = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}, 0
    for a, b in zip(token, token[1:] + " ", strict=False):
        total += -vals[a] if vals.get(b, 0) > vals[a] else vals[a]
    return total


# ---- qualifiers and alternatives -------------------------------------------------------
_ALT_BEFORE = r"or|nor|either|vs\.?|versus|/"
_ALT_AFTER = r"or\b|nor\b|/|vs\b|versus\b|\?|if\s+not\b|and/or\b|unless\b|etc\b|and\s+(?:others|so\s+on)\b"
_QUAL_BEFORE = (
    r"at\s+(?:least|most|the\s+(?:least|most|latest|earliest|minimum|maximum)|minimum|maximum|around|about)"
    r"|(?:more|less|fewer|greater|higher|lower|larger|smaller|bigger|later|earlier|sooner|older|newer)\s+than"
    r"|no\s+(?:more|less|fewer|later|earlier|sooner|greater|higher|lower)\s+than"
    r"|not\s+(?:more|less|fewer|later|earlier|before|after|over|under|above|below)(?:\s+than)?"
    r"|up\s+to|upwards\s+of|in\s+excess\s+of|a\s+(?:minimum|maximum)\s+of|(?:minimum|maximum)(?:\s+of)?|min\.?|max\.?"
    r"|about|around|approximately|approx\.?|roughly|nearly|almost|circa|ca\.|c\.|some|over|under|above|below|beyond"
    r"|close\s+to|near|within(?:\s+\S+){0,3}\s+of|within|before|after|until|till|since|from|between|estimated|est\.?|sometime|some\s+time"
    r"|somewhere|anywhere\s+(?:from|between)|as\s+(?:many|much|few|little|early|late|soon)\s+as"
    r"|plus\s+or\s+minus|give\s+or\s+take|(?:just|well|a\s+bit|slightly)\s+(?:over|under|above|below|more|less)"
    r"|early|mid|late|(?:the\s+)?(?:end|beginning|start|middle)\s+of|[~<>≤≥≦≧⩽⩾≲≳≪≫±∓]|\+/-|\+-|=<|>=|<=|=>")
_QUAL_AFTER = (
    r"\+(?!\s*\d)|plus\b|-?\s*ish\b|-?\s*odd\b|-?\s*something\b|onwards?\b|upwards?\b|tops\b|max(?:imum)?\b"
    r"|min(?:imum)?\b|approx(?:imately)?\b|roughly\b|or\s+so\b|give\s+or\s+take\b|more\s+or\s+less\b"
    r"|and\s+(?:more|up|above|over|beyond|later|after|higher|upwards|onwards?|earlier|before|counting)\b"
    r"|at\s+(?:least|most|the\s+(?:least|most|latest|earliest)|latest|earliest)\b|[±∓~]|\+/-|\+-|\.\.\.")
_DAY = rf"(?:(?:{'|'.join(WEEKDAYS)}),?\s+)?"  # "after Monday, 4 May 2026": the weekday is part of the date
_SKIP_BEFORE = r"[\s(\[{<:=*\"'`-]*"
_SKIP_AFTER = r"[\s)\]}>\"'`*,;:-]*\(?\s*"
_BEFORE_QUAL = re.compile(rf"(?<![\w])(?:{_ALT_BEFORE}|{_QUAL_BEFORE}){_SKIP_BEFORE}(?:an?\s+|the\s+)?{_DAY}$", _I)
_BEFORE_ALT = re.compile(rf"(?<![\w])(?:{_ALT_BEFORE}){_SKIP_BEFORE}$", _I)
_AFTER_QUAL = re.compile(rf"{_SKIP_AFTER}(?:{_ALT_AFTER}|{_QUAL_AFTER})", _I)
_AFTER_ALT = re.compile(rf"{_SKIP_AFTER}(?:{_ALT_AFTER})", _I)
_ANYWHERE = re.compile(
    r"/|(?<![\w])(?:or|nor|vs\.?|versus|either|unless|otherwise|alternatively|alternately|if\s+not|etc|et\s+al"
    r"|and\s+so\s+on|among\s+others|and\s+others|or\s+(?:something|someone|somebody|some\s+\w+|another|other|"
    r"others|similar|whatever|anything|anyone|so|thereabouts))(?![\w])", _I)
_OPEN_LIST = re.compile(r"(?<![\w])(?:including|such\s+as|e\.g|for\s+example|among\s+(?:them|others))(?![\w])", _I)


def qualified(text: str, span: Span, quantities: bool) -> str | None:
    """The word or sign next to ``span`` that makes it a range, an estimate or one of several
    ("at least", "~", "or", "/", "-ish"); ``quantities`` False checks only the alternatives."""
    before, after = text[max(0, span.start - 60):span.start], text[span.end:span.end + 60]
    m = (_BEFORE_QUAL if quantities else _BEFORE_ALT).search(before)
    if m:
        return m.group(0).strip(" ([{<:=*\"'`-")
    m2 = (_AFTER_QUAL if quantities else _AFTER_ALT).match(after)
    return m2.group(0).strip(" )]}>\"'`*,;:(-") or m2.group(0).strip() if m2 else None


_FIXED = re.compile(r"(?<![\w])(?:on\s+or\s+(?:after|before)|whether\s+or\s+not)(?![\w])", _I)


def offers_alternative(text: str) -> str | None:
    """A word or sign anywhere that offers another answer: ``or``, ``/``, ``vs``, ``either``,
    ``unless``, ``otherwise``, ``etc`` ... (the date-window phrases "on or after", "on or
    before" and "whether or not" excepted). ``text`` has the values and quoted phrases blanked."""
    m = _ANYWHERE.search(_FIXED.sub(lambda f: " " * len(f.group(0)), text))
    return m.group(0) if m else None


def open_list(text: str) -> str | None:
    """A phrase that makes a list non-exhaustive ("including", "such as")."""
    m = _OPEN_LIST.search(text)
    return m.group(0) if m else None
