"""The answer judge's rule as properties over the whole input space, beside two fixed corpora.

(b) an answer naming two distinct values of its type, each in any spelling the judge reads
    (digits of any script, words, ordinals, roman, circled, superscript, full-width; dates in
    any format; codes in any case and separator; names in any order, case, accent and
    whitespace), joined by any connective, fails; so does the truth alone with a qualifier;
(c) the truth in any natural spelling, inside any of the sentence frames, passes.

The corpora (``data/answers_natural.jsonl``, ``data/answers_hedges.jsonl``) were written once
by ``data/write_answer_corpora.py``; each line carries its expected verdict.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import unicodedata
from collections import Counter
from pathlib import Path

import answer_forms as af
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from webgauge.arena.core.answer_text import normalise
from webgauge.arena.core.answers import (
    COUNT,
    DATE,
    EMAIL,
    AnswerType,
    check_answer,
    code,
    extract,
    judge_answer,
    names,
    with_answer,
)

DATA = Path(__file__).parent / "data"
MANY = settings(max_examples=150)
WORLDS = settings(max_examples=60)  # each example builds a new world's name readers

# ---- the corpora -------------------------------------------------------------------------


def _corpus(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def types() -> dict[str, AnswerType]:
    return {k: AnswerType.from_dict(v) for k, v in json.loads((DATA / "answer_types.json").read_text()).items()}


@pytest.mark.parametrize("name,expect", [("answers_natural.jsonl", "pass"), ("answers_hedges.jsonl", "fail")])
def test_corpus_has_fifty_forms_per_answer_type_and_every_verdict_holds(types, name, expect):
    rows = _corpus(name)
    per_type = Counter(r["type"] for r in rows)
    assert set(per_type) == set(types) and min(per_type.values()) >= 50, per_type
    assert {r["expect"] for r in rows} == {expect}
    wrong = [(r["type"], r["truth"], r["answer"], judge_answer(types[r["type"]], r["truth"], r["answer"]))
             for r in rows if (not judge_answer(types[r["type"]], r["truth"], r["answer"])) != (expect == "pass")]
    assert not wrong, f"{len(wrong)} of {len(rows)} {name} judged wrong, e.g. {wrong[:5]}"


def test_the_issue_cases_are_in_the_corpora():
    """The answers the judge once got wrong stay in the corpora, with their verdicts."""
    natural = {r["answer"] for r in _corpus("answers_natural.jsonl")}
    hedges = {r["answer"] for r in _corpus("answers_hedges.jsonl")}
    assert {"Holm, Paloma", "Paloma\u00a0Holm", "Paloma\nHolm", "Jose Nunez", "AS-2442 (expires 26 March 2027)",
            "There are 4; each one is solved.", "There are no suspended accounts.", "04-04-2026"} <= natural
    assert {"2 or ③", "2 or iii", "2 or Ⅲ", "2 or higher", "at least 2", "≈2", "2-ish", "AS-3345/6",
            "AS-3345 (or -3354)", "2026-04-04 or later", "3-4 April 2026", "Paloma Holm or J. Holm"} <= hedges


# ---- strategies --------------------------------------------------------------------------
_VOCAB = {w.strip(".,;:!?()[]{}\"'*`").casefold() for group in (*af.FRAMES.values(), *af.QUALIFIERS.values(),
                                                                 af.CONNECTIVES) for f in group for w in f.split()}
# a person called "Either" or "Versus" is outside the space: the judge reads those words as hedges
_VOCAB |= {"either", "unless", "otherwise", "alternatively", "alternately", "versus", "nor", "etc", "including",
           "such", "among", "others", "and", "or", "vs", "not", "if", "else"}
_LETTERS = "abcdefghijklmnopqrstuvwxyz" + "áéíóúàèçñüöäåøł"
_word = st.text(alphabet=_LETTERS, min_size=3, max_size=9).map(str.capitalize).filter(
    lambda w: w.casefold() not in _VOCAB and normalise(w).casefold() not in _VOCAB and "ß" not in w)


@st.composite
def worlds(draw) -> tuple[list[str], AnswerType]:
    """3-12 people with distinct names (no name another's reversal or fold)."""
    firsts = draw(st.lists(_word, min_size=3, max_size=12))
    lasts = draw(st.lists(_word, min_size=len(firsts), max_size=len(firsts)))
    people = [f"{a} {b}" for a, b in zip(firsts, lasts, strict=True)]
    folded = [normalise(p).casefold() for p in people]
    words = [w for p in folded for w in p.split()]
    assume(len(set(folded)) == len(folded) and len(set(words)) == len(words))  # every word names one person
    return people, names(people, label="member's name")


counts = st.integers(0, 5000).map(str)
dates = st.dates(dt.date(1900, 1, 1), dt.date(2199, 12, 31)).map(dt.date.isoformat)
asset_codes = st.from_regex(r"AS-[0-9]{4}", fullmatch=True)
hex_codes = st.from_regex(r"MP-[0-9A-F]{6}", fullmatch=True)
emails = st.builds(lambda a, b, d: f"{a}.{b}@{d}.example", st.from_regex(r"[a-z]{1,6}", fullmatch=True),
                   st.from_regex(r"[a-z]{2,10}[0-9]?", fullmatch=True), st.sampled_from(["corp", "mail", "ops"]))
ASSET, SHARE = code("AS", r"\d{4}", label="asset code"), code("MP", "[0-9A-F]{6}", label="share code")
SCALARS = {"count": (COUNT, counts), "date": (DATE, dates), "asset": (ASSET, asset_codes),
           "share": (SHARE, hex_codes), "email": (EMAIL, emails)}
_KIND = {"count": "count", "date": "date", "asset": "code", "share": "code", "email": "email"}


# ---- (b) two values, or one qualified, fail ------------------------------------------------
@pytest.mark.parametrize("key", sorted(SCALARS))
@MANY
@given(data=st.data(), rnd=st.randoms(use_true_random=False))
def test_two_distinct_values_in_any_spelling_and_any_connective_fail(key, data, rnd):
    typ, values = SCALARS[key]
    truth, other = data.draw(values), data.draw(values)
    assume(truth != other and not (key == "email" and truth.split("@")[0] == other.split("@")[0]))
    answer = af.two_values(_KIND[key], truth, other, rnd)
    assert judge_answer(typ, truth, answer), answer
    assert judge_answer(typ, other, answer), answer  # whichever of the two is right


@pytest.mark.parametrize("key", sorted(SCALARS))
@MANY
@given(data=st.data(), rnd=st.randoms(use_true_random=False))
def test_the_truth_with_a_qualifier_fails(key, data, rnd):
    typ, values = SCALARS[key]
    truth = data.draw(values)
    answer = af.qualified(_KIND[key], truth, rnd)
    assert judge_answer(typ, truth, answer), answer


@WORLDS
@given(world=worlds(), data=st.data(), rnd=st.randoms(use_true_random=False))
def test_two_people_in_any_spelling_fail_and_a_qualified_name_fails(world, data, rnd):
    people, typ = world
    truth, other = data.draw(st.sampled_from(people)), data.draw(st.sampled_from(people))
    assume(truth != other)
    answer = af.two_values("name", truth, other, rnd, tuple(people))
    assert judge_answer(typ, truth, answer) and judge_answer(typ, other, answer), answer
    part = rnd.choice(other.split())  # the other person by first or last name only
    assert judge_answer(typ, truth, f"{rnd.choice(af.name_spellings(truth, people))}{rnd.choice(af.CONNECTIVES)}"
                                    f"{part}")
    assert judge_answer(typ, truth, af.qualified("name", truth, rnd, tuple(people)))


@WORLDS
@given(world=worlds(), data=st.data(), rnd=st.randoms(use_true_random=False))
def test_a_set_with_a_member_too_many_too_few_or_left_open_fails(world, data, rnd):
    people, _ = world
    typ = names(people, label="member's name", many=True)
    want = data.draw(st.lists(st.sampled_from(people), min_size=2, max_size=len(people), unique=True))
    extra = data.draw(st.sampled_from(people))
    if extra not in want:
        assert judge_answer(typ, want, af.natural("names", [*want, extra], rnd, tuple(people)))
    assert judge_answer(typ, want, af.natural("names", want[:-1], rnd, tuple(people)))
    assert judge_answer(typ, want, af.qualified("names", ", ".join(want), rnd, tuple(people)))
    keys = code("wg", "[0-9a-f]{6}", sep="_", many=True)
    prefixes = [f"wg_{rnd.randrange(16 ** 6):06x}" for _ in range(len(want) + 1)]
    assume(len(set(prefixes)) == len(prefixes))
    assert judge_answer(keys, prefixes[:-1], af.natural("codes", prefixes, rnd, sep="_"))
    assert judge_answer(keys, prefixes[:-1], af.qualified("codes", ", ".join(prefixes[:-1]), rnd, sep="_"))


# ---- (c) the truth in any natural form passes --------------------------------------------
@pytest.mark.parametrize("key", sorted(SCALARS))
@MANY
@given(data=st.data(), rnd=st.randoms(use_true_random=False))
def test_the_truth_in_any_natural_form_passes(key, data, rnd):
    typ, values = SCALARS[key]
    truth = data.draw(values)
    answer = af.natural(_KIND[key], truth, rnd)
    assert not judge_answer(typ, truth, answer), (answer, judge_answer(typ, truth, answer))
    assert not check_answer(with_answer({}, answer), truth, typ)


@WORLDS
@given(world=worlds(), data=st.data(), rnd=st.randoms(use_true_random=False))
def test_a_name_in_any_order_case_accent_and_whitespace_passes(world, data, rnd):
    people, typ = world
    truth = data.draw(st.sampled_from(people))
    answer = af.natural("name", truth, rnd, tuple(people))
    assert not judge_answer(typ, truth, answer), (answer, judge_answer(typ, truth, answer))
    many = names(people, label="member's name", many=True)
    want = data.draw(st.lists(st.sampled_from(people), min_size=1, max_size=len(people), unique=True))
    listed = af.natural("names", want, rnd, tuple(people))
    assert not judge_answer(many, want, listed), (listed, judge_answer(many, want, listed))


@MANY
@given(rnd=st.randoms(use_true_random=False), n=st.integers(1, 6))
def test_a_set_of_codes_in_any_order_and_join_passes(rnd, n):
    keys = code("wg", "[0-9a-f]{6}", sep="_", many=True)
    want = list(dict.fromkeys(f"wg_{rnd.randrange(16 ** 6):06x}" for _ in range(n)))
    answer = af.natural("codes", want, rnd, sep="_")
    assert not judge_answer(keys, want, answer), (answer, judge_answer(keys, want, answer))


# ---- what the readers see ------------------------------------------------------------------
@settings(max_examples=300)
@given(n=st.integers(0, 3999))
def test_every_spelling_of_a_number_reads_as_that_number(n):
    for s in af.number_spellings(n):
        if s in ("none", "None", "nil", "nothing") or s.endswith(")"):
            continue
        assert extract(COUNT, s) == [str(n)], (s, extract(COUNT, s))


@settings(max_examples=300)
@given(d=st.dates(dt.date(1900, 1, 1), dt.date(2199, 12, 31)))
def test_every_spelling_of_a_date_reads_as_that_date(d):
    for s in af.date_spellings(d):
        assert extract(DATE, s) == [d.isoformat()], (s, extract(DATE, s))


@settings(max_examples=300)
@given(text=st.text(max_size=40))
def test_a_letter_of_another_script_fails_whatever_else_the_answer_says(text):
    odd = [c for c in normalise(text) if c.isalpha() and not unicodedata.name(c, "").startswith("LATIN")]
    errs = judge_answer(COUNT, "4", f"4 {text}")
    if odd:
        assert errs and "cannot read" in errs[0]


@settings(max_examples=200)
@given(n=st.integers(0, 50), junk=st.text(min_size=1, max_size=12))
def test_a_numeral_of_another_value_anywhere_fails_a_count(n, junk):
    """Any character Unicode gives a numeric value (digits of any script, circled, fractions,
    CJK, roman) with a value other than the count's, anywhere in the answer, fails it: unless
    it is part of a date, a clock time or an amount of money (the signs those need are left out)."""
    values = {unicodedata.numeric(c) for c in junk if unicodedata.numeric(c, None) is not None}
    assume(values - {float(n)} and not set(junk) & set(":/.-£$€¥₹"))
    assert judge_answer(COUNT, str(n), f"{n} {junk}")


def test_ambiguous_day_month_dates_name_both_readings():
    assert extract(DATE, "04/05/2026") == ["2026-05-04", "2026-04-05"]
    assert extract(DATE, "26/03/2027") == ["2027-03-26"] and extract(DATE, "03/26/2027") == ["2027-03-26"]
    assert judge_answer(DATE, "2026-04-05", "04/05/2026") and not judge_answer(DATE, "2026-04-04", "04-04-2026")


def test_odd_answers_fail_closed():
    """What a model gaming the judge would try, beyond the generated forms."""
    rng = random.Random(0)
    people = names(["Paloma Holm", "Jasper Holm", "Ada Dalton"], label="member's name")
    for typ, truth, answer in [
        (COUNT, "4", '{"answer": 4, "alternative": 5}'), (COUNT, "4", '["4", "5"]'), (COUNT, "4", "4\u200b5 or 4"),
        (COUNT, "4", "-4"), (COUNT, "4", "4 (IV, or maybe V)"), (COUNT, "4", "4 of 12"), (COUNT, "4", "4²"),
        (COUNT, "12", "1 2"), (COUNT, "4", "4, 5, 6"), (COUNT, "4", "3 4 5"), (COUNT, "4", "a few (4)"),
        (COUNT, "0", "0 or 1"), (COUNT, "0", "none or one"), (COUNT, "4", "4 (Ⅴ)"), (COUNT, "4", "４ ５"),
        (ASSET, "AS-3345", "AS-33 45"), (ASSET, "AS-3345", "AS-3345, AS-3346, AS-3347"),
        (ASSET, "AS-3345", "AS-3345 (2027)"), (DATE, "2026-04-04", "April 2026"), (DATE, "2026-04-04", "4 April"),
        (people, "Paloma Holm", "Paloma Holm, Jasper Holm, Ada Dalton"), (people, "Paloma Holm", "Paloma"),
        (people, "Paloma Holm", "Paloma Holm (Ada?)"), (people, "Paloma Holm", "Ρaloma Holm"),  # Greek Rho
        (EMAIL, "a.obi@corp.example", "a.obi@corp.example, j.holm"), (EMAIL, "a.obi@corp.example", "a.obi"),
    ]:
        assert judge_answer(typ, truth, answer), (truth, answer)
    assert judge_answer(COUNT, "4", ["4"]) and check_answer(with_answer({}, ["4"]), "4", COUNT)  # type: ignore[arg-type]
    assert not judge_answer(COUNT, "4", af.natural("count", "4", rng))


# ---- the families: own apps and real apps ---------------------------------------------------
def test_real_app_answer_families_declare_a_type_and_judge_with_it():
    """MediaWiki's district and town questions, Oscar's and Roundup's counts, the forum's counts and member
    names: the same judge,
    through each family's own validator, on the answer alone (their validators read no table)."""
    from webgauge.arena.realapps.mediawiki.tasks import build_tasks as wiki
    from webgauge.arena.realapps.oscar.tasks import build_tasks as oscar
    from webgauge.arena.realapps.roundup.tasks import build_tasks as roundup
    from webgauge.arena.realapps.spirit.tasks import build_tasks as spirit

    tasks = [t for build in (wiki, oscar, roundup, spirit) for t in build(tuple(range(6))) if t.answer is not None]
    assert {t.family for t in tasks} >= {"mediawiki.district", "mediawiki.older", "oscar.count", "roundup.count",
                                         "spirit.unanswered", "spirit.last", "spirit.liked"}
    rng = random.Random(62)
    for t in tasks:
        assert isinstance(t.answer_type, AnswerType), t.id
        kind = "count" if t.answer_type.kind == "number" else "name"
        cands = t.answer_type.candidates
        person = af.is_person(t.answer_type.label)
        for _ in range(10):
            good = af.natural(kind, t.answer, rng, cands, person=person)
            assert t.validate(with_answer({}, good)).success, (t.id, good)
            if kind == "count":
                other = str(int(t.answer) + rng.randint(1, 9))
            else:
                other = rng.choice([c for c in cands if c != t.answer])
            bad = af.two_values(kind, t.answer, other, rng, cands, person=person)
            assert not t.validate(with_answer({}, bad)).success, (t.id, bad)
            assert not t.validate(with_answer({}, af.qualified(kind, t.answer, rng, cands, person=person))).success
