"""The Snapshot contract: what one capture of a rendered page returns."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["Element", "Snapshot", "element_id"]


def element_id(path: str, salt: str = "") -> str:
    """Stable id of an element: a short hash of its DOM path (XPath) and the page's ``salt``.

    The same DOM gives the same ids on every capture with the same salt, so an id seen in one
    observation can be acted on later as long as the element still sits at that path. A salt
    (the arena gives each episode its own) makes ids of one episode meaningless in another.
    """
    return "e" + hashlib.sha1((salt + "|" + path if salt else path).encode()).hexdigest()[:10]


@dataclass
class Element:
    """One element of a rendered page. ``box`` is ``(x, y, w, h)`` in CSS px of the page."""

    id: str
    path: str
    tag: str
    role: str
    name: str
    text: str
    box: tuple[float, float, float, float]
    visible: bool
    clickable: bool
    color: str
    background_color: str
    font_size: float
    attrs: dict[str, str] = field(default_factory=dict)
    parent: str | None = None
    depth: int = 0
    in_viewport: bool = False
    position: str = "static"
    z_index: str = "auto"

    @property
    def area(self) -> float:
        return max(0.0, self.box[2]) * max(0.0, self.box[3])

    @property
    def center(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return (x + w / 2, y + h / 2)

    def to_dict(self) -> dict[str, Any]:
        """The element as plain JSON types. Field by field, not ``dataclasses.asdict``: that copies
        deeply and took 40 us an element against 3 (a dashboard's observation holds 763 elements,
        and every step of a recorded episode converts its table)."""
        d = {name: getattr(self, name) for name in _ELEMENT_FIELDS}
        d["box"] = list(self.box)
        d["attrs"] = dict(self.attrs)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Element:
        d = dict(d)
        d["box"] = tuple(d["box"])
        return cls(**d)


_ELEMENT_FIELDS = tuple(f.name for f in fields(Element))


@dataclass
class Snapshot:
    """One capture: screenshot, element table, aria snapshot and geometry.

    ``settled`` is False when the page did not settle before the capture, or its screenshot,
    page size and element boxes kept disagreeing; ``warnings`` then start with ``unsettled:``
    and say why. ``blocked_requests`` are sorted and deduplicated; ``dialogs`` keep the page's
    order (each dialog is modal, so that order is the script's own).

    ``viewport`` (CSS px) and ``scroll`` (its page offset) are the view the screenshot shows: the
    layout viewport, or on a phone showing a page wider than its screen, the visual viewport (the
    layout viewport then grows to the page's width; see ``capture.js``).
    """

    url: str
    viewport: tuple[int, int]
    device_scale_factor: float
    scroll: tuple[float, float]
    png: bytes
    png_sha256: str
    full_page: bool
    elements: list[Element]
    aria: str
    title: str = ""
    page_size: tuple[float, float] = (0, 0)
    blocked_requests: list[dict[str, Any]] = field(default_factory=list)
    dialogs: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    truncated: bool = False
    navigation_id: int = 0
    settled: bool = True

    def element(self, eid: str) -> Element:
        """The element with this id (KeyError if absent)."""
        for el in self.elements:
            if el.id == eid:
                return el
        raise KeyError(eid)

    def by_path(self) -> dict[str, Element]:
        return {el.path: el for el in self.elements}

    def visible_elements(self) -> list[Element]:
        return [el for el in self.elements if el.visible]

    def image(self) -> Any:
        """The screenshot as a Pillow image (RGB)."""
        import io

        from PIL import Image

        return Image.open(io.BytesIO(self.png)).convert("RGB")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of everything but the PNG bytes (the hash stays)."""
        return {
            "url": self.url,
            "viewport": list(self.viewport),
            "device_scale_factor": self.device_scale_factor,
            "scroll": list(self.scroll),
            "png_sha256": self.png_sha256,
            "full_page": self.full_page,
            "title": self.title,
            "page_size": list(self.page_size),
            "elements": [e.to_dict() for e in self.elements],
            "aria": self.aria,
            "blocked_requests": self.blocked_requests,
            "dialogs": self.dialogs,
            "warnings": self.warnings,
            "truncated": self.truncated,
            "navigation_id": self.navigation_id,
            "settled": self.settled,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], png: bytes = b"") -> Snapshot:
        return cls(
            url=d["url"], viewport=tuple(d["viewport"]), device_scale_factor=d["device_scale_factor"],
            scroll=tuple(d["scroll"]), png=png, png_sha256=d["png_sha256"], full_page=d["full_page"],
            elements=[Element.from_dict(e) for e in d["elements"]], aria=d.get("aria", ""),
            title=d.get("title", ""), page_size=tuple(d.get("page_size", (0, 0))),
            blocked_requests=d.get("blocked_requests", []), dialogs=d.get("dialogs", []),
            warnings=d.get("warnings", []), truncated=d.get("truncated", False),
            navigation_id=d.get("navigation_id", 0), settled=d.get("settled", True),
        )
