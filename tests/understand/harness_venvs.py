"""Where the harness venvs are (``python scripts/harness_venv.py NAME`` creates them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def harness_python(name: str) -> Path:
    """The python of harness venv ``name``; fails the test (naming the command) when missing."""
    base = Path(os.environ.get("WEBGAUGE_HARNESS_VENVS", ROOT / ".harness-venvs"))
    python = base / name / "bin" / "python"
    if not python.exists():
        pytest.fail(f"no {name} venv at {python.parent.parent}: create it with "
                    f"`python scripts/harness_venv.py {name}` (installs it from PyPI)")
    return python


def offline() -> list[str]:
    """A command prefix that runs the command with no network: a network namespace of its own
    whose only interface is loopback (brought up, so loopback servers work), so what it would
    download fails instead of passing by. Needs ``unshare`` (util-linux), ``ip`` (iproute2) and
    root, as CI has."""
    unshare, ip = shutil.which("unshare"), shutil.which("ip") or "/usr/sbin/ip"
    prefix = [str(unshare), "-n", "sh", "-c", f'{ip} link set lo up && exec "$@"', "offline"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True) if unshare else None
    if probe is None or probe.returncode != 0:
        pytest.fail("the offline check needs `unshare -n` (util-linux) and `ip` (iproute2), run as root: "
                    f"{probe.stderr.strip() if probe else 'no unshare on PATH'}")
    return prefix


def run_in(python: Path, *args: str, cwd: Path | None = None, timeout: float = 1800,
           extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``args`` in the harness venv (webgauge is installed there editable from this checkout); fail on error."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env = {**env, **(extra_env or {}), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "INSPECT_DISPLAY": "none", "NO_COLOR": "1", "PATH": f"{python.parent}:{os.environ.get('PATH', '')}"}
    proc = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)
    if proc.returncode != 0:
        pytest.fail(
            f"{' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    return proc


def record_numbers(name: str, numbers: dict) -> Path:
    """Keep a harness test's numbers beside webgauge's own for the same answers (what `make test-harnesses`
    measured): ``.cache/harness-numbers/<name>.json`` in this checkout, replaced on each run."""
    import json

    out = ROOT / ".cache" / "harness-numbers" / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(numbers, indent=1, sort_keys=True) + "\n")
    return out
