"""Fixtures for the run tests: the test handlers are importable by path in spawned workers.

The Ray cluster tests (``raycluster``: several ``ray start`` nodes on loopback, a few minutes on two
cores) run only when asked for with ``-m raycluster`` (``make test-ray``); other runs deselect them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"


def pytest_configure(config):
    config.addinivalue_line("markers", "raycluster: starts a Ray cluster of several nodes on loopback (make test-ray)")


def pytest_collection_modifyitems(config, items):
    if "raycluster" in (config.option.markexpr or ""):
        return
    dropped = [i for i in items if i.get_closest_marker("raycluster")]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if not i.get_closest_marker("raycluster")]


@pytest.fixture(autouse=True)
def handlers_on_path(monkeypatch):
    """Spawned workers and subprocesses import ``run_handlers`` from this folder."""
    monkeypatch.syspath_prepend(str(HERE))
    paths = [str(HERE), str(SRC)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))


@pytest.fixture
def spec():
    from webgauge.run import RunSpec

    return RunSpec(suite="test", models=["random"], seeds=[7], prompts={"qa": "Answer briefly."}, options={})
