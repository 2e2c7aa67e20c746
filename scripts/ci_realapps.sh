#!/usr/bin/env bash
# CI for the real apps: install Roundup (PyPI) and MediaWiki (Debian) into a scratch apps home, then run their
# reset-determinism tests and the oracle on every family at seeds 0-9 (pytest -m realapps).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
export WEBGAUGE_APPS_HOME="${WEBGAUGE_APPS_HOME:-$PWD/.apps}"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s)
"$PY" -m webgauge.cli.main arena apps install roundup --seeds 1 --seeds 2 --seeds 3 --seeds 4 --seeds 5 \
    --seeds 6 --seeds 7 --seeds 8 --seeds 9
"$PY" -m webgauge.cli.main arena apps install mediawiki --seeds 1 --seeds 2 --seeds 3 --seeds 4 --seeds 5 \
    --seeds 6 --seeds 7 --seeds 8 --seeds 9
"$PY" -m webgauge.cli.main arena apps list
"$PY" -m pytest -q -p no:cacheprovider -m realapps tests/arena_realapps
echo "real apps CI: $(( $(date +%s) - start )) s"
