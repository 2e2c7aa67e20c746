"""Fixtures for the arena variants, safety and package tests: one real arena server."""

from __future__ import annotations

import pytest

from webgauge.arena.apps.server import ArenaServer


@pytest.fixture(scope="module")
def arena():
    with ArenaServer() as srv:
        yield srv


@pytest.fixture(scope="session")
def browser(arena_browser):
    """The arena's tests run on the arena's browser (Chromium's headless shell; tests/conftest.py)."""
    return arena_browser
