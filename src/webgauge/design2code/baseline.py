"""The no-network baseline generator: resources at their boxes, colours from the design.

It writes one HTML page per design without any model, so the whole pipeline runs offline:

* the page background is rebuilt from horizontal bands of the screenshot (``BAND_PX`` tall,
  each the median colour of its band, equal neighbours merged);
* every resource is placed at its box with ``position:absolute`` (larger boxes first so
  smaller ones stay on top): links as ``<a>`` with their text and colour, images as
  ``<img>``, background images as a ``div`` with ``background-image``, backend routes as a
  ``<form>`` with its fields and a submit button, or a ``data-fetch`` button;
* each element's background is the most common colour inside its box in the screenshot.

Under the self-contained strategy the baseline gets no resource list, so it writes the
background only: that is the honest floor of a resource-blind generator.
"""

from __future__ import annotations

import html as _html
import io

import numpy as np
from PIL import Image

from webgauge.design2code.prompts import PageTask
from webgauge.design2code.resources import Resource

__all__ = ["BAND_PX", "baseline_page", "BaselineGenerator"]

BAND_PX = 16
_FETCH_JS = (
    "<script>document.querySelectorAll('[data-fetch]').forEach(function(el){"
    "el.addEventListener('click',function(ev){ev.preventDefault();fetch(el.getAttribute('data-fetch'),"
    "{method:el.getAttribute('data-method')||'POST',headers:{'Content-Type':'application/json',"
    "'Accept':'application/json'},body:JSON.stringify({action:el.textContent.trim()})});});});</script>")


def _hex(rgb) -> str:
    return "#" + "".join(f"{int(v):02x}" for v in rgb)


def _mode_color(region: np.ndarray) -> str:
    if region.size == 0:
        return "#ffffff"
    q = (region.reshape(-1, 3) // 8).astype(np.int32)
    keys = q[:, 0] * 1024 + q[:, 1] * 32 + q[:, 2]
    vals, counts = np.unique(keys, return_counts=True)
    k = vals[np.argmax(counts)]
    mask = keys == k
    return _hex(region.reshape(-1, 3)[mask].mean(axis=0))


def _bands(img: np.ndarray) -> str:
    h = img.shape[0]
    rows, start, prev = [], 0, None
    for y in range(0, h, BAND_PX):
        color = _hex(np.median(img[y:y + BAND_PX].reshape(-1, 3), axis=0))
        if color != prev and prev is not None:
            rows.append((start, y, prev))
            start = y
        prev = color
    if prev is not None:
        rows.append((start, h, prev))
    return "".join(f'<div style="position:absolute;left:0;top:{a}px;width:100%;height:{b - a}px;'
                   f'background:{c}"></div>' for a, b, c in rows)


def _style(r: Resource, bg: str | None) -> str:
    (x1, y1), (x2, y2) = r.box
    w, h = max(1.0, x2 - x1), max(1.0, y2 - y1)
    s = f"position:absolute;left:{x1:.1f}px;top:{y1:.1f}px;width:{w:.1f}px;height:{h:.1f}px;overflow:hidden;margin:0;"
    if bg:
        s += f"background-color:{bg};"
    if r.color:
        s += f"color:{r.color};"
    if r.type in ("link", "backend_route"):
        s += (f"font:{max(9, min(18, int(h * 0.6)))}px sans-serif;line-height:{h:.0f}px;white-space:nowrap;"
              "text-decoration:none;")
    return s


def _element(r: Resource, bg: str | None) -> str:
    e = _html.escape
    st = _style(r, bg)
    if r.type == "link":
        return f'<a href="{e(r.url)}" style="{st}">{e(r.text)}</a>'
    if r.type == "image":
        return f'<img src="{e(r.url)}" alt="{e(r.text)}" style="{st}object-fit:cover">'
    if r.type == "background_image":
        return (f'<div style="{st}background-image:url(\'{e(r.url)}\');background-size:cover;'
                f'background-repeat:no-repeat"></div>')
    if r.via == "fetch" or (not r.fields and r.via != "form"):
        return (f'<button type="button" data-fetch="{e(r.url)}" data-method="{e(r.method or "POST")}" '
                f'style="{st}border:0;padding:0">{e(r.text)}</button>')
    inputs = "".join(f'<input name="{e(f)}" aria-label="{e(f)}" style="width:80px;font-size:10px">'
                     for f in r.fields)
    return (f'<form action="{e(r.url if r.url.startswith(("/", "http")) else "/" + r.url)}" '
            f'method="{e((r.method or "POST").lower())}" style="{st}">{inputs}'
            f'<button type="submit" style="font-size:10px">{e(r.text[:20] or "Send")}</button></form>')


def baseline_page(task: PageTask) -> str:
    """The baseline HTML for one page (see module docstring)."""
    img = np.asarray(Image.open(io.BytesIO(task.screenshot)).convert("RGB"))
    h, w = img.shape[:2]
    parts = [_bands(img)]
    if task.strategy != "sc":
        resources = sorted(task.resources.resources, key=lambda r: -(r.width * r.height))
        for r in resources:
            (x1, y1), (x2, y2) = r.box
            region = img[max(0, int(y1)):max(0, int(y2)), max(0, int(x1)):max(0, int(x2))]
            bg = _mode_color(region) if r.type in ("link", "backend_route") and region.size else None
            parts.append(_element(r, bg))
    script = _FETCH_JS if any(r.type == "backend_route"
                              for r in task.resources.resources) and task.strategy != "sc" else ""
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + _html.escape(task.page) +
            "</title><style>html,body{margin:0;padding:0}</style></head>"
            f'<body><div style="position:relative;width:{w}px;height:{h}px;overflow:hidden">'
            + "".join(parts) + "</div>" + script + "</body></html>")


class BaselineGenerator:
    """A :class:`~webgauge.design2code.generate.PageGenerator` that needs no model."""

    name = "baseline"

    async def generate(self, task: PageTask, render) -> dict:
        code = baseline_page(task)
        return {"code": code, "status": "ok", "source": "baseline", "turns": [], "usage": None}
