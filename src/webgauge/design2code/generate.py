"""Generating multi-page sites from instances: generators, link wiring and the run handler.

A :class:`PageGenerator` turns one :class:`~webgauge.design2code.prompts.PageTask` into
code. :class:`ModelGenerator` prompts a ``webgauge.models`` model with one of the four
strategies (self-refine renders the first answer in Chromium and asks again);
:class:`~webgauge.design2code.baseline.BaselineGenerator` needs no model.

:func:`generate_site` generates every page of an instance, wires internal links between
the generated pages (an href that names a site page in any form — ``/about.html``,
``./about``, ``http://127.0.0.1:.../about.html`` — becomes the page's file name) and
returns the site files (generated pages plus the instance's assets, so the real images load).
:func:`generate_item` is the ``webgauge.run`` handler: one work item per instance.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from webgauge.design2code.codeextract import extract_code
from webgauge.design2code.dataset import DEFAULT_PROFILE, Instance
from webgauge.design2code.prompts import PROMPT_SETS, STRATEGIES, PageTask, build_messages, refine_messages
from webgauge.design2code.urls import page_of

__all__ = ["PageGenerator", "ModelGenerator", "make_generator", "page_tasks", "wire_links",
           "generate_site", "generate_item", "import_generation_item", "render_html"]

Renderer = Callable[[str], Awaitable[bytes]]


class PageGenerator(Protocol):
    """Turns one page task into ``{"code", "status", "source", "turns", "usage"}``."""

    name: str

    async def generate(self, task: PageTask, render: Renderer) -> dict: ...


class ModelGenerator:
    """Prompt a model with the task's strategy; ``sr`` adds one refine turn."""

    def __init__(self, model: Any, name: str, max_tokens: int | None = 8192, temperature: float = 0.0) -> None:
        self.model = model
        self.name = name
        self.max_tokens = max_tokens
        self.temperature = temperature

    async def _ask(self, messages: list, item_id: str) -> tuple[Any, Any]:
        from webgauge.models.config import GenerateConfig

        cfg = GenerateConfig(temperature=self.temperature, max_tokens=self.max_tokens, item_id=item_id)
        resp = await self.model.generate(messages, cfg)
        got = extract_code(resp.text)
        if resp.truncated and got.status == "ok":  # cut at max_tokens, even if it looks closed
            got = type(got)(got.code, "truncated", got.source)
        return resp, got

    async def generate(self, task: PageTask, render: Renderer) -> dict:
        item_id = f"{task.instance_id}/{task.page}"
        first = build_messages(task)
        resp, got = await self._ask(first, item_id)
        turns = [{"text": resp.text, "finish_reason": resp.finish_reason, "status": got.status}]
        usage = [resp.usage.to_dict()]
        if task.strategy == "sr" and got.status != "missing":
            png = await render(got.code)
            again = refine_messages(task, first, resp.text, png, code=got.code)
            resp2, got2 = await self._ask(again, item_id + "#refine")
            turns.append({"text": resp2.text, "finish_reason": resp2.finish_reason, "status": got2.status})
            usage.append(resp2.usage.to_dict())
            if got2.status != "missing":
                got = got2
        return {"code": got.code, "status": got.status, "source": got.source, "turns": turns, "usage": usage}


def make_generator(model: str, **opts: Any) -> PageGenerator:
    """``"baseline"`` or any ``webgauge.models.get_model`` name."""
    if model == "baseline":
        from webgauge.design2code.baseline import BaselineGenerator

        return BaselineGenerator()
    from webgauge.models import get_model

    max_tokens = opts.pop("max_tokens", 8192)
    return ModelGenerator(get_model(model, **opts), model, max_tokens=max_tokens)


def page_tasks(instance: Instance, strategy: str, prompts: str = "webgauge") -> list[PageTask]:
    """One task per page of ``instance``."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose one of {STRATEGIES}")
    if prompts not in PROMPT_SETS:
        raise ValueError(f"unknown prompt set {prompts!r}; choose one of {tuple(PROMPT_SETS)}")
    routes = [{"method": r.method, "path": r.path} for r in instance.routes]
    return [PageTask(instance.id, p.name, instance.page_names, instance.screenshot(p.name), p.resources,
                     routes, strategy, p.width, p.height, prompts) for p in instance.pages]


_HREF = re.compile(r'''(\bhref\s*=\s*)(["'])(.*?)\2''', re.I | re.S)


def wire_links(code: str, pages: list[str]) -> tuple[str, int]:
    """Rewrite hrefs that open a site page to the page's file name; returns (code, rewrites)."""
    count = 0

    def sub(m: re.Match) -> str:
        nonlocal count
        url = m.group(3)
        target = page_of(url, pages)
        if target is None:
            return m.group(0)
        frag = "#" + url.split("#", 1)[1] if "#" in url else ""
        new = target + frag
        if new != url:
            count += 1
        return f"{m.group(1)}{m.group(2)}{new}{m.group(2)}"

    return _HREF.sub(sub, code), count


async def render_html(browser, files: dict[str, bytes], page: str, routes=(), profile=DEFAULT_PROFILE) -> bytes:
    """Serve ``files`` on loopback and return a full-page screenshot of ``page``."""
    from webgauge.design2code.backend import SiteBackend
    from webgauge.design2code.screens import page_screenshot

    with SiteBackend(files, routes) as backend:
        async with browser.open(backend.url(page), profile, timeout=30) as live:
            return await page_screenshot(live)


async def generate_site(instance: Instance, generator: PageGenerator, strategy: str,
                        browser=None, prompts: str = "webgauge") -> tuple[dict[str, bytes], list[dict]]:
    """Generate every page, wire links; returns ``(site files, per-page records)``.

    A page whose generation raises is recorded with ``status="error"`` and an empty page;
    the other pages are still generated.
    """
    assets = instance.asset_files()
    files: dict[str, bytes] = dict(assets)
    records = []
    for task in page_tasks(instance, strategy, prompts):
        async def render(code: str, _page=task.page) -> bytes:
            if browser is None:
                raise RuntimeError("self-refine needs a browser to render the first answer")
            return await render_html(browser, {**assets, _page: code.encode()}, _page, instance.routes,
                                     instance.profile)
        try:
            out = await generator.generate(task, render)
        except Exception as exc:  # noqa: BLE001 - a failed page is data, the site goes on
            out = {"code": "", "status": "error", "source": "none", "turns": [], "usage": None,
                   "error": f"{type(exc).__name__}: {exc}"}
        code, rewrites = wire_links(out["code"], instance.page_names)
        files[task.page] = code.encode()
        records.append({"page": task.page, "status": out["status"], "source": out.get("source"),
                        "links_rewired": rewrites, "usage": out.get("usage"), "error": out.get("error"),
                        "turns": [{k: v for k, v in t.items()} for t in out.get("turns", [])]})
    return files, records


async def generate_item(item, ctx):
    """``webgauge.run`` handler: payload ``{"instance_dir", "strategy", "model", "model_opts",
    "prompts", "seed"}``.

    The record is a :class:`~webgauge.design2code.records.GenerationRecord` (per-page
    statuses); the blobs are the generated pages (``page:<name>``), so the run directory
    alone holds the generated site.
    """
    from webgauge.design2code.records import GenerationRecord
    from webgauge.run import ItemResult

    p = item.payload
    instance = Instance.load(p["instance_dir"])
    if p["model"] == "baseline":
        generator = make_generator("baseline")
    else:
        opts = dict(p.get("model_opts") or {})
        max_tokens = opts.pop("max_tokens", 8192)
        generator = ModelGenerator(ctx.model(p["model"], **opts), p["model"], max_tokens=max_tokens)
    browser = await ctx.browser() if p["strategy"] == "sr" else None
    prompts = p.get("prompts", "webgauge")
    files, records = await generate_site(instance, generator, p["strategy"], browser, prompts)
    blobs = {f"page:{name}": files[name] for name in instance.page_names}
    rec = GenerationRecord(model=p["model"], strategy=p["strategy"], instance=instance.id, seed=p.get("seed", 0),
                           instance_dir=p["instance_dir"], pages=records, statuses=[r["status"] for r in records],
                           prompts=prompts)
    return ItemResult(record=rec.to_json(), blobs=blobs)


async def import_generation_item(item, ctx):
    """``webgauge.run`` handler for generations made elsewhere (no model): payload
    ``{"instance_dir", "method", "files": {page: path}}``. A page with no file is recorded
    as ``missing``, like a model answer without code."""
    from pathlib import Path

    from webgauge.design2code.records import GenerationRecord
    from webgauge.run import ItemResult

    p = item.payload
    instance = Instance.load(p["instance_dir"])
    blobs, records = {}, []
    for name in instance.page_names:
        path = p["files"].get(name)
        code = Path(path).read_text(encoding="utf-8", errors="replace") if path else ""
        code, rewrites = wire_links(code, instance.page_names)
        blobs[f"page:{name}"] = code.encode()
        records.append({"page": name, "status": "ok" if path else "missing", "source": path or "none",
                        "links_rewired": rewrites})
    rec = GenerationRecord(model=p["method"], strategy=p.get("strategy", "outside"), instance=instance.id, seed=0,
                           instance_dir=p["instance_dir"], pages=records, statuses=[r["status"] for r in records],
                           prompts="outside")
    return ItemResult(record=rec.to_json(), blobs=blobs)
