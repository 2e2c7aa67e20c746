"""Sentences with agreement: a small grammar for generated content (issue titles, wiki prose, replies).

Generated text used to be slot-filling ("{area} {symptom}"), which breaks as soon as a slot's
number changes: "Time zones crashes on empty input". Here a sentence is built from parts that
carry their grammatical features, and the verb is inflected for its subject:

- a :class:`Noun` phrase knows its number (``"sg"`` or ``"pl"``);
- a :class:`Verb` knows its forms (regular morphology, irregular forms given);
- :func:`predicate` inflects a verb for a number and a :data:`Tense` (present, past, perfect,
  progressive, a modal), positive or negative; :func:`clause` puts subject and predicate together.

:func:`agreement_errors` is the independent check: a rule set that reads a finished sentence
without knowing how it was made and reports every subject-verb disagreement it finds. The rules:

1. The text is cut into sentences after ".", "?" and "!"; a question is not judged (its verb
   comes before its subject). Each sentence is cut into clauses at subordinating words
   (:data:`SUBORDINATORS`: "when", "if", "while", "because", "once", "until", "whenever",
   "although", "where", "so"), at semicolons and at colons.
2. In a clause, the finite verb is the first word that is an auxiliary or modal
   (:data:`AUXILIARIES`, :data:`MODALS`) or a present or past form of a verb of :data:`VERBS`.
   A word right after "to" is an infinitive, not finite. The subject is every word before it.
   A clause with no such word, or with no subject, is not judged (a "since last Tuesday's
   deploy" phrase has no verb).
3. The subject's head is its last word before the first preposition (:data:`PREPOSITIONS`;
   "Login form in Glorbex" has the head "form"). A subject joined with "and" is plural.
4. The head's number: a word of :data:`IRREGULAR_NOUNS` has its listed number; a capitalised
   word that does not open the sentence is a proper name, singular; a word ending in "s" but
   not in "ss", "us" or "is" is plural; every other word is singular. Digits before the head
   ("3 districts") do not change it.
5. Agreement: "is", "was", "has", "does" and a verb's "-s" form need a singular subject;
   "are", "were", "have", "do" and a verb's bare present form need a plural one. Past forms
   and modals agree with both.
6. Tense: after "has"/"have" comes a past participle; after a modal, "do", "does", "did" (with
   or without "not") comes a bare form; after "is"/"are"/"was"/"were" a verb of :data:`VERBS`
   is in its "-ing" form or its past participle.

The rule set knows the verbs of :data:`VERBS` (which word is a verb), never which noun the
generator chose nor the number it gave it, so a generator that tags "zones" singular is caught.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["AUXILIARIES", "IRREGULAR_NOUNS", "MODALS", "PREPOSITIONS", "SUBORDINATORS", "VERBS", "Noun", "Number",
           "Tense", "Verb", "agreement_errors", "clause", "join", "predicate", "sentence"]

Number = Literal["sg", "pl"]
Tense = Literal["present", "past", "perfect", "progressive", "modal"]


def _third(base: str) -> str:
    if base.endswith(("s", "x", "z", "ch", "sh", "o")):
        return base + "es"
    if len(base) > 1 and base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ies"
    return base + "s"


def _past(base: str) -> str:
    if base.endswith("e"):
        return base + "d"
    if len(base) > 1 and base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ied"
    return base + "ed"


def _ing(base: str) -> str:
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        return base[:-1] + "ing"
    return base + "ing"


@dataclass(frozen=True)
class Verb:
    """A verb by its bare form; irregular forms are given, the rest follow English's regular rules
    (a doubled consonant is given as an irregular form: ``Verb("stop", past="stopped", ing="stopping")``)."""

    base: str
    third_: str | None = None
    past_: str | None = None
    participle_: str | None = None
    ing_: str | None = None

    @property
    def head(self) -> str:
        """The verb without its particle ("time" of "time out")."""
        return self.base.split(" ", 1)[0]

    @property
    def particle(self) -> str:
        """" out" of "time out", "" for a verb without one."""
        return self.base[len(self.head):]

    @property
    def third(self) -> str:
        return (self.third_ or _third(self.head)) + self.particle

    @property
    def past(self) -> str:
        return (self.past_ or _past(self.head)) + self.particle

    @property
    def participle(self) -> str:
        return (self.participle_ or self.past_ or _past(self.head)) + self.particle

    @property
    def ing(self) -> str:
        return (self.ing_ or _ing(self.head)) + self.particle


def _v(base: str, past: str | None = None, participle: str | None = None, ing: str | None = None) -> Verb:
    return Verb(base, past_=past, participle_=participle, ing_=ing)


# every verb the generators use (and so every verb the checker recognises); nouns the generators use as
# subject heads must not be among these forms (tests/arena/test_grammar.py checks it)
VERBS: dict[str, Verb] = {v.base: v for v in (
    _v("fail"), _v("crash"), _v("hang", "hung"), _v("show", participle="shown"), _v("drop", "dropped", ing="dropping"),
    _v("ignore"), _v("lose", "lost"), _v("break", "broke", "broken"), _v("stall"), _v("stop", "stopped",
                                                                                          ing="stopping"),
    _v("leak"), _v("corrupt"), _v("delete"), _v("block"), _v("return"), _v("reject"), _v("freeze", "froze", "frozen"),
    _v("send", "sent"), _v("accept"), _v("render"), _v("mangle"), _v("duplicate"), _v("skip", "skipped",
                                                                                      ing="skipping"),
    _v("load"), _v("need"), _v("support"), _v("remember"), _v("offer"),
    _v("keep", "kept"), _v("take", "took", "taken"), _v("lie", "lay", "lain", "lying"), _v("grow", "grew", "grown"),
    _v("stand", "stood"), _v("run", "ran", "run", "running"), _v("employ"), _v("include"), _v("border"),
    _v("rise", "rose", "risen"), _v("flow"), _v("serve"), _v("hold", "held"), _v("draw", "drew", "drawn"),
    _v("confirm"), _v("see", "saw", "seen"), _v("look"), _v("pass"), _v("land"), _v("apply"),
    _v("attach"), _v("reproduce"), _v("point"), _v("affect"), _v("appear"),
    _v("trigger", "triggered"), _v("miss"),
    _v("reach"), _v("join"), _v("attract"), _v("host"), _v("produce"), _v("cross"), _v("become", "became", "become"),
    _v("make", "made"), _v("build", "built"), _v("replace"), _v("work"), _v("mention"),
    _v("expose"), _v("use"), _v("contain"), _v("edit"), _v("expire"), _v("switch"), _v("strip", "stripped",
                                                                                       ing="stripping"),
    _v("restore"), _v("exceed"), _v("restart"), _v("destroy"), _v("damage"), _v("stretch"), _v("flood"),
)}
AUXILIARIES = {"is": "sg", "was": "sg", "has": "sg", "does": "sg", "are": "pl", "were": "pl", "have": "pl",
               "do": "pl", "did": None}
MODALS = ("can", "could", "should", "would", "will", "might", "must", "may")
PREPOSITIONS = ("in", "of", "on", "for", "with", "from", "to", "under", "behind", "at", "by", "near", "along")
SUBORDINATORS = ("when", "if", "while", "because", "once", "until", "whenever", "although", "where", "so")
IRREGULAR_NOUNS: dict[str, Number] = {
    "people": "pl", "children": "pl", "men": "pl", "women": "pl", "staff": "pl", "data": "pl", "news": "sg",
    "series": "sg", "status": "sg", "alias": "sg", "bus": "sg", "canvas": "sg", "chassis": "sg", "analysis": "sg",
    "settings": "pl", "everyone": "sg", "nobody": "sg", "it": "sg", "this": "sg", "that": "sg", "they": "pl",
    "we": "pl", "i": "pl", "you": "pl", "he": "sg", "she": "sg", "one": "sg", "none": "sg", "each": "sg",
}


@dataclass(frozen=True)
class Noun:
    """A noun phrase and its grammatical number ("Saved queries" is plural, "Login form" singular)."""

    text: str
    number: Number = "sg"


def predicate(verb: Verb | str, number: Number, tense: Tense = "present", rest: str = "", *, negative: bool = False,
              modal: str = "should") -> str:
    """The verb inflected for a subject of ``number`` in ``tense`` (``rest``: object and adjuncts).

    ``verb`` "be" is the copula ("is", "was", "has been", "is being" is not made)."""
    v = VERBS[verb] if isinstance(verb, str) and verb != "be" else verb
    sg = number == "sg"
    neg = " not" if negative else ""
    if v == "be":
        words = {"present": ("is" if sg else "are") + neg, "past": ("was" if sg else "were") + neg,
                 "perfect": f"{'has' if sg else 'have'}{neg} been", "progressive": ("is" if sg else "are") + neg,
                 "modal": f"{modal}{neg} be"}[tense]
    else:
        assert isinstance(v, Verb)
        if tense == "present":
            words = f"{'does' if sg else 'do'} not {v.base}" if negative else (v.third if sg else v.base)
        elif tense == "past":
            words = f"did not {v.base}" if negative else v.past
        elif tense == "perfect":
            words = f"{'has' if sg else 'have'}{neg} {v.participle}"
        elif tense == "progressive":
            words = f"{'is' if sg else 'are'}{neg} {v.ing}"
        else:
            words = f"{modal}{neg} {v.base}"
    return f"{words} {rest}".strip()


def clause(subject: Noun, verb: Verb | str, tense: Tense = "present", rest: str = "", **kw: object) -> str:
    """Subject and its predicate: ``clause(Noun("Time zones", "pl"), "crash")`` is "Time zones crash"."""
    return f"{subject.text} {predicate(verb, subject.number, tense, rest, **kw)}"  # type: ignore[arg-type]


def sentence(*parts: str) -> str:
    """Parts joined by spaces, the first letter capitalised, a full stop added unless one ends it."""
    s = " ".join(p.strip() for p in parts if p.strip())
    s = s[:1].upper() + s[1:]
    return s if s.endswith((".", "?", "!", ":")) else s + "."


def join(items: list[str] | tuple[str, ...], conj: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conj} {items[-1]}"


# ---- the checker (rule set in the module doc) ----

def _forms() -> tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, str], dict[str, str]]:
    third: dict[str, str] = {}
    bare: dict[str, str] = {}
    past: dict[str, str] = {}
    part: dict[str, str] = {}
    ing: dict[str, str] = {}
    for v in VERBS.values():  # a phrasal verb ("time out") is judged by its first word
        n = len(v.particle)
        forms = (v.third[:len(v.third) - n], v.head, v.past[:len(v.past) - n], v.participle[:len(v.participle) - n],
                 v.ing[:len(v.ing) - n])
        for table, form in zip((third, bare, past, part, ing), forms, strict=True):
            table[form] = v.base
    return third, bare, past, part, ing


_THIRD, _BARE, _PAST, _PART, _ING = _forms()
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d,.]*")


def _number_of(word: str, initial: bool) -> Number:
    low = word.lower()
    if low in IRREGULAR_NOUNS:
        return IRREGULAR_NOUNS[low]
    if word[:1].isupper() and not initial:
        return "sg"
    if low.endswith("s") and not low.endswith(("ss", "us", "is", "'s", "’s")):
        return "pl"
    return "sg"


def _finite(tok: str) -> str | None:
    """What kind of finite verb ``tok`` is: "aux", "modal", "third", "bare", "past", or None."""
    if tok in AUXILIARIES:
        return "aux"
    if tok in MODALS:
        return "modal"
    if tok in _THIRD:
        return "third"
    if tok in _PAST:
        return "past"
    if tok in _BARE:
        return "bare"
    return None


def agreement_errors(text: str) -> list[str]:
    """Every subject-verb agreement or tense-form error the rule set (module doc) finds in ``text``."""
    errs: list[str] = []
    for sent in re.split(r"(?<=[.?!])\s+", text.strip()):
        if not sent.rstrip().endswith("?"):
            errs += _sentence_errors(sent)
    return errs


def _sentence_errors(text: str) -> list[str]:
    errs: list[str] = []
    chunks = re.split(rf"[;:]|\b(?:{'|'.join(SUBORDINATORS)})\b", text, flags=re.IGNORECASE)
    first_chunk = True
    for chunk in chunks:
        words = _WORD.findall(chunk or "")
        opens = first_chunk  # this clause opens the sentence: its first word is capitalised anyway
        first_chunk = False
        toks = [w.lower() for w in words]
        k = next((i for i, t in enumerate(toks) if _finite(t) and i > 0 and toks[i - 1] != "to"), None)
        if k is None:
            continue
        subject = words[:k]
        if any(t == "and" for t in toks[:k]):
            number: Number = "pl"
        else:
            cut = next((i for i, t in enumerate(toks[:k]) if t in PREPOSITIONS and i > 0), k)
            head = subject[cut - 1]
            if head[:1].isdigit():
                continue
            number = _number_of(head, opens and cut == 1)
        verb, kind = toks[k], _finite(toks[k])
        need: str | None = None
        if kind == "aux":
            need = AUXILIARIES[verb]
        elif kind == "third" and verb not in _PAST:
            need = "sg"
        elif kind == "bare" and verb not in _PAST:
            need = "pl"
        if need and need != number:
            errs.append(f"{' '.join(subject)!r} is {'singular' if number == 'sg' else 'plural'} but {verb!r} "
                        f"wants a {'singular' if need == 'sg' else 'plural'} subject")
        nxt = [t for t in toks[k + 1:k + 3] if t != "not"][:1]
        if not nxt:
            continue
        after = nxt[0]
        if verb in ("has", "have") and (after in _BARE or after in _THIRD or after in _ING) and after not in _PART:
            errs.append(f"{verb!r} is followed by {after!r}, not a past participle")
        elif (kind == "modal" or verb in ("do", "does", "did")) and (after in _THIRD or after in _ING
                                                                    or (after in _PAST and after not in _BARE)):
            errs.append(f"{verb!r} is followed by {after!r}, not a bare form")
        elif verb in ("is", "are", "was", "were") and (after in _THIRD or (after in _BARE and after not in _PART)):
            errs.append(f"{verb!r} is followed by {after!r}, not an -ing form or a participle")
    return errs
