"""Create a virtual environment for a third-party evaluation harness (Inspect, lmms-eval).

    python scripts/harness_venv.py inspect       # .harness-venvs/inspect: inspect_ai
    python scripts/harness_venv.py lmms-eval     # .harness-venvs/lmms-eval: lmms-eval

Why a venv of its own: each harness pins versions that differ from ours (``inspect_ai`` needs an
older ``fsspec`` and ``python-dateutil`` through ``s3fs``/``botocore``), so installing it beside
webgauge would downgrade packages webgauge's environment pins. The harness venv holds the harness
and everything it resolves to; webgauge itself is installed into it editable without dependencies
(so the ``inspect_ai`` entry point and ``webgauge`` resolve to this checkout), and the rest of
webgauge's dependencies (scikit-learn, sentence-transformers, the embedding model...) come from
the environment that runs this script, appended to the harness venv's path by a ``.pth`` file
*after* its own site-packages, so the harness's own pins win. PyTorch is installed first from the
CPU wheel pinned in scripts/bootstrap.sh (``torch==2.13.0``, a file on disk that pip resolves) and
kept there by a constraint while the harness resolves, so that no CUDA build is downloaded; the
build fails if a CUDA package (``nvidia-*``, ``triton``) or another torch got in all the same.
torchvision is removed again after lmms-eval's install: lmms-eval requires it, but PyPI's build
links PyTorch's CUDA libraries and fails to import beside the CPU torch ("operator
torchvision::nms does not exist"), and transformers imports it whenever it is installed. The
export's task loading and scoring need neither; a local Hugging Face model run in lmms-eval that
needs torchvision needs ``pip install torch==2.14.1 torchvision==0.29.1`` (a CUDA build, ~5.5 GB).

Idempotent: a venv whose stamp matches this script and pyproject.toml is left as it is.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESSES = {
    "inspect": {"packages": ["inspect_ai"], "torch": False, "remove": []},
    "lmms-eval": {"packages": ["lmms-eval"], "torch": True, "remove": ["torchvision"]},
}
TORCH = "torch==2.13.0"


def venv_dir(name: str) -> Path:
    base = Path(os.environ.get("WEBGAUGE_HARNESS_VENVS", ROOT / ".harness-venvs"))
    return base / name


def _stamp() -> str:
    text = (ROOT / "pyproject.toml").read_bytes() + Path(__file__).read_bytes() + sys.prefix.encode()
    return hashlib.sha256(text).hexdigest()[:16]


def _site_packages(python: Path) -> Path:
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


def _check_cpu_torch(python: Path) -> None:
    """Fail unless the venv holds the pinned CPU torch and no CUDA package."""
    out = subprocess.run([str(python), "-c", "import importlib.metadata as m; "
                          "print('\\n'.join(f\"{d.metadata['Name']}=={d.version}\" for d in m.distributions()))"],
                         check=True, capture_output=True, text=True).stdout.split()
    cuda = sorted(d for d in out if d.lower().startswith(("nvidia-", "triton==", "cuda-")))
    torch = sorted({d for d in out if d.lower().startswith("torch==")})
    want = TORCH.split("==")[1]
    if cuda or len(torch) != 1 or torch[0].split("==")[1].split("+")[0] != want:
        raise SystemExit(f"the venv at {python.parent.parent} got {torch or 'no torch'} and CUDA packages {cuda}: "
                         f"expected only {TORCH} (the CPU build on disk). Check that pip finds the CPU wheel "
                         f"(`pip download {TORCH} --no-deps`) and rerun with --force")


def create(name: str, force: bool = False) -> Path:
    """Create (or reuse) the venv of harness ``name``; returns its python."""
    if name not in HARNESSES:
        raise SystemExit(f"unknown harness {name!r}; choose one of {sorted(HARNESSES)}")
    spec = HARNESSES[name]
    venv = venv_dir(name)
    python = venv / "bin" / "python"
    stamp = venv / ".webgauge-harness"
    if not force and stamp.is_file() and stamp.read_text() == _stamp() and python.exists():
        print(f"{name}: {venv} is ready")
        return python
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    extra: list[str] = []
    if spec["torch"]:
        subprocess.run([*pip, TORCH], check=True)
        # keep it: without the constraint, a newer torchvision pulls a newer (CUDA) torch from PyPI
        pins = venv / "torch-constraint.txt"
        pins.write_text(TORCH + "\n")
        extra = ["-c", str(pins)]
    subprocess.run([*pip, *extra, *spec["packages"]], check=True)
    if spec["remove"]:
        subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", *spec["remove"]], check=True)
    if spec["torch"]:
        _check_cpu_torch(python)
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True)
    # the editable build leaves src/webgauge.egg-info, which would shadow the venv's metadata (its
    # entry points and the editable marker Inspect reads) whenever src/ is on PYTHONPATH
    shutil.rmtree(ROOT / "src" / "webgauge.egg-info", ignore_errors=True)
    # webgauge's own dependencies from this interpreter's environment, after the harness's own
    ours = sysconfig.get_paths()["purelib"]
    (_site_packages(python) / "zz_webgauge_deps.pth").write_text(ours + "\n")
    stamp.write_text(_stamp())
    print(f"{name}: installed into {venv} in {time.monotonic() - t0:.0f} s")
    return python


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("harness", nargs="+", choices=sorted(HARNESSES))
    ap.add_argument("--force", action="store_true", help="recreate the venv even if its stamp matches")
    a = ap.parse_args()
    for name in a.harness:
        create(name, a.force)


if __name__ == "__main__":
    main()
