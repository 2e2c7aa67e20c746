"""MRWeb-format data in and out: its resource lists, its dataset layout and its outputs.

MRWeb keeps one page per id in a folder::

    <id>.html   the reference page          <id>.png   its screenshot
    <id>.json   the resource list: a JSON array of objects
                {"position": [[x1, y1], [x2, y2]], "type": "a" | "img" | "background-image" | ...,
                 "text": "...", "color": [r, g, b], "on_click_jump_to": "<url>" | "src": "<url>"}

and a method's generated pages as ``results/<method>/<id>.html``.

* :func:`resources_from_mrweb` / :func:`resources_to_mrweb` convert one resource list:
  ``a`` is a ``link`` (its ``on_click_jump_to``), ``img`` an ``image`` and
  ``background-image`` a ``background_image`` (their ``src``); other types (buttons,
  inputs, ...) have no webgauge meaning and are dropped and counted. MRWeb's JSON has no
  page size, so it comes from the reference PNG.
* :func:`import_mrweb` turns such a folder into webgauge instances (no browser: the PNG is
  the reference screenshot; local assets beside the page are copied, remote ones listed).
* :func:`export_mrweb` writes any instance set in the same layout.

Outputs of a method are scored with ``webgauge design2code score RESULTS --instances ...``
(:func:`webgauge.design2code.runs.import_generations`).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from PIL import Image

from webgauge.design2code.ciede2000 import parse_css_color
from webgauge.design2code.resources import Resource, ResourceList

__all__ = ["MRWEB_TYPES", "resources_from_mrweb", "resources_to_mrweb", "import_mrweb", "export_mrweb"]

MRWEB_TYPES: dict[str, str] = {"a": "link", "img": "image", "background-image": "background_image"}
_TO_MRWEB = {v: k for k, v in MRWEB_TYPES.items()}
VIEWPORT_HEIGHT = 800


def _viewport(page_size: tuple[int, int]) -> tuple[int, int]:
    return int(page_size[0]), int(min(page_size[1], VIEWPORT_HEIGHT))


def resources_from_mrweb(items: list, page: str = "", page_size: tuple[int, int] | None = None,
                         dropped: Counter | None = None) -> ResourceList:
    """A :class:`ResourceList` from MRWeb's JSON array (module docstring). Types other than
    ``a``, ``img`` and ``background-image`` are dropped and counted in ``dropped``."""
    if not isinstance(items, list):
        raise ValueError(f"an MRWeb resource list is a JSON array, got {type(items).__name__}")
    out = []
    for i, obj in enumerate(items):
        if not isinstance(obj, dict) or "position" not in obj or "type" not in obj:
            raise ValueError(f"MRWeb resource {i} must be an object with 'position' and 'type', got {obj!r:.120}")
        kind = MRWEB_TYPES.get(str(obj["type"]))
        if kind is None:
            if dropped is not None:
                dropped[str(obj["type"])] += 1
            continue
        url = obj.get("on_click_jump_to") if kind == "link" else obj.get("src")
        url = url if url is not None else obj.get("url", obj.get("src", obj.get("on_click_jump_to")))
        color = obj.get("color")
        css = None
        if isinstance(color, (list, tuple)) and len(color) >= 3:
            css = f"rgb({int(color[0])}, {int(color[1])}, {int(color[2])})"
        elif isinstance(color, str):
            css = color
        try:
            box = [[float(v) for v in pt] for pt in obj["position"]]
            out.append(Resource(kind, box, str(url or ""), text=str(obj.get("text") or ""), color=css))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"MRWeb resource {i}: {exc}") from None
    size = tuple(int(v) for v in page_size) if page_size else (1280, 800)
    return ResourceList(page, out, viewport=_viewport(size), page_size=size)  # type: ignore[arg-type]


def resources_to_mrweb(rl: ResourceList) -> list[dict[str, Any]]:
    """MRWeb's JSON array for a resource list (backend routes have no MRWeb type and are left out)."""
    rows = []
    for r in rl.resources:
        kind = _TO_MRWEB.get(r.type)
        if kind is None:
            continue
        rgb = parse_css_color(r.color)
        row: dict[str, Any] = {"position": r.box, "type": kind, "text": r.text,
                               "color": list(rgb) if rgb else None}
        row["on_click_jump_to" if kind == "a" else "src"] = r.raw_url if r.raw_url is not None else r.url
        rows.append(row)
    return rows


def import_mrweb(src: str | Path, out: str | Path, limit: int | None = None) -> tuple[list, list[dict]]:
    """Instances from an MRWeb folder; returns ``(instances, failures)``. An id whose HTML or
    PNG is missing, or whose JSON does not read, is recorded as a failure and the rest go on."""
    from webgauge.design2code.assets import page_assets
    from webgauge.design2code.dataset import Instance, PageRecord

    src, out = Path(src), Path(out)
    if not src.is_dir():
        raise FileNotFoundError(f"{src} is not a folder in MRWeb's layout (<id>.html, <id>.png, <id>.json)")
    jsons = sorted(src.glob("*.json"))[:limit]
    if not jsons:
        raise FileNotFoundError(f"{src} holds no <id>.json resource lists (MRWeb layout: <id>.html, <id>.png, <id>.json)")
    out.mkdir(parents=True, exist_ok=True)
    instances, failures = [], []
    for js in jsons:
        ident = js.stem
        html, png = src / f"{ident}.html", src / f"{ident}.png"
        try:
            for need in (html, png):
                if not need.is_file():
                    raise FileNotFoundError(f"{need.name} is missing beside {js.name}")
            with Image.open(png) as im:
                size = im.size
            dropped: Counter = Counter()
            rl = resources_from_mrweb(json.loads(js.read_text()), page=html.name, page_size=size, dropped=dropped)
            assets, unavailable = page_assets(html)
            folder = out / ident
            if folder.exists():
                shutil.rmtree(folder)
            (folder / "site").mkdir(parents=True)
            (folder / "ref").mkdir()
            for rel, data in {**assets, html.name: html.read_bytes()}.items():
                dest = folder / "site" / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
            shutil.copyfile(png, folder / "ref" / png.name)
            inst = Instance(ident, "mrweb", str(js.parent.resolve() / ident),
                            [PageRecord(html.name, f"ref/{png.name}", size[0], size[1], rl)], [], sorted(assets),
                            folder, {"dropped_resource_types": dict(dropped)}, unavailable)
            (folder / "instance.json").write_text(json.dumps(inst.to_dict(), indent=1))
            instances.append(inst)
        except (OSError, ValueError) as exc:
            failures.append({"id": ident, "error": f"{type(exc).__name__}: {exc}"})
    return instances, failures


def export_mrweb(instances_dir: str | Path, out: str | Path) -> dict[str, Any]:
    """Write every page of every instance under ``instances_dir`` in MRWeb's layout. A page of
    a multi-page instance is ``<instance>__<page stem>``; assets are copied beside the pages.
    Returns ``{"pages", "dropped": {type: count}}`` (backend routes have no MRWeb form)."""
    from webgauge.design2code.dataset import load_instances

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pages, dropped = 0, Counter()
    for inst in load_instances(instances_dir):
        for rec in inst.pages:
            ident = inst.id if len(inst.pages) == 1 else f"{inst.id}__{Path(rec.name).stem}"
            (out / f"{ident}.html").write_text(inst.reference_code(rec.name), encoding="utf-8")
            (out / f"{ident}.png").write_bytes(inst.screenshot(rec.name))
            rows = resources_to_mrweb(rec.resources)
            dropped.update(r.type for r in rec.resources.resources if r.type not in _TO_MRWEB)
            (out / f"{ident}.json").write_text(json.dumps(rows, indent=1))
            pages += 1
        for rel, data in inst.asset_files().items():
            dest = out / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
    return {"pages": pages, "dropped": dict(dropped)}
