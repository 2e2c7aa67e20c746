"""Locating the real-page corpus shipped beside a checkout (Design2Code test pages)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["real_pages_dir", "require_real_pages", "CorpusMissing", "SHARED_ENV"]

SHARED_ENV = "WEBGAUGE_SHARED"


def real_pages_dir() -> Path | None:
    """The folder of real pages: ``$WEBGAUGE_SHARED/data/design2code/pages``, else the
    ``shared/`` folder beside the checkout; ``None`` when neither exists."""
    candidates = []
    if os.environ.get(SHARED_ENV):
        candidates.append(Path(os.environ[SHARED_ENV]))
    here = Path(__file__).resolve()
    candidates += [parent.parent / "shared" for parent in here.parents[2:5]]
    for shared in candidates:
        pages = shared / "data" / "design2code" / "pages"
        if pages.is_dir():
            return pages
    return None


class CorpusMissing(FileNotFoundError):
    """The real-page corpus is not where webgauge looks for it."""


def require_real_pages() -> Path:
    """The real-page folder, or a :class:`CorpusMissing` error that names the fix."""
    pages = real_pages_dir()
    if pages is None:
        raise CorpusMissing(
            f"the real-page corpus (shared/data/design2code/pages) was not found: set {SHARED_ENV} to the "
            "shared/ folder that holds it, or place shared/ beside the checkout")
    return pages
