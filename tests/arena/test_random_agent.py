"""The random-action baseline: uniform over its mode's action space, aimed only at what the
observation offers (the page's visible elements in ``dom``, pixels in ``screenshot``), seeded, and
needing nothing but the task's public view. In real Chromium it plays episodes to their end and
shows in the report beside the oracle, as the floor."""

from __future__ import annotations

import asyncio
import collections

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webgauge.arena.agents.random import DOM_KINDS, SCREENSHOT_KINDS, RandomAgent
from webgauge.arena.core.observation import Observation
from webgauge.browser.snapshot import Element

WORDS = st.text(alphabet=st.characters(codec="ascii", categories=("L", "N")), min_size=1, max_size=8)


@st.composite
def observations(draw) -> Observation:
    n = draw(st.integers(0, 12))
    els = [Element(id=f"e{i}", path=f"/x[{i}]", tag=draw(st.sampled_from(["a", "button", "input", "div", "select"])),
                   role=draw(st.sampled_from(["link", "button", "textbox", "", "combobox"])), name=draw(WORDS),
                   text=draw(WORDS), box=(0.0, 10.0 * i, 50.0, 10.0), visible=draw(st.booleans()),
                   clickable=draw(st.booleans()), color="#000", background_color="#fff", font_size=12.0)
           for i in range(n)]
    step = draw(st.integers(0, 30))
    return Observation(step=step, url="http://127.0.0.1:1/e/x/", navigation_id=0, viewport=(1280, 800),
                       device_scale_factor=1.0, scroll=(0.0, 0.0), png=b"png", screenshot_hash="ab" * 32,
                       token=f"s{step}-abcdef", elements=els,
                       file_chooser=draw(st.none() | st.just(["a.txt"])))


def _task(files: bool = False) -> dict:
    pub = {"id": "mail.forward.s0", "instruction": "Forward the mail from 'Ada Lovelace' to ops@example.com.",
           "start_url": "/mail", "viewport": {"width": 1280, "height": 800}, "max_steps": 10}
    return {**pub, "files": ["a.txt"]} if files else pub


@settings(max_examples=200)
@given(observations(), st.integers(0, 2 ** 32), st.booleans())
def test_dom_actions_aim_only_at_the_pages_visible_elements(obs, seed, files):
    agent = RandomAgent(seed, "dom")
    agent.start(_task(files), "http://127.0.0.1:1/e/x")
    visible = {e.id for e in obs.elements or [] if e.visible}
    for _ in range(30):
        a = asyncio.run(agent.act(obs)).action
        assert a.kind in (*DOM_KINDS, "wait")
        assert a.kind != "pointer" and a.screenshot_hash is None and a.token is None
        for eid in (a.element, a.target):
            assert eid is None or eid in visible
        if a.kind == "upload":
            assert files and a.value == "a.txt"
        if a.kind in ("click", "fill", "select", "hover", "focus", "drag"):
            assert visible  # without a visible element the draw waits instead


@settings(max_examples=200)
@given(observations(), st.integers(0, 2 ** 32), st.booleans())
def test_screenshot_actions_are_pixels_on_the_current_screenshot_and_never_element_ids(obs, seed, files):
    agent = RandomAgent(seed, "screenshot")
    agent.start(_task(files), "http://127.0.0.1:1/e/x")
    for _ in range(30):
        a = asyncio.run(agent.act(obs)).action
        assert a.kind in (*SCREENSHOT_KINDS, "wait")
        assert a.element is None and a.target is None
        if a.kind == "pointer":
            assert a.token == obs.token and 0 <= a.x <= 1 and 0 <= a.y <= 1
        if a.kind == "upload":
            assert files and obs.file_chooser is not None


@given(observations(), st.integers(0, 2 ** 32), st.sampled_from(["dom", "screenshot"]))
def test_the_same_seed_replays_the_same_actions(obs, seed, mode):
    def actions(s: int) -> list:
        agent = RandomAgent(s, mode)
        agent.start(_task(), "http://127.0.0.1:1/e/x")
        return [asyncio.run(agent.act(obs)).action for _ in range(25)]

    assert actions(seed) == actions(seed)


def test_every_kind_of_the_mode_is_drawn_about_equally():
    """Uniform over the kinds: over many draws each kind's share is near 1/len(kinds)."""
    obs = Observation(step=1, url="u", navigation_id=0, viewport=(800, 600), device_scale_factor=1.0, scroll=(0, 0),
                      token="s1-aaaaaa", screenshot_hash="cd" * 32, elements=[
                          Element(id="e1", path="/a", tag="button", role="button", name="Go", text="Go",
                                  box=(0, 0, 10, 10), visible=True, clickable=True, color="#000",
                                  background_color="#fff", font_size=12.0)], file_chooser=["a.txt"])
    for mode, kinds in (("dom", DOM_KINDS), ("screenshot", SCREENSHOT_KINDS)):
        agent = RandomAgent(7, mode)
        agent.start(_task(files=True), "u")
        n = 7000
        counts = collections.Counter(asyncio.run(agent.act(obs)).action.kind for _ in range(n))
        assert set(counts) == set(kinds), (mode, counts)
        for k in kinds:
            assert abs(counts[k] / n - 1 / len(kinds)) < 0.02, (mode, k, counts)


def test_other_seeds_give_other_episodes_and_the_mode_is_checked():
    obs = Observation(step=1, url="u", navigation_id=0, viewport=(800, 600), device_scale_factor=1.0, scroll=(0, 0),
                      token="s1-aaaaaa", screenshot_hash="cd" * 32, elements=[])
    seqs = set()
    for seed in range(5):
        agent = RandomAgent(seed, "screenshot")
        agent.start(_task(), "u")
        seqs.add(tuple(asyncio.run(agent.act(obs)).action for _ in range(10)))
    assert len(seqs) == 5
    with pytest.raises(ValueError, match="dom, screenshot"):
        RandomAgent(0, "screenshot+tree")


@pytest.mark.browser
async def test_random_episodes_run_to_their_end_and_sit_beside_the_oracle_in_the_report(tmp_path):
    from webgauge.arena.outputs.report import family_success_text
    from webgauge.arena.outputs.scoring import load_episodes
    from webgauge.arena.runner import run_arena
    from webgauge.arena.tasks import build_tasks

    tasks = build_tasks((0, 1), families=["mail.forward", "board.drag"])
    agents = [{"kind": "oracle"}, {"kind": "random", "seed": 3}, {"kind": "random", "obs_mode": "screenshot"}]
    await asyncio.to_thread(run_arena, tmp_path / "run", tasks, agents, progress=False, workers=1)
    eps = load_episodes(tmp_path / "run")
    assert not eps.failures, eps.failures
    assert eps.agents[:3] == ["oracle", "random", "random|screenshot"]
    for name, mode in (("random", "dom"), ("random|screenshot", "screenshot")):
        recs = eps.of(name)
        assert len(recs) == len(tasks) and all(r.agent_kind == "random" and r.obs_mode == mode for r in recs)
        # each episode ended: by the agent's done or by its step budget, never by an error
        assert all(r.steps for r in recs)
    assert all(r.success for r in eps.of("oracle"))
    text = family_success_text(eps)
    assert text.splitlines()[1].split()[:4] == ["family", "oracle", "random", "random|screenshot"], text
