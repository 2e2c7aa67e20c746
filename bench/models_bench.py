"""Side-by-side costs of the model layer, against a fake model on 127.0.0.1.

    .venv/bin/python bench/models_bench.py

Prints ratios, not verdicts: the core's overhead per call over a bare httpx POST, a cache
hit against a fresh call, the cost of sending a screenshot as a data URL, and wall time
under different per-endpoint concurrency limits. Nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

import httpx

from webgauge.models import GenerateConfig, Image, get_model, user
from webgauge.models.fake_server import FakeModelServer

SHARED = Path(os.environ.get("WEBGAUGE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
PAGES = SHARED / "data" / "design2code" / "pages"
N = 200


async def per_call(fn, n: int = N) -> float:
    """Mean seconds per sequential call."""
    await fn()  # warm up connections
    t = time.perf_counter()
    for _ in range(n):
        await fn()
    return (time.perf_counter() - t) / n


async def overhead(srv: FakeModelServer) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0}
    async with httpx.AsyncClient() as client:
        raw = await per_call(lambda: client.post(f"{srv.openai_base_url}/chat/completions", json=body))
    async with get_model("openai:m", base_url=srv.openai_base_url) as model:
        core = await per_call(lambda: model.generate("hi"))
    print(f"bare httpx POST        {raw * 1e3:7.2f} ms/call")
    print(f"ManagedModel.generate  {core * 1e3:7.2f} ms/call   ratio {core / raw:5.2f}x")


async def cache(srv: FakeModelServer) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with get_model("openai:m", base_url=srv.openai_base_url, cache=Path(tmp) / "c.sqlite") as model:
            fresh_t = time.perf_counter()
            for i in range(N // 2):
                await model.generate(f"q{i}")
            fresh = (time.perf_counter() - fresh_t) / (N // 2)
            hit_t = time.perf_counter()
            for i in range(N // 2):
                assert (await model.generate(f"q{i}")).cached
            hit = (time.perf_counter() - hit_t) / (N // 2)
    print(f"fresh call + cache put {fresh * 1e3:7.2f} ms/call")
    print(f"cache hit              {hit * 1e3:7.2f} ms/call   ratio {hit / fresh:5.2f}x")


async def images(srv: FakeModelServer) -> None:
    pngs = sorted(PAGES.glob("*.png"), key=lambda p: p.stat().st_size)
    if not pngs:
        print(f"(no screenshots under {PAGES}; image cost skipped)")
        return
    img = Image.from_file(pngs[-1])
    async with get_model("openai:m", base_url=srv.openai_base_url) as model:
        text = await per_call(lambda: model.generate("hi"), 50)
        with_img = await per_call(lambda: model.generate([user("hi", img)]), 50)
    print(f"text only              {text * 1e3:7.2f} ms/call")
    print(f"+ {img.size / 1e6:.2f} MB screenshot  {with_img * 1e3:7.2f} ms/call   ratio {with_img / text:5.2f}x")


async def concurrency() -> None:
    base = None
    for limit in (1, 4, 16):
        with FakeModelServer(delay=0.05) as srv:
            async with get_model("openai:m", base_url=srv.openai_base_url, max_concurrency=limit) as model:
                t = time.perf_counter()
                await asyncio.gather(*[model.generate(f"q{i}", GenerateConfig(temperature=1.0)) for i in range(48)])
                wall = time.perf_counter() - t
            base = base or wall
            print(f"48 calls, 50 ms each, max_concurrency={limit:<3} {wall:6.2f} s  "
                  f"speed-up {base / wall:5.2f}x  (server saw {srv.max_in_flight} in flight)")


async def main() -> None:
    with FakeModelServer() as srv:
        await overhead(srv)
        await cache(srv)
        await images(srv)
    await concurrency()


if __name__ == "__main__":
    asyncio.run(main())
