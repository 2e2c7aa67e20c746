"""The BrowserGym venv the browsergym tests use: built once, under ``.harness-venvs/browsergym`` (git-ignored).

It holds ``browsergym-core==0.14.3`` with the Playwright it pins (older than webgauge's, hence
its own venv) and this repository's ``integrations/browsergym`` package. ``python -m
browsergym.webgauge.offline`` (the documented command) links Playwright's bundled Chromium path,
inside the venv (``PLAYWRIGHT_BROWSERS_PATH``), to the system Chromium: BrowserGym's page browser
and its chat window's browser both start it, nothing is downloaded. ``WEBGAUGE_BGYM_VENV`` points
the tests at another folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "integrations" / "browsergym"
BROWSERGYM = "browsergym-core==0.14.3"
DRIVER = Path(__file__).with_name("bgym_driver.py")


class VenvError(RuntimeError):
    """The venv could not be built; the message names the fix."""


def venv_dir() -> Path:
    return Path(os.environ.get("WEBGAUGE_BGYM_VENV") or ROOT / ".harness-venvs" / "browsergym")


def system_chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise VenvError("no system Chromium on PATH: install Debian's `chromium` package (apt-get install chromium)")
    return path


def _package_hash() -> str:
    h = hashlib.sha256()
    for p in sorted(PACKAGE.rglob("*")):
        if p.is_file() and "egg-info" not in str(p) and "__pycache__" not in str(p) and "build" not in p.parts:
            h.update(str(p.relative_to(PACKAGE)).encode() + p.read_bytes())
    return h.hexdigest()


def _run(argv: list[str], what: str, env: dict | None = None) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-8:]
        raise VenvError(f"{what} failed (exit {proc.returncode}): {' | '.join(tail)}\nfix: make PyPI reachable for pip "
                        f"(`{BROWSERGYM}` and its pinned Playwright), or build the venv yourself at {venv_dir()} "
                        f"(python -m venv; pip install {BROWSERGYM} {PACKAGE}) and rerun; WEBGAUGE_BGYM_VENV points "
                        "the tests at another folder")
    return proc.stdout


def driver_env(arena_url: str | None = None) -> dict:
    env = dict(os.environ, PLAYWRIGHT_BROWSERS_PATH=str(venv_dir() / "ms-playwright"), PYTHONPATH="",
               PYTHONUNBUFFERED="1")
    if arena_url:
        env["WEBGAUGE_ARENA_URL"] = arena_url
    return env


def ensure_venv() -> Path:
    """The venv's python, with browsergym-core, this package (reinstalled when its files changed)
    and the Chromium link in place."""
    venv = venv_dir()
    py = venv / "bin" / "python"
    chromium = system_chromium()
    if not py.exists():
        _run([sys.executable, "-m", "venv", str(venv)], f"creating the venv {venv}")
    stamp = venv / "webgauge-stamp.json"
    want = {"browsergym": BROWSERGYM, "package": _package_hash(), "chromium": chromium}
    have = json.loads(stamp.read_text()) if stamp.exists() else {}
    if have.get("browsergym") != BROWSERGYM:
        _run([str(py), "-m", "pip", "install", "-q", BROWSERGYM], f"pip install {BROWSERGYM}")
    if have.get("package") != want["package"]:
        _run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(PACKAGE)],
             "pip install integrations/browsergym")
        shutil.rmtree(PACKAGE / "build", ignore_errors=True)
    if have.get("chromium") != chromium or have != want:
        _run([str(py), "-m", "browsergym.webgauge.offline", "--chromium", chromium],
             "python -m browsergym.webgauge.offline (Playwright's Chromium path -> the system Chromium)",
             env=driver_env())
    stamp.write_text(json.dumps(want))
    return py
