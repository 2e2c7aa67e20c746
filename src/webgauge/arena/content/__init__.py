"""Arena content: what the worlds are made of — the seeded name pools (public and held-out), coined names and
per-world phrasing."""

from __future__ import annotations

from . import phrasing, synth

__all__ = ["phrasing", "synth"]
