#!/usr/bin/env bash
# Idempotent set-up for a fresh machine: Debian Chromium and fonts when missing, a virtual
# environment, and webgauge with its extras. Safe to run again; a no-op when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
STAMP="$VENV/.webgauge-bootstrap"

need_apt=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need_apt+=(chromium)
# the arena's browser: the same engine without the browser's UI layer (webgauge.browser.chromium.HEADLESS_SHELL)
command -v chromium-headless-shell >/dev/null 2>&1 || need_apt+=(chromium-headless-shell)
# (read fc-list once: `fc-list | grep -q` under pipefail fails on SIGPIPE)
fonts="$(fc-list 2>/dev/null || true)"
grep -qi dejavu <<<"$fonts" || need_apt+=(fonts-dejavu-core)
grep -qi liberation <<<"$fonts" || need_apt+=(fonts-liberation2)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

want="$(cat pyproject.toml scripts/bootstrap.sh | sha256sum | cut -c1-16)"
# webgauge's own modules compiled ahead (timestamp-checked, so an edited file is compiled afresh):
# the editable install leaves them uncompiled, and with PYTHONDONTWRITEBYTECODE set (as on CI) every
# Python process of a test run (the workers, the spawned build and run processes, the CLI, Ray's
# workers: about a hundred) would compile them again, a third of a second of CPU each
# (bench/import_bench.py). Only new or changed files cost anything here.
compile_src() { "$VENV/bin/python" -m compileall -q src >/dev/null; }
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$VENV/bin/webgauge" ]; then
  compile_src
  exit 0
fi
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# CPU PyTorch first: an unpinned torch (pulled in by sentence-transformers) would fetch a CUDA build.
"$VENV/bin/python" -c "import torch" 2>/dev/null || "$VENV/bin/python" -m pip install -q "torch==2.13.0"
"$VENV/bin/python" -m pip install -q -e ".[all]"
compile_src
echo "$want" > "$STAMP"
echo "bootstrap: ready ($("$VENV/bin/webgauge" --version))"
