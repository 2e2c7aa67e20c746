"""The in-process providers: scripted answers from JSONL and the seeded random baseline."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

from webgauge.models import (
    GenerateConfig,
    ModelConfigError,
    NoScriptedAnswer,
    UsageMeter,
    get_model,
    messages_digest,
    user,
)
from webgauge.models.providers.scripted import replay_entry


def write_jsonl(path, entries):
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n\n", encoding="utf-8")
    return path


async def test_scripted_lookup_order(tmp_path, make_png):
    img = make_png()
    convo = [user("Describe this page", img)]
    path = write_jsonl(tmp_path / "answers.jsonl", [
        {"match": "color", "answer": "by substring"},
        {"item_id": "item-7", "answer": "by item id", "finish_reason": "length", "output_tokens": 3},
        {"match": "item-9", "answer": "by match as item key"},
        replay_entry(convo, "by prompt hash"),
        {"answer": "queue 1"},
        {"answer": "queue 2"},
    ])
    meter = UsageMeter()
    async with get_model(f"scripted:{path}", meter=meter) as model:
        r = await model.generate("what color is it", GenerateConfig(item_id="item-7"))
        assert (r.text, r.finish_reason, r.truncated, r.usage.output_tokens) == ("by item id", "length", True, 3)
        assert (await model.generate("anything", GenerateConfig(item_id="item-9"))).text == "by match as item key"
        assert (await model.generate(convo)).text == "by prompt hash"
        assert (await model.generate("which color is the button")).text == "by substring"
        assert (await model.generate("q1")).text == "queue 1"
        assert (await model.generate("q2")).text == "queue 2"
        with pytest.raises(NoScriptedAnswer, match=r"answers.jsonl.*item_id='zz'.*'q3'"):
            await model.generate("q3", GenerateConfig(item_id="zz"))
        # keyed entries answer again and again
        assert (await model.generate("color?")).text == "by substring"
    assert model.name == f"scripted:{path}"
    assert meter.totals.calls == 7 and meter.totals.errors == 1


async def test_scripted_empty_match_is_an_explicit_default():
    async with get_model("scripted", answers=[{"match": "", "answer": "A"}]) as model:
        assert [(await model.generate(f"q{i}")).text for i in range(3)] == ["A", "A", "A"]


async def test_scripted_is_never_cached(tmp_path):
    async with get_model("scripted", answers=[{"answer": "1"}, {"answer": "2"}],
                         cache=tmp_path / "c.sqlite") as model:
        assert [(await model.generate("same")).text for _ in range(2)] == ["1", "2"]


@pytest.mark.parametrize("content,message", [
    ('{"answer": "x", "matc": "typo"}', "unknown keys"),
    ('{"match": "x"}', "'answer' must be a string"),
    ("not json", "not valid JSON"),
    ('{"answer": "x", "finish_reason": "eos"}', "finish_reason must be one of"),
])
def test_scripted_bad_files_are_clear_errors(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content + "\n")
    with pytest.raises(ModelConfigError, match=message):
        get_model(f"scripted:{path}")


def test_scripted_missing_file_and_missing_answers(tmp_path):
    with pytest.raises(ModelConfigError, match="not found"):
        get_model(f"scripted:{tmp_path / 'nope.jsonl'}")
    with pytest.raises(ModelConfigError, match="needs answers"):
        get_model("scripted")


def test_replay_entry_uses_the_messages_digest(make_png):
    convo = [user("x", make_png())]
    assert replay_entry(convo, "a", item_id="i") == {"prompt_sha256": messages_digest(convo), "answer": "a",
                                                    "item_id": "i"}


async def test_random_is_deterministic_per_item_and_seed():
    choices = ["A", "B", "C", "D"]
    async with get_model("random") as model:
        async def answers(seed):
            cfgs = [GenerateConfig(choices=choices, seed=seed, item_id=f"item-{i}") for i in range(200)]
            rs = await asyncio.gather(*[model.generate(f"question {i}", c) for i, c in enumerate(cfgs)])
            return [r.text for r in rs]
        a, b, c = await answers(0), await answers(0), await answers(1)
    assert a == b and a != c
    counts = Counter(a)
    assert set(counts) == set(choices) and min(counts.values()) >= 30  # roughly uniform over 200 draws
    # order and concurrency do not matter: one item asked alone gets the same answer
    async with get_model("random") as model:
        alone = await model.generate("question 17", GenerateConfig(choices=choices, seed=0, item_id="item-17"))
    assert alone.text == a[17] and alone.usage.input_tokens == 0


async def test_random_choices_from_model_options_and_clear_error():
    async with get_model("random", choices=["yes", "no"], seed=5) as model:
        r = await model.generate("q")
        assert r.text in ("yes", "no") and r.raw["seed"] == 5
    async with get_model("random") as model:
        with pytest.raises(ModelConfigError, match="needs the allowed answers"):
            await model.generate("q")
    with pytest.raises(ModelConfigError, match="takes no model name"):
        get_model("random:gpt")


async def test_record_a_run_then_replay_it_without_the_model(tmp_path, make_png):
    from webgauge.models import assistant
    from webgauge.models.fake_server import FakeModelServer, Reply, request_text
    img = make_png()
    record = tmp_path / "replay" / "answers.jsonl"
    first = [user("Describe", img)]
    second = first + [assistant("a page"), user("Shorter?")]
    with FakeModelServer(lambda b: Reply(f"re: {request_text(b)}", finish_reason="length")) as srv:
        async with get_model("openai:m", base_url=srv.openai_base_url, record=record,
                             cache=tmp_path / "c.sqlite") as model:
            live = [await model.generate(first, GenerateConfig(item_id="it-1")),
                    await model.generate(second, GenerateConfig(item_id="it-1")),
                    await model.generate(first, GenerateConfig(item_id="it-1"))]  # a cache hit, recorded too
            assert live[2].cached
        assert model.describe()["endpoint"] == srv.openai_base_url
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(lines) == 3 and lines[0]["meta"] == {"model": "openai:m", "item_id": "it-1"}
    async with get_model(f"scripted:{record}") as replay:  # no server any more
        again = [await replay.generate(m, GenerateConfig(item_id="it-1")) for m in (first, second, first)]
    assert [r.text for r in again] == [r.text for r in live] == ["re: Describe", "re: Shorter?", "re: Describe"]
    assert all(r.truncated for r in again)
    assert again[1].usage.input_tokens == live[1].usage.input_tokens
