"""Fixtures for the models tests: a fake model server over real HTTP, real PNG bytes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image as PILImage

from webgauge.models import Image
from webgauge.models.fake_server import FakeModelServer


@pytest.fixture
def server():
    """A FakeModelServer answering 'OK' (tests can set .respond)."""
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def page_png(real_pages_dir: Path) -> Image:
    """A real page screenshot from the Design2Code sample (read from shared/, never copied)."""
    return Image.from_file(real_pages_dir / "2293.png")


@pytest.fixture
def make_png():
    """Factory of small real PNGs made with Pillow: make_png(color=(r, g, b), size=(w, h))."""
    def make(color=(200, 30, 30), size=(8, 6)) -> Image:
        buf = io.BytesIO()
        PILImage.new("RGB", size, color).save(buf, format="PNG")
        return Image(buf.getvalue(), "image/png")
    return make
