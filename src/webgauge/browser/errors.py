"""Errors raised by the browser layer. Each names what went wrong and how to fix it."""

from __future__ import annotations

__all__ = ["BrowserError", "ChromiumNotFound", "PageError", "ElementNotFound"]


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

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "url": self.url}


class ElementNotFound(BrowserError):
    """An element id from an earlier observation no longer resolves in the page."""
