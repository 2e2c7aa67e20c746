"""django-oscar (the real shop from PyPI) under the arena: a seeded catalogue with drawn product
photos, millisecond resets, SQL validators on Oscar's tables and scripted oracles in real
Chromium. Run with ``-m realapps`` after ``webgauge arena apps install oscar``."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

import pytest

from webgauge.arena.content.pools import HELDOUT_BASE
from webgauge.arena.env.episode import play
from webgauge.arena.realapps import AppNotInstalled, get_spec
from webgauge.arena.realapps.oscar import app as oscar
from webgauge.arena.realapps.oscar.content import COLOURS, world
from webgauge.arena.realapps.oscar.photos import draw
from webgauge.arena.realapps.oscar.tasks import FAMILIES, build_tasks
from webgauge.arena.tasks.heldout import heldout_seeds
from webgauge.arena.tasks.leakage import TARGET_KEY

# seeds 0-9 and one held-out world (its content coined from the stand-in secret of the leakage measure)
_ASKED = os.environ.get("WEBGAUGE_REALAPPS_SEEDS", "")
SEEDS = tuple(int(s) for s in _ASKED.split(",")) if _ASKED else (*range(10), heldout_seeds(TARGET_KEY, 1)[0])
FAMILIES_ONLY = [f for f in os.environ.get("WEBGAUGE_REALAPPS_FAMILIES", "").split(",") if f] or None


def test_shop_content_is_a_pure_function_of_the_seed():
    a, b, c = world(3), world(3), world(4)
    assert a == b and a != c
    assert len(a.products) >= 5000 and len(a.orders) >= 200 and len(a.reviews) >= 2000
    assert sum(p.parent is not None for p in a.products) >= 100  # variants (size, colour)
    groups = {p.lookalike for p in a.products if p.lookalike}
    for g in groups:  # look-alikes share title and description and differ in photo colour
        ms = [p for p in a.products if p.lookalike == g]
        assert len({p.title for p in ms}) == 1 and len({p.description for p in ms}) == 1
        assert len({p.colour for p in ms}) == 4 and all(p.colour not in p.description for p in ms)


# sha256 (first 16 hex) of world(seed).to_json() (what the seed script writes, texts included) as sorted JSON:
# snapshots and oracles are built from these shops
PUBLIC_SHOPS = {0: "49d0821927bcc8c1", 1: "90ebeaecc20bfaf9", 2: "4e8d4299cf16328f", 3: "ac737de078372f5a",
                4: "146a967db57f2de8", 5: "b1aefa12740709d4", 6: "6e2aa1fc66746aed", 7: "1e61f9d0b86ca973",
                8: "f270fe584ac6b9fd", 9: "584ce7c637fb88c5"}


def test_public_shops_are_unchanged():
    got = {s: hashlib.sha256(json.dumps(world(s).to_json(), sort_keys=True, ensure_ascii=False).encode())
           .hexdigest()[:16] for s in PUBLIC_SHOPS}
    assert got == PUBLIC_SHOPS


def test_held_out_shops_use_coined_names():
    pub, held = world(0), world(HELDOUT_BASE + 77)
    pub_words = {w for p in pub.products for w in p.title.split()} | {c.last_name for c in pub.customers}
    held_brands = {p.title.split()[0] for p in held.products}
    held_people = {c.last_name for c in held.customers}
    assert not held_brands & pub_words and not held_people & pub_words
    assert held == world(HELDOUT_BASE + 77) and held != world(HELDOUT_BASE + 78)


def test_photos_are_shaded_objects_not_flat_blocks():
    img = draw("mug", COLOURS["teal"], 3)
    assert img.size == (480, 480)
    assert len(img.getcolors(1 << 20)) > 2000  # gradients and shading, not a few flat colours
    assert draw("mug", COLOURS["teal"], 3).tobytes() == img.tobytes()  # a pure function
    assert draw("mug", COLOURS["red"], 3).tobytes() != img.tobytes()


def test_a_missing_shop_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBGAUGE_APPS_HOME", str(tmp_path))
    with pytest.raises(AppNotInstalled, match="webgauge arena apps install oscar"):
        get_spec("oscar").require()
    assert get_spec("oscar").licence == "BSD-3-Clause"


def test_families_are_enough_and_long():
    tasks = build_tasks((0,))
    assert len(tasks) == len(FAMILIES) >= 12
    lens = {t.family: len(t.oracle()) for t in tasks}
    assert sum(n >= 10 for n in lens.values()) >= 4, lens
    assert any(t.pattern == "image_match" and t.visual for t in tasks)
    admin = {f: n for f, n in lens.items() if f.startswith("oscar.admin_")}
    assert len(admin) >= 6 and sum(n >= 10 for n in admin.values()) >= 2, admin


@pytest.mark.parametrize("family", ["oscar.admin_count", "oscar.admin_report"])
def test_dashboard_answers_must_be_the_number(family):
    tasks = [t for t in build_tasks(tuple(range(8)), families=[family])]
    assert len({t.answer for t in tasks}) >= 3
    for task in tasks:
        n = int(task.answer)
        assert task.validate({"agent_answer": [{"text": f"{n}"}]}).success
        assert task.validate({"agent_answer": [{"text": f"The dashboard lists {n} orders."}]}).success
        assert not task.validate({"agent_answer": [{"text": str(n + 1)}]}).success
        assert not task.validate({"agent_answer": [{"text": f"{n} or {n + 1}"}]}).success
        assert not task.validate({"agent_answer": [{"text": None}]}).success


def test_dashboard_families_name_the_staff_account_and_change_only_their_targets():
    from webgauge.arena.core.effects import OnlyRowsChange

    w = world(0)
    for task in build_tasks((0, 1, 2), families=[f for f in FAMILIES if ".admin_" in f]):
        assert w.staff.email in task.instruction or world(task.seed).staff.email in task.instruction, task.id
        if task.answer is None:  # a change: the rows it may touch are named
            assert any(isinstance(e, OnlyRowsChange) for e in task.forbidden_effects), task.id


def test_the_count_answer_must_be_the_number():
    task = next(t for t in build_tasks((2,)) if t.family == "oscar.count")
    assert task.validate({"agent_answer": [{"text": task.answer}]}).success
    assert not task.validate({"agent_answer": [{"text": str(int(task.answer) + 1)}]}).success
    assert not task.validate({"agent_answer": [{"text": f"{task.answer} or {int(task.answer) + 1}"}]}).success
    assert not task.validate({"agent_answer": [{"text": None}]}).success


def files_of(folder) -> dict[str, tuple[int, int]]:
    """Every stored file under ``folder``: (inode, mtime). A reset that copies back only what changed
    keeps both for every file nobody touched (what makes it fast, checked without a clock)."""
    return {str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


@pytest.mark.realapps
def test_shop_reset_restores_the_same_state_100_times_and_leaves_unchanged_files_alone(oscar_server):
    oscar.reset(0)
    ctl = oscar.app(oscar_server).control()
    first = ctl.fresh_state("x")[1]
    db = oscar.home() / "data" / "db.sqlite3"
    kept = files_of(oscar.home() / "data" / "media")
    assert kept, "the seed stores no file: the check below would test nothing"
    hashes = set()
    for i in range(100):
        if i % 10 == 0:  # dirty the database (an order, a session, a cache entry) and the media folder
            conn = sqlite3.connect(db)
            conn.execute("UPDATE order_order SET status='Cancelled' WHERE id<=3")
            conn.execute("INSERT INTO django_session VALUES ('wgdirty', 'x', '2030-01-01 00:00:00')")
            conn.execute("INSERT INTO wg_cache VALUES ('k', 'v', '2030-01-01 00:00:00')")
            conn.commit()
            conn.close()
            (oscar.home() / "data" / "media" / "images" / "products" / "stray.jpg").write_bytes(b"x")
        oscar.reset(0)
        hashes.add(ctl.fresh_state("x")[1])
    assert hashes == {first}
    assert files_of(oscar.home() / "data" / "media") == kept, "a reset rewrote untouched files"
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM django_session").fetchone() == (0,)
    cache = conn.execute("SELECT * FROM wg_cache ORDER BY cache_key").fetchall()
    conn.close()
    snap = sqlite3.connect(oscar.build_seed(0) / "db.sqlite3")
    assert cache == snap.execute("SELECT * FROM wg_cache ORDER BY cache_key").fetchall(), \
        "the cache is not the snapshot's after a reset"
    snap.close()
    assert cache and all(k != "k" for k, *_ in cache), "the snapshot's cache is cold, or a dirty entry survived"
    assert not (oscar.home() / "data" / "media" / "images" / "products" / "stray.jpg").exists()
    oscar.reset(1)
    assert ctl.fresh_state("x")[1] != first
    oscar.reset(0)


@pytest.mark.realapps
@pytest.mark.timeout(3600)  # every family at ten seeds, one episode after another on one shop
async def test_shop_oracle_solves_every_family_at_seeds_0_to_9_and_a_heldout_world(browser, oscar_server):
    app = oscar.app(oscar_server)
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


@pytest.mark.realapps
def test_a_second_order_is_a_forbidden_effect_on_oscars_rows(oscar_server):
    """Buying the right look-alike twice passes neither the validator (two orders) nor the effects."""
    from webgauge.arena.core.diff import diff_states
    from webgauge.arena.core.effects import check_effects

    task = next(t for t in build_tasks((0,)) if t.family == "oscar.photo")
    oscar.reset(0)
    before = oscar.state()
    db = oscar.home() / "data" / "db.sqlite3"
    conn = sqlite3.connect(db)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(order_order)") if r[1] not in ("id", "number")]
    for n in ("200001", "200002"):  # two copies of order 1 under new numbers
        conn.execute(f"INSERT INTO order_order (number, {', '.join(cols)}) "
                     f"SELECT ?, {', '.join(cols)} FROM order_order WHERE id = 1", (n,))
    conn.commit()
    conn.close()
    after = oscar.state()
    assert not task.validate(after).success
    assert any("at most 1" in e for e in check_effects(task.forbidden_effects, diff_states(before, after)))
    oscar.reset(0)
