#!/usr/bin/env bash
# The real apps under test: install each named app (default: roundup mediawiki oscar trac spirit) into a scratch apps home,
# build its seeds 0-9, then run its tests: 100 resets to one state hash, the oracle on every family at seeds 0-9,
# the sloppy-work checks, and every entry point on its families (the CLI's run, report, package, verify, tasks,
# sweep and safety, and the gym ids: tests/arena_realapps/test_entry_points.py), and the approval gate on its
# irreversible controls (tests/arena_realapps/test_realapp_gate.py) (pytest -m realapps).
# CI runs it for Roundup (PyPI only). REALAPPS_BROWSERGYM=1 adds the BrowserGym ids (needs BrowserGym's venv).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
export WEBGAUGE_APPS_HOME="${WEBGAUGE_APPS_HOME:-$PWD/.apps}"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(roundup mediawiki oscar trac spirit)
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
"$PY" -m webgauge.cli.main arena tasks --families
export WEBGAUGE_REALAPPS="${apps[*]}"
files+=("tests/arena_realapps/test_entry_points.py" "tests/arena_realapps/test_realapp_gate.py")
mark="realapps and not browsergym"
if [ "${REALAPPS_BROWSERGYM:-0}" = 1 ]; then
    files+=("tests/browsergym/test_browsergym_realapps.py")
    mark="realapps"
fi
"$PY" -m pytest -q -p no:cacheprovider -m "$mark" "${files[@]}"
echo "real apps (${apps[*]}): $(( $(date +%s) - start )) s"
