"""The design-to-site tool: a local web app on 127.0.0.1.

Upload one or more design images, draw boxes on each and give each box a type and a URL or
route, choose a model (``baseline`` needs no network) and a strategy, generate, preview the
multi-page result with working navigation and backend routes, and download it as a zip.

Each generation becomes a regular instance folder (``<work>/<project>/``: designs as
reference screenshots, boxes as resource lists) and runs through the same
:func:`~webgauge.design2code.generate.generate_site` as the benchmark. The preview is
served by a :class:`~webgauge.design2code.backend.SiteBackend` on its own loopback port,
so absolute routes such as ``/api/contact`` reach the recording backend.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import tempfile
import uuid
import zipfile
from importlib import resources as _res
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from webgauge.design2code.backend import SiteBackend
from webgauge.design2code.dataset import INSTANCE_VERSION, Instance
from webgauge.design2code.generate import generate_site, make_generator
from webgauge.design2code.prompts import STRATEGIES
from webgauge.design2code.resources import Resource, ResourceList
from webgauge.design2code.urls import page_of

if TYPE_CHECKING:
    from ..browser import Browser

__all__ = ["make_app", "ToolServer", "serve_tool"]

_STATIC = _res.files("webgauge.design2code").joinpath("static")


def _decode_image(data_url: object) -> bytes:
    """PNG bytes from a data URL of any image type Pillow reads."""
    from PIL import Image

    if not isinstance(data_url, str) or "," not in data_url:
        raise ValueError("each design needs an image as a data URL (data:image/png;base64,...)")
    try:
        raw = base64.b64decode(data_url.split(",", 1)[1], validate=False)
        img = Image.open(io.BytesIO(raw))
        img.load()
    except (binascii.Error, OSError) as exc:
        raise ValueError(f"a design image could not be read ({exc}); upload a PNG or JPEG") from None
    buf = io.BytesIO()
    img.convert("RGB").save(buf, "PNG")
    return buf.getvalue()


def write_project(root: Path, designs: list[dict]) -> Instance:
    """Turn the tool's designs and boxes into an instance folder and load it."""
    from PIL import Image

    if not designs:
        raise ValueError("upload at least one design image")
    names = [str(d.get("name") or "").strip() for d in designs]
    if any(not n.endswith((".html", ".htm")) or "/" in n for n in names) or len(set(names)) != len(names):
        raise ValueError(f"page names must be distinct file names ending in .html, got {names}")
    (root / "ref").mkdir(parents=True, exist_ok=True)
    (root / "site").mkdir(exist_ok=True)
    pages, routes = [], set()
    for name, d in zip(names, designs, strict=True):
        png = _decode_image(d.get("image"))
        w, h = Image.open(io.BytesIO(png)).size
        shot = f"ref/{Path(name).stem}.png"
        (root / shot).write_bytes(png)
        resources = []
        for b in d.get("boxes") or []:
            fields = [str(f) for f in b.get("fields") or []]
            r = Resource(type=b["type"], box=b["box"], url=str(b.get("url") or ""), text=str(b.get("text") or ""),
                         method=b.get("method"), fields=fields,
                         via=b.get("via") if b["type"] == "backend_route" else None)
            if r.type == "link":
                r.target_page = page_of(r.url, names)
            if r.type == "backend_route":
                r.url = "/" + r.url.lstrip("/")
                routes.add((r.method or "POST", r.url))
            resources.append(r)
        rl = ResourceList(name, resources, viewport=(w, 800), page_size=(w, h))
        pages.append({"name": name, "screenshot": shot, "width": w, "height": h, "resources": rl.to_dict()})
    doc = {"version": INSTANCE_VERSION, "id": root.name, "kind": "tool", "source": "design2code tool",
           "pages": pages, "routes": [{"method": m, "path": p} for m, p in sorted(routes)], "assets": [], "meta": {}}
    (root / "instance.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return Instance.load(root)


class _State:
    def __init__(self, work_dir: Path) -> None:
        self.work_dir = work_dir
        self.backends: dict[str, SiteBackend] = {}
        self.browser: Browser | None = None


def make_app(work_dir: str | Path) -> web.Application:
    """The aiohttp application (``work_dir`` keeps projects and generated sites)."""
    state = _State(Path(work_dir))
    state.work_dir.mkdir(parents=True, exist_ok=True)
    app = web.Application(client_max_size=64 * 1024 * 1024)

    async def index(_req: web.Request) -> web.Response:
        return web.Response(text=_STATIC.joinpath("tool.html").read_text(encoding="utf-8"), content_type="text/html")

    async def static(req: web.Request) -> web.Response:
        name = req.match_info["name"]
        if name not in ("tool.js",):
            raise web.HTTPNotFound()
        return web.Response(text=_STATIC.joinpath(name).read_text(encoding="utf-8"),
                            content_type="application/javascript")

    async def generate(req: web.Request) -> web.Response:
        try:
            body = await req.json()
            strategy = body.get("strategy", "zs")
            if strategy not in STRATEGIES:
                raise ValueError(f"strategy must be one of {STRATEGIES}")
            model = (body.get("model") or "baseline").strip()
            pid = uuid.uuid4().hex[:12]
            inst = write_project(state.work_dir / pid, body.get("designs") or [])
            generator = make_generator(model)
        except (ValueError, KeyError, TypeError) as exc:
            return web.json_response({"error": f"{type(exc).__name__}: {exc}"}, status=400)
        except Exception as exc:  # noqa: BLE001 - e.g. an unknown model name: tell the user
            return web.json_response({"error": f"{type(exc).__name__}: {exc}"}, status=400)
        browser = None
        if strategy == "sr":
            if state.browser is None:
                from webgauge.browser import Browser

                state.browser = await Browser.launch().start()
            browser = state.browser
        files, records = await generate_site(inst, generator, strategy, browser)
        out = state.work_dir / pid / "generated"
        for rel, data in files.items():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / rel).write_bytes(data)
        backend = SiteBackend(files, inst.routes).start()
        state.backends[pid] = backend
        return web.json_response({"project": pid, "preview": backend.url(inst.page_names[0]),
                                  "download": f"/download/{pid}.zip",
                                  "pages": [{"page": r["page"], "status": r["status"]} for r in records]})

    async def download(req: web.Request) -> web.Response:
        pid = req.match_info["pid"]
        root = state.work_dir / pid
        if not pid.isalnum() or not (root / "generated").is_dir():
            raise web.HTTPNotFound(text="no generated site with that id")
        inst = Instance.load(root)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for f in sorted((root / "generated").rglob("*")):
                if f.is_file():
                    zf.write(f, f.relative_to(root / "generated").as_posix())
            zf.writestr("resources.json", json.dumps({p.name: p.resources.to_dict() for p in inst.pages}, indent=1))
        return web.Response(body=buf.getvalue(), content_type="application/zip",
                            headers={"Content-Disposition": f'attachment; filename="site-{pid}.zip"'})

    async def submissions(req: web.Request) -> web.Response:
        backend = state.backends.get(req.match_info["pid"])
        if backend is None:
            raise web.HTTPNotFound()
        return web.json_response([{"method": s.method, "path": s.path, "body": s.body, "expected": s.expected}
                                  for s in backend.submissions])

    async def cleanup(_app: web.Application) -> None:
        for b in state.backends.values():
            b.stop()
        state.backends.clear()
        if state.browser is not None:
            await state.browser.close()

    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", static)
    app.router.add_post("/api/generate", generate)
    app.router.add_get("/download/{pid}.zip", download)
    app.router.add_get("/api/submissions/{pid}", submissions)
    app.on_cleanup.append(cleanup)
    return app


class ToolServer:
    """Run the tool inside the current event loop: ``async with ToolServer(dir) as tool: tool.url``."""

    def __init__(self, work_dir: str | Path, port: int = 0) -> None:
        self.app = make_app(work_dir)
        self.port = port
        self._runner: web.AppRunner | None = None

    async def __aenter__(self) -> ToolServer:
        self._runner = web.AppRunner(self.app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    async def __aexit__(self, *exc: Any) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


def serve_tool(port: int = 0, work_dir: str | Path | None = None) -> None:
    """Serve the tool until SIGINT/SIGTERM; then stop every preview backend and remove the
    temporary work folder (kept when ``work_dir`` is given)."""
    import asyncio
    import contextlib
    import signal

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        with tempfile.TemporaryDirectory(prefix="d2c-tool-") as tmp:
            async with ToolServer(work_dir or tmp, port) as tool:
                print(f"design2code tool on {tool.url} (Ctrl-C to stop)", flush=True)
                await stop.wait()

    asyncio.run(main())
