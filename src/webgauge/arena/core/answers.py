"""Judging ``done(answer)``: the agent's answer is part of the judged state, and it must commit.

The episode adds the agent's final answer to the state it hands the validator, as the
one-row pseudo-table :data:`ANSWER_TABLE` (``[{"text": <answer or None>}]``). A task that
asks a question reads it there with :func:`check_answer`, next to any state change it
also needs, so "state plus answer" tasks have one validator and the untouched seed (no
answer at all) always fails.

Every answer-judged family declares the **type** of its answer (:class:`AnswerType`: a
count or amount, a code of a known shape, an email address, a date, a name out of the
names that exist in the task's world, or a set of those). The judge extracts every value
of that type from the answer and the answer must name **exactly one distinct value** (a
set type: exactly the expected set), whatever its length:

- ``"It is CC-1022."`` passes; ``"CC-1022 or CC-1023"`` fails ("names 2 different codes");
- a count answer is read for digits, number words and roman numerals, so ``"0 1 2 3 4 5"``,
  ``"between 3 and 5"``, ``"3-5"``, ``"three or 4"`` and ``"5 (or VI)"`` all fail, while
  ``"173 days"`` passes (dates and clock times in the answer are not counts);
- a name answer fails when it mentions two or more names of the world's candidate set
  (longest match wins, so ``"Dana Parkson"`` is not also ``"Dana Park"``), or another
  candidate's first or last name (``"Paloma Holm or Ada"``).

Case, whitespace and surrounding punctuation never matter; numbers compare as numbers
(``"173"`` = ``"173.0"``, ``"1,730"`` = ``1730``). A task without a declared type gets one
inferred from its expected value (a plain text must then match exactly).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

__all__ = ["ANSWER_TABLE", "AnswerType", "COUNT", "AMOUNT", "EMAIL", "DATE", "TEXT", "code", "names",
           "answer_of", "answer_matches", "check_answer", "judge_answer", "extract", "with_answer"]

ANSWER_TABLE = "agent_answer"
KINDS = ("number", "code", "email", "date", "name", "text")


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

    @cached_property
    def _code_re(self) -> re.Pattern[str]:
        # PREFIX-BODY or PREFIX_BODY (any body), PREFIX BODY or PREFIXBODY (a body holding a digit, so
        # "as shown" is no AS code), or a bare body holding a digit
        p = re.escape(self.prefix)
        return re.compile(rf"(?<![\w]){p}(?:[-_]([A-Za-z0-9]+)| ?((?=[A-Za-z]*\d)[A-Za-z0-9]+))(?![\w])"
                          rf"|(?<![\w-])(?=[A-Za-z]*\d)({self.body})(?![\w-])", re.IGNORECASE)

    @cached_property
    def _name_re(self) -> re.Pattern[str]:
        alts = sorted({c.strip() for c in self.candidates if c.strip()}, key=len, reverse=True)
        return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(a) for a in alts) + r")(?!\w)", re.IGNORECASE)

    @cached_property
    def _context_re(self) -> re.Pattern[str] | None:
        own = {c.strip().casefold() for c in self.candidates}
        alts = sorted({c.strip() for c in self.context if c.strip() and c.strip().casefold() not in own},
                      key=len, reverse=True)
        return re.compile(r"(?<![\w.@])(?:" + "|".join(re.escape(a) for a in alts) + r")(?![\w@])",
                          re.IGNORECASE) if alts else None

    @cached_property
    def _part_re(self) -> re.Pattern[str] | None:
        """First and last names of the multi-word candidates ("Ada" of "Ada Dalton")."""
        parts = sorted({w for c in self.candidates if " " in c.strip() for w in c.split() if len(w) >= 3},
                       key=len, reverse=True)
        return re.compile(r"(?<![\w.@])(?:" + "|".join(re.escape(p) for p in parts) + r")(?![\w@]|\.\w)",
                          re.IGNORECASE) if parts else None


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

# ---- extraction -------------------------------------------------------------------------
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_NUM_DATE = re.compile(r"(?<![\d.])(\d{1,2})[./](\d{1,2})[./](\d{4})(?!\d)")  # read day first (31.12.2026)
_TIME = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)")
_MONTHS = {m.lower(): i for i, m in enumerate(("January", "February", "March", "April", "May", "June", "July",
                                               "August", "September", "October", "November", "December"), 1)}
_MON = "|".join(sorted({*_MONTHS, *(m[:3] for m in _MONTHS)}, key=len, reverse=True))
_DMY = re.compile(rf"(?<!\w)(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MON})\.?,?\s+(\d{{4}})(?!\d)", re.IGNORECASE)
_MDY = re.compile(rf"(?<!\w)({_MON})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_UNITS = {w: i for i, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"))}
_TENS = {w: 10 * i for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                                          "ninety"), 2)}
# roman numerals: "IV", "XII", "V"; a lone "I" only at a clause's end ("5 (or I)"), never the pronoun
_ROMAN = re.compile(r"(?<![\w-])(?=[MDCLXVI]{2,}(?![\w-])|[VX](?![\w-])|I\s*(?:[).,;:!?]|$))"
                    r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})(?![\w-])")
_WORD = "|".join(sorted([*_TENS, *_UNITS, "hundred", "thousand", "none", "and"], key=len, reverse=True))
_WORD_NUM = re.compile(rf"(?<!\w)(?:{_WORD})(?:[\s-]+(?:{_WORD}))*(?!\w)", re.IGNORECASE)


def _month(name: str) -> int:
    return _MONTHS.get(name.lower()) or next(i for m, i in _MONTHS.items() if m[:3] == name[:3].lower())


def _iso(y: str, m: int | str, d: str) -> str | None:
    try:
        return dt.date(int(y), int(m), int(d)).isoformat()
    except ValueError:
        return None


def _dates(text: str) -> list[str]:
    out = [_iso(*m.groups()) for m in _ISO_DATE.finditer(text)]
    out += [_iso(m.group(3), _month(m.group(2)), m.group(1)) for m in _DMY.finditer(text)]
    out += [_iso(m.group(3), m.group(2), m.group(1)) or _iso(m.group(3), m.group(1), m.group(2))
            for m in _NUM_DATE.finditer(text)]
    out += [_iso(m.group(3), _month(m.group(1)), m.group(2)) for m in _MDY.finditer(text)]
    return [d for d in out if d]


def _word_values(run: str) -> list[float]:
    """The numbers a run of number words spells: "twenty one" is 21, "three four" is 3 and 4."""
    out: list[float] = []
    cur, last = None, ""
    for w in (w for w in re.split(r"[\s-]+", run.lower()) if w):
        if w == "none":
            out += [] if cur is None else [cur]
            cur, last = 0, "unit"
        elif w == "and":
            continue
        elif w in _UNITS:
            if cur is not None and not (last == "tens" or last == "hundred"):
                out.append(cur)
                cur = None
            cur, last = (cur or 0) + _UNITS[w], "unit"
        elif w in _TENS:
            if cur is not None and last != "hundred":
                out.append(cur)
                cur = None
            cur, last = (cur or 0) + _TENS[w], "tens"
        elif w == "hundred":
            cur, last = (1 if cur is None else cur) * 100, "hundred"
        elif w == "thousand":
            cur, last = (1 if cur is None else cur) * 1000, "hundred"
    return out + ([] if cur is None else [cur])


def _numbers(text: str) -> list[float]:
    text = _TIME.sub(" ", _DMY.sub(" ", _MDY.sub(" ", _NUM_DATE.sub(" ", _ISO_DATE.sub(" ", text)))))
    out = [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]
    out += [float(_roman(m.group(0))) for m in _ROMAN.finditer(text)]
    for m in _WORD_NUM.finditer(text):
        out += [float(v) for v in _word_values(m.group(0))]
    return out


def extract(typ: AnswerType, text: str) -> list[str]:
    """Every value of ``typ`` in ``text``, normalised (duplicates kept, in order)."""
    if typ.kind == "number":
        return [_fmt(v) for v in _numbers(text)]
    if typ.kind == "date":
        return _dates(text)
    if typ.kind == "email":
        return [e.casefold().strip(".") for e in _EMAIL.findall(text)]
    if typ.kind == "code":
        stripped = _TIME.sub(" ", _NUM_DATE.sub(" ", _ISO_DATE.sub(" ", text)))
        return [f"{typ.prefix}{typ.sep}{next(g for g in m.groups() if g)}".upper()
                for m in typ._code_re.finditer(stripped)]
    if typ.kind == "name":
        return _names(typ, text)
    norm = _norm(text)
    return [norm] if norm else []


def _names(typ: AnswerType, text: str) -> list[str]:
    """Full names of the candidate set, then any first or last name of a candidate that stands
    outside them and is not part of a name already named ("Paloma Holm or Ada" names two)."""
    if typ._context_re is not None:
        text = typ._context_re.sub(" ", text)
    full = list(typ._name_re.finditer(text))
    out = [m.group(0).casefold() for m in full]
    if typ._part_re is not None:
        own = {w.casefold() for m in full for w in m.group(0).split()}
        rest = typ._name_re.sub(" ", text)
        out += [w for w in (m.group(0).casefold() for m in typ._part_re.finditer(rest)) if w not in own]
    return out


def _roman(token: str) -> int:
    vals, total = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}, 0
    for a, b in zip(token, token[1:] + " ", strict=False):
        total += -vals[a] if vals.get(b, 0) > vals[a] else vals[a]
    return total


def _fmt(v: float) -> str:
    return str(int(v)) if v == int(v) else repr(v)


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.casefold()).strip().strip(".,;:!?'\"` ")


def _infer(expected: Any) -> AnswerType:
    """The type of an undeclared answer, read from the expected value (declare one instead)."""
    s = str(expected).strip()
    if _NUMBER.fullmatch(s.replace(",", "")) or _NUMBER.fullmatch(s):
        return COUNT
    if _EMAIL.fullmatch(s):
        return EMAIL
    if _ISO_DATE.fullmatch(s):
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


def answer_of(state: dict[str, Any]) -> str | None:
    rows = state.get(ANSWER_TABLE) or []
    return rows[-1].get("text") if rows else None


def _expected_values(typ: AnswerType, expected: Any) -> list[str]:
    if typ.many:  # a set: a list of values, or one text naming them all
        items = [expected] if isinstance(expected, str) else list(expected)
        out = [v for item in items for v in extract(typ, str(item))]
        if not out:
            raise ValueError(f"expected answer {expected!r} names no {typ.what}; declare the right answer type")
        return list(dict.fromkeys(out))
    items, out = [expected], []
    for item in items:
        vals = list(dict.fromkeys(extract(typ, str(item))))
        if len(vals) != 1:
            raise ValueError(f"expected answer {item!r} is not one {typ.what} ({vals}); declare the right answer type")
        out.append(vals[0])
    return out


#: Words that turn a number or date into a range or an estimate ("5 ± 5", "at least 3", "12 or so",
#: "before 2021"): such an answer commits to no single value even when it names only the right one.
_APPROX = re.compile(
    r"±|\+\s*/\s*-|\+-(?=\s*\d)|\bplus or minus\b|\bat (?:least|most|the (?:least|most))\b|"
    r"\b(?:more|fewer|less|greater|higher|lower) than\b|\bup to\b|\bor (?:so|more|fewer|less|thereabouts)\b|"
    r"\b(?:approx(?:imately|\.)?|roughly|around|about|nearly|almost|circa|ca\.|some|over|under|"
    r"before|after|no later than|no earlier than)\s+(?=\d)|~\s*(?=\d)|[<>≤≥]\s*=?\s*(?=\d)|"
    r"\b\d+\s*\+(?!\s*\d)",
    re.IGNORECASE)


def judge_answer(typ: AnswerType | None, expected: Any, got: str | None) -> list[str]:
    """[] when ``got`` commits to the expected value of type ``typ``, else the errors (each says why)."""
    typ = typ or _infer(expected)
    want = _expected_values(typ, expected)
    if got is None:
        return [f"no answer given; expected {expected!r} via done(answer)"]
    said = list(dict.fromkeys(extract(typ, str(got))))
    shown = str(got)[:80]
    if not said:
        return [f"answer {shown!r} states no {typ.what}; expected {expected!r}"]
    if typ.many:
        errs = [f"the answer misses the {typ.what} {w!r}" for w in dict.fromkeys(want) if w not in said]
        extra = [s for s in said if s not in want]
        if extra:
            errs.append(f"the answer also names {', '.join(extra[:5])}, not asked for "
                        f"(name exactly the expected {typ.what}s)")
        return errs
    if typ.kind in ("number", "date") and (q := _APPROX.search(str(got))):
        return [f"answer {shown!r} qualifies its {typ.what} ({q.group(0).strip()!r}); an answer must commit to "
                "one exact value"]
    if len(said) > 1:
        return [f"answer {shown!r} names {len(said)} different {typ.what}s ({', '.join(said[:6])}"
                f"{', ...' if len(said) > 6 else ''}); an answer must commit to one value"]
    if said[0] != want[0]:
        return [f"answer {shown!r} does not match the expected {expected!r}"]
    return []


def answer_matches(expected: Any, got: str | None, typ: AnswerType | None = None) -> bool:
    return not judge_answer(typ, expected, got)


def check_answer(state: dict[str, Any], expected: Any, typ: AnswerType | None = None) -> list[str]:
    """[] when the agent's answer commits to ``expected`` (of type ``typ``), else one error naming what was wrong."""
    return judge_answer(typ, expected, answer_of(state))
