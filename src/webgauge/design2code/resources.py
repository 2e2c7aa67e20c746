"""The resource list: what a generated page must contain, with where and how it looks.

A resource list is versioned JSON (``RESOURCE_LIST_VERSION``). Its shape::

    {
      "version": "webgauge.design2code.resources/1",
      "page": "index.html",                 # page file name inside the site (or source URL)
      "viewport": [1280, 800],              # CSS px the page was rendered at
      "page_size": [1280, 2140],            # full scroll size of the page in CSS px
      "resources": [
        {
          "type": "link" | "image" | "background_image" | "backend_route",
          "box": [[x1, y1], [x2, y2]],      # page CSS px (top-left, bottom-right), not viewport
          "url": "about.html",              # link href, image src, background url, or route path
          "method": "POST",                 # backend routes only (GET for plain links)
          "text": "About us",               # visible text (alt text for images), may be ""
          "color": "rgb(10, 20, 30)",       # text colour of the element
          "background_color": "rgb(...)",   # effective background colour, may be null
          "target_page": "about.html",      # internal links only: the site page the link opens
          "fields": ["name", "email"],      # backend routes from forms: input names
          "via": "form" | "fetch",          # backend routes only: how the page reaches it
          "raw_url": "./about.html"         # the attribute as written (href, src, url()), if extracted
        }, ...
      ]
    }

Types: ``link`` is an ``<a href>``; ``image`` an ``<img src>`` (or ``<input type=image>``);
``background_image`` an element whose computed ``background-image`` is a ``url(...)``;
``backend_route`` either a form (its ``action`` and ``method``) or a fetch target declared in
markup with ``data-fetch="/api/path"`` (method from ``data-method``, default ``POST``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["RESOURCE_LIST_VERSION", "RESOURCE_TYPES", "Resource", "ResourceList",
           "box_center", "box_area", "resource_key", "MRWEB_TYPES", "MRWEB_WINDOW", "resources_from_mrweb"]

RESOURCE_LIST_VERSION = "webgauge.design2code.resources/1"
RESOURCE_TYPES: tuple[str, ...] = ("link", "image", "background_image", "backend_route")
MRWEB_TYPES: dict[str, str] = {"a": "link", "img": "image", "background-image": "background_image"}
MRWEB_WINDOW: tuple[int, int] = (1920, 1080)
"""The window MRWeb records its boxes and screenshots in (its ``get_driver`` default)."""


@dataclass
class Resource:
    """One entry of a resource list; see the module docstring for each field."""

    type: str
    box: list[list[float]]
    url: str
    text: str = ""
    color: str | None = None
    background_color: str | None = None
    method: str | None = None
    target_page: str | None = None
    fields: list[str] = field(default_factory=list)
    via: str | None = None
    raw_url: str | None = None

    def __post_init__(self) -> None:
        if self.type not in RESOURCE_TYPES:
            raise ValueError(f"resource type {self.type!r} is not one of {RESOURCE_TYPES}")
        if (len(self.box) != 2 or any(len(p) != 2 for p in self.box)):
            raise ValueError(f"box must be [[x1, y1], [x2, y2]], got {self.box!r}")
        (x1, y1), (x2, y2) = self.box
        if x2 < x1 or y2 < y1:
            raise ValueError(f"box corners out of order: {self.box!r}")
        if self.type == "backend_route" and not self.method:
            self.method = "POST"

    @property
    def width(self) -> float:
        return self.box[1][0] - self.box[0][0]

    @property
    def height(self) -> float:
        return self.box[1][1] - self.box[0][1]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: v for k, v in d.items() if v not in (None, []) or k in ("text", "url")}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Resource:
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown resource fields {sorted(unknown)}; allowed: {sorted(known)}")
        return cls(**d)


@dataclass
class ResourceList:
    """The resources of one page plus the page's geometry."""

    page: str
    resources: list[Resource]
    viewport: tuple[int, int] = (1280, 800)
    page_size: tuple[int, int] = (1280, 800)
    version: str = RESOURCE_LIST_VERSION

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "page": self.page, "viewport": list(self.viewport),
                "page_size": list(self.page_size),
                "resources": [r.to_dict() for r in self.resources]}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def prompt_json(self) -> str:
        """Compact JSON for prompts: type, box, url, method, text, and target page only."""
        keep = ("type", "box", "url", "method", "text", "target_page", "fields", "via")
        rows = [{k: v for k, v in r.to_dict().items() if k in keep} for r in self.resources]
        return json.dumps(rows, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ResourceList:
        version = d.get("version")
        if version != RESOURCE_LIST_VERSION:
            raise ValueError(f"resource list version {version!r} is not supported; "
                             f"expected {RESOURCE_LIST_VERSION!r} (re-run `webgauge design2code extract`)")
        return cls(page=d["page"], resources=[Resource.from_dict(r) for r in d["resources"]],
                   viewport=tuple(d.get("viewport", (1280, 800))),
                   page_size=tuple(d.get("page_size", (1280, 800))),
                   version=version)

    @classmethod
    def from_json(cls, text: str, page: str = "", page_size: tuple[int, int] | None = None) -> ResourceList:
        """Read webgauge's versioned JSON object, or MRWeb's form: a bare JSON array of
        ``{"position", "type", "text", "color", "on_click_jump_to" | "src"}`` objects (see
        :func:`resources_from_mrweb`; ``page`` and ``page_size``
        then name the page and its size, which MRWeb's JSON does not hold)."""
        data = json.loads(text)
        if isinstance(data, list):
            return resources_from_mrweb(data, page=page, page_size=page_size)
        if not isinstance(data, dict):
            raise ValueError(f"a resource list is a JSON object (webgauge) or array (MRWeb), got {type(data).__name__}")
        return cls.from_dict(data)

    def of_type(self, *types: str) -> list[Resource]:
        return [r for r in self.resources if r.type in types]


def box_center(box: list[list[float]]) -> tuple[float, float]:
    (x1, y1), (x2, y2) = box
    return (x1 + x2) / 2.0, (y1 + y2) / 2.0


def box_area(box: list[list[float]]) -> float:
    (x1, y1), (x2, y2) = box
    return max(0.0, x2 - x1) * max(0.0, y2 - y1)


def resource_key(r: Resource, url_match: str = "webgauge") -> tuple[str, str]:
    """The identity a resource is matched on for RER: links by destination, images by source,
    routes by method and path; URLs compared as ``url_match`` says
    (:func:`webgauge.design2code.urls.url_key`)."""
    from webgauge.design2code.urls import url_key

    url = url_key(r, url_match)
    if r.type == "backend_route":
        return ("backend_route", f"{(r.method or 'POST').upper()} {url}")
    if r.type in ("image", "background_image"):
        return ("image", url)  # an image may be given as <img> or as a background
    return (r.type, url)


def iter_types(resources: Iterable[Resource]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in resources:
        out[r.type] = out.get(r.type, 0) + 1
    return out


def resources_from_mrweb(items: list, page: str = "", page_size: tuple[int, int] | None = None,
                         dropped: Counter | None = None, viewport: tuple[int, int] = MRWEB_WINDOW) -> ResourceList:
    """A :class:`ResourceList` from MRWeb's JSON array (see :mod:`webgauge.design2code.mrweb`). Types other than
    ``a``, ``img`` and ``background-image`` are dropped and counted in ``dropped``. ``viewport``
    is the window the boxes were recorded in (MRWeb's 1920x1080 unless told otherwise)."""
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
    size = tuple(int(v) for v in page_size) if page_size else tuple(viewport)
    return ResourceList(page, out, viewport=(int(viewport[0]), int(viewport[1])),
                        page_size=size)  # type: ignore[arg-type]
