"""The openai provider and the core, against a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time

import pytest

from webgauge.models import (
    GenerateConfig,
    PermanentError,
    RetriesExhausted,
    RetryPolicy,
    UsageMeter,
    get_model,
    system,
    user,
)
from webgauge.models.fake_server import Fault, Reply, request_images, request_text

# Fast, jitter-free retries so timing assertions are tight and tests stay quick.
FAST_RETRY = RetryPolicy(max_retries=4, base_delay=0.02, multiplier=2.0, max_delay=0.2, jitter=0.0)


def openai_model(srv, **kw):
    kw.setdefault("retry", FAST_RETRY)
    return get_model("openai:fake-vlm", base_url=srv.openai_base_url, **kw)


async def test_text_call_builds_a_real_request_and_reads_usage(server):
    server.respond = lambda body: f"echo {request_text(body)}"
    async with openai_model(server) as model:
        r = await model.generate([system("Be brief."), user("which is larger")],
                                 GenerateConfig(max_tokens=50, top_p=0.9, seed=7, stop=["\n\n"]))
    assert r.text == "echo which is larger"
    assert r.finish_reason == "stop" and not r.truncated and not r.cached
    assert r.model == "openai:fake-vlm"
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert body["model"] == "fake-vlm" and body["temperature"] == 0.0 and body["max_tokens"] == 50
    assert body["top_p"] == 0.9 and body["seed"] == 7 and body["stop"] == ["\n\n"]
    assert body["messages"] == [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "which is larger"}]
    # the fake server counts whitespace tokens: 2 (system) + 3 (user) in, 4 out
    assert (r.usage.input_tokens, r.usage.output_tokens) == (5, 4)
    assert r.usage.calls == 1 and r.usage.retries == 0 and r.usage.latency_s > 0
    assert "authorization" not in server.requests[0].headers  # no key, no header


async def test_images_reach_the_server_as_data_urls(server, page_png, make_png):
    small = make_png()
    async with openai_model(server) as model:
        r = await model.generate([user("Compare", page_png, "with", small)])
    content = server.requests[0].body["messages"][0]["content"]
    assert [p["type"] for p in content] == ["text", "image_url", "text", "image_url"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert request_images(server.requests[0].body) == [("image/png", page_png.data), ("image/png", small.data)]
    assert r.usage.images == 2 and r.usage.image_bytes == page_png.size + small.size


async def test_429_with_retry_after_is_honored(server):
    server.add_faults(Fault.http(429, retry_after=0.6))
    async with openai_model(server) as model:
        t0 = time.monotonic()
        r = await model.generate("hi")
        elapsed = time.monotonic() - t0
    assert r.text == "OK" and r.usage.retries == 1 and server.request_count == 2
    gap = server.requests[1].received_at - server.requests[0].received_at
    assert gap >= 0.6 and elapsed < 5.0, (gap, elapsed)  # waited for Retry-After, not the 0.02 s backoff


async def test_retry_after_is_capped(server):
    server.add_faults(Fault.http(503, retry_after=3600))
    async with openai_model(server, retry=RetryPolicy(base_delay=0.01, jitter=0, max_retry_after=0.3)) as model:
        t0 = time.monotonic()
        await model.generate("hi")
    assert 0.3 <= time.monotonic() - t0 < 5.0  # not an hour


async def test_500_malformed_and_dropped_connections_are_retried(server):
    server.add_faults(Fault.http(500), Fault.malformed(), Fault.drop(), Fault.http(502))
    meter = UsageMeter()
    async with openai_model(server, meter=meter) as model:
        r = await model.generate("hi")
    assert r.text == "OK" and r.usage.retries == 4 and server.request_count == 5
    assert meter.totals.retries == 4 and meter.totals.calls == 1 and meter.totals.errors == 0


async def test_a_200_json_body_without_choices_is_retried(server):
    server.add_faults(Fault.http(200, body='{"object": "chat.completion", "choices": []}'))
    async with openai_model(server) as model:
        r = await model.generate("hi")
    assert r.text == "OK" and r.usage.retries == 1


async def test_backoff_grows_exponentially_and_gives_up(server):
    server.add_faults(*[Fault.http(500)] * 4)
    meter = UsageMeter()
    policy = RetryPolicy(max_retries=3, base_delay=0.1, multiplier=2.0, max_delay=10, jitter=0.0)
    async with openai_model(server, retry=policy, meter=meter) as model:
        with pytest.raises(RetriesExhausted) as info:
            await model.generate("hi")
    assert info.value.attempts == 4 and info.value.status == 500 and "gave up after 4 attempts" in str(info.value)
    record = info.value.to_dict()
    assert record["type"] == "RetriesExhausted" and record["kind"] == "server_error" and record["attempts"] == 4
    assert server.request_count == 4
    times = [q.received_at for q in server.requests]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    for gap, expected in zip(gaps, [0.1, 0.2, 0.4], strict=True):
        assert expected <= gap < expected + 2.0, gaps  # generous upper bound: the machine may be loaded
    t = meter.totals
    assert (t.calls, t.errors, t.retries) == (0, 1, 3)


async def test_backoff_is_capped_and_jittered():
    policy = RetryPolicy(base_delay=1.0, multiplier=2.0, max_delay=5.0, jitter=0.5, seed=3)
    rng = policy.rng()
    delays = [policy.backoff(n, rng) for n in range(8)]
    assert all(d <= 5.0 for d in delays)
    assert all(0.5 * min(5.0, 2 ** n) <= d for n, d in enumerate(delays))
    assert delays == [policy.backoff(n, r) for r in [policy.rng()] for n in range(8)]  # seeded


@pytest.mark.parametrize("status,hint", [(400, "rejected the request"), (401, "OPENAI_API_KEY"),
                                         (404, "check the model name and the base URL")])
async def test_client_errors_are_not_retried(server, status, hint):
    server.add_faults(Fault.http(status))
    meter = UsageMeter()
    async with openai_model(server, meter=meter) as model:
        with pytest.raises(PermanentError) as info:
            await model.generate("hi")
    assert info.value.status == status and hint in str(info.value) and "fake fault" in str(info.value)
    assert server.request_count == 1 and meter.totals.errors == 1 and meter.totals.retries == 0


async def test_timeout_is_retried_then_answers(server):
    server.add_faults(Fault.stall(30.0))  # the server's stop() wakes it, so this costs no test time
    async with openai_model(server) as model:
        t0 = time.monotonic()
        r = await model.generate("hi", GenerateConfig(timeout=1.5))
        elapsed = time.monotonic() - t0
    assert r.text == "OK" and r.usage.retries == 1 and server.request_count == 2
    assert 1.5 <= elapsed < 12.0  # did not wait for the 30 s stall


async def test_timeout_exhausts_retries(server):
    server.add_faults(Fault.stall(30.0), Fault.stall(30.0))
    async with openai_model(server, max_retries=1, timeout=1.0) as model:
        with pytest.raises(RetriesExhausted) as info:
            await model.generate("hi")
    assert info.value.kind == "timeout" and "no answer within 1s" in str(info.value)
    assert info.value.attempts == 2 and server.request_count == 2


async def test_connection_refused_is_a_clear_error():
    from webgauge.models.fake_server import FakeModelServer
    srv = FakeModelServer().start()
    base = srv.openai_base_url
    srv.stop()  # nothing listens there any more
    async with get_model("openai:x", base_url=base, max_retries=1,
                         retry=RetryPolicy(base_delay=0.01)) as model:
        with pytest.raises(RetriesExhausted) as info:
            await model.generate("hi")
    assert info.value.kind == "connection" and "connection failed" in str(info.value)


async def test_truncated_answer_is_visible(server):
    server.respond = lambda body: "one two three four five six"
    async with openai_model(server) as model:
        r = await model.generate("count", GenerateConfig(max_tokens=3))
    assert r.text == "one two three" and r.finish_reason == "length" and r.truncated
    assert r.usage.output_tokens == 3


async def test_api_key_from_option_and_environment(monkeypatch):
    from webgauge.models.fake_server import FakeModelServer
    with FakeModelServer(api_key="sk-test") as srv:
        async with get_model("openai:m", base_url=srv.openai_base_url, api_key="sk-test") as model:
            assert (await model.generate("hi")).text == "OK"
        assert srv.requests[0].headers["authorization"] == "Bearer sk-test"
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("WEBGAUGE_OPENAI_BASE_URL", srv.openai_base_url)
        async with get_model("openai:m") as model:
            assert model.provider.endpoint == srv.openai_base_url
            assert (await model.generate("hi")).text == "OK"
        async with get_model("openai:m", api_key="wrong") as model:
            with pytest.raises(PermanentError) as info:
                await model.generate("hi")
        assert info.value.status == 401


async def test_concurrency_limit_is_honored_across_model_objects(server):
    server.delay = 0.4  # long enough that requests overlap even on a loaded machine
    a = openai_model(server, max_concurrency=3)
    b = openai_model(server, max_concurrency=3)  # same endpoint: shares the limit
    results = await asyncio.gather(*[(a if i % 2 else b).generate(f"q{i}") for i in range(9)])
    await a.aclose()
    await b.aclose()
    assert len(results) == 9 and server.request_count == 9
    assert server.max_in_flight == 3


async def test_unlimited_enough_concurrency_runs_in_parallel(server):
    server.delay = 0.5
    async with openai_model(server, max_concurrency=8) as model:
        t0 = time.monotonic()
        await asyncio.gather(*[model.generate(f"q{i}") for i in range(8)])
        elapsed = time.monotonic() - t0
    assert server.max_in_flight >= 4 and elapsed < 0.5 * 8  # far from serial


async def test_conflicting_limits_for_one_endpoint_are_an_error(server):
    a = openai_model(server, max_concurrency=2)
    b = openai_model(server, max_concurrency=5)
    await a.generate("x")
    with pytest.raises(ValueError, match="already has max_concurrency=2"):
        await b.generate("x")
    await a.aclose()
    await b.aclose()


async def test_usage_meter_sums_across_calls(server, make_png):
    server.respond = lambda body: Reply("A B", input_tokens=10, output_tokens=2)
    meter = UsageMeter()
    img = make_png()
    async with openai_model(server, meter=meter) as model:
        for i in range(3):
            await model.generate([user(f"q{i}", img)], GenerateConfig(temperature=0.5))
    t = meter.totals
    assert (t.calls, t.input_tokens, t.output_tokens, t.images, t.image_bytes) == (3, 30, 6, 3, 3 * img.size)
    assert t.by_model["openai:fake-vlm"].calls == 3 and t.latency_s > 0


def test_one_model_object_across_event_loops(server):
    """A model made once and used from two asyncio.run calls (as a sync caller would)."""
    model = openai_model(server, max_concurrency=2)
    first = asyncio.run(model.generate("one"))
    second = asyncio.run(model.generate("two"))
    asyncio.run(model.aclose())
    assert first.text == second.text == "OK" and server.request_count == 2
    assert model.meter.totals.calls == 2
    # the first two loops' connection pools were closed when asyncio.run shut those loops down
    assert all(c.is_closed for c, _ in model.provider._clients._by_loop.values())
    asyncio.run(model.generate("three"))
    assert len(model.provider._clients) == 1  # only the last loop's (closed) entry is left
