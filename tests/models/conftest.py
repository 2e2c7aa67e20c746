"""Fixtures for the models tests: a fake model server over real HTTP, real PNG bytes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image as PILImage

from webgauge.models import Image
from webgauge.models.fake_server import FakeModelServer

PAGES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "design2code" / "pages"


@pytest.fixture
def server():
    """A FakeModelServer answering 'OK' (tests can set .respond)."""
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def page_png() -> Image:
    """A real page screenshot from the Design2Code sample (read from ../shared, never copied)."""
    path = PAGES / "2293.png"
    if not path.is_file():
        raise FileNotFoundError(f"test data missing: {path} (the shared/ folder must sit beside the repo)")
    return Image.from_file(path)


@pytest.fixture
def make_png():
    """Factory of small real PNGs made with Pillow: make_png(color=(r, g, b), size=(w, h))."""
    def make(color=(200, 30, 30), size=(8, 6)) -> Image:
        buf = io.BytesIO()
        PILImage.new("RGB", size, color).save(buf, format="PNG")
        return Image(buf.getvalue(), "image/png")
    return make
