"""MediaWiki 1.39 (Debian) under the arena: gazetteer content loaded with importDump.php,
resets from SQLite snapshots, validators on MediaWiki's tables, oracles in real Chromium.
Run with ``-m realapps`` after ``webgauge arena apps install mediawiki``."""

from __future__ import annotations

import os
import sqlite3
import statistics
import time

import pytest

from webgauge.arena.env.episode import play
from webgauge.arena.realapps.mediawiki import app as mediawiki
from webgauge.arena.realapps.mediawiki.content import world
from webgauge.arena.realapps.mediawiki.tasks import build_tasks

SEEDS = tuple(int(s) for s in os.environ.get("WEBGAUGE_REALAPPS_SEEDS", "0,1,2,3,4,5,6,7,8,9").split(","))


def test_wiki_content_is_a_pure_function_of_the_seed():
    assert world(5) == world(5) and world(5) != world(6) and len(world(5)) >= 100


@pytest.mark.realapps
def test_wiki_reset_is_fast_and_identical_100_times(mediawiki_server):
    mediawiki.reset(0)
    ctl = mediawiki.app(mediawiki_server).control()
    first = ctl.state("x")[1]
    times, hashes = [], set()
    for i in range(100):
        if i % 10 == 0:
            conn = sqlite3.connect(mediawiki.home() / "data" / "wiki.sqlite")
            conn.execute("UPDATE page SET page_title = page_title || '_x' WHERE page_id = 3")
            conn.commit()
            conn.close()
        t0 = time.perf_counter()
        mediawiki.reset(0)
        times.append((time.perf_counter() - t0) * 1000)
        hashes.add(ctl.state("x")[1])
    assert hashes == {first}
    assert statistics.median(times) <= 100, f"reset median {statistics.median(times):.1f} ms"


@pytest.mark.realapps
@pytest.mark.timeout(3600)  # every family at ten seeds, one episode after another on one app
async def test_wiki_oracle_solves_every_family(browser, mediawiki_server):
    app = mediawiki.app(mediawiki_server)
    env = app.env(browser)
    failures = []
    try:
        for task in build_tasks(SEEDS):
            rec, _ = await play(env, app.oracle(task, env), task, keep_dom=False, time_limit_s=300)
            if not rec.success or rec.forbidden_violations or rec.error:
                failures.append((task.id, rec.error, rec.validator_errors, rec.forbidden_violations))
            await env.reset(task)
            assert not task.validate({**env.state, "agent_answer": [{"text": None}]}).success, task.id
    finally:
        await env.close()
    assert not failures, failures
