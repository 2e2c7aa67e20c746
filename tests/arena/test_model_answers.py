"""Model answers: every answer is either a schema-valid action or a recorded invalid one."""

from __future__ import annotations

import asyncio
import json
import random
import string

from webgauge.arena.agents.model import ModelAgent
from webgauge.arena.agents.parse import parse_model_answer
from webgauge.arena.core.actions import ACTION_KINDS
from webgauge.arena.core.observation import Observation
from webgauge.models import get_model
from webgauge.models.fake_server import FakeModelServer

_VALID = [
    {"kind": "click", "element": "e3"}, {"kind": "fill", "element": "e4", "value": "x"},
    {"kind": "select", "element": "e5", "value": "M"}, {"kind": "press", "key": "Enter"},
    {"kind": "pointer", "pointer": "click", "x": 0.5, "y": 0.25, "screenshot_hash": "ab" * 32},
    {"kind": "goto", "url": "/shop/"}, {"kind": "switch_tab", "tab": 1}, {"kind": "done", "answer": "42"},
]
_REQUIRED = {"click": "element", "fill": "value", "select": "element", "hover": "element", "press": "key",
             "pointer": "screenshot_hash", "goto": "url", "switch_tab": "tab"}
_WRONG = [1, -3.5, True, None, [], ["e1"], {"a": 1}, "", "text", float("nan"), 1e308]


def _junk_value(rng: random.Random):
    return rng.choice([rng.randint(-10**9, 10**9), rng.random(), True, False, [1, "a"], {"k": "v"},
                       "".join(rng.choices(string.printable, k=rng.randint(0, 30)))])


def _garbage(rng: random.Random) -> object:
    """One answer that is not a valid action, by construction (12 kinds of wrong)."""
    kind = rng.randrange(12)
    if kind == 0:  # prose, possibly with braces
        return "".join(rng.choices(string.printable + "{}[]\"", k=rng.randint(0, 200))).replace('"kind"', "")
    if kind == 1:  # a JSON value that is not an object
        return json.dumps(rng.choice([[1, 2], 3, "click", None, True, [{"kind": 5}]]))
    if kind == 2:  # {} or an object without a kind
        return json.dumps({} if rng.random() < 0.5 else {"element": "e1", "value": _junk_value(rng)})
    if kind == 3:  # kind of the wrong type or unknown name
        return json.dumps({"kind": rng.choice([5, None, ["click"], {"k": 1}, True, "clik", "CLICK", "", "eval"])})
    if kind == 4:  # a known kind without its required field
        k = rng.choice(sorted(_REQUIRED))
        d = dict(next((v for v in _VALID if v["kind"] == k), {"kind": k, "element": "e1"}))
        d.pop(_REQUIRED[k], None)
        return json.dumps(d)
    if kind == 5:  # a field of the wrong type
        d = dict(rng.choice(_VALID))
        field = rng.choice([f for f in d if f != "kind"])
        numeric = isinstance(d[field], (int, float))
        d[field] = rng.choice([w for w in _WRONG if w is not None and (
            isinstance(w, (bool, str, list, dict)) if numeric else not isinstance(w, str))])
        return json.dumps(d)
    if kind == 6:  # coordinates out of range or not finite
        d = dict(_VALID[4])
        d[rng.choice("xy")] = rng.choice([-0.01, 1.5, 1e9, float("inf"), float("nan")])
        return json.dumps(d)
    if kind == 7:  # an unknown field
        d = dict(rng.choice(_VALID))
        d[rng.choice(["selector", "js", "__class__", "code", "bid"])] = _junk_value(rng)
        return json.dumps(d)
    if kind == 8:  # a truncated valid action
        text = json.dumps(rng.choice(_VALID))
        return text[:rng.randint(0, len(text) - 1)]
    if kind == 9:  # pathological nesting or size
        return rng.choice(['{"kind": ' + "[" * 50_000, '{"kind": "click", "element": "' + "e" * 2_000_000,
                           "{" * 100_000, '{"a": ' * 30_000])
    if kind == 10:  # integers where an integer is due, but as non-integral numbers
        return json.dumps({"kind": "switch_tab", "tab": rng.choice([0.5, "1", -1.25, True])})
    return rng.choice([None, b'{"kind": "back"}', 7, ["{}"], "\ud800{\udfff}"])  # not text at all


def test_ten_thousand_garbage_answers_never_crash_and_are_each_invalid():
    rng = random.Random(20261201)
    invalid = 0
    reasons = set()
    for _ in range(10_000):
        parsed = parse_model_answer(_garbage(rng))
        assert parsed.action is None, f"garbage accepted as {parsed.action}"
        assert parsed.error
        invalid += 1
        reasons.add(parsed.error.split(" ")[0])
    assert invalid == 10_000
    assert len(reasons) >= 5  # the errors say different things for different mistakes


def test_valid_answers_parse_even_wrapped_in_prose_and_braces_inside_strings():
    for d in _VALID:
        text = f"I will do this:\n```json\n{json.dumps(d)}\n```"
        parsed = parse_model_answer(text)
        assert parsed.valid, parsed.error
        assert parsed.action.to_dict() == d
    p = parse_model_answer('Sure. {"kind": "fill", "element": "e1", "value": "a } b {"} then done')
    assert p.valid and p.action.value == "a } b {"
    # the first object is broken, the second is a valid action: the valid one wins
    assert parse_model_answer('{"kind": 3} or rather {"kind": "back"}').action.kind == "back"


def test_errors_name_the_field_to_fix():
    assert "kind" in parse_model_answer("{}").error
    assert "'x'" in parse_model_answer(json.dumps({**_VALID[4], "x": "0.5"})).error
    assert "element" in parse_model_answer('{"kind": "click"}').error
    assert "bid" in parse_model_answer('{"kind": "click", "bid": "a1"}').error
    assert parse_model_answer('{"kind": "switch_tab", "tab": 2.0}').action.tab == 2
    assert set(ACTION_KINDS) >= {"click", "done"}


def _obs() -> Observation:
    return Observation(step=0, url="http://127.0.0.1/e/x/shop/", navigation_id=1, viewport=(800, 600),
                       device_scale_factor=1.0, scroll=(0.0, 0.0), tabs=["http://127.0.0.1/e/x/shop/"], elements=[])


def test_model_agent_sends_temperature_and_seed_and_records_an_empty_object_as_invalid():
    answers = iter(["{}", '{"kind": "back"}'])
    with FakeModelServer(lambda body: next(answers)) as srv:
        model = get_model("openai:fake", base_url=srv.openai_base_url)
        agent = ModelAgent(model, "dom", temperature=0.7, seed=11)
        agent.start({"id": "t", "instruction": "go back", "max_steps": 5}, "http://127.0.0.1")
        first = asyncio.run(agent.act(_obs()))
        second = asyncio.run(agent.act(_obs()))
        bodies = [r.body for r in srv.requests]
    assert [b["temperature"] for b in bodies] == [0.7, 0.7] and [b["seed"] for b in bodies] == [11, 11]
    assert first.invalid and "kind" in first.invalid and first.action.kind == "wait"
    assert first.usage["invalid_actions"] == 1
    assert not second.invalid and second.action.kind == "back"
