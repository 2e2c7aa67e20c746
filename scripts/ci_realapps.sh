#!/usr/bin/env bash
# The real apps under test: install each named app (default: roundup mediawiki oscar) into a scratch apps home,
# build its seeds 0-9, then run its tests: 100 resets to one state hash, the oracle on every family at seeds 0-9,
# and the sloppy-work checks (pytest -m realapps). CI runs it for Roundup (PyPI only).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
export WEBGAUGE_APPS_HOME="${WEBGAUGE_APPS_HOME:-$PWD/.apps}"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(roundup mediawiki oscar)
start=$(date +%s)
files=()
for app in "${apps[@]}"; do
    t0=$(date +%s)
    "$PY" -m webgauge.cli.main arena apps install "$app" --seeds 1 --seeds 2 --seeds 3 --seeds 4 --seeds 5 \
        --seeds 6 --seeds 7 --seeds 8 --seeds 9
    echo "$app: installed with seeds 0-9 in $(( $(date +%s) - t0 )) s"
    files+=("tests/arena_realapps/test_${app}.py")
done
"$PY" -m webgauge.cli.main arena apps list
"$PY" -m pytest -q -p no:cacheprovider -m realapps "${files[@]}"
echo "real apps (${apps[*]}): $(( $(date +%s) - start )) s"
