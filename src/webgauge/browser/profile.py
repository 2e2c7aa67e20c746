"""Render profiles: everything that must be fixed for a page to render the same twice."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

__all__ = ["RenderProfile", "DEFAULT_PROFILE"]


@dataclass(frozen=True)
class RenderProfile:
    """A frozen description of how a page is rendered.

    Two captures with the same profile of the same page give the same screenshot bytes.
    ``frozen_time`` pins ``Date.now()``/``new Date()`` (timers keep running);
    ``None`` leaves the real clock. ``offline`` blocks every request whose origin is not
    a loopback origin in ``allowed_origins`` (by default the origin of the first page
    opened) and records it.
    """

    width: int = 1280
    height: int = 800
    device_scale_factor: float = 1.0
    locale: str = "en-US"
    timezone: str = "UTC"
    reduced_motion: bool = True
    frozen_time: str | None = "2026-01-01T12:00:00Z"
    disable_animations: bool = True
    hide_scrollbars: bool = True
    color_scheme: str = "light"
    offline: bool = True
    allowed_origins: tuple[str, ...] = field(default_factory=tuple)
    user_agent: str | None = None
    is_mobile: bool = False
    has_touch: bool = False

    def with_(self, **changes: Any) -> RenderProfile:
        """A copy with some fields changed."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["allowed_origins"] = list(self.allowed_origins)
        return d

    @property
    def fingerprint(self) -> str:
        """A short hash of every field, for cache keys and run specs."""
        blob = json.dumps(self.to_dict(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


DEFAULT_PROFILE = RenderProfile()
