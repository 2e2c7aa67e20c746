"""Judging ``done(answer)``: the agent's answer is part of the judged state, and it must commit.

The episode adds the agent's final answer to the state it hands the validator, as the
one-row pseudo-table :data:`ANSWER_TABLE` (``[{"text": <answer or None>}]``). A task that
asks a question reads it there with :func:`check_answer`, next to any state change it
also needs, so "state plus answer" tasks have one validator and the untouched seed (no
answer at all) always fails.

Every answer-judged family declares the **type** of its answer (:class:`AnswerType`: a
count, a code of a known shape, an email address, a date, a name out of the names that
exist in the task's world, or a set of codes or names). The judge reads the answer the way
a reader would and credits it only when it **commits to exactly the expected value**.

The rule, in order (the first that applies decides; an answer that is not text fails):

1. **One spelling.** The text is normalised (:mod:`.answer_text`): digits of every script
   are ASCII digits; circled, superscript, subscript, fractional, CJK and Unicode-roman
   numerals are numbers of their own (``2³`` is 2 and 3); full-width forms, ligatures and
   accents fold (``José`` is ``Jose``, ``＠`` is ``@``); invisible characters go; every run of
   whitespace (newline, no-break space) is one space; case never matters.
2. **Latin letters only.** An answer holding letters of another script (a Cyrillic ``З``
   that looks like a 3) fails: the judge cannot read them.
3. **Every candidate counts.** Each token that reads as a value of the answer's type, or
   as a piece of one, is a candidate:

   - *count*: digits (``1,730``, ``4.0``, ``26th``), number words and ordinals
     (``twenty-one``, ``third``, ``twice``, ``a dozen``), roman numerals (``IV``, ``xii``),
     a lone ``O``/``o``/``l``; and 0 as ``zero``, ``none``, ``nobody``, ``nothing``,
     ``no one``, ``no`` before a word ("There are no suspended accounts."). *Not* counts:
     full dates, month-and-year, clock times, email addresses, amounts of money (``£23``,
     ``40 EUR``), and ``one`` after a
     determiner ("each one", "this one", "the one": a pronoun). So "There are 4; each one
     is solved." names one count, "4 of 12" names two.
   - *date*: full dates in any common form (``2026-04-04``, ``4 April 2026``, ``April
     4th, 2026``, ``the 4th of April 2026``, ``04/04/2026``); a numeric day/month date is
     read day first and month first and names both dates when both are real and differ
     (``04/05/2026``); any other number, number word, roman numeral or partial date
     (``3-4 April 2026`` names 3 as well) is a candidate too; a weekday must be the date's.
   - *code*: ``AS-3345`` in any case and with ``-``, ``_``, a space or nothing after the
     prefix, and a bare body (``3345``); any other token holding a digit is a piece of a
     code (``AS-3345/6`` names 6, ``TK-7474`` names TK-7474). Dates (full or partial:
     "AS-2442 (expires 26 March 2027)") and clock times beside a code are not codes.
   - *email*: addresses (also ``a.obi (at) corp (dot) example``, and ``a.obi at
     corp.example`` when the part before "at" holds a dot, digit or underscore), and any
     dotted word that is not part of the named address (``m.castillo``).
   - *name*: each of the world's candidate names as written (an umlaut also as ``ae``,
     ``oe``, ``ue``: ``Gruen`` is ``Grün``), as ``Last, First`` or
     ``Last First``, or as ``P. Holm`` (an initial and a last name: the candidates it fits,
     or an unknown person when none does); and the first or last name of another candidate
     ("Paloma Holm or Ada"). Phrases of the world the type lists as context (page and
     thread titles, user names, role names) are quoted, not named.
4. **Exactly one value.** A single-value answer fails if it names no candidate or two
   different ones ("names 2 different counts"); a set answer fails unless it names exactly
   the expected set.
5. **No qualifier, no alternative.** A value next to a word or sign that makes it a range,
   an estimate or one of several fails: ``at least``, ``or more``, ``or later``, ``about``,
   ``approximately``, ``~``, ``≈``, ``<``, ``±``, ``-ish``, ``+``, ``up to``, ``before``,
   ``between`` ... next to the value; anywhere outside the values, dates and quoted
   phrases: ``or``, ``nor``, ``/``, ``vs``, ``either``, ``unless``, ``otherwise``,
   ``alternatively``, ``etc`` (the date-window phrases "on or after", "on or before" and
   "whether or not" excepted), so ``Paloma Holm (P.H. or J.H.)`` fails;
   counts also fail on a vague quantity (``several``, ``a few``, ``a couple``); a set
   fails on ``including``/``such as``. Words of confidence ("I think", "probably") are not
   judged: they do not name a value.
6. **The right value.** The one value must be the expected one (numbers compare as
   numbers, ``173`` = ``173.0``).

A task without a declared type gets one inferred from its expected value (a plain text
must then match exactly, after normalising).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypedDict

from . import answer_values as av
from .answer_text import foreign_letters, normalise
from .answer_values import Span

__all__ = ["ANSWER_TABLE", "AnswerType", "AnswerTypeDict", "COUNT", "AMOUNT", "EMAIL", "DATE", "TEXT", "code",
           "names", "answer_of", "answer_matches", "check_answer", "judge_answer", "extract", "with_answer"]

ANSWER_TABLE = "agent_answer"
KINDS = ("number", "code", "email", "date", "name", "text")


class AnswerTypeDict(TypedDict):
    kind: str
    label: str
    prefix: str
    body: str
    sep: str
    candidates: list[str]
    many: bool
    context: list[str]


@dataclass(frozen=True)
class AnswerType:
    """What kind of value an answer must commit to.

    ``kind`` is one of :data:`KINDS`; ``label`` names it in errors ("count", "asset code");
    ``prefix``/``body`` describe a code (``AS`` + ``\\d{4}`` reads ``AS-3345``, ``as 3345`` and a
    bare ``3345``); ``candidates`` are the names of the world a name answer is chosen from;
    ``context`` are other phrases of the world that contain candidate words without naming a
    candidate (page and thread titles, role names, user names): an answer that quotes them
    ("the owner of 'Analytics guide (North Holdings)' is ...") does not name those words;
    ``many`` makes the expected value a set that the answer must name exactly.
    """

    kind: str
    label: str = ""
    prefix: str = ""
    body: str = ""
    sep: str = "-"
    candidates: tuple[str, ...] = field(default=(), repr=False)
    many: bool = False
    context: tuple[str, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"answer kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind == "code" and not (self.prefix and self.body):
            raise ValueError("a code answer type needs its prefix and body pattern, e.g. code('AS', r'\\d{4}')")
        if self.kind == "name" and not self.candidates:
            raise ValueError("a name answer type needs the world's candidate names (names(candidates))")

    @property
    def what(self) -> str:
        return self.label or self.kind

    @property
    def whats(self) -> str:
        return self.what + ("es" if self.what.endswith("s") else "s")

    def to_dict(self) -> AnswerTypeDict:
        return {"kind": self.kind, "label": self.label, "prefix": self.prefix, "body": self.body, "sep": self.sep,
                "candidates": list(self.candidates), "many": self.many, "context": list(self.context)}

    @classmethod
    def from_dict(cls, d: AnswerTypeDict) -> AnswerType:
        return cls(d["kind"], d.get("label", ""), d.get("prefix", ""), d.get("body", ""), d.get("sep", "-"),
                   tuple(d.get("candidates", ())), bool(d.get("many", False)), tuple(d.get("context", ())))

    # ---- readers built once per type ----
    @cached_property
    def _code_re(self) -> re.Pattern[str]:
        # PREFIX-BODY or PREFIX_BODY (any body), PREFIX BODY or PREFIXBODY (a body holding a digit, so
        # "as shown" is no AS code)
        p = re.escape(normalise(self.prefix))
        return re.compile(rf"(?<![a-z0-9]){p}(?:[-_]([a-z0-9]+)|\s?((?=[a-z]*\d)[a-z0-9]+))(?![a-z0-9])",
                          re.IGNORECASE)

    @cached_property
    def _body_re(self) -> re.Pattern[str]:
        return re.compile(rf"(?<![a-z0-9-])(?:{self.body})(?![a-z0-9-])", re.IGNORECASE)

    @cached_property
    def _names(self) -> tuple[re.Pattern[str], dict[str, str]]:
        """Every written form of every candidate -> the candidate (folded)."""
        forms: dict[str, str] = {}
        for c in self.candidates:
            key = _fold(c)
            for v in _umlaut_spellings(c):
                words = _fold(v).split()
                if not words:
                    continue
                forms.setdefault(" ".join(words), key)
                if len(words) >= 2:
                    forms.setdefault(f"{words[-1]}, {' '.join(words[:-1])}", key)
                    forms.setdefault(f"{words[-1]} {' '.join(words[:-1])}", key)
        alts = sorted(forms, key=len, reverse=True)
        pat = "|".join(r",\s*".join(r"\s+".join(re.escape(w) for w in part.split()) for part in a.split(", "))
                       for a in alts)
        return re.compile(rf"(?<![\w])(?:{pat})(?![\w])", re.IGNORECASE), forms

    @cached_property
    def _people(self) -> dict[str, list[str]]:
        """Last name -> the multi-word candidates with it (for "P. Holm")."""
        out: dict[str, list[str]] = {}
        for c in self.candidates:
            words = _fold(c).split()
            if len(words) >= 2:
                out.setdefault(words[-1], []).append(" ".join(words))
        return out

    @cached_property
    def _initial_re(self) -> re.Pattern[str] | None:
        if not self._people:
            return None
        last = "|".join(re.escape(w) for w in sorted(self._people, key=len, reverse=True))
        return re.compile(rf"(?<![\w.])([a-z])(?:\.\s*|\s+)({last})(?![\w])|(?<![\w])({last}),?\s+([a-z])\.(?!\w)",
                          re.IGNORECASE)

    @cached_property
    def _context_re(self) -> re.Pattern[str] | None:
        own = {_fold(c) for c in self.candidates}
        alts = sorted({_fold(c) for c in self.context if _fold(c) and _fold(c) not in own}, key=len, reverse=True)
        return re.compile(r"(?<![\w.@])(?:" + "|".join(re.escape(a).replace(r"\ ", r"\s+") for a in alts)
                          + r")(?![\w@])", re.IGNORECASE) if alts else None

    @cached_property
    def _part_re(self) -> re.Pattern[str] | None:
        """First and last names of the multi-word candidates ("Ada" of "Ada Dalton"); of a longer
        candidate (a title), its words but not its function words ("the" of a title names nothing)."""
        parts = sorted({w for c in self.candidates for w in (_fold(c).split() if " " in c.strip() else [])
                        if len(w) >= 3 and not (w in _FUNCTION_WORDS and len(c.split()) > 3)}, key=len, reverse=True)
        return re.compile(r"(?<![\w.@])(?:" + "|".join(re.escape(p) for p in parts) + r")(?![\w@]|\.\w)",
                          re.IGNORECASE) if parts else None

    @cached_property
    def _letters(self) -> frozenset[str]:
        return frozenset(ch for c in (*self.candidates, *self.context) for ch in normalise(c))


def code(prefix: str, body: str, label: str = "code", sep: str = "-", many: bool = False) -> AnswerType:
    """A code such as ``AS-3345`` (``code("AS", r"\\d{4}")``)."""
    return AnswerType("code", label=label, prefix=prefix, body=body, sep=sep, many=many)


def names(candidates: Iterable[str], label: str = "name", many: bool = False,
          context: Iterable[str] = ()) -> AnswerType:
    """A name out of ``candidates`` (the names of this kind that exist in the task's world);
    ``context``: the world's other phrases an answer may quote (see :class:`AnswerType`)."""
    return AnswerType("name", label=label, candidates=tuple(sorted(set(candidates))), many=many,
                      context=tuple(sorted(set(context))))


COUNT = AnswerType("number", label="count")
AMOUNT = AnswerType("number", label="amount")
EMAIL = AnswerType("email", label="email address")
DATE = AnswerType("date", label="date")
TEXT = AnswerType("text")


_FUNCTION_WORDS = frozenset(
    "the and for with from has have had was were are its but not nor any all can may might should would could "
    "will when than then that this these those into onto over under more less per via out off our your their "
    "they them you she him her his who whom which what where while does did been being also only just very "
    "some such each both".split())
"""Words that name nothing on their own (read as parts of long candidates such as titles, they would make
"according to the page" a mention of every title with "the")."""


def _fold(s: str) -> str:
    return normalise(s).casefold()


_UMLAUTS = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}


def _umlaut_spellings(name: str) -> set[str]:
    """``name`` with each umlaut as itself or as its two-letter spelling ("Grün", "Gruen")."""
    spots = [i for i, ch in enumerate(name) if ch in _UMLAUTS][:6]
    out = set()
    for choice in itertools.product((False, True), repeat=len(spots)):
        chars = list(name)
        for i, two in zip(spots, choice, strict=True):
            chars[i] = _UMLAUTS[name[i]] if two else name[i]
        out.add("".join(chars))
    return out


# ---- reading ----------------------------------------------------------------------------
@dataclass
class Reading:
    """What an answer names, read for one type: the values (with where they stand) and the
    tokens that count as other values (``strays``); ``vague``: vague quantities (counts)."""

    values: list[Span]
    strays: list[Span]
    vague: list[Span] = field(default_factory=list)
    text: str = ""
    inert: list[Span] = field(default_factory=list)  # dates, times, addresses that are not values here

    @property
    def said(self) -> list[str]:
        return list(dict.fromkeys(s.value for s in sorted(self.values + self.strays, key=lambda s: s.start)))


def read(typ: AnswerType, answer: str) -> Reading:
    """Read ``answer`` (raw) as the judge does for ``typ``."""
    t = normalise(answer)
    return _READERS[typ.kind](typ, t)


def _read_number(typ: AnswerType, t: str) -> Reading:
    inert = av.emails(t) + [s for s, _ in av.dates(t)] + av.times(t)
    if typ.label != "amount":  # a count: "12 products cost less than £23" names one count
        inert += av.money(av.mask(t, inert))
    t2 = av.mask(t, inert)
    inert2 = [s for s in av.partial_dates(t2) if re.fullmatch(r"\d{4}-\d{2}", s.value)]  # April 2026
    return Reading(av.numbers(av.mask(t2, inert2)), [], av.vague_counts(t2), t, inert + inert2)


def _read_date(typ: AnswerType, t: str) -> Reading:
    inert = av.emails(t) + av.times(t)
    t1 = av.mask(t, inert)
    found = av.dates(t1)
    values = [Span(s.start, s.end, v) for s, vals in found for v in vals]
    t2 = av.mask(t1, [s for s, _ in found])
    partial = av.partial_dates(t2)
    strays = partial + av.numbers(av.mask(t2, partial), zero_words=False, lookalikes=False)
    days = {dt.date.fromisoformat(v.value).strftime("%A").lower() for v in values
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v.value)}
    strays += [w for w in av.weekdays(t2) if w.value not in days]
    return Reading(values, strays, [], t, inert)


_FRAGMENT = re.compile(r"(?<![a-z0-9])[a-z0-9]+(?:[-_][a-z0-9]+)*(?![a-z0-9])", re.IGNORECASE)


def _read_code(typ: AnswerType, t: str) -> Reading:
    inert = av.emails(t) + [s for s, _ in av.dates(t)] + av.times(t)
    t1 = av.mask(t, inert)
    inert += av.partial_dates(t1)
    t1 = av.mask(t1, inert)
    values = []
    for m in typ._code_re.finditer(t1):
        values.append(Span(m.start(), m.end(), f"{typ.prefix}{typ.sep}{next(g for g in m.groups() if g)}".upper()))
    t2 = av.mask(t1, values)
    for m in typ._body_re.finditer(t2):
        values.append(Span(m.start(), m.end(), f"{typ.prefix}{typ.sep}{m.group(0)}".upper()))
    t3 = av.mask(t2, values)
    strays = [Span(m.start(), m.end(), m.group(0).upper()) for m in _FRAGMENT.finditer(t3)
              if re.search(r"\d", m.group(0))]
    return Reading(sorted(values, key=lambda s: s.start), strays, [], t, inert)


def _read_email(typ: AnswerType, t: str) -> Reading:
    values = av.emails(t)
    own = {p for v in values for p in (v.value, *v.value.split("@"))}
    strays = [h for h in av.handles(av.mask(t, values)) if h.value not in own]
    return Reading(values, strays, [], t)


def _read_name(typ: AnswerType, t: str) -> Reading:
    t1 = typ._context_re.sub(lambda m: " " * len(m.group(0)), t) if typ._context_re is not None else t
    rx, forms = typ._names
    values = [Span(m.start(), m.end(), forms[re.sub(r"\s+", " ", re.sub(r",\s*", ", ", m.group(0).casefold()))])
              for m in rx.finditer(t1)]
    t2 = av.mask(t1, values)
    if typ._initial_re is not None:
        for m in typ._initial_re.finditer(t2):
            initial, last = ((m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3)))
            fits = [c for c in typ._people[last.casefold()] if c.startswith(initial.casefold())]
            values += [Span(m.start(), m.end(), c) for c in fits] or \
                [Span(m.start(), m.end(), f"{initial.casefold()}. {last.casefold()}")]
        t2 = av.mask(t2, values)
    own = {w for v in values for w in v.value.split()}
    strays = [Span(m.start(), m.end(), m.group(0).casefold()) for m in typ._part_re.finditer(t2)
              if m.group(0).casefold() not in own] if typ._part_re is not None else []
    return Reading(sorted(values, key=lambda s: s.start), strays, [], t1)


def _read_text(typ: AnswerType, t: str) -> Reading:
    norm = t.casefold().strip(".,;:!?'\"` ")
    return Reading([Span(0, len(t), norm)] if norm else [], [], [], t)


_READERS = {"number": _read_number, "date": _read_date, "code": _read_code, "email": _read_email,
            "name": _read_name, "text": _read_text}


def extract(typ: AnswerType, text: str) -> list[str]:
    """Every value of ``typ`` (and piece of one) that ``text`` names, normalised, in order (duplicates kept)."""
    r = read(typ, text)
    return [s.value for s in sorted(r.values + r.strays, key=lambda s: s.start)]


def _infer(expected: Any) -> AnswerType:
    """The type of an undeclared answer, read from the expected value (declare one instead)."""
    s = str(expected).strip()
    if re.fullmatch(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?", s):
        return COUNT
    if re.fullmatch(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", s):
        return EMAIL
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        return DATE
    m = re.fullmatch(r"([A-Za-z]{1,4})([-_])([A-Za-z0-9]+)", s)
    if m and re.search(r"\d", m.group(3)):
        body = rf"\d{{{len(m.group(3))}}}" if m.group(3).isdigit() else rf"[A-Za-z0-9]{{{len(m.group(3))}}}"
        return code(m.group(1), body, sep=m.group(2))
    return TEXT


# ---- judging ----------------------------------------------------------------------------
def with_answer(state: dict[str, Any], answer: str | None) -> dict[str, Any]:
    """``state`` plus the agent's answer as the :data:`ANSWER_TABLE` pseudo-table."""
    return {**state, ANSWER_TABLE: [{"text": answer}]}


def answer_of(state: dict[str, Any]) -> Any:
    """The agent's answer as stored: text, None, or (from a broken adapter) anything else, which the judge refuses."""
    rows = state.get(ANSWER_TABLE) or []
    return rows[-1].get("text") if rows else None


def _expected_values(typ: AnswerType, expected: Any) -> list[str]:
    if typ.many:  # a set: a list of values, or one text naming them all
        items = [expected] if isinstance(expected, str) else list(expected)
        out = [v for item in items for v in extract(typ, str(item))]
        if not out:
            raise ValueError(f"expected answer {expected!r} names no {typ.what}; declare the right answer type")
        return list(dict.fromkeys(out))
    vals = list(dict.fromkeys(extract(typ, str(expected))))
    if len(vals) != 1:
        raise ValueError(f"expected answer {expected!r} is not one {typ.what} ({vals}); declare the right answer type")
    return vals


def _loose(r: Reading, typ: AnswerType) -> str | None:
    """Why the answer does not commit (a qualifier, an alternative, a vague count), or None."""
    quantities = typ.kind in ("number", "date", "code")
    for s in r.values:
        if (q := av.qualified(r.text, s, quantities)) is not None:
            return f"qualifies its {typ.what} ({q!r})" if quantities and q not in ("or", "/", "nor", "vs", "versus") \
                else f"offers an alternative ({q!r})"
    if (q := av.offers_alternative(av.mask(r.text, r.values + r.inert))) is not None:
        return f"offers an alternative ({q!r})"
    if r.vague:
        return f"gives a vague {typ.what} ({r.vague[0].value!r})"
    if typ.many and (q := av.open_list(r.text)) is not None:
        return f"leaves its list open ({q!r})"
    return None


def judge_answer(typ: AnswerType | None, expected: Any, got: Any) -> list[str]:
    """[] when ``got`` commits to the expected value of type ``typ``, else the errors (each says why)."""
    typ = typ or _infer(expected)
    want = _expected_values(typ, expected)
    if got is None:
        return [f"no answer given; expected {expected!r} via done(answer)"]
    if not isinstance(got, str):
        return [f"the answer is not text ({type(got).__name__}); answer with one string"]
    shown = got[:80]
    t = normalise(got)
    if odd := foreign_letters(t, typ._letters):
        return [f"answer {shown!r} uses letters the judge cannot read ({''.join(odd[:5])}); "
                "write it in Latin letters and digits"]
    r = _READERS[typ.kind](typ, t)
    said = r.said
    if not said:
        return [f"answer {shown!r} states no {typ.what}; expected {expected!r}"]
    if typ.many:
        errs = [f"the answer misses the {typ.what} {w!r}" for w in want if w not in said]
        extra = [s for s in said if s not in want]
        if extra:
            errs.append(f"the answer also names {', '.join(extra[:5])}, not asked for "
                        f"(name exactly the expected {typ.what}s)")
        if not errs and (why := _loose(r, typ)):
            errs.append(f"answer {shown!r} {why}; name exactly the expected {typ.whats}")
        return errs
    if len(said) > 1:
        return [f"answer {shown!r} names {len(said)} different {typ.whats} ({', '.join(said[:6])}"
                f"{', ...' if len(said) > 6 else ''}); an answer must commit to one value"]
    if why := _loose(r, typ):
        return [f"answer {shown!r} {why}; an answer must commit to one exact value"]
    if said[0] != want[0]:
        return [f"answer {shown!r} does not match the expected {expected!r}"]
    return []


def answer_matches(expected: Any, got: str | None, typ: AnswerType | None = None) -> bool:
    return not judge_answer(typ, expected, got)


def check_answer(state: dict[str, Any], expected: Any, typ: AnswerType | None = None) -> list[str]:
    """[] when the agent's answer commits to ``expected`` (of type ``typ``), else one error naming what was wrong."""
    return judge_answer(typ, expected, answer_of(state))
