"""Arena content: the material held-out worlds are made of (coined names, per-world phrasing)."""

from __future__ import annotations

from . import phrasing, synth

__all__ = ["phrasing", "synth"]
