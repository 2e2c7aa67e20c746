"""Locating the real-page corpus shipped beside a checkout (Design2Code test pages)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["real_pages_dir", "SHARED_ENV"]

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
