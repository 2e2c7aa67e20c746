"""The quick demo end to end: runs through webgauge.run (resumable), the report, and the
trace viewer stepping through screenshots in headless Chromium."""

from __future__ import annotations

import re
import shutil
from collections import Counter

import pytest

from webgauge.arena.demo import QUICK_FAMILIES, run_demo
from webgauge.arena.outputs.report import reset_kinds_text
from webgauge.arena.outputs.scoring import agent_summary, load_episodes
from webgauge.arena.runner import run_arena
from webgauge.arena.tasks import build_tasks

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("arena-demo")
    report = run_demo(out, quick=True)
    yield out / "arena-quick", report
    shutil.rmtree(out, ignore_errors=True)


def test_demo_runs_oracle_and_heuristic_on_every_task(demo):
    run_dir, report = demo
    assert report.is_file() and report.with_suffix(".png").stat().st_size > 10_000
    eps = load_episodes(run_dir)
    assert not eps.failures
    n_tasks = len(build_tasks((0,), families=QUICK_FAMILIES))
    assert sorted(eps.agents) == ["heuristic", "oracle"] and len(eps.records) == 2 * n_tasks
    rows = {r["agent"]: r for r in agent_summary(eps)}
    assert rows["oracle"]["success"][0] == 1.0 and rows["oracle"]["forbidden_rate"][0] == 0.0
    assert rows["oracle"]["unnecessary_writes"] == 0 and rows["oracle"]["duplicate_submissions"] == 0
    assert rows["heuristic"]["success"][0] < 1.0
    # look-ahead (the runner's default): each of the two workers resets its first episode inline, and
    # prepares each next one while the current one runs, so that its reset only swaps pages
    kinds = Counter(r.reset_kind for r in eps.records)
    assert kinds["inline"] <= 2 and kinds["preloaded"] >= 0.5 * (len(eps.records) - 2), kinds
    assert f"{kinds['preloaded']} preloaded (median " in reset_kinds_text(eps)  # what `arena run` prints
    html = report.read_text()
    for heading in ("Paired comparisons", "Success by UI pattern", "Success by variant",
                    "Grounding errors by UI pattern",
                    "Visual split"):
        assert heading in html
    links = re.findall(r'href="(traces/[^"]+\.html)"', html)
    assert len(links) == 2 * n_tasks and all((report.parent / link).is_file() for link in links)
    # resuming the same run does not re-run anything
    summary = run_arena(run_dir, build_tasks((0,), families=QUICK_FAMILIES),
                        [{"kind": "oracle"}, {"kind": "heuristic"}],
                        workers=1, progress=False, time_limit_s=120.0)
    assert summary.done == 0 and summary.skipped_resumed == 2 * n_tasks


async def test_trace_viewer_steps_through_screenshots_in_chromium(demo, browser):
    from webgauge.browser import RenderProfile
    from webgauge.pages import StaticServer

    run_dir, report = demo
    page_rel = next(p for p in (report.parent / "traces").glob("oracle__board.drag*.html")).relative_to(run_dir)
    with StaticServer(root=run_dir) as srv:
        async with browser.open(srv.url(page_rel.as_posix()), RenderProfile(width=1280, height=900)) as page:
            state = await page.evaluate("""() => ({counter: document.getElementById('counter').textContent,
                src: document.getElementById('img').src, w: document.getElementById('img').naturalWidth,
                marker: !!document.getElementById('pointer-marker'), box: !!document.getElementById('target-box')})""")
            assert state["counter"] == "Step 1 of 3" and state["w"] > 0 and state["marker"] and not state["box"]
            await page.click("css=#next")
            after = await page.evaluate("""() => ({counter: document.getElementById('counter').textContent,
                src: document.getElementById('img').src, marker: !!document.getElementById('pointer-marker'),
                diff: document.getElementById('diff').textContent})""")
            assert after["counter"] == "Step 2 of 3" and after["marker"]  # drag_end: same pixels as drag_start
            assert "kb_cards" in after["diff"]  # the drop wrote the card's new column
            await page.click("css=#next")
            last = await page.evaluate("() => [document.getElementById('action').textContent,"
                                       " document.getElementById('img').src]")
            assert '"done"' in last[0] and last[1] != state["src"]  # the card moved on screen
            assert not page.blocked_requests
        heur = next((report.parent / "traces").glob("heuristic__shop.cancel_order*.html")).relative_to(run_dir)
        async with browser.open(srv.url(heur.as_posix()), RenderProfile(width=1280, height=900)) as page:
            has_box = await page.evaluate("() => !!document.getElementById('target-box')")
            errors = await page.evaluate("() => document.getElementById('errors').textContent")
            assert has_box and "forbidden" in errors


def test_arena_runs_launch_chromiums_headless_shell(monkeypatch, tmp_path):
    """An arena run's workers launch Chromium's headless shell (the arena's browser), and its spec
    records which binary that is; browser options the caller passes still win."""
    import webgauge.run as run_mod
    from webgauge.browser import Browser

    seen: list = []
    specs: list = []
    monkeypatch.setattr(run_mod, "run_items",
                        lambda *a, **k: (seen.append(k.get("browser_options")), specs.append(a[1].options["browser"])))
    monkeypatch.delenv("WEBGAUGE_CHROMIUM", raising=False)
    tasks = build_tasks((0,), families=QUICK_FAMILIES[:1])
    run_arena(tmp_path / "a", tasks, [{"kind": "oracle"}], progress=False)
    run_arena(tmp_path / "b", tasks, [{"kind": "oracle"}], progress=False, browser_options={"headless_shell": False})
    assert seen == [{"headless_shell": True}, {"headless_shell": False}]
    assert Browser(**seen[0]).executable.endswith("chromium-headless-shell")
    assert not Browser(**seen[1]).executable.endswith("chromium-headless-shell")
    assert specs[0].startswith("chromium-headless-shell: Chromium 1") and specs[1].startswith("chromium: Chromium 1")
