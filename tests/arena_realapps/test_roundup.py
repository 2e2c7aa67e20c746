"""Roundup (the real tracker from PyPI) under the arena: seeded content, millisecond resets,
SQL validators and scripted oracles in real Chromium. Run with ``-m realapps`` after
``webgauge arena apps install roundup``."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict

import pytest

from webgauge.arena.content.pools import HELDOUT_BASE, POOLS
from webgauge.arena.env.episode import play
from webgauge.arena.realapps import AppNotInstalled, get_spec
from webgauge.arena.realapps.roundup import app as roundup
from webgauge.arena.realapps.roundup import content
from webgauge.arena.realapps.roundup.content import components, world
from webgauge.arena.realapps.roundup.tasks import FAMILIES, build_tasks
from webgauge.arena.tasks.heldout import heldout_seeds
from webgauge.arena.tasks.leakage import TARGET_KEY

# seeds 0-9 and one held-out world (its content coined from the stand-in secret of the leakage measure)
_ASKED = os.environ.get("WEBGAUGE_REALAPPS_SEEDS", "")
SEEDS = tuple(int(s) for s in _ASKED.split(",")) if _ASKED else (*range(10), heldout_seeds(TARGET_KEY, 1)[0])
FAMILIES_ONLY = [f for f in os.environ.get("WEBGAUGE_REALAPPS_FAMILIES", "").split(",") if f] or None


def test_content_is_a_pure_function_of_the_seed():
    a, b, c = world(3), world(3), world(4)
    assert a == b and a != c
    assert len(a.issues) >= 2000 and sum(len(i.messages) for i in a.issues) >= 5000
    assert len({i.title for i in a.issues}) == len(a.issues)
    assert len(a.people) >= 40 and sum(len(i.files) for i in a.issues) >= 300


def test_each_history_matches_its_issue():
    """The header (creator, last actor, status, assignee, nosy) is what the events make of it, and time runs
    forward: the seed script replays the events, so a stored issue's history agrees with its header."""
    for seed in (0, 7, HELDOUT_BASE + 11):
        w = world(seed, n_issues=400)
        users = {p.username for p in w.people}
        for it in w.issues:
            ev = it.events
            assert ev[0].status == "unread" and ev[0].message is not None and ev[0].actor == it.reporter
            assert all(a.minute < b.minute for a, b in zip(ev, ev[1:], strict=False)), it.title
            assert all(e.actor in users and (e.message is None or e.message.author == e.actor) for e in ev)
            assert [e.status for e in ev if e.status][-1] == it.status
            assigned = [e.assignedto for e in ev if e.assignedto]
            assert (assigned[-1] if assigned else None) == it.assignedto
            assert set(it.nosy) == {it.reporter, *assigned, *(e.actor for e in ev)}


# sha256 (first 16 hex) of asdict(world(seed)) as sorted JSON: the installed snapshots and the oracle
# are built from these worlds, so public content must never change by accident
PUBLIC_WORLDS = {0: "15b66fd5e9d9fa52", 1: "80cd7597206e6b30", 2: "771eee0e717cb30d", 3: "76aba35aabf0608c",
                 4: "b4bd0891cf20f840", 5: "497994a136b4046c", 6: "087f7f9b2927aa5d", 7: "7a527daa247f7e77",
                 8: "8033f3a09e5647f0", 9: "31cf80ad8d94c548"}
ROUNDUP_USERNAME = re.compile(r"^[a-z0-9_@!%.+-]+$", re.IGNORECASE)  # classic template's detectors/userauditor.py


def test_public_worlds_are_unchanged():
    got = {s: hashlib.sha256(json.dumps(asdict(world(s)), sort_keys=True, ensure_ascii=False).encode())
           .hexdigest()[:16] for s in PUBLIC_WORLDS}
    assert got == PUBLIC_WORLDS
    assert all(components(s) == () for s in PUBLIC_WORLDS)


def test_held_out_trackers_use_coined_people_and_components():
    listed = {w.casefold() for name in ("first", "last", "adjective") for part in POOLS[name].values() for w in part}
    listed |= {w.casefold() for w in (*content._FIRST, *content._LAST)}
    pub = world(0)
    pub_words = {w.casefold() for i in pub.issues for w in i.title.split()} | \
                {w.casefold() for p in pub.people for w in p.realname.split()}
    for k in range(20):
        seed = HELDOUT_BASE + 1000 * k + 7
        w, comps = world(seed), components(seed)
        assert w == world(seed) and len(comps) == content.N_COMPONENTS and len(w.people) >= 10
        names = {x.casefold() for p in w.people for x in p.realname.split()}
        assert not names & listed and not names & pub_words and not {c.casefold() for c in comps} & listed
        users = [p.username for p in w.people]
        assert len(set(users)) == len(users)
        for p in w.people:
            assert ROUNDUP_USERNAME.match(p.username) and p.username.isascii() and p.username == p.username.lower()
            assert p.address == f"{p.username}@tracker.example"
        assert all(any(f" in {c} " in i.title for c in comps) for i in w.issues)
        assert len({i.title for i in w.issues}) == len(w.issues) == content.N_ISSUES
        new = build_tasks((seed,), families=["roundup.new"])[0]
        assert str(seed) not in new.instruction and str(seed - HELDOUT_BASE) not in new.instruction
    assert world(HELDOUT_BASE + 7) != world(HELDOUT_BASE + 8)


def test_a_missing_app_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBGAUGE_APPS_HOME", str(tmp_path))
    with pytest.raises(AppNotInstalled, match="webgauge arena apps install roundup"):
        get_spec("roundup").require()


def test_families_are_enough_and_long():
    tasks = build_tasks((0,))
    assert len(tasks) == len(FAMILIES) >= 5
    lens = {t.family: len(t.oracle()) for t in tasks}
    assert sum(n >= 10 for n in lens.values()) * 3 >= len(lens), lens
    assert all(not t.validate({**roundup_state_stub(), "agent_answer": [{"text": None}]}).success for t in tasks
               if t.family == "roundup.count")


def roundup_state_stub() -> dict:
    return {"_issue": [], "_msg": [], "_user": [], "msg_text": []}


def files_of(folder) -> dict[str, tuple[int, int]]:
    """Every stored file under ``folder``: (inode, mtime). A reset that copies back only what changed
    keeps both for every file nobody touched (what makes it fast, checked without a clock)."""
    return {str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


@pytest.mark.realapps
def test_reset_restores_the_same_state_100_times_and_leaves_unchanged_files_alone(roundup_server):
    roundup.reset(0)
    first = roundup.app(roundup_server).control().fresh_state("x")[1]
    kept = files_of(roundup.home() / "tracker" / "db" / "files")
    assert kept, "the seed stores no file: the check below would test nothing"
    hashes = set()
    for i in range(100):
        if i % 10 == 0:  # dirty the database and the file store between some resets
            import sqlite3

            conn = sqlite3.connect(roundup.home() / "tracker" / "db" / "db")
            conn.execute("UPDATE _issue SET _status=8 WHERE id<=5")
            conn.execute("INSERT INTO sessions VALUES ('k', 1.0, '{}')")
            conn.commit()
            conn.close()
            (roundup.home() / "tracker" / "db" / "files" / "msg" / "0" / "msg99999").write_text("stray")
        roundup.reset(0)
        hashes.add(roundup.app(roundup_server).control().fresh_state("x")[1])
    assert hashes == {first}
    assert files_of(roundup.home() / "tracker" / "db" / "files") == kept, "a reset rewrote untouched files"
    assert roundup.app(roundup_server).control().fresh_state("x")[0]["sessions"] == []
    # another seed is other content
    roundup.reset(1)
    assert roundup.app(roundup_server).control().fresh_state("x")[1] != first
    roundup.reset(0)


@pytest.mark.realapps
@pytest.mark.timeout(3600)  # every family at ten seeds, one episode after another on one app
async def test_oracle_solves_every_family_at_seeds_0_to_9_and_a_heldout_world(browser, roundup_server):
    app = roundup.app(roundup_server)
    env = app.env(browser)
    failures = []
    try:
        for task in build_tasks(SEEDS, families=FAMILIES_ONLY):
            rec, _ = await play(env, app.oracle(task, env), task, keep_dom=False, time_limit_s=300)
            if not rec.success or rec.forbidden_violations or rec.error:
                failures.append((task.id, rec.error, rec.validator_errors, rec.forbidden_violations))
            # the untouched seed fails the validator (the task needs work)
            await env.reset(task)
            assert not task.validate({**env.state, "agent_answer": [{"text": None}]}).success, task.id
    finally:
        await env.close()
    assert not failures, failures


def test_the_latest_answer_must_name_one_issue():
    """roundup.latest: the title (or a sentence quoting it) passes; another of the four, two of them, all four
    or a hedge between two fails."""
    for seed in (0, 5, HELDOUT_BASE + 3):
        task = build_tasks((seed,), families=["roundup.latest"])[0]
        right = task.answer
        others = [t for t in re.findall(r'"([^"]+)"', task.instruction) if t != right]
        assert len(others) == 3, task.instruction
        assert task.validate({"agent_answer": [{"text": right}]}).success
        assert task.validate({"agent_answer": [{"text": f'It is "{right}".'}]}).success
        for hedge in (others[0], f"{right} or {others[0]}", f"{others[1]}; {right}", "; ".join([right, *others]),
                      "", None):
            assert not task.validate({"agent_answer": [{"text": hedge}]}).success, (task.id, hedge)


def test_the_count_answer_must_be_the_number():
    task = next(t for t in build_tasks((2,)) if t.family == "roundup.count")
    base = roundup_state_stub()
    assert task.validate({**base, "agent_answer": [{"text": task.answer}]}).success
    assert not task.validate({**base, "agent_answer": [{"text": str(int(task.answer) + 1)}]}).success
    assert not task.validate({**base, "agent_answer": [{"text": None}]}).success


@pytest.mark.realapps
def test_sloppy_edits_are_caught_on_roundups_own_rows(roundup_server):
    """Doing the task plus something else (one issue too many) passes the validator but is a forbidden
    effect; doing it on the wrong issue fails the validator; both judged on Roundup's tables."""
    import sqlite3

    from webgauge.arena.core.diff import diff_states
    from webgauge.arena.core.effects import check_effects

    task = next(t for t in build_tasks((0,)) if t.family == "roundup.bulk")
    roundup.reset(0)
    before = roundup.state()
    titles = re.findall(r'"([^"]+)"', task.instruction)  # the three issues, quoted in every wording
    assert len(titles) == 3, task.instruction
    conn = sqlite3.connect(roundup.home() / "tracker" / "db" / "db")
    urgent = conn.execute("SELECT id FROM _priority WHERE _name='urgent'").fetchone()[0]
    ids = [conn.execute("SELECT id FROM _issue WHERE _title=?", (t,)).fetchone()[0] for t in titles]
    extra = next(i for i in range(1, 50) if i not in ids
                 and conn.execute("SELECT _priority FROM _issue WHERE id=?", (i,)).fetchone()[0] != urgent)
    conn.execute(f"UPDATE _issue SET _priority=? WHERE id IN ({','.join('?' * 4)})", (urgent, *ids, extra))
    conn.commit()
    after = roundup.state()
    assert task.validate(after).success
    assert check_effects(task.forbidden_effects, diff_states(before, after)) == [
        f"changed _issue row {extra} (_priority), which the task does not touch"]
    conn.execute("UPDATE _issue SET _priority=3 WHERE id=?", (ids[0],))
    conn.commit()
    conn.close()
    assert not task.validate(roundup.state()).success
    roundup.reset(0)


@pytest.mark.realapps
def test_stats_count_the_snapshot_at_volume():
    """``webgauge arena apps stats roundup`` reads seed 0's snapshot with SQL (and the file store): the
    volume the content promises is what Roundup stored."""
    rows = {r.kind: r for r in roundup.stats(0).rows}
    w = world(0)
    assert rows["issues"].count == len(w.issues) >= 2000 and rows["issues"].distinct == rows["issues"].count
    assert rows["messages"].count == sum(len(i.messages) for i in w.issues)
    assert rows["messages"].distinct >= 0.7 * rows["messages"].count
    assert rows["files"].count == sum(len(i.files) for i in w.issues) >= 300
    assert rows["people"].count == len(w.people) >= 40
    # one history entry per event: the journal is what replaying the events made
    assert rows["history entries"].count == sum(len(i.events) for i in w.issues)
    assert rows["history entries"].distinct == len(w.people)
