"""Gym ids exist as soon as ``webgauge.arena`` is imported, and the import stays cheap."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from webgauge.arena.adapters.gym_env import BUILTIN_FAMILIES
from webgauge.arena.tasks import build_tasks

_PROBE = """
import json, os, sys
import gymnasium, webgauge.arena
families = json.loads(sys.argv[1])
specs = [gymnasium.spec(f"webgauge/arena-{f}-v0") for f in families]
print(json.dumps({
    "ids": [s.id for s in specs],
    "entry_points": sorted({s.entry_point for s in specs}),
    "kwargs": [s.kwargs["family"] for s in specs],
    "playwright": sorted(m for m in sys.modules if m.startswith("playwright")),
    "children": [c for t in os.listdir(f"/proc/{os.getpid()}/task")
                 for c in open(f"/proc/{os.getpid()}/task/{t}/children").read().split()],
}))
"""


def test_the_builtin_table_names_every_family_the_tasks_build():
    assert sorted(BUILTIN_FAMILIES) == sorted({t.family for t in build_tasks((0,))})
    assert len(BUILTIN_FAMILIES) == len(set(BUILTIN_FAMILIES)) == 58


def test_import_registers_every_family_id_without_a_browser():
    families = sorted({t.family for t in build_tasks((0,))})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(families)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["ids"] == [f"webgauge/arena-{f}-v0" for f in families]
    assert got["kwargs"] == families
    assert got["entry_points"] == ["webgauge.arena.adapters.gym_env:make_family_env"]
    assert got["playwright"] == [] and got["children"] == []  # no Playwright loaded, no process (browser) started


def test_an_unknown_family_id_is_not_registered():
    probe = "import gymnasium, webgauge.arena\ntry:\n    gymnasium.spec('webgauge/arena-no.such-v0')\n" \
            "except gymnasium.error.Error as e:\n    print(type(e).__name__)\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip().endswith("NotFound"), (out.stdout, out.stderr[-800:])
