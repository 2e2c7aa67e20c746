"""anthropic and gemini: request building, and the real SDKs driven against a loopback server."""

from __future__ import annotations

import time

import pytest

from webgauge.models import GenerateConfig, PermanentError, RetryPolicy, assistant, get_model, system, user
from webgauge.models.fake_server import FakeModelServer, Fault, request_images, request_text
from webgauge.models.providers.anthropic_sdk import build_anthropic_request, sdk_kwargs
from webgauge.models.providers.gemini_sdk import build_gemini_request

RETRY = RetryPolicy(max_retries=3, base_delay=0.02, jitter=0.0)


def conversation(img):
    return [system("You grade pages."), user("Look:", img, "which color?"), assistant("red"), user("sure?")]


def test_anthropic_request_conversion(make_png):
    img = make_png()
    body = build_anthropic_request("claude-x", tuple(conversation(img)),
                                   GenerateConfig(top_p=0.5, stop=["END"], extra={"metadata": {"user_id": "u"}}))
    assert body["system"] == "You grade pages."
    assert body["max_tokens"] == 1024 and body["temperature"] == 0.0 and body["top_p"] == 0.5
    assert body["stop_sequences"] == ["END"] and body["metadata"] == {"user_id": "u"}
    assert [t["role"] for t in body["messages"]] == ["user", "assistant", "user"]
    blocks = body["messages"][0]["content"]
    assert blocks[0] == {"type": "text", "text": "Look:"} and blocks[2] == {"type": "text", "text": "which color?"}
    assert blocks[1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                     "data": img.base64()}}
    assert "temperature" not in build_anthropic_request("c", (user("x"),), GenerateConfig(), sampling_params=False)

    def create(*, model, messages, max_tokens, system=None, extra_body=None, timeout=None):
        pass
    kw = sdk_kwargs(create, body)  # fields the SDK does not name travel in extra_body
    assert set(kw) == {"model", "messages", "max_tokens", "system", "extra_body"}
    assert kw["extra_body"] == {"temperature": 0.0, "top_p": 0.5, "stop_sequences": ["END"],
                                "metadata": {"user_id": "u"}}
    with pytest.raises(ValueError, match="start with a user message"):
        build_anthropic_request("c", (assistant("x"),), GenerateConfig())


def test_gemini_request_conversion(make_png):
    img = make_png()
    contents, cfg = build_gemini_request(tuple(conversation(img)), GenerateConfig(max_tokens=9, seed=4, stop="S"))
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[0]["parts"] == [{"text": "Look:"}, {"inline_data": {"mime_type": "image/png", "data": img.data}},
                                    {"text": "which color?"}]
    assert cfg == {"temperature": 0.0, "system_instruction": "You grade pages.", "max_output_tokens": 9,
                   "seed": 4, "stop_sequences": ["S"]}


async def test_anthropic_sdk_over_real_http(make_png, tmp_path):
    img = make_png()
    with FakeModelServer(lambda body: f"you said {request_text(body)} and more words", api_key="sk-ant") as srv:
        srv.add_faults(Fault.http(429, retry_after=0.3), Fault.http(529), Fault.malformed())
        async with get_model("anthropic:claude-test", base_url=srv.anthropic_base_url, api_key="sk-ant",
                             retry=RETRY, cache=tmp_path / "c.sqlite") as model:
            t0 = time.monotonic()
            r = await model.generate(conversation(img), GenerateConfig(max_tokens=4, stop=["END"]))
            assert time.monotonic() - t0 >= 0.3
            assert r.text == "you said sure? and" and r.finish_reason == "length" and r.truncated
            assert r.usage.retries == 3 and r.usage.images == 1 and r.usage.output_tokens == 4
            wire = srv.requests[-1]
            assert wire.path == "/v1/messages" and wire.body["system"] == "You grade pages."
            assert wire.body["temperature"] == 0.0 and wire.body["stop_sequences"] == ["END"]
            assert wire.body["max_tokens"] == 4 and request_images(wire.body) == [("image/png", img.data)]
            # deterministic: served from the cache; a seeded sampled call is not (no seed in this API)
            assert (await model.generate(conversation(img), GenerateConfig(max_tokens=4, stop=["END"]))).cached
            sampled = GenerateConfig(temperature=0.8, seed=1)
            await model.generate("x", sampled)
            assert not (await model.generate("x", sampled)).cached
            srv.add_faults(Fault.http(404))
            with pytest.raises(PermanentError, match="HTTP 404.*check the model name"):
                await model.generate("y")
            srv.add_faults(Fault.stall(30))
            r = await model.generate("z", GenerateConfig(timeout=1.0))
            assert r.usage.retries == 1 and r.text == "you said z and more words"
        async with get_model("anthropic:claude-test", base_url=srv.anthropic_base_url, api_key="bad",
                             retry=RETRY) as model:
            with pytest.raises(PermanentError, match="HTTP 401"):
                await model.generate("y")


async def test_gemini_sdk_over_real_http(make_png, tmp_path):
    img = make_png()
    with FakeModelServer(lambda body: f"gem {request_text(body)}", api_key="g-key") as srv:
        srv.add_faults(Fault.http(429, retry_after=0.3), Fault.http(503), Fault.drop())
        async with get_model("gemini:gemini-test", base_url=srv.gemini_base_url, api_key="g-key",
                             retry=RETRY, cache=tmp_path / "c.sqlite") as model:
            t0 = time.monotonic()
            r = await model.generate(conversation(img), GenerateConfig(max_tokens=50, seed=9))
            assert time.monotonic() - t0 >= 0.3
            assert r.text == "gem sure?" and r.finish_reason == "stop" and r.usage.retries == 3
            assert r.usage.output_tokens == 2 and r.usage.input_tokens == 8 + 100  # words (system too) + 100 per image
            wire = srv.requests[-1]
            assert wire.path.endswith("/models/gemini-test:generateContent")
            assert wire.headers["x-goog-api-key"] == "g-key"
            assert [c["role"] for c in wire.body["contents"]] == ["user", "model", "user"]
            assert wire.body["systemInstruction"]["parts"] == [{"text": "You grade pages."}]
            assert wire.body["generationConfig"]["seed"] == 9 and wire.body["generationConfig"]["maxOutputTokens"] == 50
            assert request_images(wire.body) == [("image/png", img.data)]
            # seeds are honored by Gemini: a seeded sampled call is cacheable
            sampled = GenerateConfig(temperature=0.9, seed=2)
            await model.generate("x", sampled)
            assert (await model.generate("x", sampled)).cached
            r = await model.generate("one two three four", GenerateConfig(max_tokens=2))
            assert r.truncated and r.text == "gem one"
            srv.add_faults(Fault.http(400))
            with pytest.raises(PermanentError, match="HTTP 400"):
                await model.generate("y")
