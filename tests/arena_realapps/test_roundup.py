"""Roundup (the real tracker from PyPI) under the arena: seeded content, millisecond resets,
SQL validators and scripted oracles in real Chromium. Run with ``-m realapps`` after
``webgauge arena apps install roundup``."""

from __future__ import annotations

import os
import statistics
import time

import pytest

from webgauge.arena.env.episode import play
from webgauge.arena.realapps import AppNotInstalled, get_spec
from webgauge.arena.realapps.roundup import app as roundup
from webgauge.arena.realapps.roundup.content import world
from webgauge.arena.realapps.roundup.tasks import FAMILIES, build_tasks

SEEDS = tuple(int(s) for s in os.environ.get("WEBGAUGE_REALAPPS_SEEDS", "0,1,2,3,4,5,6,7,8,9").split(","))


def test_content_is_a_pure_function_of_the_seed():
    a, b, c = world(3), world(3), world(4)
    assert a == b and a != c
    assert len(a.issues) >= 200 and sum(len(i.messages) for i in a.issues) >= 500
    assert len({i.title for i in a.issues}) == len(a.issues)


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


@pytest.mark.realapps
def test_reset_is_fast_and_restores_the_same_state_100_times(roundup_server):
    roundup.reset(0)
    first = roundup.app(roundup_server).control().state("x")[1]
    times, hashes = [], set()
    for i in range(100):
        if i % 10 == 0:  # dirty the database and the file store between some resets
            import sqlite3

            conn = sqlite3.connect(roundup.home() / "tracker" / "db" / "db")
            conn.execute("UPDATE _issue SET _status=8 WHERE id<=5")
            conn.execute("INSERT INTO sessions VALUES ('k', 1.0, '{}')")
            conn.commit()
            conn.close()
            (roundup.home() / "tracker" / "db" / "files" / "msg" / "0" / "msg99999").write_text("stray")
        t0 = time.perf_counter()
        roundup.reset(0)
        times.append((time.perf_counter() - t0) * 1000)
        hashes.add(roundup.app(roundup_server).control().state("x")[1])
    assert hashes == {first}
    assert statistics.median(times) <= 100, f"reset median {statistics.median(times):.1f} ms"
    assert roundup.app(roundup_server).control().state("x")[0]["sessions"] == []
    # another seed is other content
    roundup.reset(1)
    assert roundup.app(roundup_server).control().state("x")[1] != first
    roundup.reset(0)


@pytest.mark.realapps
@pytest.mark.timeout(3600)  # every family at ten seeds, one episode after another on one app
async def test_oracle_solves_every_family_at_seeds_0_to_9(browser, roundup_server):
    app = roundup.app(roundup_server)
    env = app.env(browser)
    failures = []
    try:
        for task in build_tasks(SEEDS):
            rec, _ = await play(env, app.oracle(task, env), task, keep_dom=False, time_limit_s=300)
            if not rec.success or rec.forbidden_violations or rec.error:
                failures.append((task.id, rec.error, rec.validator_errors, rec.forbidden_violations))
            # the untouched seed fails the validator (the task needs work)
            await env.reset(task)
            assert not task.validate({**env.state, "agent_answer": [{"text": None}]}).success, task.id
    finally:
        await env.close()
    assert not failures, failures


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
    titles = [ln.strip(' "') for ln in task.instruction.split("nothing else: ")[1].rstrip(".").split('"; "')]
    conn = sqlite3.connect(roundup.home() / "tracker" / "db" / "db")
    urgent = conn.execute("SELECT id FROM _priority WHERE _name='urgent'").fetchone()[0]
    ids = [conn.execute("SELECT id FROM _issue WHERE _title=?", (t,)).fetchone()[0] for t in titles]
    extra = next(i for i in range(1, 50) if i not in ids)
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
