"""Equal terms for every observation mode: screenshot mode is enforced (no element ids, ids salted
per episode), the browser's native pickers are visible in the screenshot (an open <select>, a file
chooser), the pointer-only oracle solves within the screenshot mode's budget (every family, in a held-out
world: tests/arena/test_heldout_oracle.py), and in dom mode (no screenshot, so no pointing) only the visual
families need a pointer step."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.agents.pointer_oracle import PointerOracle, hit_point
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.core.actions import Action
from webgauge.arena.core.agent import AgentStep
from webgauge.arena.core.script import PointAt, by_element
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.env.episode import play
from webgauge.arena.env.pickers import SelectPopup
from webgauge.arena.modes import check_modes
from webgauge.arena.tasks import FAMILIES, build_tasks

# every mode on a file chooser, an answer and a drag (a chart's reading: the check-modes CLI test below;
# every family pointer-only: tests/arena/test_heldout_oracle.py)
QUICK = ("forum.attach_file", "admin.count_status", "board.drag")


def _env(browser, arena, mode: str | None) -> ArenaEnv:
    return ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url), EnvOptions(obs_mode=mode))


async def _pointer_at(env, obs, el) -> Action:
    x, y = obs.normalized(*await hit_point(env.page, obs, el))
    return Action("pointer", pointer="click", x=x, y=y, token=obs.token)


@pytest.mark.browser
async def test_screenshot_mode_rejects_element_ids_and_other_modes_take_them(browser, arena):
    task = build_tasks((0,), families=["forum.attach_file"])[0]
    env = _env(browser, arena, "screenshot")
    try:
        obs = await env.reset(task)
        link = next(e for e in obs.elements if e.visible and e.tag == "a" and e.attrs.get("href"))
        field = next(e for e in obs.elements if e.visible and e.tag == "input" and e.attrs.get("type") != "hidden")
        for action in (Action("click", element=link.id), Action("fill", element=field.id, value="x"),
                       Action("press", element=field.id, key="Enter")):
            out = await env.step(action)
            r = out.info["result"]
            assert r["ok"] is False and r["rejected"] == "mode", r
            assert "screenshot mode has no element ids" in r["error"] and "pointer" in r["error"]
            assert out.observation.url == obs.url and not out.info["diff"].to_dict()
        assert out.observation.element(field.id).attrs.get("value", "") == field.attrs.get("value", "")
        env.obs_mode = "screenshot+tree"  # the same id is an action in a mode that shows ids
        out = await env.step(Action("click", element=link.id))
        assert out.info["result"]["ok"], out.info["result"]
    finally:
        await env.close()


@pytest.mark.browser
async def test_element_ids_are_salted_per_episode_and_another_seeds_id_is_rejected(browser, arena):
    t0, t1 = build_tasks((0, 1), families=["forum.attach_file"])
    env = _env(browser, arena, "dom")
    try:
        obs0 = await env.reset(t0)
        again = await env.reset(t0)  # the same task and seed: the same ids (a recorded run replays)
        assert [e.id for e in again.elements] == [e.id for e in obs0.elements]
        obs1 = await env.reset(t1)
        by_path0 = {e.path: e.id for e in obs0.elements}
        shared = [e for e in obs1.elements if e.path in by_path0]
        assert len(shared) > 20 and all(by_path0[e.path] != e.id for e in shared)
        link = next(e for e in obs0.elements if e.visible and e.tag == "a" and e.attrs.get("href"))
        out = await env.step(Action("click", element=link.id))  # an id remembered from seed 0
        r = out.info["result"]
        assert r["ok"] is False and r["rejected"] == "missing_element", r
        assert out.observation.url == obs1.url
    finally:
        await env.close()


@pytest.mark.browser
async def test_upload_through_the_file_chooser_in_screenshot_mode(browser, arena):
    task = build_tasks((2,), families=["forum.attach_file"])[0]
    env = _env(browser, arena, "screenshot")
    try:
        await env.reset(task)
        out = await env.step(Action("upload", value=task.files[0][0]))  # no chooser open yet
        assert out.info["result"]["rejected"] == "no_file_chooser"
        agent = _Picky(task, env)
        rec, _ = await play(env, agent, task)
        assert rec.success and not rec.forbidden, (rec.validator_errors, [s.result for s in rec.steps][-3:])
        assert rec.n_steps <= task.budget("screenshot") + 2
        assert not any(s.action.get("element") or s.action.get("target") for s in rec.steps)
        opened = [s for s in rec.steps if s.after.get("file_chooser") is not None]
        # open after the click that opened it and after the refused name, then answered and gone
        assert len(opened) == 2 and opened[1].step == opened[0].step + 1
        assert opened[0].after["file_chooser"] == [n for n, _ in task.files]
        assert opened[0].after["overlays"][0]["kind"] == "file_chooser"
        nxt = rec.steps[opened[0].step]  # a name the chooser does not offer is refused, the chooser stays
        assert nxt.action == {"kind": "upload", "value": "other.log"} and nxt.result["rejected"] == "unknown_file"
        assert nxt.after["file_chooser"] == [n for n, _ in task.files]
        picked = [s for s in rec.steps if s.action.get("kind") == "upload" and s.result.get("ok")]
        assert [s.action for s in picked] == [{"kind": "upload", "value": task.files[0][0]}]
        assert [f["name"] for f in env.state["files"]].count(task.files[0][0]) == 1
    finally:
        await env.close()


class _Picky(PointerOracle):
    """The pointer-only oracle that first names a file the chooser does not offer."""

    tried = False

    async def act(self, seen):
        if seen.file_chooser is not None and not self.tried:
            self.tried = True
            return AgentStep(Action("upload", value="other.log"), thought="a file the task does not offer")
        return await super().act(seen)


def _rgb(png: bytes):
    return Image.open(io.BytesIO(png)).convert("RGB")


@pytest.mark.browser
async def test_an_open_select_shows_its_options_in_the_screenshot(browser, arena):
    task = build_tasks((0,), families=["dash.peak_month"])[0]
    env = _env(browser, arena, "screenshot")
    try:
        obs = await env.reset(task)
        sel = next((e for e in obs.elements if e.visible and e.tag == "select"), None)
        assert sel is not None, "dash.peak_month's start page has a <select>"
        opts = [e for e in obs.elements if e.tag == "option" and e.parent == sel.id]
        out = await env.step(await _pointer_at(env, obs, sel))
        shown = out.observation
        p = env.picker
        assert isinstance(p, SelectPopup) and p.labels == [(o.text or "").strip() for o in opts]
        assert shown.overlays and shown.overlays[0]["kind"] == "select_popup"
        assert shown.screenshot_hash != shown.snapshot.png_sha256  # drawn over the page's own pixels
        img, page = _rgb(shown.png), _rgb(shown.snapshot.png)
        x, y, w, h = p.box
        changed = sum(img.getpixel((int(x + i), int(y + j))) != page.getpixel((int(x + i), int(y + j)))
                      for i in range(0, int(w), 4) for j in range(0, int(h), 4))
        assert changed > 0.3 * (int(w) // 4) * (int(h) // 4), changed
        # the current choice is highlighted; the other rows are white with dark text
        _, cy = p.row_center(p.highlighted)
        assert img.getpixel((int(x + w - 3), int(cy))) == (30, 104, 218)
        other = next(i for i in range(p.first, p.first + p.rows) if i != p.highlighted)
        _, oy = p.row_center(other)
        row = [img.getpixel((int(x + 4 + i), int(oy + j))) for i in range(int(w) - 8) for j in (-3, 0, 3)]
        assert row.count((255, 255, 255)) > len(row) // 2 and min(sum(c) for c in row) < 200
        # a click on another row picks that option, like a user's choice; the popup is gone
        before = shown
        out = await env.step(_pointer_at_point(before, *p.row_center(other)))
        assert out.info["result"]["ok"] and env.picker is None and not out.observation.overlays
        after_sel = next(e for e in out.observation.elements if e.tag == "select" and e.path == sel.path)
        value = opts[other].attrs.get("value", (opts[other].text or "").strip())
        assert after_sel.attrs.get("value") == value or value in out.observation.url
        # Escape closes a popup without choosing
        obs = out.observation
        sel2 = next(e for e in obs.elements if e.visible and e.tag == "select")
        out = await env.step(await _pointer_at(env, obs, sel2))
        assert env.picker is not None
        out = await env.step(Action("press", key="Escape"))
        assert env.picker is None and out.observation.screenshot_hash == out.observation.snapshot.png_sha256
    finally:
        await env.close()


def _pointer_at_point(obs, px: float, py: float) -> Action:
    x, y = obs.normalized(px, py)
    return Action("pointer", pointer="click", x=x, y=y, token=obs.token)


def test_budgets_are_stated_per_mode():
    for t in build_tasks((0,)):
        assert t.budget("screenshot") >= t.max_steps == t.budget("dom") == t.budget("screenshot+tree")
        pub = t.public("screenshot")
        assert pub["max_steps"] == t.budget("screenshot") and pub["obs_mode"] == "screenshot"
        assert t.describe()["max_steps_by_mode"]["screenshot"] == t.budget("screenshot")
    assert build_tasks((0,), families=["desks.team_visit"])[0].budget("screenshot") > 30


async def _check(browser, arena, tasks, workers=2, **kw):
    rows = await check_modes(browser, arena.app_url, arena.control_url, tasks, workers=workers, **kw)
    bad = [(r.task_id, r.mode, r.success, r.steps, r.budget, r.errors, r.rejections) for r in rows if not r.ok]
    return rows, bad


@pytest.mark.browser
async def test_pointer_only_oracle_solves_a_few_families_within_the_screenshot_budget(browser, arena):
    tasks = build_tasks((5,), families=list(QUICK))
    assert not any(t.visual for t in tasks)  # so each is played in all three modes
    rows, bad = await _check(browser, arena, tasks)
    assert len(rows) == 3 * len(QUICK) and not bad, bad
    assert {r.mode for r in rows} == {"screenshot", "screenshot+tree", "dom"}


def _pointer_families(tasks, *, dom: bool) -> set[str]:
    """Families whose script takes a pointer step, a drag's included (``dom``: once played without pixels)."""
    return {t.family for t in tasks
            if any(isinstance(s, PointAt) for s in (by_element(list(t.oracle())) if dom else t.oracle()))}


@pytest.mark.parametrize("world", ["public", "held-out"])
def test_without_pixels_only_visual_families_keep_a_pointer_step(world, heldout_oracle_seed):
    """In dom mode an agent cannot point (a pointer action names the screenshot it was aimed at, and the
    mode shows none): the script's pointer clicks and drags on elements become element actions, and
    only the families whose success depends on pixels keep a pointer step."""
    tasks = build_tasks((0 if world == "public" else heldout_oracle_seed,))
    assert len(tasks) == len(FAMILIES)
    visual = {t.family for t in tasks if t.visual}
    kept = _pointer_families(tasks, dom=True)
    assert kept and kept <= visual, kept - visual
    assert _pointer_families(tasks, dom=False) - kept, "no script had a pointer step to translate"
    drag = next(t for t in tasks if t.family == "board.drag")
    assert [type(s).__name__ for s in by_element(list(drag.oracle()))] == ["DragOnto"]
    # a point that matters inside an element (a map's spot) is not translated
    pin = next(t for t in tasks if t.family == "maps.drop_pin")
    assert any(isinstance(s, PointAt) for s in by_element(list(pin.oracle())))


@pytest.mark.browser
async def test_element_id_oracle_solves_without_pixels_every_family_whose_script_points(browser, arena):
    """Each family that is not visual but whose script points or drags, played in dom mode (element ids,
    no screenshot): solved within the budget, as the pointer-free families are by the element-id oracle at
    the public seeds."""
    tasks = [t for t in build_tasks((2,)) if not t.visual]
    pointing = _pointer_families(tasks, dom=False)
    assert {"board.drag", "board.multi_archive", "media.details_resize"} <= pointing
    rows, bad = await _check(browser, arena, [t for t in tasks if t.family in pointing], modes=("dom",))
    assert len(rows) == len(pointing) and not bad, bad
    assert all(r.mode == "dom" and r.agent == "oracle" for r in rows)


def test_oracle_agent_keeps_its_mode():
    task = build_tasks((0,), families=["dash.peak_month"])[0]
    assert OracleAgent(task).obs_mode == "screenshot+tree"
    assert PointerOracle(task, env=None).obs_mode == "screenshot"


@pytest.mark.browser
def test_check_modes_cli_prints_steps_against_each_modes_budget():
    import json

    from click.testing import CliRunner

    from webgauge.cli.arena import group

    r = CliRunner().invoke(group, ["tasks", "--check-modes", "--seeds", "3", "--family", "dash.peak_month", "--json"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines() if line.startswith("{")]
    task = build_tasks((3,), families=["dash.peak_month"])[0]
    assert {x["mode"]: x["budget"] for x in rows} == {"screenshot+tree": task.max_steps,
                                                        "screenshot": task.budget("screenshot")}
    assert all(x["ok"] and x["success"] and 0 < x["steps"] <= x["budget"] for x in rows), rows
    assert task.budget("screenshot") > task.max_steps
    # the plain output sums each mode up, and says why a visual task has no dom row
    plain = CliRunner().invoke(group, ["tasks", "--check-modes", "--seeds", "3", "--family", "dash.peak_month"])
    assert plain.exit_code == 0, plain.output
    assert "screenshot: 1 of 1 tasks solved within the budget" in plain.output
    assert "dom: not played on 1 visual task(s)" in plain.output and "\ndom: 1 of" not in plain.output
