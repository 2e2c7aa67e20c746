"""Fixtures for the arena tests: one real arena server (loopback HTTP, SQLite per episode)."""

from __future__ import annotations

import pytest

from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import ArenaServer


@pytest.fixture(scope="module")
def arena():
    with ArenaServer() as srv:
        yield srv


@pytest.fixture
def control(arena) -> ControlClient:
    return ControlClient(arena.control_url)
