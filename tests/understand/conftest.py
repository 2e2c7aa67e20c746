"""One small benchmark built once per session (real Chromium, synthetic + one real page)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("WEBGAUGE_SHARED", Path(__file__).resolve().parents[3] / "shared"))
REAL_PAGE = SHARED / "data" / "design2code" / "pages" / "10955.html"
SEED, SYNTHETIC = 3, 2


@pytest.fixture(scope="session")
def bench(tmp_path_factory):
    from webgauge.understand import build_benchmark

    if not REAL_PAGE.is_file():
        pytest.fail(f"shared real page missing at {REAL_PAGE}; set WEBGAUGE_SHARED to the shared/ folder")
    root = tmp_path_factory.mktemp("bench") / "b"
    manifest = build_benchmark(root, seed=SEED, synthetic=SYNTHETIC, pages=[REAL_PAGE], progress=False)
    return root, manifest


@pytest.fixture(scope="session")
def baseline_run(bench, tmp_path_factory):
    from webgauge.understand import run_benchmark

    root, _ = bench
    run = tmp_path_factory.mktemp("run") / "r"
    summary = run_benchmark(root, run, ["random-guess", "label-oracle", "dom-heuristic"], workers=1, progress=False)
    return run, summary
