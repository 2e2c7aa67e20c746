"""Design2code instances: reference screenshots, resource lists and reference code.

An instance is a folder::

    <root>/<instance id>/
      instance.json     {"version", "id", "kind": "synthetic"|"real", "source", "pages": [
                           {"name", "screenshot": "ref/<name>.png", "width", "height",
                            "resources": <resource list JSON>}],
                         "routes": [{"method", "path"}], "assets": [paths],
                         "unavailable_assets": [{"url", "reason", "referenced_by"}], "meta": {...}}
      site/             the reference code: every page and its assets
      ref/<name>.png    full-page reference screenshots (rendered here, same profile as scoring)

Synthetic instances come from :func:`~webgauge.design2code.sitegen.synthetic_site`; real
instances are single pages read from a folder (e.g. ``../shared/data/design2code/pages``),
with every local asset the page references (images, srcset, CSS ``url()``, inline-style
backgrounds, icons, local stylesheets; :func:`~webgauge.design2code.assets.page_assets`)
copied into ``site/`` and served to the reference and to every generated site. Remote assets
stay blocked (webgauge renders offline) and are listed under ``unavailable_assets`` with
missing and out-of-folder ones.
Both are rendered and extracted through ``webgauge.browser`` with the same profile.
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image
from tqdm import tqdm

from webgauge.browser import Browser, PageError, RenderProfile
from webgauge.design2code.backend import Route, SiteBackend
from webgauge.design2code.extract import extract_live
from webgauge.design2code.resources import ResourceList
from webgauge.design2code.screens import reference_screenshot
from webgauge.design2code.urls import page_of

__all__ = ["INSTANCE_VERSION", "PageRecord", "Instance", "load_instances", "build_instances",
           "build_instance", "DEFAULT_PROFILE"]

INSTANCE_VERSION = "webgauge.design2code.instance/1"
DEFAULT_PROFILE = RenderProfile(width=1280, height=800)
DEFAULT_PROFILE_SIZE = (1280, 800)


@dataclass
class PageRecord:
    name: str
    screenshot: str
    width: int
    height: int
    resources: ResourceList


@dataclass
class Instance:
    """One design2code instance loaded from its folder."""

    id: str
    kind: str
    source: str
    pages: list[PageRecord]
    routes: list[Route]
    assets: list[str]
    root: Path
    meta: dict = field(default_factory=dict)
    unavailable_assets: list[dict] = field(default_factory=list)

    @property
    def page_names(self) -> list[str]:
        return [p.name for p in self.pages]

    def screenshot(self, name: str) -> bytes:
        page = next(p for p in self.pages if p.name == name)
        return (self.root / page.screenshot).read_bytes()

    def reference_code(self, name: str) -> str:
        return (self.root / "site" / name).read_text(encoding="utf-8", errors="replace")

    @property
    def profile(self) -> RenderProfile:
        """The render profile the references were captured with (their viewport, or the window
        an import recorded in ``meta["profile"]``); generated pages are rendered with the same one."""
        recorded = self.meta.get("profile") if isinstance(self.meta, dict) else None
        if isinstance(recorded, dict) and recorded.get("width") and recorded.get("height"):
            return DEFAULT_PROFILE.with_(width=int(recorded["width"]), height=int(recorded["height"]))
        vw, vh = self.pages[0].resources.viewport if self.pages else DEFAULT_PROFILE_SIZE
        return DEFAULT_PROFILE.with_(width=int(vw), height=int(vh))

    def asset_files(self) -> dict[str, bytes]:
        return {a: (self.root / "site" / a).read_bytes() for a in self.assets}

    def to_dict(self) -> dict[str, Any]:
        return {"version": INSTANCE_VERSION, "id": self.id, "kind": self.kind, "source": self.source,
                "pages": [{"name": p.name, "screenshot": p.screenshot, "width": p.width, "height": p.height,
                           "resources": p.resources.to_dict()} for p in self.pages],
                "routes": [{"method": r.method, "path": r.path} for r in self.routes],
                "assets": self.assets, "unavailable_assets": self.unavailable_assets, "meta": self.meta}

    @classmethod
    def load(cls, folder: Path) -> Instance:
        folder = Path(folder)
        path = folder / "instance.json"
        if not path.is_file():
            raise FileNotFoundError(f"{folder} has no instance.json; build instances with "
                                    "`webgauge design2code build`")
        d = json.loads(path.read_text(encoding="utf-8"))
        if d.get("version") != INSTANCE_VERSION:
            raise ValueError(f"{path}: instance version {d.get('version')!r} is not {INSTANCE_VERSION!r}; "
                             "rebuild with `webgauge design2code build`")
        pages = [PageRecord(p["name"], p["screenshot"], p["width"], p["height"],
                            ResourceList.from_dict(p["resources"])) for p in d["pages"]]
        return cls(d["id"], d["kind"], d["source"], pages, [Route(r["method"], r["path"]) for r in d["routes"]],
                   d["assets"], folder, d.get("meta", {}), d.get("unavailable_assets", []))


def load_instances(root: str | Path, limit: int | None = None) -> list[Instance]:
    """Every instance folder under ``root`` (sorted by id)."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"no instance folder at {root}; build one with `webgauge design2code build`")
    found = sorted(p.parent for p in root.glob("*/instance.json"))
    if not found:
        raise FileNotFoundError(f"{root} holds no instances (no */instance.json)")
    return [Instance.load(p) for p in found[:limit]]


async def build_instance(browser: Browser, out: Path, inst_id: str, kind: str, source: str,
                         pages: list[str], files: dict[str, bytes], routes: Iterable[tuple[str, str]],
                         meta: dict | None = None, profile: RenderProfile = DEFAULT_PROFILE,
                         unavailable_assets: list[dict] | None = None) -> Instance:
    """Write ``files`` as the reference site, render and extract every page, save instance.json."""
    folder = out / inst_id
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "site").mkdir(parents=True)
    (folder / "ref").mkdir()
    for rel, data in files.items():
        dest = folder / "site" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    route_objs = [Route.of(m, p) for m, p in routes]
    records = []
    with SiteBackend(files, route_objs) as backend:
        for name in pages:
            async with browser.open(backend.url(name), profile, require_settled=True, timeout=30.0) as page:
                page.timeout = 30.0  # captures get the load's time limit on a busy machine
                png = await reference_screenshot(page)  # settles the page (or raises "unsettled")
                rl = await extract_live(page, name)
            for r in rl.resources:
                if r.type == "link":
                    r.target_page = page_of(r.url, pages)
            shot = f"ref/{Path(name).stem}.png"
            (folder / shot).write_bytes(png)
            w, h = Image.open(io.BytesIO(png)).size
            records.append(PageRecord(name, shot, w, h, rl))
    # routes the reference pages declare in markup are part of the instance too
    declared = {(r.method, r.path) for r in route_objs}
    for rec in records:
        for r in rec.resources.of_type("backend_route"):
            route = Route.of(r.method, r.url)
            if (route.method, route.path) not in declared:
                declared.add((route.method, route.path))
                route_objs.append(route)
    assets = sorted(k for k in files if k not in pages)
    inst = Instance(inst_id, kind, source, records, route_objs, assets, folder, meta or {},
                    list(unavailable_assets or []))
    (folder / "instance.json").write_text(json.dumps(inst.to_dict(), indent=1), encoding="utf-8")
    return inst


async def build_instances(out: str | Path, *, synthetic: int = 0, seed: int = 0, pages_per_site: int = 3,
                          real: str | Path | None = None, real_limit: int | None = None,
                          browser: Browser | None = None, profile: RenderProfile = DEFAULT_PROFILE,
                          progress: bool = True) -> tuple[list[Instance], list[dict]]:
    """Build ``synthetic`` seeded multi-page instances (seeds ``seed .. seed+synthetic-1``) and
    one single-page instance per HTML file of ``real``. Returns ``(instances, failures)``;
    a page that fails to render or does not settle (``reason`` ``unsettled``) is recorded in
    ``failures`` (also written to ``build_failures.json``) and the build goes on."""
    from webgauge.design2code.assets import page_assets
    from webgauge.design2code.sitegen import synthetic_site

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    jobs: list[tuple[str, Any]] = [("synthetic", seed + k) for k in range(synthetic)]
    if real is not None:
        real = Path(real)
        if not real.is_dir():
            raise FileNotFoundError(f"--real {real} is not a folder of .html pages")
        htmls = sorted(real.glob("*.html"), key=lambda p: p.name)[:real_limit]
        jobs += [("real", p) for p in htmls]
    own = browser is None
    browser = browser or Browser.launch()
    instances, failures = [], []
    try:
        await browser.start()
        for kind, arg in tqdm(jobs, desc="design2code build", disable=not progress):
            inst_id = f"syn-{arg:04d}" if kind == "synthetic" else f"real-{arg.stem}"
            try:
                if kind == "synthetic":
                    site = synthetic_site(arg, pages_per_site)
                    inst = await build_instance(browser, out, inst_id, "synthetic", f"synthetic:{arg}",
                                                site.pages, site.files, site.routes, site.meta, profile)
                else:
                    assets, unavailable = page_assets(arg)
                    inst = await build_instance(browser, out, inst_id, "real", str(arg),
                                                [arg.name], {**assets, arg.name: arg.read_bytes()}, [], {}, profile,
                                                unavailable)
                instances.append(inst)
            except (PageError, OSError, ValueError) as exc:
                shutil.rmtree(out / inst_id, ignore_errors=True)  # no half-built instance is left to load
                failures.append({"job": str(arg), "kind": kind, "reason": getattr(exc, "kind", type(exc).__name__),
                                 "error": f"{type(exc).__name__}: {exc}"})
    finally:
        if own:
            await browser.close()
    # the build's record of what failed and why (e.g. "unsettled": a page that never settled)
    (out / "build_failures.json").write_text(json.dumps(failures, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return instances, failures
