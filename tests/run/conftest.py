"""Fixtures for the run tests: the test handlers are importable by path in spawned workers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"


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
