"""What an agent sees after each step, and how much of it each observation mode reveals.

Modes hold everything else fixed: ``dom`` (element table and aria tree, no pixels),
``screenshot`` (pixels only, so only pointer, keyboard, scroll and navigation actions
can target anything), ``screenshot+tree`` (both).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from ...browser import Element, Snapshot

__all__ = ["Observation", "OBS_MODES", "image_tokens", "short_token"]

OBS_MODES = ("dom", "screenshot", "screenshot+tree")


def short_token(screenshot_hash: str | None, step: int) -> str | None:
    """The short token issued with an observation: the step and 6 hex digits of its screenshot
    hash (``"s3-9f2c41"``). Pointer actions quote it instead of the 64-character hash; a token
    of any other observation is rejected as stale, like a wrong hash."""
    return f"s{step}-{screenshot_hash[:6]}" if screenshot_hash else None


def image_tokens(width_px: int, height_px: int, patch: int = 32) -> int:
    """Estimated image tokens of a screenshot: one per ``patch``×``patch`` device pixels.

    A provider-neutral estimate (ViT-style 32 px patches); providers that report real image
    token counts override it through their usage record.
    """
    return math.ceil(width_px / patch) * math.ceil(height_px / patch)


@dataclass
class Observation:
    step: int
    url: str
    navigation_id: int
    viewport: tuple[int, int]
    device_scale_factor: float
    scroll: tuple[float, float]
    frame: str = "main"
    tabs: list[str] = field(default_factory=list)
    active_tab: int = 0
    png: bytes | None = None
    screenshot_hash: str | None = None
    token: str | None = None  # short id of this screenshot for pointer actions (the hash stays in the trace)
    elements: list[Element] | None = None
    aria: str | None = None
    title: str = ""
    last_result: dict[str, Any] = field(default_factory=dict)  # result of the previous action
    approval: str | None = None  # "granted" / "denied" after request_approval
    snapshot: Snapshot | None = field(default=None, repr=False)  # full capture (harness only)
    # native pickers the environment drew onto the screenshot (an open <select>'s options, a file
    # chooser; see env/pickers.py): one record per transform. ``png`` and ``screenshot_hash`` are the
    # drawn image; ``snapshot.png`` stays the page's own pixels
    overlays: list[dict[str, Any]] = field(default_factory=list)
    file_chooser: list[str] | None = None  # the file names an open file chooser offers (None: none is open)

    @classmethod
    def from_snapshot(cls, snap: Snapshot, step: int, tabs: list[str], active_tab: int,
                      last_result: dict[str, Any] | None = None, approval: str | None = None) -> Observation:
        return cls(step=step, url=snap.url, navigation_id=snap.navigation_id,
                   viewport=(snap.viewport[0], snap.viewport[1]),
                   device_scale_factor=snap.device_scale_factor, scroll=(snap.scroll[0], snap.scroll[1]),
                   tabs=list(tabs),
                   active_tab=active_tab, png=snap.png, screenshot_hash=snap.png_sha256,
                   token=short_token(snap.png_sha256, step), elements=snap.elements,
                   aria=snap.aria, title=snap.title, last_result=dict(last_result or {}), approval=approval,
                   snapshot=snap)

    def for_mode(self, mode: str) -> Observation:
        """The agent's view: the same observation with what the mode hides removed."""
        if mode not in OBS_MODES:
            raise ValueError(f"observation mode {mode!r}: use one of {', '.join(OBS_MODES)}")
        if mode == "dom":
            return replace(self, png=None, screenshot_hash=None, token=None, snapshot=None)
        if mode == "screenshot":
            # no element table, and no DOM facts about the last target (its role and name) either
            result = {k: v for k, v in self.last_result.items() if k != "target"}
            return replace(self, elements=None, aria=None, snapshot=None, last_result=result)
        return replace(self, snapshot=None)

    def element(self, eid: str) -> Element | None:
        for el in self.elements or []:
            if el.id == eid:
                return el
        return None

    def viewport_box(self, el: Element) -> tuple[float, float, float, float]:
        """An element's box in CSS px of the viewport (boxes in snapshots are page px)."""
        x, y, w, h = el.box
        return (x - self.scroll[0], y - self.scroll[1], w, h)

    def normalized(self, x_css: float, y_css: float) -> tuple[float, float]:
        """Viewport CSS px to screenshot-normalized coordinates."""
        return (min(1.0, max(0.0, x_css / self.viewport[0])), min(1.0, max(0.0, y_css / self.viewport[1])))

    @property
    def screenshot_size(self) -> tuple[int, int]:
        return (round(self.viewport[0] * self.device_scale_factor), round(self.viewport[1] * self.device_scale_factor))

    def meta(self) -> dict[str, Any]:
        """JSON-ready metadata (no pixels, no elements) for traces."""
        meta = {"step": self.step, "url": self.url, "navigation_id": self.navigation_id,
                "viewport": list(self.viewport),
                "device_scale_factor": self.device_scale_factor, "scroll": list(self.scroll), "frame": self.frame,
                "tabs": self.tabs, "active_tab": self.active_tab, "screenshot_hash": self.screenshot_hash,
                "token": self.token,
                "title": self.title, "last_result": self.last_result, "approval": self.approval,
                # why the capture may not show one settled state (unsettled, PNG and element table
                # disagreeing, no load event): empty for a clean capture
                "capture_warnings": list(self.snapshot.warnings) if self.snapshot is not None else []}
        if self.overlays:  # what was drawn onto the page's screenshot (the transform, see env/pickers.py)
            meta["overlays"] = list(self.overlays)
        if self.file_chooser is not None:
            meta["file_chooser"] = list(self.file_chooser)
        return meta
