"""Held-out secrecy and answer hedges on the real apps, checked on their content functions and task
families alone (no app is installed or served, so this runs in the default test run).

- Secret-less worlds (held-out-range seeds of the public measurement key) hold at most 5% of the
  targets of held-out tasks, no held-out task spells out its seed, and the measure fails when it
  should: a "secret" that is the measurement key, worlds that draw from the public lists, a task
  that names its seed.
- Every answer-judged real-app family rejects hedged answers (every number, ranges, "N or N+1",
  number words, roman numerals) with its own validator, and accepts the exact answer.
"""

from __future__ import annotations

import dataclasses

import pytest

from webgauge.arena.core.answers import COUNT, judge_answer, with_answer
from webgauge.arena.realapps.leakage import APPS, AppSource, measure_app_leakage
from webgauge.arena.tasks.heldout import heldout_seeds
from webgauge.arena.tasks.leakage import TARGET_KEY
from webgauge.arena.tasks.variety import MEASUREMENT_KEY

WORLDS = 120  # secret-less worlds searched (the CLI measures 1000)
HELD = 12  # held-out tasks per family
# families whose instructions name no content value: a category and a price (oscar.count), numbered
# survey sheets whose town is drawn on the image only (mediawiki.sheet), one of the six regions (mediawiki.sync)
NO_TARGET = {"oscar.count", "mediawiki.sheet", "mediawiki.sync"}
ANSWER_JUDGED = {"roundup.count", "oscar.count", "oscar.admin_count", "oscar.admin_report", "spirit.unanswered"}
# name answers; their hedges: test_mediawiki.py::test_wiki_answers_must_commit_to_one_name,
# test_roundup.py::test_the_latest_answer_must_name_one_issue, test_trac.py::test_answer_families_reject_hedges,
# test_spirit.py::test_forum_name_answers_must_commit_to_one_member
NAME_JUDGED = {"mediawiki.district", "mediawiki.older", "mediawiki.largest", "roundup.latest", "trac.busiest",
               "trac.committer", "trac.tag", "spirit.last", "spirit.liked"}


@pytest.fixture(scope="module", params=sorted(APPS))
def measured(request):
    return request.param, measure_app_leakage(request.param, n_worlds=WORLDS, n_heldout=HELD, public_seeds=range(20))


@pytest.mark.timeout(1800)  # ~170 worlds per app; the forum's (2,200 topics each) take minutes on a loaded machine
def test_secretless_worlds_reproduce_at_most_5_percent_of_heldout_targets(measured):
    app, rows = measured
    assert {r.family for r in rows} == set(APPS[app]().families)
    for r in rows:
        assert r.worlds >= 100 and r.heldout_tasks >= 10, r.to_dict()
        assert r.reproduced_share <= 0.05, r.to_dict()
        assert r.seed_named == 0, f"{r.family}: held-out instructions spell out their seed"
        if r.family in NO_TARGET:
            assert r.with_target == 0, f"{r.family} names content now: drop it from NO_TARGET"
        else:
            assert r.with_target == r.heldout_tasks, f"{r.family}: held-out tasks without a target {r.to_dict()}"
    assert 2 * sum(r.with_target for r in rows) > sum(r.heldout_tasks for r in rows)


def test_the_measure_fails_when_the_secret_is_the_measurement_key():
    for app in APPS:
        rows = measure_app_leakage(app, n_worlds=HELD, n_heldout=HELD, secret=MEASUREMENT_KEY, public_seeds=range(5))
        assert all(r.reproduced == r.with_target for r in rows), [r.to_dict() for r in rows]
        assert sum(r.with_target for r in rows) >= HELD * sum(r.family not in NO_TARGET for r in rows)


def test_the_measure_catches_heldout_trackers_drawn_from_public_lists(monkeypatch):
    from webgauge.arena.realapps.roundup import content

    monkeypatch.setattr(content, "components", lambda seed: ())  # the public lists at every seed
    rows = {r.family: r for r in measure_app_leakage("roundup", n_worlds=40, n_heldout=HELD, public_seeds=range(5))}
    assert all(r.reproduced_share > 0.5 for f, r in rows.items() if f != "roundup.count"), rows


def test_the_measure_catches_an_instruction_that_names_its_seed(monkeypatch):
    from webgauge.arena.realapps.roundup.content import world
    from webgauge.arena.realapps.roundup.tasks import FAMILIES

    def leaky(w, seed):
        t = FAMILIES["roundup.new"](w, seed)
        return dataclasses.replace(t, instruction=f"{t.instruction} (seed {seed})")

    monkeypatch.setitem(APPS, "roundup", lambda: AppSource("roundup", world, {"roundup.new": leaky}))
    (row,) = measure_app_leakage("roundup", n_worlds=HELD, n_heldout=HELD, public_seeds=range(5))
    assert row.seed_named == HELD


_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen twenty").split()
class _Roman:
    """``_ROMAN[n]``: n in Roman numerals (counts at volume run past twenty)."""

    def __getitem__(self, n: int) -> str:
        out = ""
        for value, sym in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                           (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
            while n >= value:
                out, n = out + sym, n - value
        return out


_ROMAN = _Roman()


def hedges(e: int) -> list[str]:
    """What a model would answer instead of counting, for the expected count ``e``."""
    lo = max(0, e - 1)
    out = [" ".join(str(i) for i in range(max(40, e + 10))), ", ".join(str(i) for i in range(e + 5, -1, -1)),
           f"{e} or {e + 1}", f"{lo} or {lo + 1}", f"between {lo} and {e + 1}", f"{lo}-{e + 2}", f"{lo}\u2013{e + 2}",
           f"{e} to {e + 2}", f"{e}, {e + 1}, {e + 2}", f"It is {e} (or {e + 3}).", f"{e}/{e + 1}",
           f"{e}.0 or {e + 1}.0", f"{e} (or {_ROMAN[e + 1]})", f"{e} issues, maybe {e + 2}", f"{e + 1} or {e}",
           f"{e} {e} {e + 1}"]
    # a range or an estimate around the right number alone ("5 ± 5" is 0..10)
    out += [f"{e} ± {e or 1}", f"{e} +/- 1", f"at least {e}", f"{e} or so", f"about {e}", f"~{e}", f"{e}+",
            f"up to {e}", f"{e} or more"]
    if e + 1 < len(_WORDS):
        out += [f"{_WORDS[e]} or {_WORDS[e + 1]}", f"{e} or {_WORDS[e + 1]}", " ".join(_WORDS)]
    return out


def _count_tasks(family: str):
    app = family.split(".")[0]
    src = APPS[app]()
    seeds = [*range(25), *heldout_seeds(TARGET_KEY, 5)]
    return [src.families[family](src.world(s), s) for s in seeds]


@pytest.mark.parametrize("family", sorted(ANSWER_JUDGED))
def test_hedged_answers_fail_and_the_exact_answer_passes(family):
    tasks = _count_tasks(family)
    assert len({t.answer for t in tasks}) >= 5  # the answers vary, so no constant guess passes
    for t in tasks:
        assert t.answer_type == COUNT
        e = int(t.answer)
        for good in (t.answer, f"There are {e}.", *([_WORDS[e]] if e < len(_WORDS) else [])):
            assert t.validate(with_answer({}, good)).success, (t.id, good)
        assert not t.validate(with_answer({}, None)).success
        assert not t.validate(with_answer({}, str(e + 1))).success
        for h in hedges(e):
            assert not t.validate(with_answer({}, h)).success, (t.id, h)
            assert judge_answer(t.answer_type, t.answer, h), (t.id, h)


def test_every_answer_judged_real_app_family_is_checked():
    judged = {f for app in APPS for f, make in APPS[app]().families.items()
              if make(APPS[app]().world(0), 0).answer is not None}
    assert judged == ANSWER_JUDGED | NAME_JUDGED


def test_the_cli_measures_an_app():
    import json

    from click.testing import CliRunner

    from webgauge.cli.main import cli

    res = CliRunner().invoke(cli, ["arena", "apps", "leakage", "oscar", "--worlds", "10", "--heldout-sample", "3",
                                   "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.output.splitlines()]
    assert {r["family"] for r in rows} == set(APPS["oscar"]().families) and all(r["worlds"] == 10 for r in rows)
    bad = CliRunner().invoke(cli, ["arena", "apps", "leakage", "nosuchapp"])
    assert bad.exit_code != 0 and "known: mediawiki, oscar, roundup, spirit, trac" in bad.output
