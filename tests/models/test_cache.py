"""The response cache: only deterministic calls, keyed by everything that can change the answer."""

from __future__ import annotations

import sqlite3

import pytest

from webgauge.models import GenerateConfig, Image, ResponseCache, UsageMeter, get_model, is_deterministic, user
from webgauge.models.fake_server import FakeModelServer, Reply


@pytest.fixture
def cache_path(tmp_path):
    return tmp_path / "cache" / "responses.sqlite"


def counting_server():
    n = {"calls": 0}

    def respond(body):
        n["calls"] += 1
        return Reply(f"answer {n['calls']}", input_tokens=7, output_tokens=2)
    return FakeModelServer(respond)


async def test_deterministic_call_is_cached_and_reported(cache_path, make_png):
    meter = UsageMeter()
    img = make_png()
    with counting_server() as srv:
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=cache_path, meter=meter) as model:
            first = await model.generate([user("q", img)])
            second = await model.generate([user("q", img)])
        assert srv.request_count == 1
    assert not first.cached and first.usage.cached is False
    assert second.cached and second.usage.cached and second.text == first.text == "answer 1"
    assert second.usage.retries == 0 and second.usage.images == 1 and second.usage.image_bytes == img.size
    assert (second.usage.input_tokens, second.usage.output_tokens) == (7, 2)
    t = meter.totals
    assert (t.calls, t.cache_hits, t.input_tokens, t.cached_input_tokens) == (2, 1, 7, 7)
    assert model.cache.hits == 1 and len(model.cache) == 1


async def test_sampled_calls_are_not_cached(cache_path):
    with counting_server() as srv:
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=cache_path) as model:
            cfg = GenerateConfig(temperature=0.7)
            a = await model.generate("q", cfg)
            b = await model.generate("q", cfg)
        assert srv.request_count == 2
    assert (a.text, b.text) == ("answer 1", "answer 2") and not b.cached
    assert len(ResponseCache(cache_path)) == 0


async def test_seeded_sampling_is_cached_only_when_the_provider_honors_seeds(cache_path):
    cfg = GenerateConfig(temperature=0.7, seed=11)
    with counting_server() as srv:
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=cache_path) as model:
            await model.generate("q", cfg)
            assert (await model.generate("q", cfg)).cached
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=cache_path,
                             honors_seed=False) as model:
            await model.generate("q", cfg)
            assert not (await model.generate("q", cfg)).cached
        assert srv.request_count == 3
    assert is_deterministic(GenerateConfig(), honors_seed=False)
    assert not is_deterministic(cfg, honors_seed=False) and is_deterministic(cfg, honors_seed=True)


async def test_cache_key_sensitivity(cache_path, make_png):
    img = make_png()
    flipped = bytearray(img.data)
    flipped[-13] ^= 0x01  # one byte of the IEND/IDAT tail: still PNG magic, different hash
    img2 = Image(bytes(flipped))
    base = GenerateConfig(max_tokens=20)
    variants = [
        ([user("q", img2)], base),                                   # one image byte
        ([user("q", Image(img.data, "image/png")), user("more")], base),   # another turn
        ([user("q ", img)], base),                                   # one text char
        ([user("q", img)], base.replace(max_tokens=21)),             # max_tokens
        ([user("q", img)], base.replace(top_p=0.5)),                 # top_p
        ([user("q", img)], base.replace(seed=1)),                    # seed
        ([user("q", img)], base.replace(stop=["x"])),                # stop
        ([user("q", img)], base.replace(extra={"repetition_penalty": 1.1})),  # provider extras
    ]
    with counting_server() as srv:
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=cache_path) as model:
            await model.generate([user("q", img)], base)
            again = await model.generate([user("q", Image(bytes(img.data)))], base)  # equal bytes: a hit
            assert again.cached
            for messages, cfg in variants:
                r = await model.generate(messages, cfg)
                assert not r.cached, (messages, cfg)
            # settings that cannot change the answer do not split the cache
            assert (await model.generate([user("q", img)], base.replace(timeout=5, item_id="x"))).cached
        async with get_model("openai:other-model", base_url=srv.openai_base_url, cache=cache_path) as other:
            assert not (await other.generate([user("q", img)], base)).cached
        assert srv.request_count == 1 + len(variants) + 1
    with FakeModelServer() as srv2:  # same model name, another endpoint
        async with get_model("openai:m", base_url=srv2.openai_base_url, cache=cache_path) as model:
            assert not (await model.generate([user("q", img)], base)).cached


async def test_cache_persists_across_processes_and_objects(cache_path):
    with counting_server() as srv:
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=str(cache_path)) as model:
            await model.generate("persist me")
        model.cache.close()
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=str(cache_path)) as model:
            r = await model.generate("persist me")
        assert r.cached and srv.request_count == 1
    rows = sqlite3.connect(cache_path).execute("SELECT provider, model, text FROM responses").fetchall()
    assert rows == [("openai", "openai:m", "answer 1")]


async def test_failures_are_not_cached(cache_path):
    from webgauge.models import PermanentError
    from webgauge.models.fake_server import Fault
    with counting_server() as srv:
        srv.add_faults(Fault.http(400))
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=cache_path) as model:
            with pytest.raises(PermanentError):
                await model.generate("q")
            assert not (await model.generate("q")).cached
    assert len(ResponseCache(cache_path)) == 1


def test_default_cache_path_honors_env(monkeypatch, tmp_path):
    from webgauge.models import default_cache_path
    monkeypatch.setenv("WEBGAUGE_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_path() == tmp_path / "c" / "responses.sqlite"


def test_corrupt_cache_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(sqlite3.DatabaseError, match="delete the file or pass another cache path"):
        ResponseCache(bad)


async def test_identical_concurrent_deterministic_calls_go_out_once(cache_path):
    import asyncio
    with counting_server() as srv:
        srv.delay = 0.2
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=cache_path) as model:
            rs = await asyncio.gather(*[model.generate("same question") for _ in range(5)],
                                      model.generate("other question"))
        assert srv.request_count == 2
    assert sorted(r.cached for r in rs[:5]) == [False, True, True, True, True]
    assert len({r.text for r in rs[:5]}) == 1 and not rs[5].cached
    assert model._key_locks == {}  # no lock left behind


def test_cache_file_is_shared_by_concurrent_processes(cache_path):
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import sys
        from webgauge.models import ResponseCache, Response, Usage
        cache = ResponseCache(sys.argv[1])
        for i in range(25):
            cache.put(f"{sys.argv[2]}-{i}", "openai", Response(f"text {i}", Usage(1, 1), model="m"))
            assert cache.get(f"{sys.argv[2]}-{i}").text == f"text {i}"
    """)
    cache_path.parent.mkdir(parents=True)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(cache_path), tag]) for tag in ("a", "b", "c")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    cache = ResponseCache(cache_path)
    assert len(cache) == 75 and cache.get("b-24").text == "text 24" and cache.get("b-24").cached
