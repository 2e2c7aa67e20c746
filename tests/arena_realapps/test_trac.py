"""Trac (the real project tracker from PyPI, with git repositories) under the arena: seeded content,
snapshot resets, SQL validators and scripted oracles in real Chromium. The tests marked ``realapps``
need ``webgauge arena apps install trac`` first and run with ``-m realapps``."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import urllib.request
from dataclasses import asdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webgauge.arena.content.pools import HELDOUT_BASE, POOLS
from webgauge.arena.core.answers import with_answer
from webgauge.arena.env.episode import play
from webgauge.arena.realapps import AppNotInstalled, get_spec
from webgauge.arena.realapps.trac import app as trac
from webgauge.arena.realapps.trac import content
from webgauge.arena.realapps.trac.content import agree, world
from webgauge.arena.realapps.trac.tasks import FAMILIES, build_tasks, sections
from webgauge.arena.tasks.heldout import heldout_seeds
from webgauge.arena.tasks.leakage import TARGET_KEY

_ASKED = os.environ.get("WEBGAUGE_REALAPPS_SEEDS", "")
SEEDS = tuple(int(s) for s in _ASKED.split(",")) if _ASKED else (*range(10), heldout_seeds(TARGET_KEY, 1)[0])
FAMILIES_ONLY = [f for f in os.environ.get("WEBGAUGE_REALAPPS_FAMILIES", "").split(",") if f] or None
ANSWER_FAMILIES = ("trac.busiest", "trac.committer", "trac.tag")


def test_content_is_a_pure_function_of_the_seed_and_at_volume():
    a, b, c = world(3), world(3), world(4)
    assert a == b and a != c
    assert len(a.tickets) >= 1000 and len({t.summary for t in a.tickets}) == len(a.tickets)
    assert sum(len(t.changes) for t in a.tickets) >= 2000
    comments = [c.comment for t in a.tickets for c in t.changes]
    assert len(set(comments)) >= len(comments) // 3, "comments repeat like a template"
    assert len(a.repos) >= 3 and all(len(r.main) >= 50 and r.tags and r.branches for r in a.repos)
    assert len(a.milestones) >= 6 and len(a.components) >= 8 and len(a.wiki) >= 15


# sha256 (first 16 hex) of asdict(world(seed)) as sorted JSON: the snapshots and the oracle are built
# from these worlds, so public content must never change by accident
PUBLIC_WORLDS = {0: "3b84e95ab594ea12", 1: "af5c273019e4fabd", 2: "c6c04a7e0ac99485"}


def test_public_worlds_are_unchanged():
    got = {s: hashlib.sha256(json.dumps(asdict(world(s)), sort_keys=True, ensure_ascii=False).encode())
           .hexdigest()[:16] for s in PUBLIC_WORLDS}
    assert got == PUBLIC_WORLDS


# --- titles: subject-verb agreement ---------------------------------------------------------------------
# The rule set (documented in docs/arena-real-apps.md): a defect title is "<subject> <verb> ..."; the
# subject's number is read from its head noun, the last word of the subject before any preposition
# ("The REST endpoint for projects": endpoint; a plural head ends in "s", a singular one does not:
# "The login page", "Password reset emails"); the verb is the first word
# after the subject, and a present-tense verb agrees when a singular head takes the "-s"/"is"/"has"/
# "was"/"does" form and a plural head the bare form ("are", "have", "were", "do"). The check reads the
# title alone: it parses the title against the list of subjects, not the generator's record of numbers.
_PREPOSITIONS = {"for", "of", "in", "on", "with"}
_SG = {"is", "has", "was", "does"}
_PL = {"are", "have", "were", "do"}


def _agrees(title: str) -> bool | None:
    subj = next((s for s, _ in (x for xs in content._COMPONENTS.values() for x in xs) if title.startswith(s + " ")),
                None)
    if subj is None:
        return None  # not a "<subject> <verb>" title (an enhancement or task title is imperative)
    words = subj.split()
    head = next((words[i - 1] for i, x in enumerate(words) if x in _PREPOSITIONS), words[-1])
    verb = title[len(subj) + 1:].split()[0]
    plural = head.endswith("s")
    if verb in _SG or verb in _PL:
        return (verb in _PL) == plural
    return verb.endswith("s") != plural


def test_500_sampled_titles_agree_in_number():
    import random

    titles = [t.summary for s in range(5) for t in world(s).tickets]
    sample = random.Random(67).sample(titles, 500)
    checked = [(t, _agrees(t)) for t in sample]
    bad = [t for t, ok in checked if ok is False]
    assert not bad, bad[:5]
    assert sum(ok is True for _, ok in checked) >= 250  # most sampled titles are defect titles with a subject


def test_the_agreement_rule_catches_a_wrong_verb():
    assert _agrees("Digest emails does not respect the locale under load") is False
    assert _agrees("The mail queue time out under load") is False
    assert _agrees("Digest emails do not respect the locale under load") is True


@given(st.sampled_from([x for xs in content._COMPONENTS.values() for x in xs]),
       st.sampled_from(content._DEFECT_PRED))
def test_agree_picks_the_verb_form_of_the_subjects_number(subject, pred):
    text = agree(subject, pred)
    assert _agrees(text + " today") is True
    wrong = f"{subject[0]} {pred[1] if subject[1] == 'sg' else pred[0]} today"
    assert _agrees(wrong) is False


def test_histories_are_consistent_with_the_ticket_headers():
    for seed in (0, 1, HELDOUT_BASE + 11):
        w = world(seed)
        devs = {p.username for p in w.people if p.role != "reporter"}
        for t in w.tickets:
            status, owner, res = "new", next(c.owner for c in w.components if c.name == t.component), ""
            for ch in t.changes:
                f = dict(ch.fields)
                status, owner, res = f.get("status", status), f.get("owner", owner), f.get("resolution", res)
            assert (status, owner, res) == (t.status, t.owner, t.resolution), t
            assert (t.status == "closed") == bool(t.resolution), t
            assert t.owner in devs
            assert [c.minute for c in t.changes] == sorted(c.minute for c in t.changes) and \
                all(c.minute > t.minute for c in t.changes)
            if t.milestone in {m.name for m in w.milestones if m.completed is not None}:
                assert t.status == "closed", t


def test_held_out_forges_use_coined_people_components_and_repositories():
    listed = {w.casefold() for name in ("first", "last", "adjective") for part in POOLS[name].values() for w in part}
    listed |= {w.casefold() for w in (*content._FIRST, *content._LAST)}
    for k in range(10):
        seed = HELDOUT_BASE + 1000 * k + 7
        w = world(seed)
        assert w == world(seed)
        names = {x.casefold() for p in w.people for x in p.realname.split()}
        assert not names & listed
        comps = {c.name for c in w.components}
        assert not comps & set(content._COMPONENTS) and not {r.name for r in w.repos} & {"server", "web-client"}
        for task in build_tasks((seed,)):  # the seed's digits, as the leakage measure reads them (6 or more)
            assert str(seed) not in task.instruction
            assert len(str(seed - HELDOUT_BASE)) < 6 or str(seed - HELDOUT_BASE) not in task.instruction


def test_a_missing_app_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBGAUGE_APPS_HOME", str(tmp_path))
    with pytest.raises(AppNotInstalled, match="webgauge arena apps install trac"):
        get_spec("trac").require()
    with pytest.raises(ValueError, match="not a seed"):
        trac.reset(-1)


def test_families_are_enough_long_and_varied():
    tasks = build_tasks((0,))
    assert len(tasks) == len(FAMILIES) >= 8
    lens = {t.family: len(t.oracle()) for t in tasks}
    assert sum(n >= 10 for n in lens.values()) >= 3, lens
    instructions: dict[str, set[str]] = {f: set() for f in FAMILIES}
    for t in build_tasks(range(200)):
        instructions[t.family].add(t.instruction)
    assert all(len(v) >= 150 for v in instructions.values()), {f: len(v) for f, v in instructions.items()}


def test_the_fast_import_stream_is_a_pure_function_of_the_world():
    w = world(2)
    assert trac.fast_import_stream(w.repos[0], w) == trac.fast_import_stream(world(2).repos[0], world(2))
    assert trac.fast_import_stream(w.repos[0], w) != trac.fast_import_stream(world(3).repos[0], world(3))


# --- answers: the typed judge ---------------------------------------------------------------------------

def _answer_tasks():
    seeds = [*range(25), *heldout_seeds(TARGET_KEY, 3)]
    return [t for t in build_tasks(seeds, families=ANSWER_FAMILIES)]


def test_answer_families_vary_and_accept_natural_answers():
    tasks = _answer_tasks()
    for fam in ANSWER_FAMILIES:
        assert len({t.answer for t in tasks if t.family == fam}) >= 5, fam
    for t in tasks:
        right = t.answer
        for good in (right, f"It is {right}.", f"The answer is {right}", f"{right}\n"):
            assert t.validate(with_answer({}, good)).success, (t.id, good)
        assert not t.validate(with_answer({}, None)).success


def test_answer_families_reject_hedges():
    for t in _answer_tasks():
        right = t.answer
        pool = list(t.answer_type.candidates)
        other = next(x for x in pool if x != right)
        for hedge in (f"{right} or {other}", f"{other}, {right}", ", ".join(pool), " ".join(pool),
                      f"{right} (maybe {other})", other, ""):
            assert not t.validate(with_answer({}, hedge)).success, (t.id, hedge)


def test_wiki_sections_parse_what_the_edit_keeps():
    text = "= T =\n\nintro\n\n== A ==\n\none\n\n== B ==\n\ntwo  lines\nhere\n"
    assert sections(text) == {"": "= T = intro", "A": "one", "B": "two lines here"}
    assert sections(text.replace("\n", "\r\n")) == sections(text)


# --- the installed app ----------------------------------------------------------------------------------

def _files(folder) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.rglob("*")
            if p.is_file()}


@pytest.mark.realapps
def test_reset_restores_the_same_state_and_repositories(trac_server):
    trac.reset(0)
    ctl = trac.app(trac_server).control()
    first = ctl.fresh_state("x")[1]
    repos = trac.home() / "env" / "repos"
    kept = _files(repos)
    assert kept
    for i in range(20):
        if i % 5 == 0:
            conn = sqlite3.connect(trac.home() / "env" / "db" / "trac.db")
            conn.execute("UPDATE ticket SET status='closed' WHERE id<=5")
            conn.execute("DELETE FROM wiki WHERE name='WikiStart'")
            conn.commit()
            conn.close()
            (repos / "server.git" / "refs" / "heads" / "stray").write_text("0" * 40 + "\n")
        trac.reset(0)
        assert trac.app(trac_server).control().fresh_state("x")[1] == first
    assert _files(repos) == kept, "a reset rewrote untouched repository files"
    log = subprocess.run(["git", "-C", str(repos / "server.git"), "log", "--format=%an|%s", "main"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    w = world(0)
    assert log[::-1] == [f"{w.person(c.author).realname}|{c.message}" for c in w.repos[0].main]
    trac.reset(1)
    assert trac.app(trac_server).control().fresh_state("x")[1] != first
    trac.reset(0)


def _milestone_options(base: str) -> list[str]:
    """The milestones tracd offers in the query page's filters (from Trac's cached ticket fields)."""
    html = urllib.request.urlopen(base + "/query", timeout=30).read().decode()
    at = html.index('"milestone":{"label":"Milestone"') + len('"milestone":')
    field, _ = json.JSONDecoder().raw_decode(html, at)
    return sorted(o for g in field["optgroups"] for o in g["options"])


@pytest.mark.realapps
def test_tracd_shows_each_reset_world_in_place_and_across_seeds(trac_server):
    """A reset restores rows in place and tracd keeps its environment: its cached tables (each checked
    against a generation in the database) must follow the restored rows, and a reset to another seed,
    whose generations may equal the old world's, must not leave the old world's cache showing."""
    def milestones(seed: int) -> list[str]:
        return sorted(m.name for m in world(seed).milestones)

    assert milestones(0) != milestones(1)
    for seed in (0, 1, 0, 1):
        trac.reset(seed)
        assert _milestone_options(trac_server.base_url) == milestones(seed), f"after a reset to seed {seed}"
        # an episode-sized change the way Trac makes it: the row, and the cached table's generation raised
        conn = sqlite3.connect(trac.home() / "env" / "db" / "trac.db")
        conn.execute("INSERT INTO milestone (name, due, completed, description) VALUES ('9.9-stray', 0, 0, '')")
        conn.execute("UPDATE cache SET generation=generation+1 WHERE key IN "  # what Milestone.insert invalidates
                     "('trac.ticket.model.MilestoneCache.milestones', 'trac.ticket.api.TicketSystem.fields')")
        conn.commit()
        conn.close()
        assert "9.9-stray" in _milestone_options(trac_server.base_url)
        trac.reset(seed)  # in place: the undo log's rows, the generation back to the snapshot's
        assert _milestone_options(trac_server.base_url) == milestones(seed)


@pytest.mark.realapps
def test_stats_count_the_snapshot():
    s = {r.kind: r for r in trac.stats(0).rows}
    w = world(0)
    assert s["tickets"].count == len(w.tickets) == s["tickets"].distinct
    assert s["commits"].count == sum(len(r.main) + sum(len(b[2]) for b in r.branches) for r in w.repos)
    assert s["tags"].count == sum(len(r.tags) for r in w.repos)
    assert s["milestones"].count == len(w.milestones) and s["components"].count == len(w.components)


@pytest.mark.realapps
@pytest.mark.timeout(3600)
async def test_oracle_solves_every_family_at_seeds_0_to_9_and_a_heldout_world(browser, trac_server):
    app = trac.app(trac_server)
    env = app.env(browser)
    failures = []
    try:
        for task in build_tasks(SEEDS, families=FAMILIES_ONLY):
            rec, _ = await play(env, app.oracle(task, env), task, keep_dom=False, time_limit_s=300)
            if not rec.success or rec.forbidden_violations or rec.error:
                failures.append((task.id, rec.error, rec.validator_errors, rec.forbidden_violations))
            await env.reset(task)
            assert not task.validate({**env.state, "agent_answer": [{"text": None}]}).success, task.id
    finally:
        await env.close()
    assert not failures, failures


@pytest.mark.realapps
def test_sloppy_changes_are_caught_on_tracs_own_rows(trac_server):
    """A reassignment that also touches another ticket passes the validator but is a forbidden effect;
    the wrong owner fails the validator; both judged on Trac's tables."""
    from webgauge.arena.core.diff import diff_states
    from webgauge.arena.core.effects import check_effects

    task = next(t for t in build_tasks((0,)) if t.family == "trac.reassign")
    tid = int(re.search(r"#(\d+)", task.instruction).group(1))
    user = re.search(r"(?i)\bas (\w+)", task.instruction).group(1)
    target = re.search(r"\((\w+)\)", task.instruction.split("#", 1)[1]).group(1)
    ms = re.search(r"milestone (\d+\.\d+)", task.instruction).group(1)
    note = re.search(r'"([^"]+)"\.?$', task.instruction.replace(" in the same change.", "")).group(1)
    trac.reset(0)
    before = trac.state()
    conn = sqlite3.connect(trac.home() / "env" / "db" / "trac.db")
    other = tid + 1
    conn.execute("UPDATE ticket SET owner=?, milestone=?, status='assigned' WHERE id IN (?, ?)",
                 (target, ms, tid, other))
    conn.execute("INSERT INTO ticket_change VALUES (?, 99999999999999999, ?, 'comment', '9', ?)", (tid, user, note))
    conn.commit()
    after = trac.state()
    assert task.validate(after).success, task.validate(after).errors
    assert check_effects(task.forbidden_effects, diff_states(before, after)) == [
        f"changed ticket row {other} (milestone, owner, status), which the task does not touch"] or \
        any(f"row {other}" in e for e in check_effects(task.forbidden_effects, diff_states(before, after)))
    conn.execute("UPDATE ticket SET owner='nobody' WHERE id=?", (tid,))
    conn.commit()
    conn.close()
    assert not task.validate(trac.state()).success
    trac.reset(0)
