"""Without inspect_ai, `webgauge understand import-inspect` says in one line what to run instead.

The process hides inspect_ai (``sys.modules["inspect_ai"] = None`` makes every import of it
fail, as in an environment without it); the command exits 1 with a single line naming the
harness venv's webgauge and the same arguments, and no traceback.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RUN = ("import sys; sys.modules['inspect_ai'] = None; sys.argv[0] = 'webgauge'; "
       "from webgauge.cli.main import main; main()")


def test_import_inspect_without_inspect_names_the_command(tmp_path):
    log = tmp_path / "x.eval"
    log.write_bytes(b"PK")
    venvs = tmp_path / "venvs"
    (venvs / "inspect" / "bin").mkdir(parents=True)
    (venvs / "inspect" / "bin" / "webgauge").write_text("#!/bin/sh\n")
    env = {"PATH": "/usr/bin:/bin", "WEBGAUGE_HARNESS_VENVS": str(venvs), "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", RUN, "understand", "import-inspect", str(log), "--out",
                           str(tmp_path / "run")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 1
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0] and "inspect_ai" in lines[0]
    assert f"{venvs / 'inspect' / 'bin' / 'webgauge'} understand import-inspect {log} --out {tmp_path / 'run'}" \
        in lines[0], lines[0]
    # no harness venv: the line says how to make one
    (venvs / "inspect" / "bin" / "webgauge").unlink()
    proc = subprocess.run([sys.executable, "-c", RUN, "understand", "import-inspect", str(log), "--out",
                           str(tmp_path / "run")], capture_output=True, text=True, env=env, cwd=tmp_path)
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    assert proc.returncode == 1 and len(lines) == 1 and "scripts/harness_venv.py inspect" in lines[0], lines
