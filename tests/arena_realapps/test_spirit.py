"""Spirit (the Django forum from PyPI) under the arena: a seeded forum at volume, snapshot resets,
SQL validators on Spirit's tables and scripted oracles in real Chromium. Run the ``realapps`` tests
with ``-m realapps`` after ``webgauge arena apps install spirit``."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sqlite3
from dataclasses import asdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webgauge.arena.content.pools import HELDOUT_BASE
from webgauge.arena.core.answers import with_answer
from webgauge.arena.env.episode import play
from webgauge.arena.realapps import AppNotInstalled, get_spec
from webgauge.arena.realapps.spirit import app as spirit
from webgauge.arena.realapps.spirit.content import BRANDS, CATEGORIES, agrees, world
from webgauge.arena.realapps.spirit.tasks import FAMILIES, build_tasks
from webgauge.arena.tasks.heldout import heldout_seeds
from webgauge.arena.tasks.leakage import TARGET_KEY

_ASKED = os.environ.get("WEBGAUGE_REALAPPS_SEEDS", "")
SEEDS = tuple(int(s) for s in _ASKED.split(",")) if _ASKED else (*range(10), heldout_seeds(TARGET_KEY, 1)[0])
FAMILIES_ONLY = [f for f in os.environ.get("WEBGAUGE_REALAPPS_FAMILIES", "").split(",") if f] or None


def test_forum_content_is_a_pure_function_of_the_seed_and_has_volume():
    a, b, c = world(3), world(3), world(4)
    assert a == b and a != c
    assert len(a.members) >= 300 and len({m.nickname for m in a.members}) == len(a.members)
    assert len(a.categories) >= 10 and len(a.topics) >= 2000
    comments = [x for t in a.topics for x in t.comments]
    assert len(comments) >= 8000 and len({x.body for x in comments}) >= 4000
    assert sum(len(x.likers) for x in comments) >= 10000
    assert sum(len(t.subscribers) for t in a.topics) >= 5000
    assert 20 <= sum(t.is_closed for t in a.topics) and 5 <= sum(t.is_pinned for t in a.topics)
    assert sum(not t.replies for t in a.topics) >= 100  # unanswered topics exist
    assert sum(any(x.spam for x in t.comments) for t in a.topics) >= 10
    assert len(a.moderators) >= 3


# sha256 (first 16 hex) of asdict(world(seed)) as sorted JSON: snapshots and oracles are built from these forums
PUBLIC_FORUMS = {0: "daf5d535f15d15b7", 1: "2a76c6b8e87ea2c3", 2: "6952c61c1e1c7c95"}


def test_public_forums_are_unchanged():
    got = {s: hashlib.sha256(json.dumps(asdict(world(s)), sort_keys=True, ensure_ascii=False).encode())
           .hexdigest()[:16] for s in PUBLIC_FORUMS}
    assert got == PUBLIC_FORUMS


def test_500_sampled_titles_keep_number_agreement():
    rng = random.Random(67)
    titles = [t.title for s in range(3) for t in world(s).topics]
    sample = rng.sample(titles, 500)
    bad = [t for t in sample if not agrees(t)]
    assert not bad, bad[:10]
    # the rule set's own corpus: real agreement errors fail it
    for wrong in ("Why does my Kestrel brake pads squeal after rain?", "Why do my Kestrel chain skip under load?",
                  "Is the Marlow tubeless tyres worth it for enduro racing?",
                  "Are the Marlow grinder worth it for light roasts?", "Kestrel brake pads squeals after rain",
                  "Kestrel chain skip under load", "The Orla chisels has been great so far",
                  "The Orla tent have been great so far"):
        assert not agrees(wrong), wrong
    for right in ("Why do my Kestrel brake pads squeal after rain?", "Why does my Kestrel chain skip under load?",
                  "Kestrel brake pads squeal after rain", "Kestrel chain skips under load",
                  "The Orla chisels have been great so far", "The Orla tent has been great so far"):
        assert agrees(right), right


@settings(max_examples=300, deadline=None)
@given(ci=st.integers(0, len(CATEGORIES) - 1), gi=st.integers(0, 7), ti=st.integers(0, 5),
       brand=st.sampled_from(BRANDS))
def test_a_verb_in_the_wrong_number_is_caught_and_the_right_one_passes(ci, gi, ti, brand):
    cat = CATEGORIES[ci]
    g, tr = cat.gear[gi % len(cat.gear)], cat.troubles[ti % len(cat.troubles)]
    right, wrong = (tr.base, tr.sg) if g.plural else (tr.sg, tr.base)
    assert agrees(f"{brand} {g.noun} {right} today")
    assert not agrees(f"{brand} {g.noun} {wrong} today")
    assert agrees(f"Why {'do' if g.plural else 'does'} my {brand} {g.noun} {tr.base}?")
    assert not agrees(f"Why {'does' if g.plural else 'do'} my {brand} {g.noun} {tr.base}?")


def test_held_out_forums_use_coined_names():
    pub, held = world(0), world(HELDOUT_BASE + 77)
    pub_words = {w for t in pub.topics for w in t.title.split()} | {m.nickname.split()[-1] for m in pub.members}
    assert not set(held.brands) & pub_words
    assert not {m.nickname.split()[-1] for m in held.members} & pub_words
    assert all(t.brand in held.brands and t.brand in t.title for t in held.topics)
    assert held == world(HELDOUT_BASE + 77) and held != world(HELDOUT_BASE + 78)


def test_a_missing_forum_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBGAUGE_APPS_HOME", str(tmp_path))
    with pytest.raises(AppNotInstalled, match="webgauge arena apps install spirit"):
        get_spec("spirit").require()
    assert get_spec("spirit").licence == "MIT" and get_spec("spirit").stats is not None


def test_families_are_enough_long_and_cover_the_intent_kinds():
    tasks = build_tasks((0,))
    assert len(tasks) == len(FAMILIES) >= 8
    lens = {t.family: len(t.oracle()) for t in tasks}
    assert sum(n >= 10 for n in lens.values()) >= 3, lens
    assert {t.family for t in tasks if t.answer is not None} == {"spirit.unanswered", "spirit.last", "spirit.liked"}
    assert any("delete" in t.instruction.lower() or "remove" in t.instruction.lower() for t in tasks)


def test_forum_name_answers_must_commit_to_one_member():
    """Hedged name answers fail: two members, every member, another member, the right one with a maybe."""
    for seed in range(12):
        w = world(seed)
        everyone = [m.nickname for m in w.members]
        for task in build_tasks((seed,), families=("spirit.last", "spirit.liked")):
            right = task.answer
            assert task.validate(with_answer({}, right)).success, task.id
            assert task.validate(with_answer({}, f"It was {right}.")).success, task.id
            other = next(x for x in everyone if x != right)
            first, last = right.split(" ", 1)
            assert task.validate(with_answer({}, f"{last}, {first}")).success, task.id
            for hedge in (f"{right} or {other}", f"{other}, {right}", ", ".join(everyone[:30] + [right]), other,
                          f"{right} (maybe {other})", "", f"{first} or {other.split()[0]}"):
                assert not task.validate(with_answer({}, hedge)).success, (task.id, hedge)


def test_the_unanswered_count_must_be_the_number():
    for seed in range(6):
        task = next(t for t in build_tasks((seed,)) if t.family == "spirit.unanswered")
        n = int(task.answer)
        assert task.validate(with_answer({}, task.answer)).success
        assert not task.validate(with_answer({}, str(n + 1))).success
        assert not task.validate(with_answer({}, f"{n} or {n + 1}")).success
        assert not task.validate(with_answer({}, None)).success


def test_instructions_name_no_seed_and_targets_exist_in_the_world():
    for seed in (0, 5, HELDOUT_BASE + 3):
        w = world(seed)
        titles = {t.title for t in w.topics}
        for task in build_tasks((seed,)):
            assert str(seed) not in task.instruction or seed < 10
            for quoted in re.findall(r'"([^"]+)"', task.instruction):
                if task.family in ("spirit.last", "spirit.liked", "spirit.moderate", "spirit.spam"):
                    assert quoted in titles, (task.id, quoted)


# ---- against the installed forum ------------------------------------------------------------------
def files_of(folder) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


@pytest.mark.realapps
@pytest.mark.timeout(1800)  # 100 resets, each reading ~45,000 rows back (seconds each on a loaded machine)
def test_forum_reset_restores_the_same_state_100_times(spirit_server):
    spirit.reset(0)
    ctl = spirit.app(spirit_server).control()
    first = ctl.fresh_state("x")[1]
    db = spirit.home() / "data" / "db.sqlite3"
    index = spirit.home() / "data" / "st_search"
    kept = files_of(index)
    assert kept, "the seed has no search index: the check below would test nothing"
    hashes = set()
    for i in range(100):
        if i % 10 == 0:  # dirty the database (a closed topic, a removed comment, a session) and the index
            conn = sqlite3.connect(db)
            conn.execute("UPDATE spirit_topic_topic SET is_closed = 1 WHERE id <= 3")
            conn.execute("UPDATE spirit_comment_comment SET is_removed = 1 WHERE id = 7")
            conn.execute("INSERT INTO django_session VALUES ('wgdirty', 'x', '2030-01-01 00:00:00')")
            conn.commit()
            conn.close()
            (index / "stray.seg").write_bytes(b"x")
        spirit.reset(0)
        hashes.add(ctl.fresh_state("x")[1])
    assert hashes == {first}
    assert files_of(index) == kept, "a reset rewrote untouched index files"
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM django_session").fetchone() == (0,)
    conn.close()
    spirit.reset(1)
    assert ctl.fresh_state("x")[1] != first
    spirit.reset(0)


@pytest.mark.realapps
def test_stats_count_the_snapshot_with_sql():
    st_ = spirit.stats(0)
    rows = {r.kind: r for r in st_.rows}
    w = world(0)
    assert rows["topics"].count == len(w.topics) and rows["members"].count == len(w.members)
    assert rows["categories"].count == len(CATEGORIES)
    assert rows["comments"].count == sum(len(t.comments) for t in w.topics)
    assert rows["likes"].count == sum(len(c.likers) for t in w.topics for c in t.comments)


@pytest.mark.realapps
@pytest.mark.timeout(3600)
async def test_forum_oracle_solves_every_family_at_seeds_0_to_9_and_a_heldout_world(browser, spirit_server):
    app = spirit.app(spirit_server)
    env = app.env(browser)
    failures = []
    try:
        for task in build_tasks(SEEDS, families=FAMILIES_ONLY):
            rec, _ = await play(env, app.oracle(task, env), task, keep_dom=False, time_limit_s=300)
            if not rec.success or rec.forbidden_violations or rec.error:
                failures.append((task.id, rec.error, rec.validator_errors, rec.forbidden_violations))
            await env.reset(task)  # the untouched seed fails the validator (the task needs work)
            assert not task.validate({**env.state, "agent_answer": [{"text": None}]}).success, task.id
    finally:
        await env.close()
    assert not failures, failures
