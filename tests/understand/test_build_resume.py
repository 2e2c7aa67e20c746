"""A build killed with SIGKILL resumes without redoing the pages it finished, and writes the same
benchmark as a build that was never interrupted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from webgauge.understand.build import build_benchmark

pytestmark = pytest.mark.browser

KW = {"seed": 4, "synthetic": 4, "tasks": ["position", "ui_group", "safety"], "progress": False, "concurrency": 1}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_build_killed_with_sigkill_resumes_where_it_stopped(tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "webgauge.cli.main", "understand", "build", "--out", str(out), "--seed", "4",
           "--synthetic", "4", "--task", "position", "--task", "ui_group", "--task", "safety", "--concurrency", "1"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    pages = out / ".partial" / "pages"
    deadline = time.monotonic() + 600
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if len(list(pages.glob("*.json"))) >= 2:
                break
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the build, its browser and everything it started
        proc.wait()
    done = len(list(pages.glob("*.json")))
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()[-2000:]
    assert 2 <= done < 4, f"{done} pages finished before the kill; the test needs a build cut short"
    assert not (out / "manifest.json").exists()

    with pytest.raises(FileExistsError, match="--resume"):  # a plain build refuses the half-built folder
        build_benchmark(out, **KW)
    with pytest.raises(ValueError, match="seed"):  # resuming with other options would mix two benchmarks
        build_benchmark(out, resume=True, **{**KW, "seed": 5})
    stats = Counter()
    resumed = build_benchmark(out, resume=True, stats=stats, **KW)
    assert stats["pages resumed"] >= done and stats["pages resumed"] + stats["pages built"] == 4
    assert not (out / ".partial").exists()

    fresh = build_benchmark(tmp_path / "fresh", **KW)
    assert resumed["sha256"] == fresh["sha256"]
    assert _tree(out) == _tree(tmp_path / "fresh")
    with pytest.raises(ValueError, match="no interrupted build"):  # nothing left to resume
        build_benchmark(out, resume=True, **KW)
