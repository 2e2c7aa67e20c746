"""Approval requests through BrowserGym's chat: the oracle's writer, webgauge's own BrowserGym parser and
the ``integrations/browsergym`` task read one form (``send_msg_to_user('request_approval: NAME')``).

The package's chat module is standard library only, so it is loaded here from its file, as it ships."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webgauge.arena.adapters.bgym import APPROVAL_PREFIX, parse_bgym_action
from webgauge.arena.adapters.bgym_env import BrowserGymEpisode
from webgauge.arena.adapters.bgym_oracle import BgymActionWriter
from webgauge.arena.apps import declared_controls
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.core.actions import Action
from webgauge.arena.core.observation import Observation
from webgauge.arena.env import ArenaEnv, EnvOptions, deny_all, grant_all
from webgauge.arena.tasks import build_tasks

CHAT = Path(__file__).resolve().parents[2] / "integrations/browsergym/src/browsergym/webgauge/chat.py"


def _chat():
    spec = importlib.util.spec_from_file_location("bgym_webgauge_chat", CHAT)
    assert spec is not None and spec.loader is not None, CHAT
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


chat = _chat()
OBS = Observation(step=0, url="http://127.0.0.1/", navigation_id=0, viewport=(1280, 800), device_scale_factor=1.0,
                  scroll=(0.0, 0.0), tabs=["http://127.0.0.1/"], elements=[], screenshot_hash="0" * 64)
GOAL = {"role": "user", "message": "Delete the user"}


def _message(action_string: str) -> str:
    """The text BrowserGym's ``send_msg_to_user(text)`` would put in the chat."""
    call = ast.parse(action_string, mode="eval").body
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "send_msg_to_user"
    return ast.literal_eval(call.args[0])


def test_one_prefix_on_both_sides():
    assert chat.APPROVAL_PREFIX == APPROVAL_PREFIX


def _names():
    """The accessible names of every control an own app declares irreversible."""
    return sorted({n for names in declared_controls().by_prefix.values() for n in names})


def test_every_declared_control_round_trips():
    names = _names()
    assert names, "no declared irreversible control"
    for name in names:
        text = _message(BgymActionWriter().write(Action("request_approval", value=name, reason="r"), OBS, {}))
        msg = {"role": "assistant", "message": text}
        assert chat.approval_request(msg) == " ".join(name.split()), (name, text)
        assert chat.agent_answer([GOAL, msg]) == (None, False)  # a request is no answer: the episode goes on
        [a] = parse_bgym_action(BgymActionWriter().write(Action("request_approval", value=name), OBS, {}))
        assert (a.kind, a.value) == ("request_approval", " ".join(name.split()))


names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(lambda s: s.split())


@given(names, st.lists(st.text(max_size=20), max_size=3))
def test_a_request_names_its_control_and_never_ends_the_episode(name, answers):
    """Whatever the control's name: the package reads back the name the writer sent (spaces collapsed, as
    the gate compares them), the parser reads the same, and only a later plain message is an answer."""
    text = _message(BgymActionWriter().write(Action("request_approval", value=name), OBS, {}))
    req = {"role": "assistant", "message": text}
    assert chat.approval_request(req) == " ".join(name.split())
    [a] = parse_bgym_action(f"send_msg_to_user({text!r})")
    assert a.kind == "request_approval" and a.value == " ".join(name.split())
    msgs = [GOAL, req, {"role": "user", "message": f"approved: {name}"}]
    plain = [t for t in answers if not t.strip().lower().startswith(APPROVAL_PREFIX)]
    msgs += [{"role": "assistant", "message": t} for t in plain]
    assert chat.agent_answer(msgs) == ((plain[-1], True) if plain else (None, False))


@given(st.text(max_size=60))
def test_a_plain_message_is_an_answer_not_a_request(text):
    msg = {"role": "assistant", "message": text}
    is_request = text.strip().lower().startswith(APPROVAL_PREFIX)
    assert (chat.approval_request(msg) is not None) == is_request
    assert chat.agent_answer([GOAL, msg]) == ((None, False) if is_request else (text, True))
    if not is_request:
        [a] = parse_bgym_action(f"send_msg_to_user({text!r})")
        assert (a.kind, a.answer) == ("done", text)
    # the user's own words are never the agent's request, whatever they say
    assert chat.approval_request({"role": "user", "message": text}) is None


@pytest.mark.browser
async def test_webgauge_browsergym_episode_answers_a_request_in_the_chat(browser, arena):
    """webgauge's own BrowserGym-style episode reads the same form: the request goes to the run's approval
    policy for the named control, both lines land in the chat, and the episode goes on."""
    task = build_tasks((0,), families=["admin.delete_user"])[0]
    for policy, said in ((grant_all, "approved"), (deny_all, "denied")):
        env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url), EnvOptions(gate_destructive=True),
                       approval_policy=policy)
        ep = BrowserGymEpisode(env)
        try:
            await ep.reset(task)
            obs, reward, term, trunc, _ = await ep.step("send_msg_to_user('request_approval:  Delete  permanently')")
            assert not (term or trunc) and reward == 0.0 and not obs["last_action_error"], obs["last_action_error"]
            assert obs["chat_messages"][-2:] == [
                {"role": "assistant", "message": "request_approval:  Delete  permanently"},
                {"role": "user", "message": f"{said}: Delete permanently"}], obs["chat_messages"]
            asked = [g for g in env.gate_log if g["event"] in ("granted", "denied")]
            want = "granted" if policy is grant_all else "denied"
            assert [(g["event"], g["control"]) for g in asked] == [(want, "Delete permanently")], asked
        finally:
            await env.close()
