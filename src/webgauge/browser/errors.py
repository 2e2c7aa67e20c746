"""Errors raised by the browser layer. Each names what went wrong and how to fix it."""

from __future__ import annotations

from typing import Any

__all__ = ["BrowserError", "ChromiumNotFound", "ElementNotFound", "NotInteractable", "PageError"]


class BrowserError(RuntimeError):
    """Base class of every browser-layer error."""


class ChromiumNotFound(BrowserError):
    """No usable Chromium executable was found."""


class PageError(BrowserError):
    """A page could not be loaded or captured.

    ``kind`` is one of ``timeout``, ``crash``, ``navigation``, ``blocked``, ``script``,
    ``dialog``; the run records it against the page and goes on.
    """

    def __init__(self, kind: str, message: str, url: str | None = None) -> None:
        super().__init__(f"[{kind}] {message}" + (f" (url: {url})" if url else ""))
        self.kind = kind
        self.message = message
        self.url = url

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "url": self.url}


class ElementNotFound(BrowserError):
    """An element id from an earlier observation no longer resolves in the page."""


class NotInteractable(BrowserError):
    """An element action's target cannot be reached now: ``reason`` is ``covered`` (another element
    takes the pointer at its center: ``blocker`` names it), ``inert`` (inside an inert subtree or
    outside the open modal dialog: ``blocker`` names that) or ``outside`` (no part of it can be
    scrolled into the viewport)."""

    def __init__(self, reason: str, blocker: str, target: str) -> None:
        what = {"covered": f"covered by {blocker}; act on what is on top (close it first)",
                "inert": f"inert, {blocker}; act inside the dialog (close it first)",
                "outside": f"{blocker} is outside the viewport and cannot be scrolled into it"}.get(reason, reason)
        super().__init__(f"element {target!r} cannot be reached now: {what}")
        self.reason = reason
        self.blocker = blocker
        self.target = target
