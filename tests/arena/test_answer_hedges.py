"""Answers must commit to one value: hedges fail on every answer-judged family, the expected answer passes.

The hedges are built from the seed's world (not from the family's declared candidates), the
way a model gaming the judge would: every number 0..N in one string, number words, ranges,
the expected value plus one distractor, every look-alike code of the product, every name the
world holds, every name on the page. Judged by the family's own validator on the seed state
(answer-only families) and by its declared answer type (every family); a few state-and-answer
families are also judged on a hand-solved state.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.answers import (
    COUNT,
    DATE,
    EMAIL,
    AnswerType,
    answer_matches,
    check_answer,
    code,
    extract,
    judge_answer,
    names,
    with_answer,
)
from webgauge.arena.tasks import FAMILIES, build_tasks, seed_state

SEEDS = tuple(range(50))
ANSWER_ONLY = {"forum.count_solved", "admin.count_status", "wiki.lookup", "media.ticket_code", "media.rights_expiry",
               "forum.top_authors"}
_ROMANS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI",
           "XVII", "XVIII", "XIX", "XX")
_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen twenty").split()


def _people(state: dict) -> list[str]:
    return sorted({u["name"] for u in state["admin_users"]} | {u["name"] for u in state["forum_users"]})


def _other(rng: random.Random, pool, expected: str) -> str:
    choices = sorted({str(x) for x in pool} - {str(expected)})
    return rng.choice(choices)


def _number_hedges(e: int, rng: random.Random) -> list[str]:
    top = max(12, e + 10)
    out = [" ".join(str(i) for i in range(top + 1)), ", ".join(str(i) for i in range(top, -1, -1)),
           f"between {max(0, e - 1)} and {e + 1}", f"{max(0, e - 2)}-{e + 2}", f"{e} or {e + 1}",
           f"{e}, maybe {e - 1 if e else e + 2}", f"It is {e} (or {e + 3}).", f"{e} {e} {e + 1}",
           f"{e}.0 or {e + 1}.0", f"{e} (or {_ROMANS[(e + 1) % len(_ROMANS)]})"]
    if e <= 19:
        out += [f"{_WORDS[e]} or {_WORDS[e + 1]}", f"{e} or {_WORDS[e + 1]}", " ".join(_WORDS)]
    # a range or an estimate around the right number alone ("5 ± 5" is 0..10): no single value either
    out += [f"{e} ± {e or 1}", f"{e} +/- 1", f"at least {e}", f"{e} or so", f"about {e}", f"~{e}", f"{e}+",
            f"up to {e}", f"{e} or more", f"roughly {e}", f"more than {max(0, e - 1)}"]
    return out + [f"{e} or {rng.randrange(e + 1, e + 50)}"]


def _code_hedges(expected: str, look_alikes: list[str], rng: random.Random) -> list[str]:
    others = [c for c in look_alikes if c != expected] or [expected[:-1] + ("0" if expected[-1] != "0" else "1")]
    every = [expected, *others]
    rng.shuffle(every)
    bare = [c.split("-", 1)[1] for c in others]
    return [" ".join(every), ", ".join(every), " or ".join(every), f"{expected} or {rng.choice(others)}",
            f"It is {expected}, unless it is {rng.choice(others)}.", f"{expected} / {' / '.join(bare)}",
            " ".join(c.replace("-", "") for c in every), " ".join(c.lower() for c in every)]


def _name_hedges(expected: str, world: list[str], page: list[str], rng: random.Random) -> list[str]:
    distractor = _other(rng, (set(page) - {expected}) or world, expected)
    out = [", ".join(world), " ".join(world), f"{expected} or {distractor}", f"{distractor}, {expected}",
           f"It is {expected} (maybe {distractor})."]
    if " " in distractor:  # the distractor by first or last name only
        out += [f"{expected} or {distractor.split()[0]}", f"{expected}, unless it is {distractor.split()[-1]}"]
    if len(set(page) | {expected}) > 1:
        out.append(", ".join(sorted(set(page) | {expected})))
    return out


def hedges(task, state: dict) -> list[str]:
    """What a model would try instead of finding the answer, for one task on its seed's world."""
    rng = random.Random(f"hedge:{task.id}")
    fam, e = task.family, task.answer
    teams = sorted({u["team"] for u in state["admin_users"]})
    emails = sorted({u["email"] for u in state["admin_users"]})
    wiki_facts = [json.loads(p["facts"]) for p in state["wiki_pages"]]
    if fam in ("forum.count_solved", "admin.count_status") or (fam == "wiki.lookup" and e.isdigit()):
        return _number_hedges(int(e), rng)
    if fam == "media.ticket_code":
        name = next(a["name"] for a in state["media_assets"] if a["code"] == e)
        return _code_hedges(e, [a["code"] for a in state["media_assets"] if a["name"] == name], rng)
    if fam == "media.rights_expiry":
        codes = [c for c in task.instruction.replace(",", " ").replace("?", " ").split() if c.startswith("AS-")]
        return _code_hedges(e, codes, rng)
    if fam == "wiki.lookup" and e.startswith("CC-"):
        return _code_hedges(e, [f["Cost centre"] for f in wiki_facts][:12], rng)
    if fam in ("cal.booking_reference", "maps.share_place"):
        return _code_hedges(e, [e[:3] + f"{rng.randrange(16**6):06X}" for _ in range(6)], rng)
    if fam in ("admin.flag_email",) or (fam == "wiki.lookup" and "@" in e):
        return _name_hedges(e, emails[:40], [f["Escalation contact"] for f in wiki_facts][:10], rng)
    if fam == "wiki.lookup" and e[:4].isdigit() and e[4] == "-":
        other = _other(rng, [f["Next review"] for f in wiki_facts], e)
        return [f"{e} or {other}", f"{other}, {e}", " ".join(sorted({f['Next review'] for f in wiki_facts})),
                f"{e} (or {other.split('-')[2]}.{other.split('-')[1]}.{other.split('-')[0]})"]
    if fam == "wiki.lookup":  # the page's owner: a person's name
        return _name_hedges(e, _people(state), [f["Owner"] for f in wiki_facts][:10], rng)
    if fam == "wiki.owner_to_admin":
        return _name_hedges(e, teams, teams, rng)
    if fam == "forum.upvote_solution":
        users = {u["id"]: u["name"] for u in state["forum_users"]}
        page = sorted({users[p["author_id"]] for p in state["forum_posts"] if p["thread_id"] in
                       {t["id"] for t in state["forum_threads"] if t["title"] in task.instruction}})
        return _name_hedges(e, sorted(users.values()), page, rng)
    if fam == "forum.top_authors":
        want = e.split(", ")
        world = sorted({u["name"] for u in state["forum_users"]})
        extra = rng.choice(sorted(set(world) - set(want)))
        return [", ".join(world), f"{e}, {extra}", f"{extra}, {e}", ", ".join(world[:40] + want)]
    if fam == "account.rotate_keys":
        want = e.split(", ")
        extra = [f"wg_{rng.randrange(16**6):06x}" for _ in range(3)]
        seen = [k["prefix"] for k in state["acct_api_keys"]]
        return [", ".join(want + extra[:1]), " ".join(want + extra), ", ".join(want[:-1] + extra[:1]),
                ", ".join(seen + want), " ".join(w.upper() for w in want + extra[1:2])]
    raise AssertionError(f"no hedges written for the answer-judged family {fam}; add them here")


def _families_with_answers(tasks) -> set[str]:
    return {t.family for t in tasks if t.answer is not None}


@pytest.fixture(scope="module")
def worlds():
    """Every answer-judged family's task at each seed (the families found at seed 0, built directly)."""
    zero = seed_state(0)  # one world for all families, as each seed's below
    keys = [k for k, fam in FAMILIES.items() if fam(0, zero).answer is not None]
    states, tasks = {}, []
    for s in SEEDS:
        raw = seed_state(s)
        states[s] = encode_state(raw)
        tasks += [FAMILIES[k](s, raw) for k in keys]
    return states, tasks


@pytest.mark.timeout(1800)  # the first user of the 50 worlds builds them
def test_twelve_families_are_answer_judged_and_declare_a_type(worlds):
    _, tasks = worlds
    fams = _families_with_answers(tasks)
    assert len(fams) == 12, sorted(fams)
    for t in tasks:
        assert isinstance(t.answer_type, AnswerType), t.id
        assert "answer_type" not in t.public() and "answer" not in t.public()


@pytest.mark.timeout(1800)  # 600 tasks, about 20 hedges each
def test_no_hedge_passes_and_the_expected_answer_always_does(worlds):
    states, tasks = worlds
    passed, tried, expected_ok = Counter(), Counter(), Counter()
    for t in tasks:
        state = states[t.seed]
        for h in hedges(t, state):
            tried[t.family] += 1
            errs = judge_answer(t.answer_type, t.answer, h)
            if not errs:
                passed[t.family] += 1
                print("hedge passed:", t.id, repr(h[:120]))
            if t.family in ANSWER_ONLY:  # the family's own validator, on the world, says the same
                assert not t.validate(with_answer(state, h)).success, (t.id, h[:120])
        goods = [t.answer, f"It is {t.answer}.", f"The answer is: {t.answer}",
                 f"I checked the page: the answer is {t.answer}."]
        if t.answer_type.kind == "name" and not t.answer_type.many:  # quoting titles, user names, roles is not naming
            goods.append(f"{t.instruction} Answer: {t.answer}")
        for good in goods:
            assert not judge_answer(t.answer_type, t.answer, good), (t.id, good)
            if t.family in ANSWER_ONLY:
                res = t.validate(with_answer(state, good))
                assert res.success, (t.id, good, res.errors)
            expected_ok[t.family] += 1
    assert sum(passed.values()) == 0, dict(passed)
    assert set(tried) == _families_with_answers(tasks) and min(tried.values()) >= 4 * len(SEEDS)
    assert all(expected_ok[f] >= 4 * len(SEEDS) for f in tried)


def test_hedges_said_the_old_way_would_have_passed():
    """The hedges are real: the plain containment judge this replaced accepted them."""
    def old(expected: str, got: str) -> bool:  # the former rule: <= 12 words containing the value
        import re
        return len(got.split()) <= 12 and re.search(r"(?<![\w@.-])" + re.escape(expected.lower()) + r"(?![\w@-])",
                                                      got.lower()) is not None
    state = encode_state(seed_state(3))
    t = next(t for t in build_tasks((3,), families=["forum.count_solved"]))
    assert old(t.answer, "0 1 2 3 4 5 6 7 8 9 10 11") and not answer_matches(t.answer, "0 1 2 3 4 5 6 7 8 9 10 11",
                                                                            t.answer_type)
    assert not t.validate(with_answer(state, "0 1 2 3 4 5 6 7 8 9 10 11")).success


def test_errors_say_the_answer_named_several_values():
    errs = judge_answer(COUNT, "5", "between 4 and 6")
    assert errs and "2 different counts" in errs[0] and "commit to one" in errs[0]
    assert "3 different asset codes" in judge_answer(code("AS", r"\d{4}", label="asset code"), "AS-3345",
                                                     "AS-3345, AS-8087 or 5364")[0]
    people = names(["Dana Park", "Dana Parkson", "Ada Dalton"])
    assert not judge_answer(people, "Dana Parkson", "It was Dana Parkson.")  # longest name wins, not two names
    assert "2 different names" in judge_answer(people, "Dana Park", "Dana Park or Ada Dalton")[0]
    assert "states no count" in judge_answer(COUNT, "5", "I don't know")[0]
    assert "2 different names" in judge_answer(people, "Dana Park", "Dana Park, or maybe Ada")[0]  # a first name counts
    assert not judge_answer(people, "Ada Dalton", "Ada Dalton (Ada, for short)")  # her own first name does not
    assert "2 different counts" in judge_answer(COUNT, "5", "5 or VI")[0] and not judge_answer(COUNT, "5", "I say 5")
    assert judge_answer(COUNT, "5", "5 (or I)") and judge_answer(COUNT, "5", "5, or I.")
    assert check_answer({}, "x") and not check_answer(with_answer({}, "x"), "x")


@pytest.mark.parametrize("text,values", [
    ("0 1 2 3", ["0", "1", "2", "3"]), ("three or 4", ["3", "4"]), ("3-5", ["3", "5"]), ("twenty one", ["21"]),
    ("five six", ["5", "6"]), ("1,730 days", ["1730"]), ("173.0", ["173"]), ("none", ["0"]),
    ("5 solved threads between 2025-10-01 and 2025-11-15, checked at 09:00", ["5"]),
    ("one hundred and five", ["105"]),
])
def test_counts_are_read_from_digits_and_words_but_not_dates(text, values):
    assert extract(COUNT, text) == values


def test_dates_emails_and_codes_in_any_spelling_count_as_values():
    assert extract(DATE, "2026-03-05, 3 March 2026 or March 4, 2026") == ["2026-03-05", "2026-03-03", "2026-03-04"]
    assert extract(EMAIL, "Mail A.B@corp.example or c@corp.example.") == ["a.b@corp.example", "c@corp.example"]
    asset = code("AS", r"\d{4}")
    # another prefix's code holds digits: a piece of a code, so a candidate too
    assert extract(asset, "as 3345, AS8087, 5364 and TK-7474; same as shown") == ["AS-3345", "AS-8087", "AS-5364",
                                                                                 "TK-7474"]
    keys = code("wg", "[0-9a-f]{6}", sep="_", many=True)
    assert extract(keys, "wg_7f6356 and WG_CCEACC") == ["WG_7F6356", "WG_CCEACC"]  # a body without a digit too
    assert judge_answer(keys, ["wg_7f6356"], "wg_7f6356, wg_cceacc")


def test_state_and_answer_validators_judge_with_their_declared_type():
    """Hand-solved states: the state half passes, so the answer alone decides."""
    state = encode_state(seed_state(4))
    tasks = {t.family: t for t in build_tasks((4,), families=["admin.flag_email", "wiki.owner_to_admin"])}
    flag = copy.deepcopy(state)
    next(r for r in flag["meta_flags"] if r["name"] == "admin_show_email")["value"] = "1"
    t = tasks["admin.flag_email"]
    assert t.validate(with_answer(flag, f"Their address is {t.answer}.")).success
    other = next(u["email"] for u in state["admin_users"] if u["email"] != t.answer)
    res = t.validate(with_answer(flag, f"{t.answer} or {other}"))
    assert not res.success and "commit to one" in res.errors[0]
    t = tasks["wiki.owner_to_admin"]
    solved = copy.deepcopy(state)
    unsolved = t.validate(with_answer(solved, t.answer)).errors  # "<owner> has role 'X', expected 'Y'"
    assert len(unsolved) == 1 and " has role " in unsolved[0], unsolved
    owner = next(u for u in solved["admin_users"] if u["name"] == unsolved[0].split(" has role ")[0])
    owner["role"] = unsolved[0].rsplit("expected ", 1)[1].strip("'")
    assert t.validate(with_answer(solved, t.answer)).success
    team2 = _other(random.Random(0), {u["team"] for u in state["admin_users"]}, t.answer)
    assert not t.validate(with_answer(solved, f"{t.answer}, or maybe {team2}")).success
