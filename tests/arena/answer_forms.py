"""Ways to write an answer: the truth in natural forms, and hedges around it.

Used by the judge's property tests (``test_answer_judge.py``), by the script that wrote the
two corpora in ``tests/arena/data/`` once, and by ``bench/answer_judge_corpus.py``. Nothing
here calls the judge: a form is natural or a hedge by how it was written.

- :func:`spellings` writes one value of a type in every representation a reader reads as
  that value (digits of other scripts, words, roman, circled, dates in any format, codes in
  any case and separator, names in any order, case, accent and whitespace);
- :func:`natural` puts the truth, in one spelling, inside one of a set of sentence frames;
- :func:`two_values` joins the truth and another value of the type (each in any spelling)
  by any connective;
- :func:`qualified` writes the truth alone with a qualifier or an open alternative.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata

KINDS = ("count", "date", "code", "email", "name", "names", "codes")

# ---- numbers ---------------------------------------------------------------------------
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORD = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
        "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()
_SCRIPTS = (0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50, 0xFF10, 0x1D7CE, 0x1D7EC, 0x0AE6, 0x1040)  # digit zeros
_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_CIRCLED = ["⓪", *(chr(0x2460 + i) for i in range(20)), *(chr(0x3251 + i) for i in range(15)),
            *(chr(0x32B1 + i) for i in range(15))]  # 0..50
_NEG_CIRCLED = [*(chr(0x2776 + i) for i in range(10)), *(chr(0x24EB + i) for i in range(10))]  # 1..20
_ROMAN_CHARS = [chr(0x2160 + i) for i in range(12)]  # Ⅰ..Ⅻ


def words(n: int) -> str:
    if n < 20:
        return _UNITS[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _UNITS[n % 10])
    if n < 1000:
        return _UNITS[n // 100] + " hundred" + ("" if n % 100 == 0 else " and " + words(n % 100))
    return words(n // 1000) + " thousand" + ("" if n % 1000 == 0 else " " + words(n % 1000))


def ordinal_word(n: int) -> str:
    if n < 20:
        return _ORD[n]
    if n < 100 and n % 10:
        return _TENS[n // 10] + "-" + _ORD[n % 10]
    if n < 100:
        return _TENS[n // 10][:-1] + "ieth"
    if n % 100:
        return words(n - n % 100) + " and " + ordinal_word(n % 100)
    return words(n) + "th"


def roman(n: int) -> str:
    out = ""
    for v, s in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
                 (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= v:
            out, n = out + s, n - v
    return out


def number_spellings(n: int, natural: bool = False) -> list[str]:
    """``n`` in every spelling a reader reads as ``n`` (``natural``: only the ones a person
    would write as a count: digits of any script, words)."""
    out = [str(n), words(n), words(n).capitalize(), words(n).upper(), f"{n}.0", *[
        "".join(chr(z + int(d)) for d in str(n)) for z in _SCRIPTS]]
    if n >= 1000:
        out.append(f"{n:,}")
    if natural:
        return list(dict.fromkeys(out))
    if 0 < n < 4000:
        out += [roman(n), roman(n).lower()] if n > 1 else [roman(n) + ")"]  # a lone I only at a clause end
    if 1 <= n <= 12:
        out += [_ROMAN_CHARS[n - 1], _ROMAN_CHARS[n - 1].lower()]
    if n <= 50:
        out.append(_CIRCLED[n])
    if 1 <= n <= 20:
        out.append(_NEG_CIRCLED[n - 1])
    if n >= 1:
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        out += [f"{n}{suffix}", ordinal_word(n)]
    out.append("".join(_SUP[int(d)] for d in str(n)) if len(str(n)) == 1 else str(n))
    if n == 0:
        out += ["none", "None", "nil", "nothing"]
    return list(dict.fromkeys(out))


# ---- dates -----------------------------------------------------------------------------
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def date_spellings(d: dt.date) -> list[str]:
    m, mon = _MONTHS[d.month - 1], _MONTHS[d.month - 1][:3]
    suffix = "th" if 10 <= d.day <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    out = [d.isoformat(), d.isoformat().replace("-", "/"), d.isoformat().replace("-", "."),
           f"{d.day} {m} {d.year}", f"{d.day:02d} {m} {d.year}", f"{d.day} {mon} {d.year}", f"{m} {d.day}, {d.year}",
           f"{mon}. {d.day}, {d.year}", f"{m} {d.day}{suffix}, {d.year}", f"{d.day}{suffix} {m} {d.year}",
           f"the {d.day}{suffix} of {m} {d.year}", f"{d.strftime('%A')}, {d.day} {m} {d.year}",
           f"{d.strftime('%A')} {m} {d.day}, {d.year}", f"{d.isoformat()}T00:00:00Z", f"{m.upper()} {d.day}, {d.year}",
           "".join(chr(0xFF10 + int(c)) if c.isdigit() else c for c in d.isoformat())]
    if d.day == d.month or d.day > 12:  # numeric day/month: only where one reading is possible
        out += [f"{d.day:02d}/{d.month:02d}/{d.year}", f"{d.day:02d}-{d.month:02d}-{d.year}",
                f"{d.day}.{d.month}.{d.year}"]
    if d.day == d.month or d.day > 12:
        out.append(f"{d.month:02d}/{d.day:02d}/{d.year}")
    return list(dict.fromkeys(out))


# ---- codes, emails, names --------------------------------------------------------------
def code_spellings(value: str, sep: str = "-") -> list[str]:
    prefix, body = value.split(sep, 1)
    out = [value, value.lower(), f"{prefix}_{body}" if sep == "-" else f"{prefix}-{body}", f"{prefix}\u2011{body}",
           f"{prefix}\u2013{body}", f"{prefix.lower()}{sep}{body.upper()}",
           "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else ("\uff0d" if c == "-" else c) for c in value)]
    if any(c.isdigit() for c in body):  # without a separator, only a body with a digit reads as a code
        out += [f"{prefix} {body}", f"{prefix}{body}", body]
    return list(dict.fromkeys(out))


def email_spellings(value: str) -> list[str]:
    local, domain = value.split("@")
    return list(dict.fromkeys([
        value, value.upper(), value.title(), f"<{value}>", f"mailto:{value}", f"{local}\uff20{domain}",
        f"{local} (at) {domain.replace('.', ' (dot) ')}", f"{local} [at] {domain}", f"{local} at {domain}",
        f"{local}@{domain.upper()}"]))


def is_person(label: str) -> bool:
    """Whether a name type's label names people (their names are also written ``Last, First``)."""
    return label in ("person's name", "member's name", "name")


def _strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def name_spellings(value: str, candidates: list[str] | tuple[str, ...] = (), person: bool = True) -> list[str]:
    """``value`` in any case, accent and whitespace; a person's name (``person``) also as
    ``Last, First`` and ``P. Holm`` (only where no other candidate has that initial and last name)."""
    w = value.split()
    out = [value, value.lower(), value.upper(), _strip_accents(value), value.replace(" ", "  "),
           value.replace(" ", "\u00a0"), value.replace(" ", "\n"), value.replace(" ", "\t"), f" {value} "]
    if len(w) >= 2 and person:
        first, last = " ".join(w[:-1]), w[-1]
        out += [f"{last}, {first}", f"{last},{first}", f"{last.upper()}, {first}", f"{last} {first}",
                _strip_accents(f"{last}, {first}"), f"{first}\u202f{last}"]
        same = [c for c in candidates if c != value and c.split()[-1] == last and c[0] == value[0]]
        if not same:
            out += [f"{value[0]}. {last}", f"{value[0]} {last}"]
        if any(c in "äöüÄÖÜ" for c in value):
            out.append(value.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("Ä", "Ae")
                       .replace("Ö", "Oe").replace("Ü", "Ue"))
            out.append(value.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue"))  # one written, one folded
    return list(dict.fromkeys(out))


def spellings(kind: str, value: str, candidates: tuple[str, ...] = (), sep: str = "-",
              natural: bool = False, person: bool = True) -> list[str]:
    """``value`` (as a judge's expected value is written) in every spelling of ``kind``."""
    if kind == "count":
        return number_spellings(int(value), natural)
    if kind == "date":
        return date_spellings(dt.date.fromisoformat(value))
    if kind in ("code", "codes"):
        return code_spellings(value, sep)
    if kind == "email":
        return email_spellings(value)
    return name_spellings(value, candidates, person)


# ---- natural forms ---------------------------------------------------------------------
FRAMES = {
    "count": ["{v}", "{v}.", "It is {v}.", "The answer is {v}.", "Answer: {v}", "There are {v}.", "I count {v}.",
              "{v} in total.", "**{v}**", "`{v}`", '{{"answer": "{v}"}}', "There are {v}; each one is solved.",
              "{v} (between 2026-01-09 and 2026-02-28)", "Total: {v}\n", "  {v}  ", "Exactly {v}.", "Only {v}.",
              "I counted {v} on 2026-03-01 at 09:00.", "The count is {v}, checked on 4 April 2026.",
              "{v} of them, and this one is the last.", "Count: {v} (as of March 2026)", "I think it's {v}."],
    "date": ["{v}", "{v}.", "It is due on {v}.", "The next review is {v}.", "Next review: {v}", "{v} (per the docs)",
             "Due {v}.", "**{v}**", '{{"date": "{v}"}}', "The docs say the next review is due {v}.",
             "The next review of this page is on {v} at 09:00."],
    "code": ["{v}", "{v}.", "It is {v}.", "The code is {v}.", "{v} (expires 26 March 2027)", "{v}, expiring 2027-03-26",
             "{v} (rights end on March 26th, 2027)", "Reference: {v}", "{v} at 08:00", "**{v}**", "`{v}`",
             '{{"code": "{v}"}}', "{v} - booked for Tuesday 28 April 2026 at 08:00", "That one is {v}.",
             "The rights of {v} run out first, on 26/03/2027."],
    "email": ["{v}", "{v}.", "Their address is {v}.", "Email: {v}", "**{v}**", "`{v}`", '{{"email": "{v}"}}',
              "You can reach them at {v}.", "The escalation contact is {v} (since 2025)."],
    "name": ["{v}", "{v}.", "It was {v}.", "The answer is {v}.", "Answer: {v}", "**{v}**", '{{"name": "{v}"}}',
             "{v}, according to the page.", "That is {v}.", "I found it: {v}"],
}
FRAMES["names"] = ["{v}", "{v}.", "They are {v}.", "Answer: {v}", "The members are: {v}"]
FRAMES["codes"] = ["{v}", "{v}.", "New prefixes: {v}", "Answer: {v}", "The new keys are {v}."]
_ZERO_NATURAL = ["There are no suspended accounts.", "No threads match.", "None of them.", "Nobody.",
                 "There are none.", "Not a single one.", "No accounts are suspended.", "zero", "None."]
_LIST_JOINS = [", ", "; ", " and ", "\n", "\n- ", ",\n", " ", " & "]


def natural(kind: str, truth: str | list[str], rng: random.Random, candidates: tuple[str, ...] = (),
            sep: str = "-", person: bool = True) -> str:
    """The truth in one natural form: one spelling inside one frame (a set: in any order and join)."""
    if kind in ("names", "codes"):
        items = list(truth) if isinstance(truth, list) else str(truth).split(", ")
        rng.shuffle(items)
        one = "name" if kind == "names" else "code"
        parts = [rng.choice(spellings(one, x, candidates, sep, person=person)[:4 if kind == "names" else 3])
                 for x in items]
        join = rng.choice(_LIST_JOINS)
        body = join.join(parts) if join != " and " else ", ".join(parts[:-1]) + " and " + parts[-1]
        return rng.choice(FRAMES[kind]).format(v=body.strip())
    assert isinstance(truth, str)
    if kind == "count" and truth == "0" and rng.random() < 0.3:
        return rng.choice(_ZERO_NATURAL)
    v = rng.choice(spellings(kind, truth, candidates, sep, natural=True, person=person))
    return rng.choice(FRAMES[kind]).format(v=v)


# ---- hedges ----------------------------------------------------------------------------
CONNECTIVES = [" or ", ", ", " / ", "/", " - ", " to ", " and ", " (", "; ", "\n", " vs ", " maybe ", ", possibly ",
               " perhaps ", ", or maybe ", " otherwise ", " | ", " & ", " ~ ", "\u2013", " \u2014 ", " (or ",
               " (maybe ", " or possibly ", ", not ", " if not ", " ... ", " nor ", " + ", ", unless it is ",
               " else ", ", then again ", " (", " [", '", "', " then "]


def two_values(kind: str, truth: str, other: str, rng: random.Random, candidates: tuple[str, ...] = (),
               sep: str = "-", person: bool = True) -> str:
    """The truth and another value of the type, each in any spelling, joined by any connective."""
    one = {"names": "name", "codes": "code"}.get(kind, kind)
    a = rng.choice(spellings(one, truth, candidates, sep, person=person))
    b = rng.choice(spellings(one, other, candidates, sep, person=person))
    if rng.random() < 0.5:
        a, b = b, a
    conn = rng.choice(CONNECTIVES)
    if kind == "count" and conn in (" - ", "\u2013", " and ", " ") and a[:1].isalpha() and b[:1].isalpha():
        conn = " or "  # "twenty-one" and "twenty and one" read as one number, to a reader too
    text = f"{a}{conn}{b}"
    if conn.strip() in ("(", "[", "(or", "(maybe"):
        text += ")" if "(" in conn else "]"
    frame = rng.choice(["{v}", "It is {v}.", "Answer: {v}", "{v}?", "I'd say {v}."])
    return frame.format(v=text)


QUALIFIERS = {
    "count": ["at least {v}", "{v} or more", "{v} or higher", "about {v}", "approximately {v}", "approx. {v}",
              "~{v}", "≈{v}", "≈ {v}", "∼{v}", "{v}-ish", "{v}ish", "{v}+", "{v} +/- 1", "{v} ± 1", "roughly {v}",
              "around {v}", "nearly {v}", "up to {v}", "no more than {v}", "more than {v}", "fewer than {v}",
              "at most {v}", "{v} at least", "{v} or so", "some {v}", "over {v}", "under {v}", "< {v}", "≥ {v}",
              "≤{v}", "{v} or fewer", "{v}, give or take", "{v} or thereabouts", "circa {v}", "{v}?", "{v}...",
              "{v} and up", "{v} (or more)", "a few, maybe {v}", "several ({v}?)", "{v} or so, I think",
              "either {v} or something close", "{v}, unless I missed one", "{v} etc.", "{v} tops",
              "{v}, more or less", "just over {v}", "well under {v}", "min. {v}", "{v} max"],
    "date": ["{v} or later", "{v} or earlier", "on or before {v}", "on or after {v}", "before {v}", "after {v}",
             "no later than {v}", "no earlier than {v}", "around {v}", "about {v}", "approximately {v}", "~{v}",
             "≈{v}", "{v} ± 2 days", "{v}, give or take a day", "sometime around {v}", "since {v}", "until {v}",
             "{v}?", "{v} at the latest", "{v} at the earliest", "{v} or thereabouts", "{v} (or the day after)",
             "from {v}", "{v} onwards", "{v}+", "circa {v}", "either {v} or a day later", "{v}, unless it moved",
             "{v}...", "not before {v}", "not after {v}", "within a week of {v}", "by {v} or so"],
    "code": ["{v} or higher", "{v} or similar", "{v}?", "~{v}", "{v}+", "either {v} or the next one",
             "{v}, unless it is the other one", "{v} or so", "{v} etc.", "about {v}", "approximately {v}",
             "{v} (or a neighbour)", "{v} or something like it", "≈{v}", "{v}/{x}", "{v} (or -{y})",
             "{v} or thereabouts", "{v}, or maybe another", "{v}..."],
    "email": ["{v} or someone else", "{v}?", "either {v} or the team inbox", "{v}, unless it changed",
              "{v} or similar", "{v} etc.", "{v} or another address", "{v}, or maybe the team's", "{v} or so",
              "{v} / the team inbox", "{v} (or their deputy)", "{v}, otherwise the desk"],
    "name": ["{v} or someone else", "{v}?", "either {v} or another member", "{v}, unless it was edited",
             "{v} or similar", "{v} etc.", "{v} or another", "{v} (or a colleague)", "{v}, otherwise nobody",
             "{v} and/or a colleague", "{v}, or someone on their team", "{v} / a colleague", "{v} et al."],
    "names": ["{v} etc.", "{v} and others", "{v}, among others", "including {v}", "{v}, and so on",
              "such as {v}", "{v} or someone else", "{v}, e.g."],
    "codes": ["{v} etc.", "{v} and others", "{v}, among others", "including {v}", "{v} and so on", "such as {v}",
              "{v}, e.g.", "{v} or similar"],
}


def qualified(kind: str, truth: str, rng: random.Random, candidates: tuple[str, ...] = (), sep: str = "-",
              person: bool = True) -> str:
    """The truth alone with a qualifier or an open alternative ("at least 4", "AS-3345/6")."""
    if kind in ("names", "codes"):
        v = natural(kind, truth, rng, candidates, sep, person)
        return rng.choice(QUALIFIERS[kind]).format(v=v.rstrip("."))
    one = {"names": "name", "codes": "code"}.get(kind, kind)
    v = rng.choice(spellings(one, truth, candidates, sep, person=person))
    if kind == "count" and v in ("none", "None", "nil", "nothing"):
        v = truth
    tail = truth.split(sep, 1)[-1] if kind == "code" else ""
    x = str((int(tail[-1], 16) + 1) % 10) if tail and tail[-1].isalnum() and tail[-1] in "0123456789abcdefABCDEF" \
        else "1"
    y = tail[:-2] + tail[-1:] + tail[-2:-1] if len(tail) > 2 and tail[-1] != tail[-2] else tail[:-1] + x
    return rng.choice(QUALIFIERS[kind]).format(v=v, x=x, y=y)
