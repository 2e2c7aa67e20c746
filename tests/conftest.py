"""Shared fixtures: a real system Chromium and the real pages from ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("WEBGAUGE_SHARED", REPO.parent / "shared"))
REAL_PAGES = SHARED / "data" / "design2code" / "pages"


@pytest.fixture
def real_pages_dir() -> Path:
    if not REAL_PAGES.is_dir():
        pytest.fail(f"the shared real pages are missing at {REAL_PAGES}; set WEBGAUGE_SHARED to the shared/ folder")
    return REAL_PAGES


@pytest.fixture
async def browser():
    from webgauge.browser import Browser

    async with Browser.launch() as b:
        yield b


@pytest.fixture
def cpu_hog():
    """A process burning one core beside the test (it stops by itself after 300 s, and is killed
    when the test ends): captures must stay identical on a busy machine."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 300\nwhile time.time() < end: pass"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()
