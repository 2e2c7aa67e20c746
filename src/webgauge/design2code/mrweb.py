"""MRWeb-format data in and out: its resource lists, its dataset layout and its outputs.

MRWeb keeps one page per id in a folder::

    <id>.html   the reference page          <id>.png   its screenshot
    <id>.json   the resource list: a JSON array of objects
                {"position": [[x1, y1], [x2, y2]], "type": "a" | "img" | "background-image" | ...,
                 "color": [r, g, b], "text": "...", "on_click_jump_to": "<url>" | "src": "<url>"}

written by ``json.dump(rows, f, ensure_ascii=False, indent=4)`` in UTF-8, and a method's
generated pages as ``results/<method>/<id>.html``. MRWeb records the boxes in a Firefox window
of 1920x1080 (:data:`MRWEB_WINDOW`), the URLs as the browser's ``href``/``src`` properties with
a link's fragment alone when it has one (``--url-match mrweb``).

* :func:`resources_from_mrweb` / :func:`resources_to_mrweb` convert one resource list:
  ``a`` is a ``link`` (its ``on_click_jump_to``), ``img`` an ``image`` and
  ``background-image`` a ``background_image`` (their ``src``); other types (buttons,
  inputs, ...) have no webgauge meaning and are dropped and counted. MRWeb's JSON has no
  page size, so it comes from the reference PNG.
* :func:`import_mrweb` turns such a folder into webgauge instances (no browser: the PNG is
  kept as MRWeb's screenshot; local assets beside the page are copied, remote ones listed).
  Each instance records the window the boxes come from (``meta["profile"]``), MRWeb's rows
  as read (``meta["mrweb_rows"]``), a local stand-in size for every remote image
  (``meta["stand_ins"]``: URL -> the reference box's size) and ``meta["reference"] =
  "rendered"``: scoring renders the reference page beside the candidate in the same browser
  and profile and measures the reference there (:mod:`webgauge.design2code.refrender`).
* :func:`export_mrweb` writes any instance set in the same layout; an imported set comes
  back byte for byte.

Outputs of a method are scored with ``webgauge design2code score RESULTS --instances ...``
(:func:`webgauge.design2code.runs.import_generations`).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any, TypedDict

from PIL import Image

from webgauge.design2code.ciede2000 import parse_css_color
from webgauge.design2code.resources import MRWEB_TYPES, MRWEB_WINDOW, ResourceList, resources_from_mrweb

__all__ = ["MRWEB_TYPES", "MRWEB_WINDOW", "resources_from_mrweb", "resources_to_mrweb", "import_mrweb",
           "export_mrweb", "mrweb_json", "ImportFailure"]

_TO_MRWEB = {v: k for k, v in MRWEB_TYPES.items()}
_LAYOUT = "MRWeb layout: <id>.html, <id>.png, <id>.json"


class ImportFailure(TypedDict):
    id: str
    error: str


def mrweb_json(rows: list) -> str:
    """MRWeb's serialisation of a resource list (``json.dump(rows, indent=4, ensure_ascii=False)``)."""
    return json.dumps(rows, ensure_ascii=False, indent=4)


def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() else v


def resources_to_mrweb(rl: ResourceList) -> list[dict[str, Any]]:
    """MRWeb's JSON array for a resource list, each row with MRWeb's keys in MRWeb's order
    (``a``: position, type, color, text, on_click_jump_to; images: position, type, src);
    backend routes have no MRWeb type and are left out."""
    rows = []
    for r in rl.resources:
        kind = _TO_MRWEB.get(r.type)
        if kind is None:
            continue
        row: dict[str, Any] = {"position": [[_num(v) for v in pt] for pt in r.box], "type": kind}
        url = r.raw_url if r.raw_url is not None else r.url
        if kind == "a":
            rgb = parse_css_color(r.color)
            if rgb:
                row["color"] = list(rgb)
            row["text"] = r.text
            row["on_click_jump_to"] = url
        else:
            row["src"] = url
        rows.append(row)
    return rows


def _stand_ins(rows: list) -> dict[str, list[int]]:
    """Remote image URL -> the size of its (first) box: what a local stand-in must measure."""
    out: dict[str, list[int]] = {}
    for obj in rows:
        if not isinstance(obj, dict) or obj.get("type") not in ("img", "background-image"):
            continue
        src = obj.get("src")
        if not isinstance(src, str) or not src.startswith(("http://", "https://", "//")) or src in out:
            continue
        (x1, y1), (x2, y2) = obj["position"]
        out[src] = [max(1, round(float(x2) - float(x1))), max(1, round(float(y2) - float(y1)))]
    return out


def _warnings(rows: list, png_size: tuple[int, int], window: tuple[int, int]) -> list[str]:
    """What a user should know about where the boxes come from."""
    out = []
    w, h = png_size
    outside = 0
    for obj in rows:
        try:
            _, (x2, y2) = obj["position"]
            outside += float(x2) > w + 1 or float(y2) > h + 1
        except (KeyError, TypeError, ValueError):
            continue
    if outside:
        out.append(f"{outside} of {len(rows)} boxes lie outside the {w}x{h} screenshot "
                   f"(boxes recorded in another window? set --width/--height)")
    if w != window[0]:
        out.append(f"the screenshot is {w} px wide, the window {window[0]} px (set --width to the recording window)")
    return out


def _read_rows(js: Path) -> list:
    try:
        rows = json.loads(js.read_bytes().decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ValueError(f"{js.name} is not UTF-8 JSON: {exc}") from None
    if not isinstance(rows, list):
        raise ValueError(f"{js.name}: an MRWeb resource list is a JSON array, got {type(rows).__name__}")
    return rows


def import_mrweb(src: str | Path, out: str | Path, limit: int | None = None,
                 window: tuple[int, int] = MRWEB_WINDOW) -> tuple[list, list[ImportFailure]]:
    """Instances from an MRWeb folder; returns ``(instances, failures)``. An id whose HTML,
    JSON or PNG is missing, or whose JSON does not read, is recorded as a failure naming the
    file and the rest go on. ``window`` is the window the boxes were recorded in; an
    instance's ``meta["warnings"]`` says when its boxes fall outside its screenshot."""
    from webgauge.design2code.assets import page_assets
    from webgauge.design2code.dataset import Instance, PageRecord

    src, out = Path(src), Path(out)
    if not src.is_dir():
        raise FileNotFoundError(f"{src} is not a folder ({_LAYOUT})")
    stems = sorted({p.stem for p in src.glob("*.json")} | {p.stem for p in src.glob("*.html")})
    if not stems:
        raise FileNotFoundError(f"{src} holds no <id>.json or <id>.html ({_LAYOUT})")
    out.mkdir(parents=True, exist_ok=True)
    instances, failures = [], []
    for ident in stems[:limit]:
        js, html, png = src / f"{ident}.json", src / f"{ident}.html", src / f"{ident}.png"
        try:
            present = next(p for p in (html, js, png) if p.is_file())
            missing = [p.name for p in (html, js, png) if not p.is_file()]
            if missing:
                raise FileNotFoundError(f"{' and '.join(missing)} missing beside {present.name} ({_LAYOUT})")
            with Image.open(png) as im:
                size = im.size
            rows = _read_rows(js)
            dropped: Counter = Counter()
            try:
                rl = resources_from_mrweb(rows, page=html.name, page_size=size, dropped=dropped, viewport=window)
            except ValueError as exc:
                raise ValueError(f"{js.name}: {exc}") from None
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
            meta = {"dropped_resource_types": dict(dropped), "profile": {"width": window[0], "height": window[1]},
                    "reference": "rendered", "stand_ins": _stand_ins(rows), "warnings": _warnings(rows, size, window),
                    "mrweb_rows": rows}
            inst = Instance(ident, "mrweb", str(js.parent.resolve() / ident),
                            [PageRecord(html.name, f"ref/{png.name}", size[0], size[1], rl)], [], sorted(assets),
                            folder, meta, unavailable)
            (folder / "instance.json").write_text(json.dumps(inst.to_dict(), indent=1), encoding="utf-8")
            instances.append(inst)
        except (OSError, ValueError) as exc:
            failures.append(ImportFailure(id=ident, error=f"{type(exc).__name__}: {exc}"))
    return instances, failures


def export_mrweb(instances_dir: str | Path, out: str | Path) -> dict[str, Any]:
    """Write every page of every instance under ``instances_dir`` in MRWeb's layout, the JSON
    as MRWeb writes it (:func:`mrweb_json`, UTF-8). An imported instance writes MRWeb's rows
    as read, so an imported set comes back byte for byte. A page of a multi-page instance is
    ``<instance>__<page stem>``; assets are copied beside the pages. Returns ``{"pages",
    "dropped": {type: count}}`` (backend routes have no MRWeb form)."""
    from webgauge.design2code.dataset import load_instances

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pages, dropped = 0, Counter[str]()
    for inst in load_instances(instances_dir):
        kept = inst.meta.get("mrweb_rows")
        for rec in inst.pages:
            ident = inst.id if len(inst.pages) == 1 else f"{inst.id}__{Path(rec.name).stem}"
            (out / f"{ident}.html").write_bytes((inst.root / "site" / rec.name).read_bytes())
            (out / f"{ident}.png").write_bytes(inst.screenshot(rec.name))
            if isinstance(kept, list) and len(inst.pages) == 1:
                rows = kept
            else:
                rows = resources_to_mrweb(rec.resources)
                dropped.update(r.type for r in rec.resources.resources if r.type not in _TO_MRWEB)
            (out / f"{ident}.json").write_bytes(mrweb_json(rows).encode("utf-8"))
            pages += 1
        for rel, data in inst.asset_files().items():
            dest = out / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
    return {"pages": pages, "dropped": dict(dropped)}
