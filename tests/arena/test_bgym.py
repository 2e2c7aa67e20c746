"""BrowserGym compatibility: action strings parsed with ast (never run), and an episode driven
by BrowserGym-style action strings only, with BrowserGym-style observation dicts."""

from __future__ import annotations

import pytest

from webgauge.arena.adapters.bgym import BGYM_ACTIONS, parse_bgym_action
from webgauge.arena.adapters.bgym_env import BrowserGymEpisode
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.core.actions import ActionError
from webgauge.arena.core.observation import Observation
from webgauge.arena.env import ArenaEnv
from webgauge.arena.tasks import build_tasks
from webgauge.browser import Element


def _el(eid, box, **attrs):
    return Element(id=eid, path="", tag="input", role="checkbox", name=eid, text="", box=box, visible=True,
                   clickable=True, color="", background_color="", font_size=14.0, attrs=attrs)


def _obs():
    return Observation(step=3, url="http://127.0.0.1/e/x/shop/", navigation_id=1, viewport=(1000, 500),
                       device_scale_factor=1.0, scroll=(0.0, 100.0), tabs=["u"], screenshot_hash="f" * 64,
                       token="f00d", elements=[_el("a1", (100, 200, 50, 20)), _el("a2", (0, 0, 10, 10), checked="")])


def test_every_high_level_call_maps_to_an_arena_action():
    o = _obs()
    kinds = {
        "click('a1')": ("click", "a1"), "fill('a1', 'hi there')": ("fill", "a1"), "clear('a1')": ("fill", "a1"),
        "select_option('a1', ['M'])": ("select", "a1"), "hover('a1')": ("hover", "a1"),
        "press('a1', 'Control+a')": ("press", "a1"), "focus('a1')": ("focus", "a1"), "scroll(0, 300)": ("scroll", None),
        "drag_and_drop('a1', 'a2')": ("drag", "a1"), "keyboard_type('abc')": ("type_text", None),
        "keyboard_press('Enter')": ("press", None), "goto('/shop/')": ("goto", None), "go_back()": ("back", None),
        "go_forward()": ("forward", None), "tab_focus(0)": ("switch_tab", None),
        "send_msg_to_user('CC-1022')": ("done", None), "noop()": ("wait", None), "noop(250)": ("wait", None),
        "check('a1')": ("click", "a1"), "uncheck('a1')": ("wait", None),
        "upload_file('a1', 'run.log')": ("upload", "a1"),
    }
    for code, (kind, element) in kinds.items():
        (a,) = parse_bgym_action(code, o)
        assert (a.kind, a.element) == (kind, element), code
    assert parse_bgym_action("click('a1', modifiers=['Shift'])", o)[0].modifiers == ("Shift",)
    assert parse_bgym_action("drag_and_drop('a1', 'a2')", o)[0].target == "a2"
    assert parse_bgym_action("send_msg_to_user('x')", o)[0].answer == "x"
    (p,) = parse_bgym_action("mouse_click(250, 125)", o)
    assert (p.kind, p.pointer, p.x, p.y, p.token) == ("pointer", "click", 0.25, 0.25, "f00d")
    d1, d2 = parse_bgym_action("mouse_drag_and_drop(10, 10, 990, 490)", o)
    assert (d1.pointer, d2.pointer) == ("drag_start", "drag_end") and d2.x == 0.99
    (dbl,) = parse_bgym_action("dblclick('a1')", o)  # the element's centre, viewport-relative (scrolled by 100)
    assert dbl.pointer == "double_click" and (dbl.x, dbl.y) == (0.125, 0.22)
    assert len(parse_bgym_action("fill('a1', 'x')\nclick('a1')", o)) == 2
    assert len(BGYM_ACTIONS) >= 20


@pytest.mark.parametrize("code, fix", [
    ("__import__('os').system('echo hi')", "one call"), ("click(bid)", "literal"), ("x = click('a1')", "one call"),
    ("click('a1'", "not a valid"), ("upload_file('a1', '/etc/passwd')", "never a host path"),
    ("upload_file('a1', ['a.log', 'b.log'])", "exactly one"), ("explode()", "unknown"),
    ("fill('a1')", "missing value"), ("click('a1', button='right')", "button"), ("mouse_click(5000, 1)", "outside"),
    ("select_option('a1', ['a', 'b'])", "exactly one"), ("click('a1', modifiers=['Hyper'])", "modifiers"),
    ("", "empty"), ("tab_focus(-1)", "index"), ("click('a1', 'left', [], 4)", "at most"),
])
def test_bad_strings_are_clear_errors_and_never_run(code, fix):
    with pytest.raises(ActionError, match=fix):
        parse_bgym_action(code, _obs())


@pytest.mark.browser
async def test_an_episode_driven_by_browsergym_action_strings_only(browser, arena):
    task = build_tasks((0,), families=["account.rename"])[0]
    new = task.oracle()[0].value  # the display name the task asks for
    ep = BrowserGymEpisode(ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url)))
    try:
        obs, info = await ep.reset(task)
        assert obs["goal"] == task.instruction and obs["screenshot"].shape == (800, 1280, 3)
        assert obs["url"].endswith("/account/") and obs["open_pages_urls"] and obs["active_page_index"] == 0
        box = next(iter(obs["extra_element_properties"].values()))
        assert set(box) >= {"bbox", "visibility", "clickable"} and "[" in obs["axtree_txt"]
        def bid(role, name, obs=obs):
            return next(line.split("]")[0].strip().lstrip("[") for line in obs["axtree_txt"].splitlines()
                        if f"] {role} '{name}'" in line)

        obs, reward, term, trunc, _ = await ep.step(
            f"click('{bid('textbox', 'Display name')}')\nkeyboard_press('Control+a')")
        assert not obs["last_action_error"], obs["last_action_error"]
        obs, *_ = await ep.step(f"keyboard_type({new!r})")
        obs, *_ = await ep.step("not_an_action()")
        assert "unknown action" in obs["last_action_error"]
        obs, *_ = await ep.step(f"click('{bid('button', 'Save changes')}')")
        assert not obs["last_action_error"], obs["last_action_error"]
        obs, *_ = await ep.step("noop(900)")
        obs, reward, term, trunc, info = await ep.step("send_msg_to_user('done')")
        assert term and reward == 1.0, info
        assert obs["chat_messages"][-1] == {"role": "assistant", "message": "done"}
    finally:
        await ep.env.close()

